package test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// TestDiffRandomTypes sends the same random sequence of hash, set and
// sorted set commands (errors and wrong types included) to redis-server and
// miniwatchd and compares every reply, plus OBJECT ENCODING after every
// write, with tiny encoding thresholds so values keep converting. Replies
// whose order Redis leaves unspecified (hashtable-encoded hashes and sets)
// are compared sorted; random commands are left out, since their picks
// would make the two datasets diverge.
func TestDiffRandomTypes(t *testing.T) {
	diffRandomRuns(t, 1500, func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int {
		tpDo(c, tpExact, "CONFIG", "SET", "hash-max-listpack-entries", "5", "hash-max-listpack-value", "4",
			"set-max-intset-entries", "5", "zset-max-listpack-entries", "5", "zset-max-listpack-value", "4")
		g := &typesGen{rng: rng}
		ours := func(args ...string) node {
			n, err := c.ours.Do(args...)
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			return n
		}
		compared := 0
		for i := 0; i < ops; i++ {
			p.where = "op " + strconv.Itoa(i)
			cmd, mode, write := g.next()
			// Lexicographic ranges over mixed scores depend on a
			// skiplist's random levels in Redis: only listpacks (and
			// zlex, whose scores are all 0) answer deterministically.
			if g.isLex(cmd) && cmd[1] != "zlex" && ours("OBJECT", "ENCODING", cmd[1]).Str == "skiplist" {
				continue
			}
			// Replies listing a hashtable's elements are unordered.
			if mode == tpExact && g.orderFromEncoding(cmd) {
				enc := ours("OBJECT", "ENCODING", cmd[1])
				if enc.Str == "hashtable" {
					mode = tpSorted
					if cmd[0] == "HGETALL" && p.proto == 2 {
						mode = tpSortedPairs
					}
				}
			}
			tpDo(c, mode, cmd...)
			compared++
			if write {
				for _, k := range g.touched(cmd) {
					tpDo(c, tpExact, "OBJECT", "ENCODING", k)
					compared++
				}
			}
		}
		return compared
	})
}

// diffRandomRuns is the frame of a random differential test: with RESP2 and
// then RESP3 it leases a fresh pair of servers (stopped afterwards) and
// calls run with connection "A", a generator seeded from MODEL_SEED (or at
// random, logged) and the number of operations to do: defaultOps, a fifth
// of it with -short, or DIFF_RANDOM_OPS. run returns how many replies it
// compared.
func diffRandomRuns(t *testing.T, defaultOps int, run func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int) {
	ops := defaultOps
	if testing.Short() {
		ops = defaultOps / 5
	}
	if n, err := strconv.Atoi(os.Getenv("DIFF_RANDOM_OPS")); err == nil && n > 0 {
		ops = n
	}
	seed := modelSeed()
	t.Logf("seed %d", seed)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			compared := run(t, p, p.Conn("A"), rand.New(rand.NewPCG(seed, uint64(proto))), ops)
			t.Logf("RESP%d: %d random operations, %d replies compared", proto, ops, compared)
		})
	}
}

// typesGen generates random commands over a few keys of each type.
type typesGen struct{ rng *rand.Rand }

func (g *typesGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

func (g *typesGen) hkey() string { return g.pick("h1", "h2", "h3", "s1", "z1") }
func (g *typesGen) skey() string { return g.pick("s1", "s2", "s3", "h1", "z1", "nos") }
func (g *typesGen) zkey() string { return g.pick("z1", "z2", "z3", "s1", "h1", "noz") }
func (g *typesGen) field() string {
	return g.pick("a", "b", "c", "d", "e", "f", "long1", "1", "2", "3")
}
func (g *typesGen) member() string {
	return g.pick("1", "2", "3", "5", "8", "-1", "a", "b", "c", "long1", "10", "11", "12")
}
func (g *typesGen) value() string {
	return g.pick("1", "2", "-3", "x", "xyzzy", "2.5", "", "10")
}
func (g *typesGen) score() string {
	return g.pick("1", "2", "2", "3", "-1", "0", "1.5", "inf", "-inf", "1e3", "(2", "x")
}
func (g *typesGen) index() string { return strconv.Itoa(g.rng.IntN(9) - 4) }
func (g *typesGen) lexBound() string {
	return g.pick("-", "+", "[a", "(a", "[b", "(c", "[long", "[1", "x")
}

// next returns a command, how to compare its reply, and whether it writes.
func (g *typesGen) next() ([]string, tpMode, bool) {
	w := func(args ...string) ([]string, tpMode, bool) { return args, tpExact, true }
	r := func(args ...string) ([]string, tpMode, bool) { return args, tpExact, false }
	sorted := func(args ...string) ([]string, tpMode, bool) { return args, tpSorted, false }
	switch g.rng.IntN(61) {
	// hashes
	case 0, 1:
		return w("HSET", g.hkey(), g.field(), g.value(), g.field(), g.value())
	case 2:
		return w("HSETNX", g.hkey(), g.field(), g.value())
	case 3:
		return w("HDEL", g.hkey(), g.field(), g.field())
	case 4:
		return w("HINCRBY", g.hkey(), g.field(), g.pick("1", "-2", "0", "x", "9223372036854775807"))
	case 5:
		return w("HINCRBYFLOAT", g.hkey(), g.field(), g.pick("1.5", "-0.5", "0", "x", "1e300"))
	case 6:
		return r("HGETALL", g.hkey())
	case 7:
		return r(g.pick("HKEYS", "HVALS"), g.hkey())
	case 8:
		return r("HMGET", g.hkey(), g.field(), g.field())
	case 9:
		return r("HLEN", g.hkey())
	case 10:
		return r(g.pick("HEXISTS", "HSTRLEN", "HGET"), g.hkey(), g.field())
	// sets
	case 11, 12:
		return w("SADD", g.skey(), g.member(), g.member())
	case 13:
		return w("SREM", g.skey(), g.member(), g.member())
	case 14:
		return w("SMOVE", g.skey(), g.skey(), g.member())
	case 15:
		return r("SMEMBERS", g.skey())
	case 16:
		return r("SISMEMBER", g.skey(), g.member())
	case 17:
		return r("SMISMEMBER", g.skey(), g.member(), g.member())
	case 18:
		return sorted(g.pick("SINTER", "SUNION", "SDIFF"), g.skey(), g.skey(), g.skey())
	case 19:
		return w(g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.skey(), g.skey(), g.skey())
	case 20:
		return r("SINTERCARD", "2", g.skey(), g.skey(), "LIMIT", g.pick("0", "1", "2"))
	// sorted sets
	case 21, 22, 23:
		args := []string{"ZADD", g.zkey()}
		for _, f := range []string{"NX", "XX", "GT", "LT", "CH", "INCR"} {
			if g.rng.IntN(6) == 0 {
				args = append(args, f)
			}
		}
		args = append(args, g.score(), g.member())
		if g.rng.IntN(2) == 0 {
			args = append(args, g.score(), g.member())
		}
		return w(args...)
	case 24:
		return w("ZINCRBY", g.zkey(), g.score(), g.member())
	case 25:
		return w("ZREM", g.zkey(), g.member(), g.member())
	case 26:
		return r("ZRANGE", g.zkey(), g.index(), g.index(), "WITHSCORES")
	case 27:
		return r("ZRANGE", g.zkey(), g.index(), g.index(), "REV")
	case 28:
		return r("ZRANGEBYSCORE", g.zkey(), g.score(), g.score(), "WITHSCORES", "LIMIT", g.pick("0", "1"), g.pick("-1", "2"))
	case 29:
		return r("ZREVRANGEBYSCORE", g.zkey(), g.score(), g.score())
	case 30:
		return r("ZRANGEBYLEX", g.lexKey(), g.lexBound(), g.lexBound())
	case 31:
		return r("ZREVRANGEBYLEX", g.lexKey(), g.lexBound(), g.lexBound())
	case 32:
		return r(g.pick("ZRANK", "ZREVRANK", "ZSCORE"), g.zkey(), g.member())
	case 33:
		return r("ZMSCORE", g.zkey(), g.member(), g.member())
	case 34:
		return r("ZCOUNT", g.zkey(), g.score(), g.score())
	case 35:
		return r("ZLEXCOUNT", g.lexKey(), g.lexBound(), g.lexBound())
	case 36:
		return w("ZREMRANGEBYRANK", g.zkey(), g.index(), g.index())
	case 37:
		return w("ZREMRANGEBYSCORE", g.zkey(), g.score(), g.score())
	case 38:
		return w("ZREMRANGEBYLEX", g.lexKey(), g.lexBound(), g.lexBound())
	case 39:
		return w(g.pick("ZPOPMIN", "ZPOPMAX"), g.zkey(), g.pick("1", "2", "0"))
	case 40:
		return w("ZMPOP", "2", g.zkey(), g.zkey(), g.pick("MIN", "MAX"), "COUNT", g.pick("1", "3"))
	case 41:
		return w(g.pick("ZUNIONSTORE", "ZINTERSTORE"), g.zkey(), "2", g.zkey(), g.skey(), "WEIGHTS", g.pick("1", "2", "-1"), "1",
			"AGGREGATE", g.pick("SUM", "MIN", "MAX"))
	case 42:
		return w("ZDIFFSTORE", g.zkey(), "2", g.zkey(), g.zkey())
	case 43:
		return r(g.pick("ZUNION", "ZINTER"), "2", g.zkey(), g.skey(), "WITHSCORES")
	case 44:
		return r("ZDIFF", "2", g.zkey(), g.skey(), "WITHSCORES")
	case 45:
		return w("ZRANGESTORE", g.zkey(), g.zkey(), g.index(), g.index())
	case 46:
		return w("ZRANGESTORE", g.zkey(), g.zkey(), g.score(), g.score(), "BYSCORE", "LIMIT", "0", "2")
	case 47:
		return r("ZINTERCARD", "2", g.zkey(), g.skey())
	case 48:
		return r("ZCARD", g.zkey())
	case 49:
		return r("ZRANGE", g.lexKey(), g.lexBound(), g.lexBound(), "BYLEX", "REV", "LIMIT", "0", "3")
	case 59:
		return w("ZADD", "zlex", "0", g.member(), "0", g.member())
	// generic commands on the same keys
	case 50:
		return w("DEL", g.pick(g.hkey(), g.skey(), g.zkey()))
	case 51:
		return w("COPY", g.pick(g.hkey(), g.skey(), g.zkey()), g.pick(g.hkey(), g.skey(), g.zkey()), "REPLACE")
	case 52:
		return r("TYPE", g.pick(g.hkey(), g.skey(), g.zkey()))
	case 53:
		return w("RENAME", g.pick(g.hkey(), g.skey(), g.zkey()), g.pick(g.hkey(), g.skey(), g.zkey()))
	case 54:
		return r("SCARD", g.skey())
	case 55:
		return r("HLEN", g.hkey())
	case 56:
		return []string{"ZSCAN", g.zkey(), "0", "COUNT", "100"}, tpScanPairs, false
	case 57:
		return r("SMEMBERS", g.skey())
	case 60:
		return r("HGETALL", g.hkey())
	default:
		return r("EXISTS", g.hkey(), g.skey(), g.zkey())
	}
}

// lexKey is a key for a lexicographic range command.
func (g *typesGen) lexKey() string { return g.pick("zlex", "zlex", g.zkey()) }

// isLex reports whether cmd takes a lexicographic range.
func (g *typesGen) isLex(cmd []string) bool {
	switch cmd[0] {
	case "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX":
		return true
	case "ZRANGE":
		return len(cmd) > 4 && cmd[4] == "BYLEX"
	}
	return false
}

// orderFromEncoding reports whether cmd's reply lists a value's elements in
// its iteration order, which only compact encodings define.
func (g *typesGen) orderFromEncoding(cmd []string) bool {
	switch cmd[0] {
	case "HGETALL", "HKEYS", "HVALS", "SMEMBERS":
		return true
	}
	return false
}

// touched returns the keys a write may have changed.
func (g *typesGen) touched(cmd []string) []string {
	switch cmd[0] {
	case "SMOVE", "COPY", "RENAME":
		return cmd[1:3]
	case "ZMPOP":
		return cmd[2:4]
	}
	return cmd[1:2]
}
