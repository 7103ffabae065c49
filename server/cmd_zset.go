package server

import (
	"math"
	"math/rand/v2"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Sorted set commands (Redis 7.0.15 t_zset.c), except the ZRANGE family
// (cmd_zrange.go) and the algebra commands (cmd_zalgebra.go).

var zsetCommands = []commandDef{
	{"zadd", cmdZAdd},
	{"zincrby", cmdZIncrBy},
	{"zrem", cmdZRem},
	{"zcard", cmdZCard},
	{"zscore", cmdZScore},
	{"zmscore", cmdZMScore},
	{"zrank", cmdZRank},
	{"zrevrank", cmdZRevRank},
	{"zcount", cmdZCount},
	{"zlexcount", cmdZLexCount},
	{"zremrangebyrank", cmdZRemRangeByRank},
	{"zremrangebyscore", cmdZRemRangeByScore},
	{"zremrangebylex", cmdZRemRangeByLex},
	{"zpopmin", cmdZPopMin},
	{"zpopmax", cmdZPopMax},
	{"zmpop", cmdZMPop},
	{"zrandmember", cmdZRandMember},
	{"zscan", cmdZScan},
}

// Errors of the sorted set family.
var (
	errZAddXXNX        = protocol.Error("ERR XX and NX options at the same time are not compatible")
	errZAddGTLTNX      = protocol.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
	errZAddIncrPair    = protocol.Error("ERR INCR option supports a single increment-element pair")
	errMinMaxNotFloat  = protocol.Error("ERR min or max is not a float")
	errMinMaxNotString = protocol.Error("ERR min or max not valid string range item")
	errCountPositive   = protocol.Error("ERR count should be greater than 0")
)

// zaddGeneric is zaddGenericCommand, for ZADD and ZINCRBY (flags holds
// ZAddIncr). Options are read from args[2] on while they match, then the
// score/member pairs; every check and every score parse happens before the
// key is touched.
func zaddGeneric(c *client, args [][]byte, flags db.ZAddFlags) {
	ch := false
	scoreIdx := 2
options:
	for ; scoreIdx < len(args); scoreIdx++ {
		opt := args[scoreIdx]
		if !maybeZAddOption(opt) {
			break // the first score: no need to compare with every option
		}
		switch {
		case cstrEqualFold(opt, "nx"):
			flags |= db.ZAddNX
		case cstrEqualFold(opt, "xx"):
			flags |= db.ZAddXX
		case cstrEqualFold(opt, "ch"):
			ch = true
		case cstrEqualFold(opt, "incr"):
			flags |= db.ZAddIncr
		case cstrEqualFold(opt, "gt"):
			flags |= db.ZAddGT
		case cstrEqualFold(opt, "lt"):
			flags |= db.ZAddLT
		default:
			break options
		}
	}
	elements := len(args) - scoreIdx
	if elements%2 != 0 || elements == 0 {
		c.fail(protocol.ErrSyntax)
		return
	}
	elements /= 2
	nx, xx := flags&db.ZAddNX != 0, flags&db.ZAddXX != 0
	gt, lt := flags&db.ZAddGT != 0, flags&db.ZAddLT != 0
	incr := flags&db.ZAddIncr != 0
	switch {
	case nx && xx:
		c.fail(errZAddXXNX)
		return
	case (gt && nx) || (lt && nx) || (gt && lt):
		c.fail(errZAddGTLTNX)
		return
	case incr && elements > 1:
		c.fail(errZAddIncrPair)
		return
	}
	var scoreBuf [8]float64
	var memberBuf [8][]byte
	scores, members := scoreBuf[:0], memberBuf[:0]
	for j := 0; j < elements; j++ {
		f, ok := parseScore(args[scoreIdx+2*j])
		if !ok {
			c.fail(protocol.ErrNotFloat)
			return
		}
		scores = append(scores, f)
		members = append(members, args[scoreIdx+2*j+1])
	}
	res, err := c.db.ZAdd(args[1], scores, members, flags)
	if err != nil {
		c.fail(err)
		return
	}
	switch {
	case incr && res.Processed > 0:
		c.w.Double(res.Score)
	case incr:
		c.w.Null()
	case ch:
		c.w.Int(int64(res.Added + res.Updated))
	default:
		c.w.Int(int64(res.Added))
	}
}

// maybeZAddOption reports whether arg could be one of ZADD's options: they
// all start with one of the letters n, x, c, i, g, l.
func maybeZAddOption(arg []byte) bool {
	if len(arg) < 2 {
		return false
	}
	switch arg[0] | 0x20 {
	case 'n', 'x', 'c', 'i', 'g', 'l':
		return true
	}
	return false
}

// parseScore is string2d (protocol.ParseFloat) with a fast path for the
// common integer score: a string2ll integer within +-2^53 converts exactly.
func parseScore(b []byte) (float64, bool) {
	if n, ok := protocol.ParseInt(b); ok && n >= -1<<53 && n <= 1<<53 {
		return float64(n), true
	}
	return protocol.ParseFloat(b)
}

func cmdZAdd(c *client, args [][]byte)    { zaddGeneric(c, args, 0) }
func cmdZIncrBy(c *client, args [][]byte) { zaddGeneric(c, args, db.ZAddIncr) }

func cmdZRem(c *client, args [][]byte) {
	n, err := c.db.ZRem(args[1], args[2:])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdZCard(c *client, args [][]byte) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	n := 0
	if z != nil {
		n = z.Len()
	}
	c.w.Int(int64(n))
}

func cmdZScore(c *client, args [][]byte) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	writeZScore(c, z, args[2])
}

func writeZScore(c *client, z *db.ZSet, member []byte) {
	if z != nil {
		if s, found := z.Score(member); found {
			c.w.Double(s)
			return
		}
	}
	c.w.Null()
}

func cmdZMScore(c *client, args [][]byte) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		writeZScore(c, z, m)
	}
}

func zrankGeneric(c *client, args [][]byte, rev bool) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	if z != nil {
		if r, found := z.Rank(args[2], rev); found {
			c.w.Int(int64(r))
			return
		}
	}
	c.w.Null()
}

func cmdZRank(c *client, args [][]byte)    { zrankGeneric(c, args, false) }
func cmdZRevRank(c *client, args [][]byte) { zrankGeneric(c, args, true) }

func cmdZCount(c *client, args [][]byte) {
	r, ok := db.ParseScoreRange(args[2], args[3])
	if !ok {
		c.fail(errMinMaxNotFloat)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	n := 0
	if z != nil {
		n = z.Count(&r)
	}
	c.w.Int(int64(n))
}

func cmdZLexCount(c *client, args [][]byte) {
	r, ok := db.ParseLexRange(args[2], args[3])
	if !ok {
		c.fail(errMinMaxNotString)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	n := 0
	if z != nil {
		n = z.LexCount(&r)
	}
	c.w.Int(int64(n))
}

func replyCount(c *client, n int, err error) {
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdZRemRangeByRank(c *client, args [][]byte) {
	start, err := parseLong(args[2])
	if err != nil {
		c.fail(err)
		return
	}
	end, err := parseLong(args[3])
	if err != nil {
		c.fail(err)
		return
	}
	n, err := c.db.ZRemRangeByRank(args[1], start, end)
	replyCount(c, n, err)
}

func cmdZRemRangeByScore(c *client, args [][]byte) {
	r, ok := db.ParseScoreRange(args[2], args[3])
	if !ok {
		c.fail(errMinMaxNotFloat)
		return
	}
	n, err := c.db.ZRemRangeByScore(args[1], &r)
	replyCount(c, n, err)
}

func cmdZRemRangeByLex(c *client, args [][]byte) {
	r, ok := db.ParseLexRange(args[2], args[3])
	if !ok {
		c.fail(errMinMaxNotString)
		return
	}
	n, err := c.db.ZRemRangeByLex(args[1], &r)
	replyCount(c, n, err)
}

// zpopGeneric is genericZpopCommand. count is -1 for a single pop without
// COUNT. nested writes each member as a [member, score] pair; emitKey (ZMPOP)
// wraps the pairs in [key, [...]]; nilWhenEmpty replies a null array when
// no key exists (ZMPOP) instead of an empty one.
func zpopGeneric(c *client, keys [][]byte, max bool, count int64, nested, emitKey, nilWhenEmpty bool) {
	if count == -1 {
		count = 1
	}
	found, err := c.db.ZPop(keys, max, count,
		func(key []byte, n int) {
			switch {
			case emitKey:
				c.w.Array(2)
				c.w.Bulk(key)
				c.w.Array(n)
				propagateZMPop(c, key, max, int64(n))
			case nested:
				c.w.Array(n)
			default:
				c.w.Array(2 * n)
			}
		},
		func(member string, score float64) {
			if nested {
				c.w.Array(2)
			}
			c.w.BulkString(member)
			c.w.Double(score)
		})
	switch {
	case err != nil:
		c.fail(err)
	case !found && nilWhenEmpty:
		c.w.NullArray()
	case !found || count == 0:
		c.w.Array(0)
	}
}

func zpopMinMax(c *client, args [][]byte, max bool) {
	if len(args) > 3 {
		c.fail(protocol.ErrSyntax)
		return
	}
	count := int64(-1)
	if len(args) == 3 {
		var err error
		if count, err = parsePositiveLong(args[2], ""); err != nil {
			c.fail(err)
			return
		}
	}
	zpopGeneric(c, args[1:2], max, count, c.w.Resp3() && count != -1, false, false)
}

func cmdZPopMin(c *client, args [][]byte) { zpopMinMax(c, args, false) }
func cmdZPopMax(c *client, args [][]byte) { zpopMinMax(c, args, true) }

func cmdZMPop(c *client, args [][]byte) {
	numkeys, err := parseRangeLong(args[1], 1, math.MaxInt64, errNumkeysPositive)
	if err != nil {
		c.fail(err)
		return
	}
	if numkeys >= int64(len(args))-2 {
		c.fail(protocol.ErrSyntax)
		return
	}
	whereIdx := 2 + int(numkeys)
	var max bool
	switch {
	case cstrEqualFold(args[whereIdx], "min"):
	case cstrEqualFold(args[whereIdx], "max"):
		max = true
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	count := int64(-1)
	for j := whereIdx + 1; j < len(args); j++ {
		if count == -1 && cstrEqualFold(args[j], "count") && j < len(args)-1 {
			j++
			if count, err = parseRangeLong(args[j], 1, math.MaxInt64, errCountPositive); err != nil {
				c.fail(err)
				return
			}
			continue
		}
		c.fail(protocol.ErrSyntax)
		return
	}
	if count == -1 {
		count = 1
	}
	zpopGeneric(c, args[2:whereIdx], max, count, true, true, true)
}

func cmdZRandMember(c *client, args [][]byte) {
	if len(args) < 3 {
		z, ok := lookupRead(c, c.db.LookupZSet, args[1])
		if !ok {
			return
		}
		if z == nil {
			c.w.Null()
			return
		}
		c.w.BulkString(z.Random().Member())
		return
	}
	l, err := parseRandomCount(args[2])
	if err != nil {
		c.fail(err)
		return
	}
	if len(args) > 4 || (len(args) == 4 && !cstrEqualFold(args[3], "withscores")) {
		c.fail(protocol.ErrSyntax)
		return
	}
	withScores := len(args) == 4
	if withScores && (l < -math.MaxInt64/2 || l > math.MaxInt64/2) {
		c.fail(errOutOfRange)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	if z == nil || l == 0 {
		c.w.Array(0)
		return
	}
	zrandmemberWithCount(c, z, l, withScores)
}

// zrandmemberWithCount is zrandmemberWithCountCommand: a negative count (or
// 1) allows repeats; a positive one returns distinct members, all of them
// (from the highest score down, the order Redis iterates in) when count
// reaches the size.
func zrandmemberWithCount(c *client, z *db.ZSet, l int64, withScores bool) {
	emit := func(n *db.ZNode) {
		if withScores && c.w.Resp3() {
			c.w.Array(2)
		}
		c.w.BulkString(n.Member())
		if withScores {
			c.w.Double(n.Score())
		}
	}
	header := func(n int64) {
		if withScores && !c.w.Resp3() {
			n *= 2
		}
		c.w.Array(int(n))
	}
	size := int64(z.Len())
	if l < 0 || l == 1 {
		count := l
		if count < 0 {
			count = -count
		}
		header(count)
		for range count {
			emit(z.Random())
		}
		return
	}
	count := l
	if count >= size {
		header(size)
		for n := z.Last(); n != nil; n = n.Prev() {
			emit(n)
		}
		return
	}
	header(count)
	if count*randomSubStrategyMul > size {
		all := make([]*db.ZNode, 0, size)
		z.Each(func(n *db.ZNode) bool {
			all = append(all, n)
			return true
		})
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, n := range all[:count] {
			emit(n)
		}
		return
	}
	seen := make(map[*db.ZNode]struct{}, count)
	for int64(len(seen)) < count {
		n := z.Random()
		if _, dup := seen[n]; dup {
			continue
		}
		seen[n] = struct{}{}
		emit(n)
	}
}

func cmdZScan(c *client, args [][]byte) {
	z, cursor, ok := lookupForScan(c, args, c.db.LookupZSet)
	if !ok {
		return
	}
	scanValue(c, args, cursor, true, func(cur uint64, elems []string) (uint64, []string) {
		var buf [32]byte
		next := z.Scan(cur, func(n *db.ZNode) {
			elems = append(elems, n.Member(), string(z.AppendScore(buf[:0], n.Score())))
		})
		return next, elems
	})
}
