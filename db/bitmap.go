package db

import "github.com/miniwatchd/miniwatchd/protocol"

// Bitmap writes on string values (Redis 7.0 bitops.c: SETBIT, BITFIELD,
// BITOP). A string written bit by bit is an in-place buffer (OBJECT ENCODING
// "raw"), grown with zero bytes to reach the highest bit written, as Redis's
// lookupStringForBitCommand does. Each write signals once, only when it
// changed the value or its length, as Redis 7.0.15 does: SETBIT of a bit
// that already has the value, or a BITFIELD whose writes stored what was
// there, touches no watcher (a key they create is still announced "new").

// Events of the bitmap commands.
var EvSetBit = Event{ClassString, "setbit"}

// growBitString is lookupStringForBitCommand after the write lookup: the
// string at e (nil: created at key) as an in-place buffer at least
// maxBit/8+1 bytes long. It reports whether the value grew (or was created).
func (d *DB) growBitString(key []byte, e *entry, maxBit uint64) (*entry, *rawString, bool) {
	need := int(maxBit>>3) + 1
	if e == nil {
		e = newEntry(key, TypeString)
		r := &rawString{b: make([]byte, need)}
		e.setObj(TypeString, r)
		e.setRawEncoding(true)
		d.insert(e)
		return e, r, true
	}
	if r, ok := e.val.(*rawString); ok && need <= len(r.b) {
		return e, r, false // the common case: nothing to convert or grow
	}
	before := baseSize(e)
	r := e.rawBuffer()
	grew := false
	if need > len(r.b) {
		r.b = append(r.b, make([]byte, need-len(r.b))...)
		grew = true
	}
	d.accountBase(e, before)
	return e, r, grew
}

// stringForBitWrite is the write lookup of a bitmap command: the entry
// (nil when missing) or ErrWrongType.
func (d *DB) stringForBitWrite(key []byte) (*entry, error) {
	e := d.lookupWrite(key)
	if e != nil && e.typ() != TypeString {
		return nil, protocol.ErrWrongType
	}
	return e, nil
}

// SetBit sets or clears the bit at offset of the string at key, creating
// or zero-padding the string as needed, and returns the bit's old value
// (SETBIT). offset is already bounded by proto-max-bulk-len.
func (d *DB) SetBit(key []byte, offset uint64, on bool) (int, error) {
	e, err := d.stringForBitWrite(key)
	if err != nil {
		return 0, err
	}
	e, r, grew := d.growBitString(key, e, offset)
	i, mask := offset>>3, byte(1)<<(7-offset&7)
	old := 0
	if r.b[i]&mask != 0 {
		old = 1
	}
	if grew || (old == 1) != on {
		if on {
			r.b[i] |= mask
		} else {
			r.b[i] &^= mask
		}
		d.signal(e.key(), true, EvSetBit)
	}
	return old, nil
}

// BitfieldOp is one GET, SET or INCRBY of a BITFIELD command.
type BitfieldOp struct {
	Kind     uint8 // BitfieldGet, BitfieldSet or BitfieldIncrBy
	Signed   bool
	Bits     int    // 1..64 signed, 1..63 unsigned
	Overflow uint8  // OverflowWrap, OverflowSat or OverflowFail
	Offset   uint64 // bit offset, bounded by proto-max-bulk-len
	Value    int64  // SET value or INCRBY increment
}

// Kinds of BitfieldOp.
const (
	BitfieldGetOp uint8 = iota
	BitfieldSetOp
	BitfieldIncrByOp
)

// BitfieldReply is the reply of one BitfieldOp: Nil for a write refused by
// OVERFLOW FAIL.
type BitfieldReply struct {
	Val int64
	Nil bool
}

// Bitfield runs ops, at least one of which writes, on the string at key
// (BITFIELD with SET or INCRBY), appending one reply per op to out. The
// string is created or zero-padded to the highest bit any write reaches
// before the first op runs, even when no write then stores anything (as
// Redis); it signals once with "setbit" when a write changed a value or the
// string grew.
func (d *DB) Bitfield(key []byte, ops []BitfieldOp, out []BitfieldReply) ([]BitfieldReply, error) {
	e, err := d.stringForBitWrite(key)
	if err != nil {
		return out, err
	}
	var highest uint64
	for _, op := range ops {
		if op.Kind != BitfieldGetOp && op.Offset+uint64(op.Bits)-1 > highest {
			highest = op.Offset + uint64(op.Bits) - 1
		}
	}
	e, r, grew := d.growBitString(key, e, highest)
	changes := 0
	for _, op := range ops {
		if op.Kind == BitfieldGetOp {
			out = append(out, BitfieldReply{Val: BitfieldGet(r.b, op.Offset, op.Bits, op.Signed)})
			continue
		}
		rep, changed := bitfieldWrite(r.b, op)
		if changed || (grew && !rep.Nil) {
			changes++
		}
		out = append(out, rep)
	}
	if changes > 0 {
		d.ks.Stats.Dirty += int64(changes) - 1 // Redis counts each change
		d.signal(e.key(), true, EvSetBit)
	}
	return out, nil
}

// bitfieldWrite runs one SET or INCRBY on p (long enough) and reports
// whether it stored a different value.
func bitfieldWrite(p []byte, op BitfieldOp) (BitfieldReply, bool) {
	if op.Signed {
		old := getSignedBits(p, op.Offset, op.Bits)
		var nv, ret int64
		var over int
		var lim int64
		if op.Kind == BitfieldIncrByOp {
			over, lim = signedOverflow(old, op.Value, op.Bits, op.Overflow)
			nv = old + op.Value
			if over != 0 {
				nv = lim
			}
			ret = nv
		} else {
			nv = op.Value
			if over, lim = signedOverflow(nv, 0, op.Bits, op.Overflow); over != 0 {
				nv = lim
			}
			ret = old
		}
		if over != 0 && op.Overflow == OverflowFail {
			return BitfieldReply{Nil: true}, false
		}
		setUnsignedBits(p, op.Offset, op.Bits, uint64(nv))
		return BitfieldReply{Val: ret}, old != nv
	}
	old := getUnsignedBits(p, op.Offset, op.Bits)
	var nv, ret, lim uint64
	var over int
	if op.Kind == BitfieldIncrByOp {
		nv = old + uint64(op.Value)
		if over, lim = unsignedOverflow(old, op.Value, op.Bits, op.Overflow); over != 0 {
			nv = lim
		}
		ret = nv
	} else {
		nv = uint64(op.Value)
		if over, lim = unsignedOverflow(nv, 0, op.Bits, op.Overflow); over != 0 {
			nv = lim
		}
		ret = old
	}
	if over != 0 && op.Overflow == OverflowFail {
		return BitfieldReply{Nil: true}, false
	}
	setUnsignedBits(p, op.Offset, op.Bits, nv)
	return BitfieldReply{Val: int64(ret)}, old != nv
}

// Operations of BITOP.
const (
	BitOpAnd uint8 = iota
	BitOpOr
	BitOpXor
	BitOpNot
)

// BitOp computes op over the strings at srcs (missing keys are empty
// strings, read with read lookups in order; ErrWrongType at the first that
// is not a string) and stores the result at dst as a new raw string,
// dropping its TTL, signalled with "set" (BITOP). An empty result deletes
// dst, signalled with "del" when it existed. It returns the result's
// length.
func (d *DB) BitOp(op uint8, dst []byte, srcs [][]byte) (int, error) {
	vals := make([][]byte, len(srcs))
	maxLen := 0
	for i, k := range srcs {
		e := d.lookup(bstr(k), lookupRead)
		if e == nil {
			continue
		}
		if e.typ() != TypeString {
			return 0, protocol.ErrWrongType
		}
		vals[i] = e.str()
		if len(vals[i]) > maxLen {
			maxLen = len(vals[i])
		}
	}
	if maxLen == 0 {
		d.deleteForStore(dst)
		return 0, nil
	}
	res := make([]byte, maxLen)
	copy(res, vals[0])
	switch op {
	case BitOpNot:
		for j := range res {
			res[j] = ^res[j]
		}
	case BitOpAnd:
		for _, v := range vals[1:] {
			for j := range res {
				if j < len(v) {
					res[j] &= v[j]
				} else {
					res[j] = 0
				}
			}
		}
	case BitOpOr:
		for _, v := range vals[1:] {
			for j := 0; j < len(v); j++ {
				res[j] |= v[j]
			}
		}
	case BitOpXor:
		for _, v := range vals[1:] {
			for j := 0; j < len(v); j++ {
				res[j] ^= v[j]
			}
		}
	}
	d.storeRawString(dst, res, EvSet)
	return maxLen, nil
}

// storeRawString sets key to the in-place string buf (owned by the db from
// now on) as Redis's setKey of a new raw string object: a write lookup,
// insert or overwrite of any type, TTL dropped, one signal with ev.
func (d *DB) storeRawString(key, buf []byte, ev Event) {
	r := &rawString{b: buf}
	e := d.lookupWrite(key)
	if e == nil {
		e = newEntry(key, TypeString)
		e.setObj(TypeString, r)
		e.setRawEncoding(true)
		d.insert(e)
	} else {
		d.replaceValue(e, TypeString, r)
		e.setRawEncoding(true)
		d.clearDeadline(e)
	}
	d.signal(e.key(), true, ev)
}
