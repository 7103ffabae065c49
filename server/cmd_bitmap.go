package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Bitmap commands on strings (Redis 7.0 bitops.c): SETBIT, GETBIT,
// BITCOUNT, BITPOS, BITOP. The bit algorithms are db/bitops.go, the writes
// db/bitmap.go; BITFIELD is cmd_bitfield.go.

var bitmapCommands = []commandDef{
	{"setbit", cmdSetBit},
	{"getbit", cmdGetBit},
	{"bitcount", cmdBitCount},
	{"bitpos", cmdBitPos},
	{"bitop", cmdBitOp},
	{"bitfield", cmdBitfield},
	{"bitfield_ro", cmdBitfieldRO},
}

var (
	errBitOffset  = protocol.Error("ERR bit offset is not an integer or out of range")
	errBitValue   = protocol.Error("ERR bit is not an integer or out of range")
	errBitArg     = protocol.Error("ERR The bit argument must be 1 or 0.")
	errBitOpNot   = protocol.Error("ERR BITOP NOT must be called with a single source key.")
	errBitfieldTy = protocol.Error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
	errBitfieldOv = protocol.Error("ERR Invalid OVERFLOW type specified")
	errBitfieldRO = protocol.Error("ERR BITFIELD_RO only supports the GET subcommand")
)

// bitOffsetArg is getBitOffsetFromArgument: a non-negative integer whose
// byte lies below proto-max-bulk-len; with hashBits > 0 (BITFIELD) the form
// "#n" stands for n*hashBits.
func (c *client) bitOffsetArg(b []byte, hashBits int) (uint64, bool) {
	useHash := hashBits > 0 && len(b) > 0 && b[0] == '#'
	if useHash {
		b = b[1:]
	}
	n, ok := protocol.ParseInt(b)
	if !ok {
		c.fail(errBitOffset)
		return 0, false
	}
	if useHash {
		n *= int64(hashBits) // wraps as Redis's long long multiplication does
	}
	if n < 0 || n>>3 >= c.srv.cfg.ProtoMaxBulkLen {
		c.fail(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

func cmdSetBit(c *client, args [][]byte) {
	off, ok := c.bitOffsetArg(args[2], 0)
	if !ok {
		return
	}
	on, ok := protocol.ParseInt(args[3])
	if !ok || on&^1 != 0 {
		c.fail(errBitValue)
		return
	}
	old, err := c.db.SetBit(args[1], off, on == 1)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(old))
}

func cmdGetBit(c *client, args [][]byte) {
	off, ok := c.bitOffsetArg(args[2], 0)
	if !ok {
		return
	}
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	bit := int64(0)
	if i := off >> 3; i < uint64(len(v)) && v[i]&(1<<(7-off&7)) != 0 {
		bit = 1
	}
	c.w.Int(bit)
}

// bitUnitArg parses BITCOUNT's and BITPOS's BIT|BYTE argument.
func bitUnitArg(b []byte) (isBit, ok bool) {
	switch {
	case cstrEqualFold(b, "bit"):
		return true, true
	case cstrEqualFold(b, "byte"):
		return false, true
	}
	return false, false
}

// clampRange converts GETRANGE/BITCOUNT/BITPOS start and end (negative
// from the end) into indexes within a string of n bytes (bits when isBit);
// the range is empty when start > end.
func clampRange(start, end, n int64, isBit bool) (int64, int64) {
	if isBit {
		n <<= 3
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	return start, end
}

// cmdBitCount is Redis 7.0's bitcountCommand: a missing key counts 0
// before the range arguments are looked at.
func cmdBitCount(c *client, args [][]byte) {
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if v == nil {
		c.w.Int(0)
		return
	}
	n := int64(len(v))
	switch len(args) {
	case 2:
		c.w.Int(db.PopCount(v))
	case 4, 5:
		start, ok1 := protocol.ParseInt(args[2])
		if !ok1 {
			c.fail(protocol.ErrNotInteger)
			return
		}
		end, ok2 := protocol.ParseInt(args[3])
		if !ok2 {
			c.fail(protocol.ErrNotInteger)
			return
		}
		if start < 0 && end < 0 && start > end {
			c.w.Int(0)
			return
		}
		isBit := false
		if len(args) == 5 {
			var ok bool
			if isBit, ok = bitUnitArg(args[4]); !ok {
				c.fail(protocol.ErrSyntax)
				return
			}
		}
		start, end = clampRange(start, end, n, isBit)
		c.w.Int(db.BitCountRange(v, start, end, isBit))
	default:
		c.fail(protocol.ErrSyntax)
	}
}

// cmdBitPos is Redis 7.0's bitposCommand: the bit argument is checked
// first, then a missing key answers (-1 for a set bit, 0 for a clear one),
// then the range arguments are parsed.
func cmdBitPos(c *client, args [][]byte) {
	bit, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if bit != 0 && bit != 1 {
		c.fail(errBitArg)
		return
	}
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if v == nil {
		if bit == 1 {
			c.w.Int(-1)
		} else {
			c.w.Int(0)
		}
		return
	}
	n := int64(len(v))
	start, end := int64(0), n-1
	isBit, endGiven := false, false
	switch len(args) {
	case 3:
	case 4, 5, 6:
		if start, ok = protocol.ParseInt(args[3]); !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		if len(args) == 6 {
			if isBit, ok = bitUnitArg(args[5]); !ok {
				c.fail(protocol.ErrSyntax)
				return
			}
		}
		if len(args) >= 5 {
			if end, ok = protocol.ParseInt(args[4]); !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			endGiven = true
		} else if isBit {
			end = n<<3 + 7
		}
		start, end = clampRange(start, end, n, isBit)
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	if start > end {
		c.w.Int(-1)
		return
	}
	c.w.Int(db.BitPosRange(v, int(bit), start, end, isBit, endGiven))
}

func cmdBitOp(c *client, args [][]byte) {
	var op uint8
	switch name := args[1]; {
	case cstrEqualFold(name, "and"):
		op = db.BitOpAnd
	case cstrEqualFold(name, "or"):
		op = db.BitOpOr
	case cstrEqualFold(name, "xor"):
		op = db.BitOpXor
	case cstrEqualFold(name, "not"):
		op = db.BitOpNot
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	if op == db.BitOpNot && len(args) != 4 {
		c.fail(errBitOpNot)
		return
	}
	n, err := c.db.BitOp(op, args[2], args[3:])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}
