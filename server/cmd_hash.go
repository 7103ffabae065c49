package server

import (
	"math"
	"math/rand/v2"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Hash commands (Redis 7.0.15 t_hash.c).

var hashCommands = []commandDef{
	{"hset", cmdHSet},
	{"hmset", cmdHMSet},
	{"hsetnx", cmdHSetNX},
	{"hget", cmdHGet},
	{"hmget", cmdHMGet},
	{"hgetall", cmdHGetAll},
	{"hkeys", cmdHKeys},
	{"hvals", cmdHVals},
	{"hdel", cmdHDel},
	{"hexists", cmdHExists},
	{"hlen", cmdHLen},
	{"hstrlen", cmdHStrlen},
	{"hincrby", cmdHIncrBy},
	{"hincrbyfloat", cmdHIncrByFloat},
	{"hrandfield", cmdHRandField},
	{"hscan", cmdHScan},
}

// errNaNOrInfinity is HINCRBYFLOAT's error for an infinite increment
// (CVE-2023-28856's fix).
var errNaNOrInfinity = protocol.Error("ERR value is NaN or Infinity")

// hsetGeneric is hsetCommand: an odd number of field/value arguments is
// an arity error with the command's own name.
func hsetGeneric(c *client, args [][]byte, name string) (int, bool) {
	if len(args)%2 == 1 {
		c.fail(protocol.ErrWrongArity(name))
		return 0, false
	}
	n, err := c.db.HashSet(args[1], args[2:])
	if err != nil {
		c.fail(err)
		return 0, false
	}
	return n, true
}

func cmdHSet(c *client, args [][]byte) {
	if n, ok := hsetGeneric(c, args, "hset"); ok {
		c.w.Int(int64(n))
	}
}

func cmdHMSet(c *client, args [][]byte) {
	if _, ok := hsetGeneric(c, args, "hmset"); ok {
		c.w.OK()
	}
}

func cmdHSetNX(c *client, args [][]byte) {
	set, err := c.db.HashSetNX(args[1], args[2], args[3])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(b2i(set))
}

func cmdHGet(c *client, args [][]byte) {
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	if h == nil {
		c.w.Null()
		return
	}
	writeHashField(c, h, args[2])
}

func writeHashField(c *client, h *db.Hash, field []byte) {
	if h != nil {
		if v, found := h.Get(field); found {
			c.w.BulkString(v)
			return
		}
	}
	c.w.Null()
}

func cmdHMGet(c *client, args [][]byte) {
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, f := range args[2:] {
		writeHashField(c, h, f)
	}
}

// hgetallGeneric is genericHgetallCommand: a map of fields and values for
// HGETALL, an array of either for HKEYS and HVALS.
func hgetallGeneric(c *client, key []byte, keys, vals bool) {
	h, ok := lookupRead(c, c.db.LookupHash, key)
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	if keys && vals {
		c.w.Map(n)
	} else {
		c.w.Array(n)
	}
	if h == nil {
		return
	}
	h.Each(func(f, v string) bool {
		if keys {
			c.w.BulkString(f)
		}
		if vals {
			c.w.BulkString(v)
		}
		return true
	})
}

func cmdHGetAll(c *client, args [][]byte) { hgetallGeneric(c, args[1], true, true) }
func cmdHKeys(c *client, args [][]byte)   { hgetallGeneric(c, args[1], true, false) }
func cmdHVals(c *client, args [][]byte)   { hgetallGeneric(c, args[1], false, true) }

func cmdHDel(c *client, args [][]byte) {
	n, err := c.db.HashDel(args[1], args[2:])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdHExists(c *client, args [][]byte) {
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	found := false
	if h != nil {
		_, found = h.Get(args[2])
	}
	c.w.Int(b2i(found))
}

func cmdHLen(c *client, args [][]byte) {
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	c.w.Int(int64(n))
}

func cmdHStrlen(c *client, args [][]byte) {
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	n := 0
	if h != nil {
		v, _ := h.Get(args[2])
		n = len(v)
	}
	c.w.Int(int64(n))
}

func cmdHIncrBy(c *client, args [][]byte) {
	incr, err := parseLong(args[3])
	if err != nil {
		c.fail(err)
		return
	}
	v, err := c.db.HashIncrBy(args[1], args[2], incr)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(v)
}

func cmdHIncrByFloat(c *client, args [][]byte) {
	incr, ok := protocol.ParseLongDouble(args[3])
	if !ok {
		c.fail(protocol.ErrNotFloat)
		return
	}
	if incr.IsInfOrNaN() {
		c.fail(errNaNOrInfinity)
		return
	}
	out, err := c.db.HashIncrByFloat(args[1], args[2], incr)
	if err != nil {
		c.fail(err)
		return
	}
	c.propagateAs(propHSET, args[1], args[2], out)
	c.w.Bulk(out)
}

// randomSubStrategyMul is HRANDFIELD_SUB_STRATEGY_MUL (and the SRANDMEMBER
// and ZRANDMEMBER ones): up to this many times the count, a distinct
// sample is drawn by removing random elements from a copy of everything.
const randomSubStrategyMul = 3

func cmdHRandField(c *client, args [][]byte) {
	if len(args) < 3 {
		h, ok := lookupRead(c, c.db.LookupHash, args[1])
		if !ok {
			return
		}
		if h == nil {
			c.w.Null()
			return
		}
		f, _ := h.Random()
		c.w.BulkString(f)
		return
	}
	l, err := parseRandomCount(args[2])
	if err != nil {
		c.fail(err)
		return
	}
	withValues := false
	if len(args) > 4 || (len(args) == 4 && !cstrEqualFold(args[3], "withvalues")) {
		c.fail(protocol.ErrSyntax)
		return
	}
	if len(args) == 4 {
		withValues = true
		if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
			c.fail(errOutOfRange)
			return
		}
	}
	h, ok := lookupRead(c, c.db.LookupHash, args[1])
	if !ok {
		return
	}
	if h == nil || l == 0 {
		c.w.Array(0)
		return
	}
	hrandfieldWithCount(c, h, l, withValues)
}

// hrandfieldWithCount is hrandfieldWithCountCommand: a negative count
// allows repeats, a positive one returns distinct fields (all of them, in
// iteration order, when count reaches the size).
func hrandfieldWithCount(c *client, h *db.Hash, l int64, withValues bool) {
	pair := func(f, v string) {
		if withValues && c.w.Resp3() {
			c.w.Array(2)
		}
		c.w.BulkString(f)
		if withValues {
			c.w.BulkString(v)
		}
	}
	header := func(n int64) {
		if withValues && !c.w.Resp3() {
			n *= 2
		}
		c.w.Array(int(n))
	}
	size := int64(h.Len())
	if l < 0 || l == 1 {
		count := l
		if count < 0 {
			count = -count
		}
		header(count)
		for range count {
			pair(h.Random())
		}
		return
	}
	count := l
	if count >= size {
		header(size)
		h.Each(func(f, v string) bool {
			pair(f, v)
			return true
		})
		return
	}
	header(count)
	if count*randomSubStrategyMul > size {
		type fv struct{ f, v string }
		all := make([]fv, 0, size)
		h.Each(func(f, v string) bool {
			all = append(all, fv{f, v})
			return true
		})
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, p := range all[:count] {
			pair(p.f, p.v)
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		f, v := h.Random()
		if _, dup := seen[f]; dup {
			continue
		}
		seen[f] = struct{}{}
		pair(f, v)
	}
}

func cmdHScan(c *client, args [][]byte) {
	h, cursor, ok := lookupForScan(c, args, c.db.LookupHash)
	if !ok {
		return
	}
	scanValue(c, args, cursor, true, func(cur uint64, elems []string) (uint64, []string) {
		next := h.Scan(cur, func(f, v string) { elems = append(elems, f, v) })
		return next, elems
	})
}
