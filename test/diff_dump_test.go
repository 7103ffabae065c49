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
