package hll

import (
	"strconv"
	"strings"
)

// The sparse encoding: a run-length sequence of opcodes covering the
// registers in order (HLL_SPARSE_* in hyperloglog.c):
//
//	00xxxxxx           ZERO:  1..64 registers set to 0
//	01xxxxxx yyyyyyyy  XZERO: 1..16384 registers set to 0
//	1vvvvvxx           VAL:   1..4 registers set to 1..32

const (
	xzeroBit       = 0x40
	valBit         = 0x80
	valMaxValue    = 32
	valMaxLen      = 4
	zeroMaxLen     = 64
	sparseScanOpts = 5 // opcodes looked at for merging after an update
)

func isZero(op byte) bool  { return op&0xc0 == 0 }
func isXZero(op byte) bool { return op&0xc0 == xzeroBit }
func isVal(op byte) bool   { return op&valBit != 0 }
func valValue(op byte) int { return int(op>>2&0x1f) + 1 }
func valLen(op byte) int   { return int(op&3) + 1 }
func valOp(val, n int) byte {
	return byte((val-1)<<2|(n-1)) | valBit
}

// xzeroLen reads the XZERO opcode at ops[p]; a truncated one reads its
// second byte as zero, as Redis reads the sds terminator.
func xzeroLen(ops []byte, p int) int {
	var lo byte
	if p+1 < len(ops) {
		lo = ops[p+1]
	}
	return (int(ops[p]&0x3f)<<8 | int(lo)) + 1
}

// appendZeros appends a ZERO or XZERO opcode for n registers.
func appendZeros(seq []byte, n int) []byte {
	if n > zeroMaxLen {
		n--
		return append(seq, byte(n>>8)|xzeroBit, byte(n&0xff))
	}
	return append(seq, byte(n-1))
}

// sparseSet is hllSparseSet: raise register index to count in the sparse
// value b, splitting the opcode that covers it and merging equal VAL
// neighbours. It returns the new value and 1 (changed), 0, or -1
// (corrupted). It promotes to dense when count > 32 or the value would
// exceed sparseMax bytes.
func sparseSet(b []byte, index int, count uint8, sparseMax int64) ([]byte, int) {
	if count > valMaxValue {
		return promote(b, index, count)
	}
	// Step 1: find the opcode covering index.
	p, end := HdrSize, len(b)
	first, span, prev := 0, 0, -1
	for p < end {
		oplen := 1
		op := b[p]
		switch {
		case isZero(op):
			span = int(op&0x3f) + 1
		case isVal(op):
			span = valLen(op)
		default:
			span = xzeroLen(b, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return b, -1
	}
	op := b[p]
	next := p + 1
	if isXZero(op) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}
	var runlen int
	switch {
	case isZero(op):
		runlen = int(op&0x3f) + 1
	case isXZero(op):
		runlen = xzeroLen(b, p)
	default:
		runlen = valLen(op)
	}

	// Step 2: the trivial in-place cases.
	if isVal(op) {
		if valValue(op) >= int(count) {
			return b, 0
		}
		if runlen == 1 {
			b[p] = valOp(int(count), 1)
			return mergeAdjacent(b, prev), 1
		}
	}
	if isZero(op) && runlen == 1 {
		b[p] = valOp(int(count), 1)
		return mergeAdjacent(b, prev), 1
	}

	// The general case: split the opcode into up to three.
	var seqBuf [5]byte
	seq := seqBuf[:0]
	last := first + span - 1
	if !isVal(op) {
		if index != first {
			seq = appendZeros(seq, index-first)
		}
		seq = append(seq, valOp(int(count), 1))
		if index != last {
			seq = appendZeros(seq, last-index)
		}
	} else {
		cur := valValue(op)
		if index != first {
			seq = append(seq, valOp(cur, index-first))
		}
		seq = append(seq, valOp(int(count), 1))
		if index != last {
			seq = append(seq, valOp(cur, last-index))
		}
	}

	// Step 3: substitute the sequence for the opcode.
	oldlen := 1
	if isXZero(op) {
		oldlen = 2
	}
	delta := len(seq) - oldlen
	if delta > 0 && int64(len(b)+delta) > sparseMax {
		return promote(b, index, count)
	}
	newLen := len(b) + delta
	var out []byte
	if next >= 0 {
		if delta > 0 {
			b = append(b, seq[:delta]...) // room; overwritten below
		}
		copy(b[next+delta:], b[next:end])
		copy(b[p:], seq)
		out = b[:newLen]
	} else {
		out = append(b[:p], seq...)
		out = out[:newLen]
	}
	return mergeAdjacent(out, prev), 1
}

// mergeAdjacent is Step 4 of hllSparseSet: starting at the opcode before
// the updated one, merge up to five opcodes' worth of adjacent VALs of the
// same value; then invalidate the cached cardinality.
func mergeAdjacent(b []byte, prev int) []byte {
	p := HdrSize
	if prev >= 0 {
		p = prev
	}
	end := len(b)
	for scan := sparseScanOpts; p < end && scan > 0; {
		scan--
		op := b[p]
		if isXZero(op) {
			p += 2
			continue
		} else if isZero(op) {
			p++
			continue
		}
		if p+1 < end && isVal(b[p+1]) {
			v1, v2 := valValue(op), valValue(b[p+1])
			if v1 == v2 {
				if n := valLen(op) + valLen(b[p+1]); n <= valMaxLen {
					b[p+1] = valOp(v1, n)
					copy(b[p:], b[p+1:end])
					end--
					b = b[:end]
					continue
				}
			}
		}
		p++
	}
	InvalidateCache(b)
	return b
}

// promote converts b to dense and sets the register there (the promote
// label of hllSparseSet).
func promote(b []byte, index int, count uint8) ([]byte, int) {
	d, err := SparseToDense(b)
	if err != nil {
		return b, -1
	}
	denseSet(d[HdrSize:], index, count)
	return d, 1
}

// SparseToDense returns b in the dense encoding (b itself when already
// dense), header and cached cardinality copied (hllSparseToDense).
func SparseToDense(b []byte) ([]byte, error) {
	if b[4] == Dense {
		return b, nil
	}
	d := make([]byte, DenseSize)
	copy(d, b[:HdrSize])
	d[4] = Dense
	regs := d[HdrSize:]
	ops := b[HdrSize:]
	idx := 0
	for p := 0; p < len(ops); {
		op := ops[p]
		switch {
		case isZero(op):
			idx += int(op&0x3f) + 1
			p++
		case isXZero(op):
			idx += xzeroLen(ops, p)
			p += 2
		default:
			runlen, val := valLen(op), uint8(valValue(op))
			if runlen+idx > Registers {
				return nil, ErrInvalid
			}
			for ; runlen > 0; runlen-- {
				denseSetReg(regs, idx, val)
				idx++
			}
			p++
		}
	}
	if idx != Registers {
		return nil, ErrInvalid
	}
	return d, nil
}

// sparseHisto is hllSparseRegHisto; it reports whether the opcodes cover
// exactly Registers registers.
func sparseHisto(ops []byte, h *[64]int) bool {
	idx := 0
	for p := 0; p < len(ops); {
		op := ops[p]
		switch {
		case isZero(op):
			n := int(op&0x3f) + 1
			idx += n
			h[0] += n
			p++
		case isXZero(op):
			n := xzeroLen(ops, p)
			idx += n
			h[0] += n
			p += 2
		default:
			n := valLen(op)
			idx += n
			h[valValue(op)] += n
			p++
		}
	}
	return idx == Registers
}

// Decode renders the opcodes of a sparse value as PFDEBUG DECODE does:
// "z:N", "Z:N" and "v:VAL,N" separated by spaces.
func Decode(b []byte) string {
	var sb strings.Builder
	ops := b[HdrSize:]
	for p := 0; p < len(ops); {
		op := ops[p]
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		switch {
		case isZero(op):
			sb.WriteString("z:")
			sb.WriteString(strconv.Itoa(int(op&0x3f) + 1))
			p++
		case isXZero(op):
			sb.WriteString("Z:")
			sb.WriteString(strconv.Itoa(xzeroLen(ops, p)))
			p += 2
		default:
			sb.WriteString("v:")
			sb.WriteString(strconv.Itoa(valValue(op)))
			sb.WriteByte(',')
			sb.WriteString(strconv.Itoa(valLen(op)))
			p++
		}
	}
	return sb.String()
}
