package test

import (
	"encoding/binary"
	"strconv"
	"testing"
)

// RESTORE of the older encodings Redis 7.0 still loads, crafted here as
// Redis 2.x-6.x wrote them (ziplist, zipmap, quicklist of ziplists), and of
// corrupt compact blobs under sanitize-dump-payload yes: both servers must
// give the same reply, encoding and contents.

// zlEntry encodes one ziplist entry's encoding and data (no prevlen).
func zlEntry(s string) []byte {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(n, 10) == s {
		switch {
		case n >= 0 && n <= 12:
			return []byte{0xf1 + byte(n)}
		case n >= -128 && n <= 127:
			return []byte{0xfe, byte(n)}
		case n >= -32768 && n <= 32767:
			return binary.LittleEndian.AppendUint16([]byte{0xc0}, uint16(n))
		}
		return binary.LittleEndian.AppendUint64([]byte{0xe0}, uint64(n))
	}
	if len(s) < 64 {
		return append([]byte{byte(len(s))}, s...)
	}
	return append([]byte{0x40 | byte(len(s)>>8), byte(len(s))}, s...)
}

// ziplist builds a ziplist of elems.
func ziplist(elems ...string) string {
	zl := make([]byte, 10)
	prev, tail := 0, 10
	for _, e := range elems {
		tail = len(zl)
		var entry []byte
		if prev < 254 {
			entry = []byte{byte(prev)}
		} else {
			entry = binary.LittleEndian.AppendUint32([]byte{0xfe}, uint32(prev))
		}
		entry = append(entry, zlEntry(e)...)
		zl = append(zl, entry...)
		prev = len(entry)
	}
	zl = append(zl, 0xff)
	binary.LittleEndian.PutUint32(zl, uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(len(elems)))
	return string(zl)
}

// zipmap builds a zipmap of field, value pairs.
func zipmap(pairs ...string) string {
	zm := []byte{byte(len(pairs) / 2)}
	for i := 0; i < len(pairs); i += 2 {
		zm = append(zm, byte(len(pairs[i])))
		zm = append(zm, pairs[i]...)
		zm = append(zm, byte(len(pairs[i+1])), 0)
		zm = append(zm, pairs[i+1]...)
	}
	return string(append(zm, 0xff))
}

// rdbStr is an RDB string of s (plain length encoding).
func rdbStr(s string) string {
	switch n := len(s); {
	case n < 64:
		return string([]byte{byte(n)}) + s
	case n < 16384:
		return string([]byte{0x40 | byte(n>>8), byte(n)}) + s
	}
	return string(binary.BigEndian.AppendUint32([]byte{0x80}, uint32(len(s)))) + s
}

// lpStrings builds a listpack whose elements are all short strings.
func lpStrings(elems ...string) string {
	lp := make([]byte, 6)
	for _, e := range elems {
		entry := append([]byte{0x80 | byte(len(e))}, e...)
		lp = append(lp, entry...)
		lp = append(lp, byte(len(entry)))
	}
	lp = append(lp, 0xff)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	binary.LittleEndian.PutUint16(lp[4:], uint16(len(elems)))
	return string(lp)
}

func TestDiffRestoreOldEncodings(t *testing.T) {
	long := "a-member-longer-than-sixty-four-bytes-so-the-hash-goes-to-a-hashtable-xxxxxxxx"
	payloads := []struct{ name, body string }{
		{"list ziplist", "\x0a" + rdbStr(ziplist("a", "1", "-100", "300", "70000", "bb"))},
		{"hash ziplist", "\x0d" + rdbStr(ziplist("f", "1", "g", "x"))},
		{"hash ziplist long value", "\x0d" + rdbStr(ziplist("f", long))},
		{"hash listpack long value", "\x10" + rdbStr(lpStrings("f", "v")[:0]+lpLong("f", long))},
		{"zset ziplist long member", "\x0c" + rdbStr(ziplist(long, "1"))},
		{"zset listpack long member", "\x11" + rdbStr(lpLong(long, "1"))},
		{"zset ziplist", "\x0c" + rdbStr(ziplist("c", "-3", "a", "1", "b", "2.5"))},
		{"hash zipmap", "\x09" + rdbStr(zipmap("foo", "bar", "n", "12"))},
		{"quicklist of ziplists", "\x0e\x02" + rdbStr(ziplist("a", "b", "1")) + rdbStr(ziplist("c", "-2"))},
		{"old zset with text scores", "\x03\x02" + rdbStr("a") + "\x031.5" + rdbStr("b") + "\xfe"},
		{"hash ziplist with a duplicate", "\x0d" + rdbStr(ziplist("f", "1", "f", "2"))},
		{"zset ziplist with a duplicate", "\x0c" + rdbStr(ziplist("a", "1", "a", "2"))},
		{"hash zipmap with a duplicate", "\x09" + rdbStr(zipmap("foo", "bar", "foo", "12"))},
		{"hash listpack with a duplicate", "\x10" + rdbStr(lpStrings("f", "1", "f", "2"))},
		{"set listpack (7.2)", "\x14" + rdbStr(lpStrings("a", "b"))},
		{"quicklist2 plain node", "\x12\x01\x01" + rdbStr("plain")},
		{"quicklist2 bad container", "\x12\x01\x03" + rdbStr("plain")},
		{"empty hash listpack", "\x10" + rdbStr(lpStrings())},
		{"odd hash listpack", "\x10" + rdbStr(lpStrings("f"))},
		{"zset listpack bad score", "\x11" + rdbStr(lpStrings("m", "x"))},
	}
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			c := p.Conn("A")
			for _, sanitize := range []string{"yes", "no"} {
				c.DoMode(cmpIgnore, "FLUSHALL")
				c.DoMode(cmpExact, "CONFIG", "SET", "sanitize-dump-payload", sanitize)
				for i, pl := range payloads {
					if sanitize == "no" && (pl.name == "hash listpack with a duplicate") {
						continue // Redis then keeps both fields, a corrupt hash
					}
					p.where = pl.name + " (sanitize " + sanitize + ")"
					key := "k" + strconv.Itoa(i)
					want, _ := c.DoMode(cmpExact, "RESTORE", key, "0", withFooter(pl.body))
					if want.Kind == '+' {
						c.DoMode(cmpExact, "OBJECT", "ENCODING", key)
						tpReadBack(c, key)
					}
				}
			}
		})
	}
}

// lpLong builds a listpack of strings shorter than 128 bytes.
func lpLong(elems ...string) string {
	lp := make([]byte, 6)
	for _, e := range elems {
		var entry []byte
		if len(e) < 64 {
			entry = append([]byte{0x80 | byte(len(e))}, e...)
		} else {
			entry = append([]byte{0xe0 | byte(len(e)>>8), byte(len(e))}, e...)
		}
		lp = append(lp, entry...)
		lp = append(lp, byte(len(entry)))
	}
	lp = append(lp, 0xff)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	binary.LittleEndian.PutUint16(lp[4:], uint16(len(elems)))
	return string(lp)
}
