package test

import (
	"strconv"
	"strings"
	"testing"
)

// Differential tests of the set family against redis-server 7.0.15, in
// RESP2 and RESP3. Intsets list members in ascending order, so replies that
// iterate one are compared exactly; hashtable ones are compared sorted.

// tpInts returns "prefix lo lo+1 ... hi" as one command line.
func tpInts(prefix string, lo, hi int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := lo; i <= hi; i++ {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

var setCases = []tpCase{
	{"sadd-srem", tpCmds(
		"SADD s 3 1 2",
		"SADD s 2 4",
		"SMEMBERS s",
		"OBJECT ENCODING s",
		"SCARD s",
		"SISMEMBER s 1",
		"SISMEMBER s 01",
		"SISMEMBER s x",
		"SMISMEMBER s 1 x 4 -1",
		"SMISMEMBER nokey a b",
		"SREM s 1 1 x",
		"SREM s 9",
		"SMEMBERS s",
		"SREM s 2 3 4 5",
		"EXISTS s",
		"SREM nokey a",
		"SCARD nokey",
		"SISMEMBER nokey a",
		"SMEMBERS nokey",
		"SADD t a",
		"OBJECT ENCODING t",
		"SADD u 1 a",
		"OBJECT ENCODING u",
		"~sorted SMEMBERS u",
		"SADD v -5 9223372036854775807 -9223372036854775808 0",
		"SMEMBERS v",
		"OBJECT ENCODING v",
		"SADD w 9223372036854775808",
		"OBJECT ENCODING w",
		"SADD x '' ' 1' +1 01 -0",
		"OBJECT ENCODING x",
		"~sorted SMEMBERS x",
	)},
	{"set-errors", tpCmds(
		"SADD s",
		"SREM s",
		"SCARD",
		"SISMEMBER s",
		"SMISMEMBER s",
		"SMEMBERS",
		"SRANDMEMBER",
		"SPOP",
		"SMOVE a b",
		"SINTER",
		"SINTERCARD",
		"SINTERCARD 1",
		"SINTERSTORE d",
		"SUNION",
		"SUNIONSTORE d",
		"SDIFF",
		"SDIFFSTORE d",
		"SSCAN s",
		"SET str x",
		"SADD str a",
		"SREM str a",
		"SCARD str",
		"SISMEMBER str a",
		"SMISMEMBER str a",
		"SMEMBERS str",
		"SRANDMEMBER str",
		"SRANDMEMBER str 2",
		"SPOP str",
		"SPOP str 2",
		"SMOVE str d a",
		"SSCAN str 0",
		"SINTER str",
		"SUNION str",
		"SDIFF str",
	)},
	{"srandmember", tpCmds(
		"SADD s 5 3 1",
		"SRANDMEMBER s 3",
		"SRANDMEMBER s 10",
		"SRANDMEMBER s 9223372036854775807",
		"SRANDMEMBER s 0",
		"SRANDMEMBER s abc",
		"SRANDMEMBER s -9223372036854775808",
		"SRANDMEMBER s 1 2",
		"SRANDMEMBER nokey",
		"SRANDMEMBER nokey 5",
		"SRANDMEMBER nokey -5",
		"SRANDMEMBER nokey abc",
		"~shape SRANDMEMBER s",
		"~shape SRANDMEMBER s 1",
		"~shape SRANDMEMBER s 2",
		"~shape SRANDMEMBER s -7",
		"SADD h a b c",
		"~sorted SRANDMEMBER h 5",
		"~shape SRANDMEMBER h 2",
	)},
	{"spop", tpCmds(
		"SADD s 5 3 1",
		"SPOP s 0",
		"SPOP s -1",
		"SPOP s abc",
		"SPOP s 1 2",
		"SPOP nokey",
		"SPOP nokey 3",
		"SPOP nokey 0",
		"SPOP nokey -1",
		"SPOP s 3",
		"EXISTS s",
		"SADD s 9 8 7",
		"SPOP s 10",
		"EXISTS s",
		"SADD h a b 1 2 3",
		"~shape SPOP h",
		"~shape SPOP h 2",
		"SCARD h",
		"~shape SPOP h 2",
		"EXISTS h",
		"SADD r 1 2 3 4 5 6 7 8 9 10 a",
		"SREM r a",
		"OBJECT ENCODING r",
		"~shape SPOP r 9",
		"OBJECT ENCODING r",
		"SCARD r",
		"SADD m 1 2 3 a",
		"SREM m a",
		"SPOP m 5",
	)},
	{"smove", tpCmds(
		"SADD a 1 2 x",
		"SADD b 3",
		"SMOVE nokey b 1",
		"SMOVE a b nope",
		"SMOVE a b 1",
		"SMEMBERS b",
		"SMOVE a b x",
		"OBJECT ENCODING b",
		"~sorted SMEMBERS b",
		"SMOVE a a 2",
		"SMOVE a a 9",
		"SMOVE a newset 2",
		"EXISTS a",
		"SMEMBERS newset",
		"OBJECT ENCODING newset",
		"SMOVE b newset 3",
		"SADD src k",
		"SET str v",
		"SMOVE src str k",
		"SMOVE str src k",
		"SMOVE nokey str k",
		"SISMEMBER src k",
		"SADD dup k",
		"SADD dup2 k",
		"SMOVE dup dup2 k",
		"EXISTS dup",
		"SMEMBERS dup2",
	)},
	{"sinter", tpCmds(
		"SADD a 1 2 3 4",
		"SADD b 2 3 4 5",
		"SADD c 3 4 x",
		"SINTER a b",
		"SINTER b a",
		"SINTER a",
		"SINTER a a",
		"~sorted SINTER a c",
		"~sorted SINTER c a",
		"SINTER a b nokey",
		"SINTER nokey a",
		"SET str v",
		"SINTER nokey str",
		"SINTER a str",
		"SINTERSTORE d a b",
		"SMEMBERS d",
		"OBJECT ENCODING d",
		"SINTERSTORE d a c",
		"OBJECT ENCODING d",
		"SINTERSTORE d a nokey",
		"EXISTS d",
		"SINTERSTORE str a b",
		"TYPE str",
		"SET str2 v",
		"EXPIRE str2 100",
		"SINTERSTORE str2 a nokey",
		"EXISTS str2",
		"SINTERSTORE e a str",
		"SADD f 1",
		"SADD g 2",
		"SINTERSTORE f f g",
		"EXISTS f",
		"SET k v",
		"EXPIRE k 100",
		"SINTERSTORE k a b",
		"TTL k",
	)},
	{"sintercard", tpCmds(
		"SADD a 1 2 3 4",
		"SADD b 2 3 4 5",
		"SINTERCARD 2 a b",
		"SINTERCARD 1 a",
		"SINTERCARD 2 a b LIMIT 2",
		"SINTERCARD 2 a b limit 0",
		"SINTERCARD 2 a b LIMIT 10",
		"SINTERCARD 2 a b LIMIT -1",
		"SINTERCARD 2 a b LIMIT abc",
		"SINTERCARD 2 a b LIMIT",
		"SINTERCARD 2 a b LIMIT 1 LIMIT 2",
		"SINTERCARD 2 a b foo",
		"SINTERCARD 0 a",
		"SINTERCARD -1 a",
		"SINTERCARD abc a",
		"SINTERCARD 3 a b",
		"SINTERCARD 2 a nokey",
		"SET str v",
		"SINTERCARD 2 a str",
		"SINTERCARD 2 nokey str",
	)},
	{"sunion-sdiff", tpCmds(
		"SADD a 1 2 3",
		"SADD b 3 4 5",
		"SADD c 5 x",
		"SUNION a b",
		"SUNION a nokey b",
		"~sorted SUNION a c",
		"SUNION nokey",
		"SDIFF a b",
		"SDIFF b a c",
		"SDIFF a a",
		"SDIFF nokey a",
		"SDIFF a nokey",
		"~sorted SDIFF c a",
		"SUNIONSTORE d a b",
		"SMEMBERS d",
		"OBJECT ENCODING d",
		"SUNIONSTORE d a c",
		"OBJECT ENCODING d",
		"SUNIONSTORE d nokey",
		"EXISTS d",
		"SDIFFSTORE d a b",
		"SMEMBERS d",
		"SDIFFSTORE d a a",
		"EXISTS d",
		"SET str v",
		"SUNION a str",
		"SDIFF str a",
		"SDIFF nokey str",
		"SUNIONSTORE d a str",
		"SDIFFSTORE str a b",
		"TYPE str",
		"SMEMBERS str",
	)},
	{"sdiff-algorithms", tpCmds(
		tpInts("SADD big", 1, 600),
		tpInts("SADD x", 1, 250),
		tpInts("SADD y", 251, 500),
		tpInts("SADD z", 501, 550),
		"OBJECT ENCODING big",
		"SDIFFSTORE d big x y z",
		"OBJECT ENCODING d",
		"SCARD d",
		"SDIFFSTORE d2 big x",
		"OBJECT ENCODING d2",
		"SCARD d2",
		"~sorted SDIFF big x y z",
		"SUNIONSTORE u x y",
		"OBJECT ENCODING u",
		"~sorted SMEMBERS u",
	)},
	{"sscan", tpCmds(
		"SADD s 1 2 3 10 11",
		"SSCAN s 0",
		"SSCAN s 0 MATCH 1*",
		"SSCAN s 0 COUNT 1",
		"SSCAN s 0 TYPE set",
		"SSCAN s 0 COUNT 0",
		"SSCAN s x",
		"SSCAN nokey 0",
		"SSCAN nokey 0 COUNT 0",
		"SADD t a b",
		"~shape SSCAN t 0",
	)},
	{"edges", tpCmds(
		"SADD s 1 2 3",
		"SINTERCARD 9223372036854775807 s",
		"SPOP s 9223372036854775807",
		"SADD s 1 2 3",
		"SRANDMEMBER s 9223372036854775807",
		"SMISMEMBER s 1 1 01",
		"SADD big 9223372036854775807 -9223372036854775808 9223372036854775808",
		"~sorted SMEMBERS big",
		"OBJECT ENCODING big",
		"~sorted SINTER big big",
		"SADD empty ''",
		"SMEMBERS empty",
		"SREM empty ''",
		"EXISTS empty",
	)},
	{"intset-threshold", tpCmds(
		"CONFIG SET set-max-intset-entries 3",
		"CONFIG GET set-max-intset-entries",
		"SADD s 1 2 3",
		"OBJECT ENCODING s",
		"SADD s 4",
		"OBJECT ENCODING s",
		"SREM s 1 2 3",
		"OBJECT ENCODING s",
		"SINTERSTORE d s",
		"OBJECT ENCODING d",
		"SADD t 1 2 3",
		"COPY t t2",
		"OBJECT ENCODING t2",
		"SMOVE t u 1",
		"OBJECT ENCODING u",
		"CONFIG SET set-max-intset-entries 0",
		"SADD z 1",
		"OBJECT ENCODING z",
		"~scan SCAN 0 TYPE set COUNT 100",
		"~scan SCAN 0 TYPE zset COUNT 100",
	)},
}

func TestDiffSet(t *testing.T) { tpRunCases(t, setCases) }

// TestDiffSetLarge checks hashtable-encoded sets and full SSCAN runs.
func TestDiffSetLarge(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			c := p.Conn("A")
			args := []string{"SADD", "big"}
			for i := 0; i < 1000; i++ {
				args = append(args, "m:"+strconv.Itoa(i))
			}
			tpDo(c, tpExact, args...)
			tpDo(c, tpExact, "OBJECT", "ENCODING", "big")
			tpDo(c, tpSorted, "SMEMBERS", "big")
			tpDo(c, tpExact, "SCARD", "big")
			tpDo(c, tpSorted, "SRANDMEMBER", "big", "2000")
			tpDo(c, tpShape, "SRANDMEMBER", "big", "10")
			tpDo(c, tpShape, "SRANDMEMBER", "big", "900")
			tpScanAll(c, false, "SSCAN", "big")
			tpScanAll(c, false, "SSCAN", "big", "COUNT", "7", "MATCH", "*1*")
			tpDo(c, tpShape, "SPOP", "big", "10")
			tpDo(c, tpExact, "SCARD", "big")
			tpDo(c, tpShape, "SPOP", "big", "900")
			tpDo(c, tpExact, "SCARD", "big")
			tpDo(c, tpExact, "DEL", "big")
			args = []string{"SADD", "ints"}
			for i := 0; i < 1000; i++ {
				args = append(args, strconv.Itoa(i*7))
			}
			tpDo(c, tpExact, args...)
			tpDo(c, tpExact, "OBJECT", "ENCODING", "ints")
			tpDo(c, tpSorted, "SMEMBERS", "ints")
			tpScanAll(c, false, "SSCAN", "ints")
			tpDo(c, tpExact, "SINTERCARD", "2", "ints", "ints")
		})
	}
}
