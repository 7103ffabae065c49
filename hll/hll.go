package hll

import (
	"errors"
	"math"
)

// Parameters of Redis's HyperLogLog (HLL_* in hyperloglog.c).
const (
	P         = 14            // index bits
	Registers = 1 << P        // 16384 registers
	pMask     = Registers - 1 // mask of the register index
	Q         = 64 - P        // bits of the hash left for the run of zeroes
	bits      = 6             // bits per dense register
	regMax    = 1<<bits - 1   // largest dense register value
	HdrSize   = 16            // "HYLL", encoding, 3 unused bytes, 8-byte cached cardinality
	// DenseSize is the exact length of a dense value.
	DenseSize = HdrSize + (Registers*bits+7)/8
)

// Encodings (the header's fifth byte).
const (
	Dense  = 0
	Sparse = 1
)

const seed = 0xadc83b19

// ErrInvalid reports a corrupted value (Redis's INVALIDOBJ).
var ErrInvalid = errors.New("corrupted HLL object")

// MurmurHash64A is Redis's endian-neutral 64-bit MurmurHash2.
func MurmurHash64A(key []byte, seed uint32) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := uint64(seed) ^ (uint64(len(key)) * m)
	n := len(key) - len(key)&7
	for i := 0; i < n; i += 8 {
		k := uint64(key[i]) | uint64(key[i+1])<<8 | uint64(key[i+2])<<16 | uint64(key[i+3])<<24 |
			uint64(key[i+4])<<32 | uint64(key[i+5])<<40 | uint64(key[i+6])<<48 | uint64(key[i+7])<<56
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[n:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen is hllPatLen: the register ele maps to and the length of the
// 000..1 pattern of its hash (1..Q+1).
func patLen(ele []byte) (index int, count uint8) {
	hash := MurmurHash64A(ele, seed)
	index = int(hash & pMask)
	hash >>= P
	hash |= 1 << Q
	count = 1
	for bit := uint64(1); hash&bit == 0; bit <<= 1 {
		count++
	}
	return index, count
}

// New returns an empty HLL as Redis creates it (createHLLObject): sparse,
// one XZERO opcode covering every register.
func New() []byte {
	b := make([]byte, HdrSize+2, 64)
	copy(b, "HYLL")
	b[4] = Sparse
	b[HdrSize] = xzeroBit | byte((Registers-1)>>8)
	b[HdrSize+1] = byte((Registers - 1) & 0xff)
	return b
}

// IsValid is Redis's isHLLObjectOrReply check of a string value: the
// magic, a known encoding, and the exact length for a dense value.
func IsValid(b []byte) bool {
	if len(b) < HdrSize || string(b[:4]) != "HYLL" || b[4] > Sparse {
		return false
	}
	return b[4] != Dense || len(b) == DenseSize
}

// Encoding returns the header's encoding byte (Dense or Sparse).
func Encoding(b []byte) byte { return b[4] }

// CachedCard returns the cached cardinality and whether it is valid.
func CachedCard(b []byte) (uint64, bool) {
	if b[15]&0x80 != 0 {
		return 0, false
	}
	var card uint64
	for i := 7; i >= 0; i-- {
		card = card<<8 | uint64(b[8+i])
	}
	return card, true
}

// SetCachedCard stores card as the cached cardinality.
func SetCachedCard(b []byte, card uint64) {
	for i := 0; i < 8; i++ {
		b[8+i] = byte(card >> (8 * i))
	}
}

// InvalidateCache marks the cached cardinality stale (HLL_INVALIDATE_CACHE).
func InvalidateCache(b []byte) { b[15] |= 0x80 }

// Add adds ele (hllAdd): it returns the possibly re-encoded value and 1
// when a register changed, 0 when none did, -1 for a corrupted sparse
// value. A sparse value is promoted to dense when a register needs more
// than 32 or the value would grow past sparseMax bytes. Add does not
// touch the cached cardinality except through promotion; the caller
// invalidates it (PFADD does once, at the end).
func Add(b, ele []byte, sparseMax int64) ([]byte, int) {
	index, count := patLen(ele)
	switch b[4] {
	case Dense:
		return b, denseSet(b[HdrSize:], index, count)
	case Sparse:
		return sparseSet(b, index, count, sparseMax)
	}
	return b, -1
}

// SetRegister raises register index to count if it is lower (PFMERGE's
// hllDenseSet / hllSparseSet), with the same promotion rules as Add.
func SetRegister(b []byte, index int, count uint8, sparseMax int64) ([]byte, int) {
	if b[4] == Dense {
		return b, denseSet(b[HdrSize:], index, count)
	}
	return sparseSet(b, index, count, sparseMax)
}

// Count computes the estimate (hllCount); invalid reports a sparse value
// whose opcodes do not cover exactly Registers registers.
func Count(b []byte) (card uint64, invalid bool) {
	var h [64]int
	if b[4] == Dense {
		denseHisto(b[HdrSize:], &h)
	} else {
		invalid = !sparseHisto(b[HdrSize:], &h)
	}
	return estimate(&h), invalid
}

// CountRegisters computes the estimate of byte-per-register registers (the
// HLL_RAW encoding PFCOUNT uses for a union).
func CountRegisters(regs *[Registers]uint8) uint64 {
	var h [64]int
	for _, v := range regs {
		h[v&63]++
	}
	return estimate(&h)
}

// Merge raises max[i] to each register of b (hllMerge); ErrInvalid for a
// sparse value that does not cover exactly Registers registers.
func Merge(max *[Registers]uint8, b []byte) error {
	if b[4] == Dense {
		regs := b[HdrSize:]
		for i := 0; i < Registers; i++ {
			if v := denseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return nil
	}
	i := 0
	ops := b[HdrSize:]
	for p := 0; p < len(ops); {
		op := ops[p]
		switch {
		case op&0xc0 == 0:
			i += int(op&0x3f) + 1
			p++
		case op&0xc0 == xzeroBit:
			i += xzeroLen(ops, p)
			p += 2
		default:
			runlen, val := int(op&3)+1, (op>>2)&0x1f+1
			if runlen+i > Registers {
				return ErrInvalid
			}
			for ; runlen > 0; runlen-- {
				if val > max[i] {
					max[i] = val
				}
				i++
			}
			p++
		}
	}
	if i != Registers {
		return ErrInvalid
	}
	return nil
}

// Registers returns the 16384 register values of a dense value (PFDEBUG
// GETREG).
func DenseRegisters(b []byte) []uint8 {
	out := make([]uint8, Registers)
	regs := b[HdrSize:]
	for i := range out {
		out[i] = denseGet(regs, i)
	}
	return out
}

// estimate is the tail of hllCount: Ertl's estimator over the register
// histogram h, computed in the same order as Redis so the doubles match.
func estimate(h *[64]int) uint64 {
	const m = float64(Registers)
	const alphaInf = 0.721347520444481703680 // 0.5/ln(2)
	z := m * tau((m-float64(h[Q+1]))/m)
	for j := Q; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += m * sigma(float64(h[0])/m)
	return uint64(math.Round(alphaInf * m * m / z))
}

// sigma is hllSigma (Ertl, arXiv:1702.01284).
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y := 1.0
	z := x
	for {
		x *= x
		zPrime := z
		z += x * y
		y += y
		if zPrime == z {
			return z
		}
	}
}

// tau is hllTau (Ertl, arXiv:1702.01284).
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y := 1.0
	z := 1 - x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= d * d * y
		if zPrime == z {
			return z / 3
		}
	}
}
