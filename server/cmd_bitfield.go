package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// BITFIELD and BITFIELD_RO (Redis 7.0 bitops.c bitfieldGeneric): every
// subcommand is parsed first (the first bad one is the reply), then a
// BITFIELD with only GETs reads like GET, and one with a SET or INCRBY
// makes room for its farthest write and runs the ops in order through
// db.Bitfield. Registered with the bitmap family (cmd_bitmap.go).

func cmdBitfield(c *client, args [][]byte)   { bitfieldGeneric(c, args, false) }
func cmdBitfieldRO(c *client, args [][]byte) { bitfieldGeneric(c, args, true) }

// bitfieldTypeArg is getBitfieldTypeFromArgument: i1..i64 or u1..u63 (the
// argument read as a C string).
func bitfieldTypeArg(b []byte) (signed bool, bits int, ok bool) {
	b = cstrBytes(b)
	if len(b) == 0 || (b[0] != 'i' && b[0] != 'u') {
		return false, 0, false
	}
	signed = b[0] == 'i'
	n, ok := protocol.ParseInt(b[1:])
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, false
	}
	return signed, int(n), true
}

func bitfieldGeneric(c *client, args [][]byte, readOnly bool) {
	ops := make([]db.BitfieldOp, 0, (len(args)-2)/3)
	overflow := db.OverflowWrap
	writes := false
	for j := 2; j < len(args); j++ {
		rem := len(args) - j - 1
		sub := args[j]
		var kind uint8
		switch {
		case cstrEqualFold(sub, "get") && rem >= 2:
			kind = db.BitfieldGetOp
		case cstrEqualFold(sub, "set") && rem >= 3:
			kind = db.BitfieldSetOp
		case cstrEqualFold(sub, "incrby") && rem >= 3:
			kind = db.BitfieldIncrByOp
		case cstrEqualFold(sub, "overflow") && rem >= 1:
			j++
			switch t := args[j]; {
			case cstrEqualFold(t, "wrap"):
				overflow = db.OverflowWrap
			case cstrEqualFold(t, "sat"):
				overflow = db.OverflowSat
			case cstrEqualFold(t, "fail"):
				overflow = db.OverflowFail
			default:
				c.fail(errBitfieldOv)
				return
			}
			continue
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
		signed, bits, ok := bitfieldTypeArg(args[j+1])
		if !ok {
			c.fail(errBitfieldTy)
			return
		}
		off, ok := c.bitOffsetArg(args[j+2], bits)
		if !ok {
			return
		}
		op := db.BitfieldOp{Kind: kind, Signed: signed, Bits: bits, Overflow: overflow, Offset: off}
		if kind != db.BitfieldGetOp {
			writes = true
			v, ok := protocol.ParseInt(args[j+3])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			op.Value = v
			j += 3
		} else {
			j += 2
		}
		ops = append(ops, op)
	}
	if !writes {
		v, err := c.db.GetString(args[1])
		if err != nil {
			c.fail(err)
			return
		}
		c.w.Array(len(ops))
		for _, op := range ops {
			c.w.Int(db.BitfieldGet(v, op.Offset, op.Bits, op.Signed))
		}
		return
	}
	if readOnly {
		c.fail(errBitfieldRO)
		return
	}
	replies, err := c.db.Bitfield(args[1], ops, make([]db.BitfieldReply, 0, len(ops)))
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Array(len(replies))
	for _, r := range replies {
		if r.Nil {
			c.w.Null()
		} else {
			c.w.Int(r.Val)
		}
	}
}
