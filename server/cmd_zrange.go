package server

import (
	"iter"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The ZRANGE family (Redis 7.0.15 zrangeGenericCommand and its handlers):
// ZRANGE, ZRANGESTORE, ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX.

var zrangeCommands = []commandDef{
	{"zrange", cmdZRange},
	{"zrangestore", cmdZRangeStore},
	{"zrevrange", cmdZRevRange},
	{"zrangebyscore", cmdZRangeByScore},
	{"zrevrangebyscore", cmdZRevRangeByScore},
	{"zrangebylex", cmdZRangeByLex},
	{"zrevrangebylex", cmdZRevRangeByLex},
}

var (
	errLimitNeedsBy    = protocol.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	errWithscoresByLex = protocol.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
)

// zrangeKind is how a range is given (ZRANGE_AUTO and friends).
type zrangeKind uint8

const (
	zrangeAuto zrangeKind = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

// zrangeDir is the direction of a range (ZRANGE_DIRECTION_*).
type zrangeDir uint8

const (
	zrangeDirAuto zrangeDir = iota
	zrangeForward
	zrangeReverse
)

// zrangeSpec is a parsed range request.
type zrangeSpec struct {
	kind          zrangeKind
	reverse       bool
	withScores    bool
	start, end    int64
	score         db.ScoreRange
	lex           db.LexRange
	offset, limit int64
}

// parseZRange parses args[at:] (the source key, min, max and options) as
// zrangeGenericCommand does, in its order of checks. kind and dir are
// fixed by the legacy commands and zrangeAuto/zrangeDirAuto for ZRANGE
// and ZRANGESTORE. store disallows WITHSCORES.
func parseZRange(args [][]byte, at int, store bool, kind zrangeKind, dir zrangeDir) (zrangeSpec, error) {
	sp := zrangeSpec{limit: -1}
	minIdx, maxIdx := at+1, at+2
	for j := at + 3; j < len(args); j++ {
		left := len(args) - j - 1
		opt := args[j]
		switch {
		case !store && cstrEqualFold(opt, "withscores"):
			sp.withScores = true
		case cstrEqualFold(opt, "limit") && left >= 2:
			var err error
			if sp.offset, err = parseLong(args[j+1]); err != nil {
				return sp, err
			}
			if sp.limit, err = parseLong(args[j+2]); err != nil {
				return sp, err
			}
			j += 2
		case dir == zrangeDirAuto && cstrEqualFold(opt, "rev"):
			dir = zrangeReverse
		case kind == zrangeAuto && cstrEqualFold(opt, "bylex"):
			kind = zrangeLex
		case kind == zrangeAuto && cstrEqualFold(opt, "byscore"):
			kind = zrangeScore
		default:
			return sp, protocol.ErrSyntax
		}
	}
	if kind == zrangeAuto {
		kind = zrangeRank
	}
	sp.kind = kind
	sp.reverse = dir == zrangeReverse
	if sp.limit != -1 && kind == zrangeRank {
		return sp, errLimitNeedsBy
	}
	if sp.withScores && kind == zrangeLex {
		return sp, errWithscoresByLex
	}
	if sp.reverse && kind != zrangeRank {
		minIdx, maxIdx = maxIdx, minIdx
	}
	var ok bool
	switch kind {
	case zrangeRank:
		var err error
		if sp.start, err = parseLong(args[minIdx]); err != nil {
			return sp, err
		}
		if sp.end, err = parseLong(args[maxIdx]); err != nil {
			return sp, err
		}
	case zrangeScore:
		if sp.score, ok = db.ParseScoreRange(args[minIdx], args[maxIdx]); !ok {
			return sp, errMinMaxNotFloat
		}
	case zrangeLex:
		if sp.lex, ok = db.ParseLexRange(args[minIdx], args[maxIdx]); !ok {
			return sp, errMinMaxNotString
		}
	}
	return sp, nil
}

// nodes returns the nodes of the range in reply order, and their number
// when known in advance (rank ranges), else -1.
func (sp *zrangeSpec) nodes(z *db.ZSet) (int, iter.Seq[*db.ZNode]) {
	switch sp.kind {
	case zrangeScore:
		return -1, sp.scoreNodes(z)
	case zrangeLex:
		return -1, sp.lexNodes(z)
	}
	llen := int64(z.Len())
	start, end := sp.start, sp.end
	if start < 0 {
		start += llen
	}
	if end < 0 {
		end += llen
	}
	start = max(start, 0)
	if start > end || start >= llen {
		return 0, func(func(*db.ZNode) bool) {}
	}
	end = min(end, llen-1)
	n := int(end - start + 1)
	first := z.ByRank(int(start))
	if sp.reverse {
		first = z.ByRank(int(llen - 1 - start))
	}
	return n, walkNodes(first, n, sp.reverse)
}

func walkNodes(x *db.ZNode, n int, reverse bool) iter.Seq[*db.ZNode] {
	return func(yield func(*db.ZNode) bool) {
		for ; n > 0 && x != nil; n-- {
			if !yield(x) {
				return
			}
			if reverse {
				x = x.Prev()
			} else {
				x = x.Next()
			}
		}
	}
}

// skipOffset applies a LIMIT offset as Redis's loops do: a negative offset
// walks off the end, so the range is empty.
func skipOffset(x *db.ZNode, offset int64, reverse bool) *db.ZNode {
	if offset < 0 {
		return nil
	}
	for ; x != nil && offset > 0; offset-- {
		if reverse {
			x = x.Prev()
		} else {
			x = x.Next()
		}
	}
	return x
}

func (sp *zrangeSpec) scoreNodes(z *db.ZSet) iter.Seq[*db.ZNode] {
	r := &sp.score
	return sp.walk(func() *db.ZNode {
		if sp.offset > 0 && sp.offset >= int64(z.Len()) {
			return nil
		}
		if sp.reverse {
			return z.LastInRange(r)
		}
		return z.FirstInRange(r)
	}, func(x *db.ZNode) bool {
		if sp.reverse {
			return r.AboveMin(x.Score())
		}
		return r.BelowMax(x.Score())
	})
}

func (sp *zrangeSpec) lexNodes(z *db.ZSet) iter.Seq[*db.ZNode] {
	r := &sp.lex
	return sp.walk(func() *db.ZNode {
		if sp.reverse {
			return z.LastInLexRange(r)
		}
		return z.FirstInLexRange(r)
	}, func(x *db.ZNode) bool {
		if sp.reverse {
			return r.AboveMin(x.Member())
		}
		return r.BelowMax(x.Member())
	})
}

// walk yields, in the spec's direction, the nodes from the one start
// returns (after skipping the spec's offset) while within holds, at most
// the spec's limit of them.
func (sp *zrangeSpec) walk(start func() *db.ZNode, within func(*db.ZNode) bool) iter.Seq[*db.ZNode] {
	return func(yield func(*db.ZNode) bool) {
		x := skipOffset(start(), sp.offset, sp.reverse)
		for limit := sp.limit; x != nil && limit != 0 && within(x); limit-- {
			if !yield(x) {
				return
			}
			if sp.reverse {
				x = x.Prev()
			} else {
				x = x.Next()
			}
		}
	}
}

// zrangeReply runs a range command that replies to the client.
func zrangeReply(c *client, args [][]byte, kind zrangeKind, dir zrangeDir) {
	sp, err := parseZRange(args, 1, false, kind, dir)
	if err != nil {
		c.fail(err)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.w.Array(0)
		return
	}
	n, seq := sp.nodes(z)
	pairs := sp.withScores && c.w.Resp3()
	flat := sp.withScores && !c.w.Resp3()
	var d protocol.Deferred
	if n > 0 {
		if flat {
			c.w.Array(2 * n)
		} else {
			c.w.Array(n)
		}
	} else {
		d = c.w.DeferLen()
	}
	count := 0
	for x := range seq {
		if pairs {
			c.w.Array(2)
		}
		c.w.BulkString(x.Member())
		if sp.withScores {
			c.w.Double(x.Score())
		}
		count++
	}
	if n <= 0 {
		if flat {
			count *= 2
		}
		c.w.SetArrayLen(d, count)
	}
}

func cmdZRange(c *client, args [][]byte)    { zrangeReply(c, args, zrangeAuto, zrangeDirAuto) }
func cmdZRevRange(c *client, args [][]byte) { zrangeReply(c, args, zrangeRank, zrangeReverse) }
func cmdZRangeByScore(c *client, args [][]byte) {
	zrangeReply(c, args, zrangeScore, zrangeForward)
}
func cmdZRevRangeByScore(c *client, args [][]byte) {
	zrangeReply(c, args, zrangeScore, zrangeReverse)
}
func cmdZRangeByLex(c *client, args [][]byte)    { zrangeReply(c, args, zrangeLex, zrangeForward) }
func cmdZRevRangeByLex(c *client, args [][]byte) { zrangeReply(c, args, zrangeLex, zrangeReverse) }

func cmdZRangeStore(c *client, args [][]byte) {
	sp, err := parseZRange(args, 2, true, zrangeAuto, zrangeDirAuto)
	if err != nil {
		c.fail(err)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[2])
	if !ok {
		return
	}
	seq := func(func(*db.ZNode) bool) {}
	if z != nil {
		_, seq = sp.nodes(z)
	}
	c.w.Int(int64(c.db.ZRangeStore(args[1], seq)))
}
