package db

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Bit algorithms on string values (Redis 7.0 bitops.c): population count,
// first set/clear bit, and the fixed-width integers of BITFIELD. Bit 0 is
// the most significant bit of the first byte, as SETBIT numbers bits. These
// functions only compute; the mutators that use them are in bitmap.go.

// PopCount returns the number of bits set in p (redisPopcount).
func PopCount(p []byte) int64 {
	var n int
	for len(p) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(p)) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[16:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(p[24:]))
		p = p[32:]
	}
	for len(p) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(p))
		p = p[8:]
	}
	for _, b := range p {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// BitCountRange is BITCOUNT's count of the set bits of p from start to end
// inclusive, both already clamped into p: byte indexes, or bit indexes when
// isBit. It returns 0 for an empty range (start > end).
func BitCountRange(p []byte, start, end int64, isBit bool) int64 {
	if start > end {
		return 0
	}
	if !isBit {
		return PopCount(p[start : end+1])
	}
	sb, eb := start>>3, end>>3
	n := PopCount(p[sb : eb+1])
	n -= int64(bits.OnesCount8(p[sb] & firstByteNegMask(start)))
	n -= int64(bits.OnesCount8(p[eb] & lastByteNegMask(end)))
	return n
}

// firstByteNegMask is the mask of the bits of start's byte that lie before
// bit start; lastByteNegMask those of end's byte after bit end.
func firstByteNegMask(start int64) byte { return ^byte(0xff >> (start & 7)) }
func lastByteNegMask(end int64) byte    { return byte(0xff >> (end&7 + 1)) }

// FirstBit returns the position of the first bit of p equal to bit
// (redisBitpos): -1 when looking for a set bit in a string that has none,
// len(p)*8 when looking for a clear bit in a string of ones (the string is
// taken as padded with zeroes on the right).
func FirstBit(p []byte, bit int) int64 {
	skip := byte(0)
	var skip64 uint64
	if bit == 0 {
		skip, skip64 = 0xff, math.MaxUint64
	}
	i := 0
	for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:]) == skip64 {
		i += 8
	}
	for i < len(p) && p[i] == skip {
		i++
	}
	if i == len(p) {
		if bit == 1 {
			return -1
		}
		return int64(len(p)) * 8
	}
	b := p[i]
	if bit == 0 {
		b = ^b
	}
	return int64(i)*8 + int64(bits.LeadingZeros8(b))
}

// BitPosRange is BITPOS over p from start to end inclusive (clamped into p,
// byte indexes or bit indexes when isBit, start <= end): the absolute
// position of the first bit equal to bit in the range. When none is found it
// returns -1, except for a clear bit when endGiven is false: then the first
// bit after the range's last byte, as Redis takes the string as padded.
func BitPosRange(p []byte, bit int, start, end int64, isBit, endGiven bool) int64 {
	sb, eb := start, end
	if isBit {
		sb, eb = start>>3, end>>3
	}
	var firstMask, lastMask byte
	if isBit {
		firstMask, lastMask = firstByteNegMask(start), lastByteNegMask(end)
	}
	// byteHit finds bit in one edge byte after masking out what is outside
	// the range.
	byteHit := func(i int64, mask byte) int64 {
		b := maskOut(p[i], mask, bit)
		if bit == 0 {
			b = ^b
		}
		if b == 0 {
			return -1
		}
		return i*8 + int64(bits.LeadingZeros8(b))
	}
	if sb == eb {
		if pos := byteHit(sb, firstMask|lastMask); pos >= 0 {
			return pos
		}
	} else {
		if pos := byteHit(sb, firstMask); pos >= 0 {
			return pos
		}
		if mid := p[sb+1 : eb]; len(mid) > 0 {
			if rel := FirstBit(mid, bit); rel >= 0 && rel < int64(len(mid))*8 {
				return (sb+1)*8 + rel
			}
		}
		if pos := byteHit(eb, lastMask); pos >= 0 {
			return pos
		}
	}
	if bit == 0 && !endGiven {
		return (eb + 1) * 8
	}
	return -1
}

// maskOut sets the bits of mask in b to the value not looked for.
func maskOut(b, mask byte, bit int) byte {
	if bit == 1 {
		return b &^ mask
	}
	return b | mask
}

// Overflow behaviours of BITFIELD.
const (
	OverflowWrap uint8 = iota
	OverflowSat
	OverflowFail
)

// getUnsignedBits reads the bits-wide unsigned integer at bit offset off of
// p; p must hold it.
func getUnsignedBits(p []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		byteval := p[off>>3]
		bit := 7 - off&7
		v = v<<1 | uint64(byteval>>bit)&1
		off++
	}
	return v
}

// setUnsignedBits writes the low width bits of v at bit offset off of p.
func setUnsignedBits(p []byte, off uint64, width int, v uint64) {
	for j := 0; j < width; j++ {
		bitval := byte(v>>(width-1-j)) & 1
		bit := 7 - off&7
		p[off>>3] = p[off>>3]&^(1<<bit) | bitval<<bit
		off++
	}
}

// getSignedBits reads a two's complement integer of width bits.
func getSignedBits(p []byte, off uint64, width int) int64 {
	v := int64(getUnsignedBits(p, off, width))
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= -1 << width
	}
	return v
}

// BitfieldGet is BITFIELD GET over p, which is taken as padded with zero
// bytes: the signed or unsigned integer of width bits at bit offset off.
func BitfieldGet(p []byte, off uint64, width int, signed bool) int64 {
	var buf [9]byte
	byteOff := off >> 3
	if byteOff < uint64(len(p)) {
		copy(buf[:], p[byteOff:])
	}
	rel := off - byteOff*8
	if signed {
		return getSignedBits(buf[:], rel, width)
	}
	return int64(getUnsignedBits(buf[:], rel, width))
}

// unsignedOverflow is checkUnsignedBitfieldOverflow: 0 when value+incr
// fits in width bits, 1 on overflow, -1 on underflow, with the value to
// store for WRAP and SAT in limit.
func unsignedOverflow(value uint64, incr int64, width int, ow uint8) (int, uint64) {
	max := uint64(1)<<width - 1
	maxincr := int64(max - value)
	minincr := -int64(value)
	wrap := func() uint64 { return (value + uint64(incr)) & max }
	if value > max || (incr > 0 && incr > maxincr) {
		if ow == OverflowWrap {
			return 1, wrap()
		}
		return 1, max
	} else if incr < 0 && incr < minincr {
		if ow == OverflowWrap {
			return -1, wrap() // Redis reports 1 here too; only non-zero matters
		}
		return -1, 0
	}
	return 0, 0
}

// signedOverflow is checkSignedBitfieldOverflow for a width of 1 to 64 bits.
func signedOverflow(value, incr int64, width int, ow uint8) (int, int64) {
	max := int64(math.MaxInt64)
	if width != 64 {
		max = 1<<(width-1) - 1
	}
	min := -max - 1
	maxincr := int64(uint64(max) - uint64(value))
	minincr := int64(uint64(min) - uint64(value))
	wrap := func() int64 {
		c := uint64(value) + uint64(incr)
		if width < 64 {
			mask := uint64(math.MaxUint64) << width
			if c&(1<<(width-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		return int64(c)
	}
	if value > max || (width != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr) {
		if ow == OverflowWrap {
			return 1, wrap()
		}
		return 1, max
	} else if value < min || (width != 64 && incr < minincr) || (value < 0 && incr < 0 && incr < minincr) {
		if ow == OverflowWrap {
			return -1, wrap()
		}
		return -1, min
	}
	return 0, 0
}
