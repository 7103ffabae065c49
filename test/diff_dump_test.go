package test

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

// Differential tests of DUMP and RESTORE against redis-server 7.0.15, in
// RESP2 and RESP3. DUMP is compared byte for byte wherever both servers
// hold the value in the same encoding (strings, quicklists built by RPUSH,
// listpacks, intsets, skiplists); hashtable sets and hashes are written in
// each server's own dict order, so their payloads are checked by RESTORE
// instead. RESTORE is fed redis-server's own payloads, including the older
// encodings Redis 7.0 still loads (crafted here: ziplist, zipmap, quicklist
// of ziplists).

var dumpCases = []tpCase{
	{"strings", tpCmds(
		"SET int 12", "DUMP int",
		"SET neg -300", "DUMP neg",
		"SET i32 70000", "DUMP i32",
		"SET big 12345678901", "DUMP big",
		"SET nonint 007", "DUMP nonint",
		"SET minus0 -0", "DUMP minus0",
		"SET empty ''", "DUMP empty",
		"SET lzf "+strings.Repeat("abc", 30), "DUMP lzf",
		"SET nolzf abcdefghijklmnopqrstuvwxyz0123456789", "DUMP nolzf",
		"APPEND raw "+strings.Repeat("xy", 40), "DUMP raw",
		"SETRANGE sr 3 abc", "DUMP sr",
		"INCRBYFLOAT f 1.5", "DUMP f",
		"DUMP nosuch",
	)},
	{"lists", tpCmds(
		"RPUSH l a 1 -5000 100000 9223372036854775807 "+strings.Repeat("z", 70)+" "+strings.Repeat("w", 5000),
		"DUMP l",
		"LPUSH lp c b a", "DUMP lp",
		tpInts("RPUSH ints", 1, 3000), "DUMP ints",
		"RPUSH long "+strings.Repeat(strings.Repeat("q", 10)+" ", 1000), "DUMP long",
		"RPUSH huge "+strings.Repeat(strings.Repeat("h", 9000)+" ", 3), "DUMP huge",
	)},
	{"hashes", tpCmds(
		"HSET h f 1 g 300 x -7000 y big z 99999999999", "DUMP h",
		"HSET h g 301", "HDEL h x", "DUMP h",
		"HSET hl a "+strings.Repeat("v", 64), "DUMP hl",
	)},
	{"sorted sets", tpCmds(
		"ZADD z 1.5 a 1 b 0.1 c 3e20 d -0 e 1e18 f 5e18 g -inf h inf i 4503599627370497 j", "DUMP z",
		"ZADD z 2 a", "ZREM z b", "DUMP z",
		tpZAdd("ZADD zs", 200), "DUMP zs", "OBJECT ENCODING zs",
		"ZADD zneg -0 m", "DUMP zneg",
	)},
	{"sets", tpCmds(
		"SADD s16 1 2 -3", "DUMP s16",
		"SADD s32 1 70000", "DUMP s32",
		"SADD s64 1 9999999999 -9223372036854775808", "DUMP s64",
		tpInts("SADD many", 1, 512), "DUMP many",
	)},
	{"rdbcompression and list-max-listpack-size", tpCmds(
		"CONFIG SET rdbcompression no",
		"SET lzf "+strings.Repeat("abc", 30), "DUMP lzf",
		"RPUSH l "+strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaa ", 10), "DUMP l",
		"CONFIG SET rdbcompression yes",
		"CONFIG SET list-max-listpack-size 4",
		tpInts("RPUSH l4", 1, 30), "DUMP l4",
		"CONFIG SET list-max-listpack-size -1",
		"RPUSH l1 "+strings.Repeat(strings.Repeat("q", 100)+" ", 100), "DUMP l1",
		"CONFIG SET list-max-listpack-size -5",
		"RPUSH l5 "+strings.Repeat(strings.Repeat("p", 500)+" ", 300), "DUMP l5",
		"CONFIG SET list-max-listpack-size 0",
		tpInts("RPUSH l0", 1, 5), "DUMP l0",
		"CONFIG SET list-max-listpack-size -2",
	)},
	{"streams", tpCmds(streamDumpLines()...)},
	{"restore errors", tpCmds(
		"SET k v",
		"RESTORE k 0 x",
		"RESTORE k -1 x REPLACE",
		"RESTORE k x x REPLACE",
		"RESTORE k 0 x REPLACE",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE IDLETIME -1",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE IDLETIME x",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE FREQ 256",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE FREQ -1",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE FREQ 1 IDLETIME 1",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE IDLETIME 1 FREQ 1",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' REPLACE IDLETIME",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"' BOGUS",
		"RESTORE k 0 '"+hexEsc(dumpOf12)+"'",
		"RESTORE n 0 '"+hexEsc(dumpOf12[:len(dumpOf12)-1]+"\x00")+"'",
		"RESTORE n 0 '"+hexEsc("\x00\xc0\x0c\x0b\x00<*\xf8Q\\\x04\xbc\xd5")+"'",
		"RESTORE n 0 '"+hexEsc(withFooter("\x01\x00"))+"'",
		"RESTORE n 0 '"+hexEsc(withFooter("\x00\x05ab"))+"'",
		"RESTORE n 0 '"+hexEsc(withFooter("\x07\x00"))+"'",
		"RESTORE n 0 '"+hexEsc(withFooter("\x02\x02\x01a\x01a"))+"'",
		"RESTORE n 0 '"+hexEsc(withFooter("\x00\x01v"))+"'",
		"GET n",
		"RESTORE nz 0 '"+hexEsc("\x00\x01v\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")+"'",
		"GET nz",
		"RESTORE r 0 '"+hexEsc(dumpOf12)+"' REPLACE ABSTTL IDLETIME 10",
		"OBJECT IDLETIME r",
		"OBJECT ENCODING r",
		"RESTORE t 100000 '"+hexEsc(dumpOf12)+"'",
		"~ignore PTTL t",
		"RESTORE past 1 '"+hexEsc(dumpOf12)+"' ABSTTL",
		"EXISTS past",
		"RESTORE k 1 '"+hexEsc(dumpOf12)+"' ABSTTL REPLACE",
		"EXISTS k",
	)},
}

// tpZAdd is a ZADD of n members with repeating scores.
func tpZAdd(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := 0; i < n; i++ {
		b.WriteString(" " + strconv.Itoa(i*7%13) + ".5 m" + strconv.Itoa(i))
	}
	return b.String()
}

// streamDumpLines are streams whose DUMP is byte-equal on both servers
// (no consumers, whose seen times differ): same and other fields, integer
// fields and values, a negative sequence delta, tombstones, several nodes
// by count and by bytes, group names that are integers, counters, LZF on
// and off.
func streamDumpLines() []string {
	lines := []string{
		"XADD s 1-1 a 1 b 2", "XADD s 1-2 a 3 b 4", "XADD s 2-0 c x", "XADD s 5-10 f v",
		"XADD s 6-0 a " + strings.Repeat("x", 40) + " b -5000", "XADD s 7-0 123 9999999999999 '' ''",
		"XDEL s 1-2", "DUMP s",
		"XGROUP CREATE s g 0", "XGROUP CREATE s h $ ENTRIESREAD 2", "XGROUP CREATE s 42 1-1", "DUMP s",
		"XSETID s 10-0 ENTRIESADDED 9 MAXDELETEDID 1-5", "DUMP s",
		"XGROUP CREATE e g $ MKSTREAM", "DUMP e",
		"XADD gone 1-1 x y", "XDEL gone 1-1", "DUMP gone",
		"CONFIG SET stream-node-max-entries 5",
	}
	lines = append(lines, tpXAdds("big", 23)...)
	lines = append(lines, "XDEL big 2-0 7-0 8-0 9-0 10-0", "XTRIM big MINID 4-0", "DUMP big", "XINFO STREAM big",
		"CONFIG SET stream-node-max-entries 100", "CONFIG SET stream-node-max-bytes 100")
	lines = append(lines, tpXAdds("bytes", 30)...)
	return append(lines, "DUMP bytes", "XINFO STREAM bytes",
		"CONFIG SET stream-node-max-bytes 4096",
		"XADD long 1-0 f "+strings.Repeat("abc", 2000), "DUMP long",
		"CONFIG SET rdbcompression no", "DUMP s", "DUMP long", "CONFIG SET rdbcompression yes")
}

// tpXAdds is n XADDs to key with IDs 1-0 ... n-0, every fifth with other
// fields.
func tpXAdds(key string, n int) []string {
	var b []string
	for i := 1; i <= n; i++ {
		line := "XADD " + key + " " + strconv.Itoa(i) + "-0 f " + strconv.Itoa(i*37) + " g v" + strconv.Itoa(i)
		if i%5 == 0 {
			line = "XADD " + key + " " + strconv.Itoa(i) + "-0 other " + strconv.Itoa(i)
		}
		b = append(b, line)
	}
	return b
}

// hexEsc quotes s for tpSplit's single-quoted words.
func hexEsc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString("\\x" + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
	}
	return b.String()
}

// withFooter appends the RDB version and the CRC64 of a DUMP payload.
func withFooter(body string) string {
	b := append([]byte(body), 10, 0)
	return string(binary.LittleEndian.AppendUint64(b, crc64Jones(b)))
}

func crc64Jones(p []byte) uint64 {
	var crc uint64
	for _, c := range p {
		crc ^= uint64(c)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x95ac9329ac4bc9b5
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

func TestDiffDump(t *testing.T) { tpRunCases(t, dumpCases) }

// TestDiffRestoreRedisPayloads restores redis-server's DUMP of values of
// every type and encoding into both servers, and reads them back.
func TestDiffRestoreRedisPayloads(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			c := p.Conn("A")
			c.DoMode(cmpIgnore, "FLUSHALL")
			setup := []string{
				"SET s " + strings.Repeat("abc", 30),
				tpInts("SADD bigset", 1, 600),
				"SADD strset a b c",
				tpInts("SADD strset2", 1, 100) + " x",
				"HSET h a 1 b 2",
				tpHSet("HSET bigh", 600),
				tpZAdd("ZADD bigz", 300),
				"ZADD z 1 a 2 b",
				tpInts("RPUSH l", 1, 5000),
			}
			for _, line := range setup {
				c.DoMode(cmpExact, tpSplit(line)...)
			}
			for _, key := range []string{"s", "bigset", "strset", "strset2", "h", "bigh", "bigz", "z", "l"} {
				want, _ := c.DoMode(cmpIgnore, "DUMP", key)
				c.DoMode(cmpExact, "RESTORE", key+"-copy", "0", want.Str)
				c.DoMode(cmpExact, "OBJECT", "ENCODING", key+"-copy")
				tpReadBack(c, key+"-copy")
			}
			// Under other limits the encodings after RESTORE follow them.
			c.DoMode(cmpExact, "CONFIG", "SET", "hash-max-listpack-entries", "1", "zset-max-listpack-entries", "1", "set-max-intset-entries", "1")
			p.taint()
			for _, key := range []string{"h", "z", "strset", "bigset"} {
				want, _ := c.DoMode(cmpIgnore, "DUMP", key)
				c.DoMode(cmpExact, "RESTORE", key+"-lim", "0", want.Str)
				c.DoMode(cmpExact, "OBJECT", "ENCODING", key+"-lim")
				tpReadBack(c, key+"-lim")
			}
		})
	}
}

// tpHSet is an HSET of n fields.
func tpHSet(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := 0; i < n; i++ {
		b.WriteString(" f" + strconv.Itoa(i) + " v" + strconv.Itoa(i))
	}
	return b.String()
}

// tpReadBack compares key's whole value on both servers.
func tpReadBack(c *diffConn, key string) {
	want, _ := c.DoMode(cmpExact, "TYPE", key)
	switch want.Str {
	case "string":
		c.DoMode(cmpExact, "GET", key)
	case "list":
		c.DoMode(cmpExact, "LRANGE", key, "0", "-1")
	case "set":
		c.DoMode(cmpSorted, "SMEMBERS", key)
	case "hash":
		tpDo(c, tpSortedPairs, "HGETALL", key)
	case "zset":
		c.DoMode(cmpExact, "ZRANGE", key, "0", "-1", "WITHSCORES")
	}
	c.DoMode(cmpExact, "PTTL", key)
}

// TestDiffStreamRestore moves streams with groups, PELs and consumers both
// ways: redis-server's DUMP and ours are each RESTOREd into both servers,
// and XINFO STREAM FULL (delivery and seen times included, which the
// payload carries) must agree, as must what writes and group reads do to
// the restored streams afterwards. Damaged stream payloads get Redis's
// error.
func TestDiffStreamRestore(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			c := p.Conn("A")
			c.DoMode(cmpIgnore, "FLUSHALL")
			for _, cmd := range rdbStreamDataset() {
				c.DoMode(cmpExact, cmd...)
			}
			for _, key := range []string{"st", "emptied", "gone", "bigst"} {
				redisDump, ourDump := c.DoMode(cmpIgnore, "DUMP", key)
				for _, from := range []struct{ name, payload string }{{"redis", redisDump.Str}, {"ours", ourDump.Str}} {
					k := key + "-" + from.name
					c.DoMode(cmpExact, "RESTORE", k, "0", from.payload)
					c.DoMode(cmpExact, "XINFO", "STREAM", k, "FULL")
					c.DoMode(cmpExact, "OBJECT", "ENCODING", k)
					c.DoMode(cmpExact, "XADD", k, "1000-0", "f", "v")
					c.DoMode(cmpExact, "XINFO", "STREAM", k)
					c.DoMode(cmpExact, "XINFO", "GROUPS", k)
					c.DoMode(cmpExact, "XREADGROUP", "GROUP", "g1", "dave", "STREAMS", k, "0")
					c.DoMode(cmpExact, "XACK", k, "g1", "1-1", "2-0")
					c.DoMode(cmpExact, "XRANGE", k, "-", "+")
				}
				// Damaged payloads: cut, bit flips, each with a valid footer,
				// checked deeply (without it Redis keeps a damaged listpack,
				// which miniwatchd, decoding every node, refuses).
				c.DoMode(cmpExact, "CONFIG", "SET", "sanitize-dump-payload", "yes")
				body := redisDump.Str[:len(redisDump.Str)-10]
				for _, cut := range []int{1, len(body) / 3, len(body) - 1} {
					c.DoMode(cmpExact, "RESTORE", key+"-cut", "0", withFooter(body[:cut]))
				}
				for _, i := range []int{1, min(20, len(body)-1), len(body) / 2, len(body) - 2} { // not in a node key (see TestStreamDecodeRefuses)
					b := []byte(body)
					b[i] ^= 0x04
					c.DoMode(cmpExact, "RESTORE", key+"-flip"+strconv.Itoa(i), "0", withFooter(string(b)), "REPLACE")
				}
				c.DoMode(cmpExact, "CONFIG", "SET", "sanitize-dump-payload", "no")
			}
			// The old RDB_TYPE_STREAM_LISTPACKS (15), made from a type-19
			// payload by dropping first ID, max deleted ID, entries added
			// and the group's entries read: both servers derive them.
			for _, line := range []string{"XADD leg 1-1 a 1 b 2", "XADD leg 1-2 a 3 b 4", "XADD leg 2-0 c x", "XDEL leg 1-2",
				"XGROUP CREATE leg g 0", "XREADGROUP GROUP g alice COUNT 1 STREAMS leg >"} {
				c.DoMode(cmpExact, tpSplit(line)...)
			}
			redisDump, _ := c.DoMode(cmpIgnore, "DUMP", "leg")
			body := redisDump.Str[:len(redisDump.Str)-10]
			v19 := "\x02\x02\x00\x01\x01\x01\x02\x03\x01\x01g\x01\x01\x81\xff\xff\xff\xff\xff\xff\xff\xff"
			if body[0] != 19 || !strings.Contains(body, v19) {
				t.Fatalf("unexpected DUMP of leg: %q", body)
			}
			legacy := "\x0f" + strings.Replace(body[1:], v19, "\x02\x02\x00\x01\x01g\x01\x01", 1)
			c.DoMode(cmpExact, "RESTORE", "leg15", "0", withFooter(legacy))
			c.DoMode(cmpExact, "XINFO", "STREAM", "leg15", "FULL")
			c.DoMode(cmpExact, "XINFO", "GROUPS", "leg15")
			c.DoMode(cmpExact, "XADD", "leg15", "3-0", "z", "z")
			c.DoMode(cmpExact, "XINFO", "GROUPS", "leg15")
			_, ourDump := c.DoMode(cmpIgnore, "DUMP", "leg15")
			c.DoMode(cmpExact, "RESTORE", "leg19", "0", ourDump.Str)
			c.DoMode(cmpExact, "XINFO", "STREAM", "leg19", "FULL")
			c.DoMode(cmpExact, "XREADGROUP", "GROUP", "g", "alice", "STREAMS", "leg19", ">")
			c.DoMode(cmpExact, "XINFO", "GROUPS", "leg19")
		})
	}
}
