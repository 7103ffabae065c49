package test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestDiffRandomStrings sends the same random sequence of string commands
// to redis-server and miniwatchd and compares every reply, plus OBJECT
// ENCODING after every write. Values have lengths around the points where
// miniwatchd changes how it stores them (in the key's entry or apart, and
// the sizes of that entry), and each write uses a new fill byte, so a reply
// built from an old value that a later write overwrote in place would show.
// Commands that read a value and write the key in one go (SET ... GET,
// GETSET, a script, a transaction) are the ones that could see that.
func TestDiffRandomStrings(t *testing.T) {
	diffRandomRuns(t, 2000, func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int {
		tpDo(c, tpExact, "HSET", "h1", "f", "v")
		g := &stringsGen{rng: rng}
		compared := 0
		for i := 0; i < ops; i++ {
			p.where = "op " + strconv.Itoa(i)
			for _, cmd := range g.next() {
				tpDo(c, tpExact, cmd...)
				compared++
			}
			for _, k := range g.keys {
				tpDo(c, tpExact, "OBJECT", "ENCODING", k)
				compared++
			}
		}
		return compared
	})
}

// stringsGen generates random string commands over a few keys.
type stringsGen struct {
	rng  *rand.Rand
	fill byte
	keys []string // the keys the last operation may have written
}

func (g *stringsGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

// key is one of the string keys (short, 16 bytes, 40 bytes) or the hash h1.
func (g *stringsGen) key() string {
	return g.pick("k1", "k2", "key:000000000001", "key:000000000002:"+strings.Repeat("x", 23), "h1", "none")
}

// lengths are value sizes around miniwatchd's storage steps for the keys
// above: entry tails of 16 to 208 bytes (one byte of which holds the size).
var stringsGenLengths = []int{0, 1, 3, 14, 15, 16, 17, 30, 31, 32, 33, 44, 45, 100, 150, 175, 190, 191, 192, 193, 207, 208, 209, 300}

// value returns a new value: a number, or a run of the next fill byte with a
// random length.
func (g *stringsGen) value() string {
	switch g.rng.IntN(6) {
	case 0:
		return g.pick("10", "-3", "0", "9223372036854775807", "3.5", "007")
	}
	g.fill = 'a' + (g.fill-'a'+1)%26
	n := stringsGenLengths[g.rng.IntN(len(stringsGenLengths))]
	return strings.Repeat(string(g.fill), n)
}

// next returns the commands of one operation and sets g.keys.
func (g *stringsGen) next() [][]string {
	k, k2, v := g.key(), g.key(), g.value()
	g.keys = []string{k}
	one := func(args ...string) [][]string { return [][]string{args} }
	switch g.rng.IntN(22) {
	case 0, 1, 2:
		args := []string{"SET", k, v}
		if g.rng.IntN(2) == 0 {
			args = append(args, "GET")
		}
		if g.rng.IntN(4) == 0 {
			args = append(args, g.pick("NX", "XX"))
		}
		if g.rng.IntN(4) == 0 {
			args = append(args, g.pick("KEEPTTL", "EX", "PX"))
			if args[len(args)-1] != "KEEPTTL" {
				args = append(args, "100000")
			}
		}
		return one(args...)
	case 3:
		return one("GETSET", k, v)
	case 4:
		return one("GETDEL", k)
	case 5:
		switch g.rng.IntN(3) {
		case 0:
			return one("GETEX", k)
		case 1:
			return one("GETEX", k, "PERSIST")
		}
		return one("GETEX", k, g.pick("EX", "PX"), "100000")
	case 6:
		return one("APPEND", k, v)
	case 7:
		return one("SETRANGE", k, strconv.Itoa(g.rng.IntN(40)), v)
	case 8:
		return one("GETRANGE", k, strconv.Itoa(g.rng.IntN(20)-5), strconv.Itoa(g.rng.IntN(300)-10))
	case 9:
		return one(g.pick("INCR", "DECR"), k)
	case 10:
		return one(g.pick("INCRBY", "DECRBY"), k, g.pick("1", "-100", "12345678901"))
	case 11:
		return one("INCRBYFLOAT", k, g.pick("1.5", "-0.25", "3"))
	case 12:
		g.keys = []string{k, k2}
		return one("MSET", k, v, k2, g.value())
	case 13:
		return one("MGET", k, k2, "none")
	case 14:
		return one(g.pick("STRLEN", "GET", "EXISTS"), k)
	case 15:
		g.keys = []string{k, k2}
		return one("COPY", k, k2, "REPLACE")
	case 16:
		g.keys = []string{k, k2}
		return one("RENAME", k, k2)
	case 17:
		if g.rng.IntN(2) == 0 {
			return one("SETNX", k, v)
		}
		return one(g.pick("DEL", "PERSIST"), k)
	case 18:
		g.keys = []string{k, k2}
		return one("LCS", k, k2, g.pick("LEN", "IDX"))
	case 19:
		// Read, overwrite and read again inside one script.
		return one("EVAL", "local v = redis.call('GET', KEYS[1]); redis.call('SET', KEYS[1], ARGV[1]); return {v, redis.call('GET', KEYS[1]), redis.call('STRLEN', KEYS[1])}", "1", k, v)
	case 20:
		// The same inside a transaction, with the old value read twice.
		return [][]string{{"MULTI"}, {"GET", k}, {"SET", k, v}, {"GET", k}, {"APPEND", k, "!"}, {"EXEC"}}
	default:
		return one("SETEX", k, "100000", v)
	}
}
