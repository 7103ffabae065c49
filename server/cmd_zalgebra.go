package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Sorted set algebra commands (Redis 7.0.15 zunionInterDiffGenericCommand):
// ZUNION, ZINTER, ZDIFF, ZINTERCARD and ZUNIONSTORE, ZINTERSTORE,
// ZDIFFSTORE.

var zalgebraCommands = []commandDef{
	{"zunion", cmdZUnion},
	{"zinter", cmdZInter},
	{"zdiff", cmdZDiff},
	{"zintercard", cmdZInterCard},
	{"zunionstore", cmdZUnionStore},
	{"zinterstore", cmdZInterStore},
	{"zdiffstore", cmdZDiffStore},
}

var errWeightNotFloat = protocol.Error("ERR weight value is not a float")

// zsetOp is the operation of an algebra command.
type zsetOp uint8

const (
	zopUnion zsetOp = iota
	zopInter
	zopDiff
)

// zalgebra is zunionInterDiffGenericCommand. name is the command's name
// (for the numkeys error); dst is nil unless it stores; numkeysIdx is the
// position of numkeys; cardOnly is ZINTERCARD.
func zalgebra(c *client, args [][]byte, name string, dst []byte, numkeysIdx int, op zsetOp, cardOnly bool) {
	setnum, err := parseLong(args[numkeysIdx])
	if err != nil {
		c.fail(err)
		return
	}
	if setnum < 1 {
		c.fail(protocol.Error("ERR at least 1 input key is needed for '" + name + "' command"))
		return
	}
	if setnum > int64(len(args)-(numkeysIdx+1)) {
		c.fail(protocol.ErrSyntax)
		return
	}
	j := numkeysIdx + 1 + int(setnum)
	srcs, err := c.db.ReadZSources(args[numkeysIdx+1 : j])
	if err != nil {
		c.fail(err)
		return
	}
	agg := db.AggSum
	withScores := false
	var limit int64
	for remaining := len(args) - j; remaining > 0; remaining = len(args) - j {
		opt := args[j]
		switch {
		case op != zopDiff && !cardOnly && int64(remaining) >= setnum+1 && cstrEqualFold(opt, "weights"):
			j++
			for i := range srcs {
				w, ok := protocol.ParseFloat(args[j])
				if !ok {
					c.fail(errWeightNotFloat)
					return
				}
				srcs[i].Weight = w
				j++
			}
		case op != zopDiff && !cardOnly && remaining >= 2 && cstrEqualFold(opt, "aggregate"):
			switch a := args[j+1]; {
			case cstrEqualFold(a, "sum"):
				agg = db.AggSum
			case cstrEqualFold(a, "min"):
				agg = db.AggMin
			case cstrEqualFold(a, "max"):
				agg = db.AggMax
			default:
				c.fail(protocol.ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && cstrEqualFold(opt, "withscores"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && cstrEqualFold(opt, "limit"):
			if limit, err = parsePositiveLong(args[j+1], errLimitNegative); err != nil {
				c.fail(err)
				return
			}
			j += 2
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if cardOnly {
		c.w.Int(db.ZInterCard(srcs, limit))
		return
	}
	var z *db.ZSet
	var maxLen int
	switch op {
	case zopUnion:
		z, maxLen = db.ZUnion(srcs, agg)
	case zopInter:
		z, maxLen = db.ZInter(srcs, agg)
	default:
		z, maxLen = db.ZDiff(srcs)
	}
	if dst != nil {
		ev := db.EvZUnionStore
		switch op {
		case zopInter:
			ev = db.EvZInterStore
		case zopDiff:
			ev = db.EvZDiffStore
		}
		c.w.Int(int64(c.db.StoreZSet(dst, z, maxLen, ev)))
		return
	}
	n := z.Len()
	if withScores && !c.w.Resp3() {
		c.w.Array(2 * n)
	} else {
		c.w.Array(n)
	}
	z.Each(func(x *db.ZNode) bool {
		if withScores && c.w.Resp3() {
			c.w.Array(2)
		}
		c.w.BulkString(x.Member())
		if withScores {
			c.w.Double(x.Score())
		}
		return true
	})
}

func cmdZUnion(c *client, args [][]byte) { zalgebra(c, args, "zunion", nil, 1, zopUnion, false) }
func cmdZInter(c *client, args [][]byte) { zalgebra(c, args, "zinter", nil, 1, zopInter, false) }
func cmdZDiff(c *client, args [][]byte)  { zalgebra(c, args, "zdiff", nil, 1, zopDiff, false) }
func cmdZInterCard(c *client, args [][]byte) {
	zalgebra(c, args, "zintercard", nil, 1, zopInter, true)
}
func cmdZUnionStore(c *client, args [][]byte) {
	zalgebra(c, args, "zunionstore", args[1], 2, zopUnion, false)
}
func cmdZInterStore(c *client, args [][]byte) {
	zalgebra(c, args, "zinterstore", args[1], 2, zopInter, false)
}
func cmdZDiffStore(c *client, args [][]byte) {
	zalgebra(c, args, "zdiffstore", args[1], 2, zopDiff, false)
}
