package test

import (
	"strconv"
	"strings"
	"testing"
)

// Differential tests of the hash family against redis-server 7.0.15, in
// RESP2 and RESP3. Listpack-encoded hashes list fields in insertion order,
// so their replies are compared exactly; hashtable ones are compared sorted.

var hashCases = []tpCase{
	{"hset-basic", tpCmds(
		"HSET h f1 v1",
		"HSET h f1 v1 f2 v2 f3 v3",
		"HSET h f2 new",
		"HGET h f2",
		"HGET h nofield",
		"HGET nokey f",
		"HGETALL h",
		"HKEYS h",
		"HVALS h",
		"HLEN h",
		"HLEN nokey",
		"HGETALL nokey",
		"HKEYS nokey",
		"HVALS nokey",
		"HSET h '' ''",
		"HGETALL h",
		"HSTRLEN h f1",
		"HSTRLEN h ''",
		"HSTRLEN h nofield",
		"HSTRLEN nokey f",
		"OBJECT ENCODING h",
		"TYPE h",
	)},
	{"hset-errors", tpCmds(
		"HSET h",
		"HSET h f",
		"HSET h f v g",
		"HMSET h f",
		"HMSET h f v g",
		"HSETNX h f",
		"HGET h",
		"HMGET h",
		"HDEL h",
		"HLEN",
		"HGETALL",
		"HSTRLEN h",
		"HEXISTS h",
		"SET s x",
		"HSET s f v",
		"HMSET s f v",
		"HSETNX s f v",
		"HGET s f",
		"HMGET s f",
		"HGETALL s",
		"HKEYS s",
		"HVALS s",
		"HDEL s f",
		"HLEN s",
		"HSTRLEN s f",
		"HEXISTS s f",
		"HINCRBY s f 1",
		"HINCRBYFLOAT s f 1",
		"HRANDFIELD s",
		"HRANDFIELD s 2",
		"HSCAN s 0",
		"GET s",
	)},
	{"hmset-hsetnx", tpCmds(
		"HMSET h a 1 b 2",
		"HMSET h a 3",
		"HGETALL h",
		"HSETNX h a x",
		"HSETNX h c x",
		"HSETNX n f v",
		"HGETALL h",
		"HGETALL n",
		"HMGET h a b c zz",
		"HMGET nokey a b",
		"HEXISTS h a",
		"HEXISTS h zz",
		"HEXISTS nokey a",
	)},
	{"hdel", tpCmds(
		"HSET h a 1 b 2 c 3",
		"HDEL h zz",
		"HDEL h a a zz",
		"HGETALL h",
		"HDEL h b c d",
		"EXISTS h",
		"HDEL h a",
		"HDEL nokey a",
		"HSET h2 a 1",
		"HDEL h2 a b c",
		"EXISTS h2",
	)},
	{"hincrby", tpCmds(
		"HINCRBY h f 5",
		"HINCRBY h f -7",
		"HINCRBY h f 0",
		"HGET h f",
		"HINCRBY h f 9223372036854775807",
		"HSET h big 9223372036854775807",
		"HINCRBY h big 1",
		"HSET h small -9223372036854775808",
		"HINCRBY h small -1",
		"HINCRBY h small 0",
		"HSET h s abc",
		"HINCRBY h s 1",
		"HSET h sp ' 1'",
		"HINCRBY h sp 1",
		"HSET h lead 01",
		"HINCRBY h lead 1",
		"HINCRBY h f abc",
		"HINCRBY h f 1.5",
		"HINCRBY h f ''",
		"HINCRBY h f 99999999999999999999",
		"HINCRBY nokey2 f abc",
		"EXISTS nokey2",
		"HGETALL h",
	)},
	{"hincrbyfloat", tpCmds(
		"HINCRBYFLOAT h f 1.5",
		"HINCRBYFLOAT h f 0.1",
		"HINCRBYFLOAT h f -1.6",
		"HINCRBYFLOAT h f 1e10",
		"HINCRBYFLOAT h f 5.0e3",
		"HINCRBYFLOAT h g 3",
		"HINCRBYFLOAT h g 0",
		"HINCRBYFLOAT h f abc",
		"HINCRBYFLOAT h f inf",
		"HINCRBYFLOAT h f -inf",
		"HINCRBYFLOAT h f nan",
		"HINCRBYFLOAT h f ''",
		"HINCRBYFLOAT h f ' 1'",
		"HSET h x abc",
		"HINCRBYFLOAT h x 1",
		"HSET h i 10",
		"HINCRBYFLOAT h i 1.25",
		"HSET h e 1e308",
		"HINCRBYFLOAT h e 1e308",
		"HINCRBYFLOAT h e -1e308",
		"HSET h hx 0x10",
		"HINCRBYFLOAT h hx 1",
		"HINCRBYFLOAT nokey3 f inf",
		"EXISTS nokey3",
		"OBJECT ENCODING h",
		"~pairs HGETALL h",
	)},
	{"hrandfield-errors", tpCmds(
		"HSET h a 1 b 2 c 3",
		"HRANDFIELD h abc",
		"HRANDFIELD h 1.5",
		"HRANDFIELD h -9223372036854775808",
		"HRANDFIELD h 1 withvalues extra",
		"HRANDFIELD h 1 withvalue",
		"HRANDFIELD h abc withvalue",
		"HRANDFIELD h 4611686018427387904 withvalues",
		"HRANDFIELD h -4611686018427387904 withvalues",
		"HRANDFIELD h 4611686018427387904 withvalue",
		"HRANDFIELD nokey 4611686018427387904 withvalues",
		"HRANDFIELD nokey",
		"HRANDFIELD nokey 5",
		"HRANDFIELD nokey -5 withvalues",
		"HRANDFIELD h 0",
		"HRANDFIELD h 0 withvalues",
		"HRANDFIELD h 3",
		"HRANDFIELD h 9223372036854775807",
		"HRANDFIELD h 10 WITHVALUES",
		"HRANDFIELD h 4611686018427387903 withvalues",
		"~shape HRANDFIELD h",
		"~shape HRANDFIELD h 1",
		"~shape HRANDFIELD h 1 withvalues",
		"~shape HRANDFIELD h 2",
		"~shape HRANDFIELD h -5",
		"~shape HRANDFIELD h -5 withvalues",
		"~shape HRANDFIELD h 2 withvalues",
	)},
	{"hscan", tpCmds(
		"HSET h a 1 b 2 c 3 ab 4",
		"HSCAN h 0",
		"HSCAN h 0 MATCH a*",
		"HSCAN h 0 COUNT 1",
		"HSCAN h 0 count 100 match *b",
		"HSCAN h abc",
		"HSCAN h -1",
		"HSCAN h 0 COUNT 0",
		"HSCAN h 0 COUNT -1",
		"HSCAN h 0 COUNT abc",
		"HSCAN h 0 TYPE string",
		"HSCAN h 0 MATCH",
		"HSCAN h 0 foo bar",
		"HSCAN nokey 0",
		"HSCAN nokey 0 COUNT 0",
		"HSCAN nokey abc",
	)},
	{"encoding-thresholds", tpCmds(
		"HSET h f 0123456789012345678901234567890123456789012345678901234567890123",
		"OBJECT ENCODING h",
		"HSET h2 f 01234567890123456789012345678901234567890123456789012345678901234",
		"OBJECT ENCODING h2",
		"HSET h3 0123456789012345678901234567890123456789012345678901234567890123x v",
		"OBJECT ENCODING h3",
		"CONFIG SET hash-max-listpack-entries 3",
		"HSET h4 a 1 b 2 c 3",
		"OBJECT ENCODING h4",
		"HSET h4 d 4",
		"OBJECT ENCODING h4",
		"HDEL h4 a b c",
		"OBJECT ENCODING h4",
		"CONFIG SET hash-max-listpack-value 2",
		"HSETNX h5 a 123",
		"OBJECT ENCODING h5",
		"HINCRBY h6 f 100",
		"OBJECT ENCODING h6",
		"HINCRBYFLOAT h7 f 1.5",
		"OBJECT ENCODING h7",
		"HSET h8 abc 1",
		"OBJECT ENCODING h8",
		"CONFIG SET hash-max-ziplist-entries 0",
		"CONFIG GET hash-max-listpack-entries",
		"CONFIG GET hash-max-ziplist-entries",
		"CONFIG GET hash-max-listpack-value",
		"HSET h9 a 1",
		"OBJECT ENCODING h9",
		"COPY h4 h4copy",
		"OBJECT ENCODING h4copy",
		"~pairs HGETALL h4copy",
		"CONFIG SET hash-max-listpack-value -1",
		"CONFIG SET hash-max-listpack-entries abc",
	)},
	{"edges", tpCmds(
		"HSET h a 1 b 2 c 0123456789012345678901234567890123456789012345678901234567890123456789",
		"OBJECT ENCODING h",
		"~pairs HGETALL h",
		"HRANDFIELD h 9223372036854775807 WITHVALUES",
		"~pairs HRANDFIELD h 100 WITHVALUES",
		"HSET h2 '' x",
		"HGET h2 ''",
		"HINCRBY h2 '' 1",
		"HDEL h2 ''",
		"EXISTS h2",
		"HSET h3 f 9223372036854775806",
		"HINCRBY h3 f 1",
		"HINCRBY h3 f 1",
		"HINCRBY h3 f -9223372036854775808",
		"HINCRBYFLOAT h3 f 1",
		"HGET h3 f",
	)},
	{"store-overwrites-types", tpCmds(
		"HSET h a 1",
		"RENAME h h2",
		"HGETALL h2",
		"TYPE h2",
		"HSET h4 a 1",
		"~scan SCAN 0 TYPE hash",
		"~scan SCAN 0 TYPE HASH",
		"SET h3 x",
		"~scan SCAN 0 TYPE string",
	)},
}

func TestDiffHash(t *testing.T) { tpRunCases(t, hashCases) }

// TestDiffHashLarge checks hashtable-encoded hashes (order unspecified:
// compared sorted) and full HSCAN iterations.
func TestDiffHashLarge(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newTPPair(t, proto)
			c := p.Conn("A")
			args := []string{"HSET", "big"}
			for i := 0; i < 700; i++ {
				args = append(args, "field:"+strconv.Itoa(i), strings.Repeat("v", i%7))
			}
			c.DoMode(tpExact, args...)
			c.DoMode(tpExact, "OBJECT", "ENCODING", "big")
			c.DoMode(tpExact, "HLEN", "big")
			c.DoMode(tpSortedPairs, "HGETALL", "big")
			c.DoMode(tpSorted, "HKEYS", "big")
			c.DoMode(tpSorted, "HVALS", "big")
			c.DoMode(tpExact, "HMGET", "big", "field:1", "field:699", "nope")
			c.DoMode(tpExact, "HDEL", "big", "field:1", "field:2", "nope")
			c.DoMode(tpExact, "HSTRLEN", "big", "field:6")
			c.DoMode(tpExact, "HRANDFIELD", "big", "0")
			c.DoMode(tpShape, "HRANDFIELD", "big", "5", "WITHVALUES")
			c.DoMode(tpShape, "HRANDFIELD", "big", "-5", "WITHVALUES")
			c.DoMode(tpShape, "HRANDFIELD", "big", "600")
			c.DoMode(tpSorted, "HRANDFIELD", "big", "1000")
			c.ScanAll(true, "HSCAN", "big")
			c.ScanAll(true, "HSCAN", "big", "COUNT", "3")
			c.ScanAll(true, "HSCAN", "big", "MATCH", "field:1*", "COUNT", "50")
			c.DoMode(tpExact, "HSCAN", "big", "0", "COUNT", "0")
			c.DoMode(tpExact, "DEL", "big")
		})
	}
}
