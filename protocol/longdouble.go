package protocol

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
)

// LongDouble is a C long double as Redis 7.0 uses it on x86-64 Linux: the
// x87 80-bit extended format, with a 64-bit significand (explicit integer
// bit), exponents from -16382 to 16383 and gradual underflow down to
// 2^-16445. INCRBYFLOAT and HINCRBYFLOAT compute in it, which is why
// "0.1 + 0.2" gives 0.3 there: the sum is printed with 17 digits from a
// 64-bit significand rather than a 53-bit one.
//
// The zero value is +0. == compares the bits: +0 and -0 differ, and a NaN
// equals itself.
type LongDouble struct {
	mant uint64 // significand, integer bit included, as x87 stores it
	se   uint16 // sign (top bit) and biased exponent (low 15 bits)
}

// The x87 extended format's parameters.
const (
	ldBias   = 16383
	ldPrec   = 64
	ldMinLSB = -16445 // weight of the smallest subnormal's only bit
	ldMaxExp = 0x7fff // biased exponent of infinities and NaNs

	// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS: string2ld refuses
	// texts of this length or longer.
	maxLongDoubleChars = 5 * 1024
)

// LDMode selects how AppendLongDouble prints, as Redis's ld2string modes.
type LDMode int

const (
	// LDStrAuto prints like printf("%.17Lg") (LD_STR_AUTO).
	LDStrAuto LDMode = iota
	// LDStrHuman prints like printf("%.17Lf") without trailing zeros after
	// the point, without a trailing point, and "0" for "-0" (LD_STR_HUMAN,
	// what INCRBYFLOAT and HINCRBYFLOAT store and reply).
	LDStrHuman
	// LDStrHex prints like printf("%La") with glibc's x87 layout, for
	// example "0x8p-3" for 1 (LD_STR_HEX).
	LDStrHex
)

// ldIndefinite is the NaN the x87 unit produces for inf - inf.
var ldIndefinite = LongDouble{mant: 0xC000000000000000, se: 0xFFFF}

// ldInf returns +Inf or -Inf.
func ldInf(neg bool) LongDouble {
	return LongDouble{mant: 1 << 63, se: ldSign(neg) | ldMaxExp}
}

// ldZero returns +0 or -0.
func ldZero(neg bool) LongDouble { return LongDouble{se: ldSign(neg)} }

func ldSign(neg bool) uint16 {
	if neg {
		return 0x8000
	}
	return 0
}

// Value classes reported by unpack.
const (
	ldFinite = iota
	ldClassInf
	ldClassNaN
)

// unpack splits x into its sign, and for finite values a significand and
// exponent with value mant * 2^e2 (mant is not normalised for subnormals).
func (x LongDouble) unpack() (neg bool, mant uint64, e2 int64, class int) {
	neg = x.se&0x8000 != 0
	be := int64(x.se & 0x7fff)
	switch be {
	case ldMaxExp:
		if x.mant<<1 == 0 {
			return neg, x.mant, 0, ldClassInf
		}
		return neg, x.mant, 0, ldClassNaN
	case 0:
		return neg, x.mant, ldMinLSB, ldFinite
	}
	return neg, x.mant, be - ldBias - (ldPrec - 1), ldFinite
}

// IsInfOrNaN reports whether x is an infinity or a NaN, the results that
// make INCRBYFLOAT answer "increment would produce NaN or Infinity".
func (x LongDouble) IsInfOrNaN() bool { return x.se&0x7fff == ldMaxExp }

// packLD encodes the rounded value q * 2^lsb (from roundBits with ldPrec
// and ldMinLSB); overflow is true when it is too large for the format, in
// which case the infinity of that sign is returned.
func packLD(neg bool, q uint64, lsb int64) (x LongDouble, overflow bool) {
	if q == 0 {
		return ldZero(neg), false
	}
	shift := int64(bits.LeadingZeros64(q))
	if lsb-shift < ldMinLSB {
		shift = lsb - ldMinLSB
	}
	q <<= uint(shift)
	lsb -= shift
	if q>>63 == 0 { // subnormal: lsb == ldMinLSB
		return LongDouble{mant: q, se: ldSign(neg)}, false
	}
	be := lsb + (ldPrec - 1) + ldBias
	if be >= ldMaxExp {
		return ldInf(neg), true
	}
	return LongDouble{mant: q, se: ldSign(neg) | uint16(be)}, false
}

// roundLD rounds (hi:lo + sticky) * 2^exp to a LongDouble (see roundBits).
func roundLD(neg bool, hi, lo uint64, sticky bool, exp int64) (x LongDouble, overflow, underflow bool) {
	q, lsb := roundBits(hi, lo, sticky, exp, ldPrec, ldMinLSB)
	x, overflow = packLD(neg, q, lsb)
	return x, overflow, q == 0
}

// LongDoubleFromInt64 converts n exactly, as C's (long double)n does.
func LongDoubleFromInt64(n int64) LongDouble {
	mag := uint64(n)
	if n < 0 {
		mag = -mag
	}
	x, _ := packLD(n < 0, mag, 0)
	return x
}

// LongDoubleFromFloat64 converts f exactly, as C's (long double)f does.
func LongDoubleFromFloat64(f float64) LongDouble {
	u := math.Float64bits(f)
	neg := u>>63 != 0
	be := int64(u>>52) & 0x7ff
	frac := u & (1<<52 - 1)
	switch be {
	case 0x7ff:
		if frac == 0 {
			return ldInf(neg)
		}
		return LongDouble{mant: 1<<63 | 1<<62 | frac<<11, se: ldSign(neg) | ldMaxExp}
	case 0:
		x, _ := packLD(neg, frac, f64MinLSB)
		return x
	}
	x, _ := packLD(neg, frac|1<<52, be-f64Bias-52)
	return x
}

// Float64 rounds x to the nearest float64, as C's (double)x does.
func (x LongDouble) Float64() float64 {
	neg, mant, e2, class := x.unpack()
	switch class {
	case ldClassInf:
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case ldClassNaN: // keep the sign and the payload's top bits
		u := 0x7ff8000000000000 | mant<<1>>12
		if neg {
			u |= 1 << 63
		}
		return math.Float64frombits(u)
	}
	q, lsb := roundBits(0, mant, false, e2, f64Prec, f64MinLSB)
	f, _ := packFloat64(neg, q, lsb)
	return f
}

// Add returns a + b rounded to the nearest long double (ties to even), as
// x87 addition does in its default extended precision mode: overflow gives
// an infinity, inf + -inf a NaN, x + -x gives +0, and -0 + -0 gives -0.
func (a LongDouble) Add(b LongDouble) LongDouble {
	an, am, ae, ac := a.unpack()
	bn, bm, be, bc := b.unpack()
	switch {
	case ac == ldClassNaN:
		a.mant |= 1 << 62 // quiet it
		return a
	case bc == ldClassNaN:
		b.mant |= 1 << 62
		return b
	case ac == ldClassInf:
		if bc == ldClassInf && an != bn {
			return ldIndefinite
		}
		return a
	case bc == ldClassInf:
		return b
	case am == 0 && bm == 0:
		return ldZero(an && bn)
	case am == 0:
		return b
	case bm == 0:
		return a
	}
	// Normalise subnormals so that both significands have their top bit set.
	lz := int64(bits.LeadingZeros64(am))
	am <<= uint(lz)
	ae -= lz
	lz = int64(bits.LeadingZeros64(bm))
	bm <<= uint(lz)
	be -= lz
	if ae < be || (ae == be && am < bm) {
		an, am, ae, bn, bm, be = bn, bm, be, an, am, ae
	}
	// |a| >= |b|. Work in 128 bits with a in the top half; b is shifted
	// right by the exponent gap, and any bit shifted out is kept as sticky.
	d := uint64(ae - be)
	var bhi, blo uint64
	sticky := false
	switch {
	case d == 0:
		bhi = bm
	case d < 64:
		bhi, blo = bm>>d, bm<<(64-d)
	case d < 128:
		blo = bm >> (d - 64)
		sticky = bm<<(128-d) != 0
	default:
		sticky = true
	}
	hi, lo := am, uint64(0)
	exp := ae - 64
	if an == bn {
		var c uint64
		lo, c = bits.Add64(lo, blo, 0)
		hi, c = bits.Add64(hi, bhi, c)
		if c != 0 {
			// (lo&1 is in fact always 0 here: a carry needs |b| of at least
			// one unit of a's last place, which puts b's bits above bit 0.)
			sticky = sticky || lo&1 != 0
			lo = lo>>1 | hi<<63
			hi = hi>>1 | 1<<63
			exp++
		}
	} else {
		var br uint64
		lo, br = bits.Sub64(lo, blo, 0)
		hi, _ = bits.Sub64(hi, bhi, br)
		if sticky {
			// The true b was a little larger than its truncation: take one
			// more unit and keep a positive remainder below it.
			lo, br = bits.Sub64(lo, 1, 0)
			hi, _ = bits.Sub64(hi, 0, br)
		}
		if hi == 0 && lo == 0 && !sticky {
			return ldZero(false)
		}
	}
	x, _, _ := roundLD(an, hi, lo, sticky, exp)
	return x
}

// ParseLongDouble parses b as Redis's string2ld does
// (getLongDoubleFromObject: INCRBYFLOAT and HINCRBYFLOAT arguments and
// values): all of b must be one strtold subject in the C locale (see
// ParseFloat for the syntax), shorter than 5120 bytes. NaN, a leading
// white space byte, trailing bytes, overflow to +-Inf and a non-zero
// number that underflows to zero are refused; "inf" is accepted. The
// result is correctly rounded to the x87 format, subnormals included.
func ParseLongDouble(b []byte) (LongDouble, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars {
		return LongDouble{}, false
	}
	var s floatSyntax
	if !s.scan(b) {
		return LongDouble{}, false
	}
	switch {
	case s.kind == synInf:
		return ldInf(s.neg), true
	case !s.nonzero:
		return ldZero(s.neg), true
	case s.kind == synHex:
		hi, lo, sticky, exp := s.hexMantissa()
		return parsedLD(s.neg, hi, lo, sticky, exp)
	}
	return s.decimalLD()
}

// parsedLD rounds a parsed non-zero value, refusing what strtold reports as
// ERANGE with an infinite or zero result.
func parsedLD(neg bool, hi, lo uint64, sticky bool, exp int64) (LongDouble, bool) {
	x, overflow, underflow := roundLD(neg, hi, lo, sticky, exp)
	return x, !overflow && !underflow
}

// pow5 holds 5^0 .. 5^27, the powers that fit in 63 bits.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// decimalLD converts a non-zero synDec subject exactly.
func (s *floatSyntax) decimalLD() (LongDouble, bool) {
	nInt := len(s.intDigits)
	total := nInt + len(s.fracDigits)
	at := func(i int) byte {
		if i < nInt {
			return s.intDigits[i]
		}
		return s.fracDigits[i-nInt]
	}
	first, last := 0, total-1
	for at(first) == '0' {
		first++
	}
	for at(last) == '0' {
		last--
	}
	count := int64(last - first + 1)
	// The value is digits[first..last] * 10^e10.
	e10 := s.exp + int64(nInt) - 1 - int64(last)

	if count <= 19 && e10 >= -27 && e10 <= 27 {
		// Fast path: the digits fit in 64 bits and 5^|e10| in 63, so one
		// 128-bit product or a two-step 128/64 division (remainder as
		// sticky bit) gives enough bits for a single correct rounding.
		var m uint64
		for i := first; i <= last; i++ {
			m = m*10 + uint64(at(i)-'0')
		}
		if e10 >= 0 {
			hi, lo := bits.Mul64(m, pow5[e10])
			return parsedLD(s.neg, hi, lo, false, e10)
		}
		d := pow5[-e10]
		lz := int64(bits.LeadingZeros64(m))
		m <<= uint(lz)
		q1, r := bits.Div64(0, m, d)
		q0, r := bits.Div64(r, 0, d)
		// m*2^64/d >= 2^127/2^63: at least 65 bits, so the sticky bit lies
		// below the rounding point as roundBits requires.
		return parsedLD(s.neg, q1, q0, r != 0, e10-64-lz)
	}

	// The value lies in [10^(e10+count-1), 10^(e10+count)).
	if e10+count-1 > 4933 { // > LDBL_MAX (1.19e4932)
		return ldInf(s.neg), false
	}
	if e10+count < -4952 { // < half the smallest subnormal (3.6e-4951)
		return ldZero(s.neg), false
	}
	digits := make([]byte, 0, count)
	for i := first; i <= last; i++ {
		digits = append(digits, at(i))
	}
	m, _ := new(big.Int).SetString(string(digits), 10)
	if e10 >= 0 {
		m.Mul(m, bigPow10(e10))
		hi, lo, sticky, shift := top128(m)
		return parsedLD(s.neg, hi, lo, sticky, shift)
	}
	p := bigPow10(-e10)
	shift := int64(130 + p.BitLen() - m.BitLen())
	if shift < 0 {
		shift = 0
	}
	m.Lsh(m, uint(shift))
	q, r := m.QuoRem(m, p, new(big.Int))
	hi, lo, sticky, qshift := top128(q) // q has at least 129 bits
	return parsedLD(s.neg, hi, lo, sticky || r.Sign() != 0, qshift-shift)
}

func bigPow10(n int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}

// top128 returns the top 128 bits of x > 0 as hi:lo * 2^shift, with sticky
// telling whether a dropped low bit was set. x may be modified.
func top128(x *big.Int) (hi, lo uint64, sticky bool, shift int64) {
	if n := x.BitLen(); n > 128 {
		shift = int64(n - 128)
		sticky = x.TrailingZeroBits() < uint(shift)
		x.Rsh(x, uint(shift))
	}
	var buf [16]byte
	x.FillBytes(buf[:])
	return binary.BigEndian.Uint64(buf[:8]), binary.BigEndian.Uint64(buf[8:]), sticky, shift
}

// String formats x like printf("%.17Lg").
func (x LongDouble) String() string {
	return string(AppendLongDouble(nil, x, LDStrAuto))
}

// AppendLongDouble appends v as Redis 7.0's ld2string writes it in mode:
// infinities are "inf" and "-inf" in every mode; NaNs print as glibc does
// ("nan", or "-nan" with the sign bit set, as the x87 default NaN has).
// Formatting is exact, with glibc's round-half-to-even on exact ties.
func AppendLongDouble(b []byte, v LongDouble, mode LDMode) []byte {
	neg, mant, e2, class := v.unpack()
	switch class {
	case ldClassInf:
		if neg {
			return append(b, "-inf"...)
		}
		return append(b, "inf"...)
	case ldClassNaN:
		if neg {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	}
	switch mode {
	case LDStrHex:
		return appendLDHex(b, v)
	case LDStrHuman:
		start := len(b)
		b = appendFixed17(b, neg, mant, e2)
		// Remove the fraction's trailing zeros, then a bare point; %.17Lf
		// always writes a point here.
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		if b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
		if len(b)-start == 2 && b[start] == '-' && b[start+1] == '0' {
			b = append(b[:start], '0')
		}
		return b
	}
	return appendG17(b, neg, mant, e2)
}

// appendLDHex appends x (finite) like glibc's printf("%La") on x86: the
// first hex digit is the top nibble of the 64-bit significand, so normal
// numbers start with 8-f and the exponent is the binary one minus 3.
func appendLDHex(b []byte, x LongDouble) []byte {
	const hexDigits = "0123456789abcdef"
	if x.se&0x8000 != 0 {
		b = append(b, '-')
	}
	be := int64(x.se & 0x7fff)
	if be == 0 && x.mant == 0 {
		return append(b, "0x0p+0"...)
	}
	b = append(b, '0', 'x', hexDigits[x.mant>>60])
	rest := x.mant << 4
	if rest != 0 {
		b = append(b, '.')
		for rest != 0 {
			b = append(b, hexDigits[rest>>60])
			rest <<= 4
		}
	}
	exp := be - ldBias - 3
	if be == 0 {
		exp = 1 - ldBias - 3
	}
	b = append(b, 'p')
	if exp >= 0 {
		b = append(b, '+')
	}
	return AppendInt(b, exp)
}

// appendFixed17 appends mant * 2^e2 with its sign like printf("%.17Lf").
func appendFixed17(b []byte, neg bool, mant uint64, e2 int64) []byte {
	const scale = 100000000000000000 // 10^17
	if neg {
		b = append(b, '-')
	}
	var ipart, frac uint64
	switch {
	case e2 >= 0 && e2 <= int64(bits.LeadingZeros64(mant)):
		ipart = mant << uint(e2) // an integer below 2^64
	case e2 < 0:
		// Split off the integer part, then round the k-bit fraction
		// f/2^k times 10^17 to an integer: f*10^17 fits in 128 bits.
		k := uint64(-e2)
		f := mant
		if k < 64 {
			ipart = mant >> k
			f = mant & (1<<k - 1)
		}
		hi, lo := bits.Mul64(f, scale)
		q, guard, rest := shiftRightRound(hi, lo, k)
		if guard && (rest || q&1 != 0) {
			q++
		}
		if q == scale {
			ipart++
			q = 0
		}
		frac = q
	default:
		return appendFixedExact(b, mant, e2, 17)
	}
	b = appendUint(b, ipart)
	b = append(b, '.')
	return appendPadded(b, frac, 17)
}

func appendUint(b []byte, u uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

// appendPadded appends u with leading zeros to width digits.
func appendPadded(b []byte, u uint64, width int) []byte {
	var tmp [20]byte
	for i := width - 1; i >= 0; i-- {
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	return append(b, tmp[:width]...)
}

// exactDecimal returns the decimal digits of mant * 2^e2 (mant > 0), with
// no leading or trailing zero, and the point position: the value is
// 0.digits * 10^dp.
func exactDecimal(mant uint64, e2 int64) (digits []byte, dp int) {
	n := new(big.Int).SetUint64(mant)
	frac := 0
	if e2 >= 0 {
		n.Lsh(n, uint(e2))
	} else {
		// mant / 2^k = mant * 5^k / 10^k
		n.Mul(n, new(big.Int).Exp(big.NewInt(5), big.NewInt(-e2), nil))
		frac = int(-e2)
	}
	digits = n.Append(nil, 10)
	dp = len(digits) - frac
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return digits, dp
}

// roundDigits rounds 0.digits * 10^dp to its first n digits (half to
// even; digits is exact, so a '5' followed by nothing is a true tie). It
// returns the kept digits (maybe fewer than n, never with trailing zeros
// beyond what was kept, possibly empty for zero) and the new dp.
func roundDigits(digits []byte, dp, n int) ([]byte, int) {
	if n >= len(digits) {
		return digits, dp
	}
	if n < 0 {
		return digits[:0], dp
	}
	up := false
	switch c := digits[n]; {
	case c > '5':
		up = true
	case c == '5':
		up = len(digits) > n+1 || (n > 0 && (digits[n-1]-'0')%2 == 1)
	}
	digits = digits[:n]
	if !up {
		return digits, dp
	}
	for i := n - 1; i >= 0; i-- {
		if digits[i] < '9' {
			digits[i]++
			return digits[:i+1], dp
		}
	}
	// All nines (or nothing kept): the value becomes 10^dp.
	return append(digits[:0], '1'), dp + 1
}

// appendFixedExact appends mant * 2^e2 like printf("%.<prec>Lf") without
// the sign, exactly.
func appendFixedExact(b []byte, mant uint64, e2 int64, prec int) []byte {
	digits, dp := exactDecimal(mant, e2)
	digits, dp = roundDigits(digits, dp, dp+prec)
	return appendFixedDigits(b, digits, dp, prec)
}

// appendFixedDigits appends 0.digits * 10^dp with exactly prec digits
// after the point (none and no point when prec is 0).
func appendFixedDigits(b []byte, digits []byte, dp, prec int) []byte {
	if dp <= 0 || len(digits) == 0 {
		b = append(b, '0')
	} else {
		for i := 0; i < dp; i++ {
			if i < len(digits) {
				b = append(b, digits[i])
			} else {
				b = append(b, '0')
			}
		}
	}
	if prec == 0 {
		return b
	}
	b = append(b, '.')
	for i := 0; i < prec; i++ {
		j := dp + i
		if j >= 0 && j < len(digits) {
			b = append(b, digits[j])
		} else {
			b = append(b, '0')
		}
	}
	return b
}

// appendG17 appends mant * 2^e2 with its sign like printf("%.17Lg").
func appendG17(b []byte, neg bool, mant uint64, e2 int64) []byte {
	const prec = 17
	if neg {
		b = append(b, '-')
	}
	if mant == 0 {
		return append(b, '0')
	}
	digits, dp := exactDecimal(mant, e2)
	digits, dp = roundDigits(digits, dp, prec)
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	x := dp - 1 // decimal exponent of the first digit
	if x < -4 || x >= prec {
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if x < 0 {
			b = append(b, '-')
			x = -x
		} else {
			b = append(b, '+')
		}
		if x < 10 {
			b = append(b, '0')
		}
		return AppendInt(b, int64(x))
	}
	// Fixed notation with prec-1-x decimals, then %g drops trailing zeros:
	// digits now has none, so print exactly the digits after the point.
	decimals := len(digits) - dp
	if decimals < 0 {
		decimals = 0
	}
	return appendFixedDigits(b, digits, dp, decimals)
}

// bits80 returns x's sign-and-exponent word and significand, the memory
// layout of an x87 long double.
func (x LongDouble) bits80() (se uint16, mant uint64) { return x.se, x.mant }

// longDoubleFromBits80 builds a LongDouble from its memory layout.
func longDoubleFromBits80(se uint16, mant uint64) LongDouble {
	return LongDouble{mant: mant, se: se}
}
