package protocol

import (
	"bytes"
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

// This file holds Redis 7.0's strict number parsing (src/util.c string2ll,
// string2ull, string2d; src/db.c parseScanCursorOrReply) and its integer and
// double formatting (ll2string, d2string). Every parser takes the whole
// argument and reports whether all of it is one number: there is no partial
// result, and none of them allocates.

// ParseInt parses b as Redis's string2ll does (getLongLongFromObject, so
// INCR, EXPIRE, LRANGE ... arguments): an optional '-', then decimal digits
// with no leading zero, within the int64 range. "0" is the only number that
// may start with '0'; "+1", "-0", "012", " 1", "1 " and "" are not integers.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	// 20 bytes hold "-9223372036854775808"; anything longer overflows.
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i := 0
	neg := b[0] == '-'
	if neg {
		i = 1
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	// At most 19 digits cannot overflow a uint64; 20 digits are >= 1e19,
	// beyond the int64 range whatever the sign.
	if n-i > 19 {
		return 0, false
	}
	var v uint64
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseUint parses b as Redis's string2ull does (stream IDs, the ms and seq
// halves of "<ms>-<seq>"). string2ull reads a C string, so b ends at its
// first NUL byte. A string2ll integer is taken as is when it is not
// negative; otherwise the text goes to strtoull, which accepts what
// string2ll refuses: leading white space, a '+', leading zeros, and a '-'
// that negates modulo 2^64 ("-05" is 18446744073709551611). Overflow, an
// empty string and trailing bytes are refused.
func ParseUint(b []byte) (uint64, bool) {
	b = numCString(b)
	if ll, ok := ParseInt(b); ok {
		if ll < 0 {
			return 0, false
		}
		return uint64(ll), true
	}
	if len(b) == 0 {
		return 0, false
	}
	i := 0
	for i < len(b) && numIsSpace(b[i]) {
		i++
	}
	return strtoull(b[i:])
}

// ParseScanCursor parses a SCAN, SSCAN, HSCAN or ZSCAN cursor as Redis
// 7.0's parseScanCursorOrReply does: strtoul on the C string (so b ends at
// its first NUL), refusing a leading white space byte, trailing bytes and
// overflow. Unlike the other parsers it accepts the empty string (cursor
// 0), a '+', leading zeros, and a '-' that negates modulo 2^64.
func ParseScanCursor(b []byte) (uint64, bool) {
	b = numCString(b)
	if len(b) == 0 {
		return 0, true
	}
	if numIsSpace(b[0]) {
		return 0, false
	}
	return strtoull(b)
}

// strtoull parses an optional sign and one or more decimal digits filling
// all of b, as C's strtoull does once white space is skipped.
func strtoull(b []byte) (uint64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(c), 0)
		if hi != 0 || carry != 0 {
			return 0, false // ERANGE
		}
		v = lo
	}
	if neg {
		v = -v
	}
	return v, true
}

// cString returns b up to its first NUL byte, as C string functions see it.
func numCString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// numIsSpace reports whether c is white space for C's isspace in the C locale.
func numIsSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// ParseFloat parses b as Redis's string2d does (getDoubleFromObject, so
// ZADD scores, ZRANGEBYSCORE bounds, INCRBYFLOAT's sibling ZINCRBY): all of
// b must be one strtod subject in the C locale, that is an optional sign
// and then decimal digits with an optional '.' and e exponent, a "0x" hex
// float with an optional p exponent, "inf" or "infinity" in any case. NaN,
// a leading white space byte, trailing bytes, a result that overflows to
// +-Inf and a non-zero number that underflows to zero are refused;
// subnormal results are accepted, as with glibc. The result is correctly
// rounded (round half to even).
func ParseFloat(b []byte) (float64, bool) {
	var s floatSyntax
	if !s.scan(b) {
		return 0, false
	}
	switch s.kind {
	case synInf:
		return s.inf(), true
	case synHex:
		return s.hexFloat64()
	}
	// A complete C decimal subject is also Go syntax with the same value.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil {
		return 0, false // only ErrRange can happen: overflow
	}
	if f == 0 && s.nonzero {
		return 0, false // underflow: glibc sets ERANGE
	}
	return f, true
}

// inf is the value of a synInf subject.
func (s *floatSyntax) inf() float64 {
	if s.neg {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

// Syntax kinds of a strtod subject.
const (
	synDec = iota
	synHex
	synInf
)

// floatSyntax is a validated strtod subject. For synDec and synHex the
// value is (digits of intDigits then fracDigits) * base^(-len(fracDigits))
// * expBase^exp, with base 10 or 16 and expBase 10 or 2.
type floatSyntax struct {
	kind       int
	neg        bool
	nonzero    bool // a digit of the mantissa is not zero
	intDigits  []byte
	fracDigits []byte
	exp        int64 // saturated to +-maxExpText
}

// maxExpText bounds the exponent written in the text; any larger exponent
// already overflows or underflows every format here, whatever the mantissa
// (whose length is bounded by memory, far below this).
const maxExpText = 1 << 50

// scan validates that all of b is one strtod subject (C locale, no leading
// white space) that is not a NaN, and records its parts.
func (s *floatSyntax) scan(b []byte) bool {
	*s = floatSyntax{}
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		s.neg = b[i] == '-'
		i++
	}
	rest := b[i:]
	if len(rest) >= 3 && numLower(rest[0]) == 'i' && numLower(rest[1]) == 'n' && numLower(rest[2]) == 'f' {
		s.kind = synInf
		return len(rest) == 3 || (len(rest) == 8 && numEqualFold(rest[3:], "inity"))
	}
	digit := numIsDigit
	if len(rest) >= 2 && rest[0] == '0' && numLower(rest[1]) == 'x' {
		// "0x" with no hex digit after it is the subject "0" followed by
		// garbage, which is refused like any other trailing byte.
		s.kind = synHex
		digit = numIsHexDigit
		i += 2
	}
	start := i
	for i < len(b) && digit(b[i]) {
		i++
	}
	s.intDigits = b[start:i]
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && digit(b[i]) {
			i++
		}
		s.fracDigits = b[start:i]
	}
	if len(s.intDigits)+len(s.fracDigits) == 0 {
		return false
	}
	for _, c := range s.intDigits {
		if c != '0' {
			s.nonzero = true
			break
		}
	}
	if !s.nonzero {
		for _, c := range s.fracDigits {
			if c != '0' {
				s.nonzero = true
				break
			}
		}
	}
	if i == len(b) {
		return true
	}
	mark := byte('e')
	if s.kind == synHex {
		mark = 'p'
	}
	if numLower(b[i]) != mark {
		return false
	}
	i++
	eneg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		eneg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return false
	}
	var e int64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			return false
		}
		if e < maxExpText {
			e = e*10 + int64(c)
		}
	}
	if eneg {
		e = -e
	}
	s.exp = e
	return true
}

func numLower(c byte) byte { return c | 0x20 }

func numIsDigit(c byte) bool { return c-'0' <= 9 }

func numIsHexDigit(c byte) bool {
	return c-'0' <= 9 || numLower(c)-'a' <= 5
}

func numEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if numLower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

func numHexValue(c byte) uint64 {
	if c <= '9' {
		return uint64(c - '0')
	}
	return uint64(numLower(c)-'a') + 10
}

// hexMantissa reduces a synHex subject to hi:lo * 2^exp plus a sticky bit
// standing for dropped non-zero digits. It keeps the first 32 significant
// hex digits, so a set sticky bit always sits below at least 125 bits.
func (s *floatSyntax) hexMantissa() (hi, lo uint64, sticky bool, exp int64) {
	exp = s.exp - 4*int64(len(s.fracDigits))
	kept := 0
	add := func(c byte) {
		d := numHexValue(c)
		if kept == 0 && d == 0 {
			return
		}
		if kept == 32 {
			exp += 4
			sticky = sticky || d != 0
			return
		}
		hi = hi<<4 | lo>>60
		lo = lo<<4 | d
		kept++
	}
	for _, c := range s.intDigits {
		add(c)
	}
	for _, c := range s.fracDigits {
		add(c)
	}
	return hi, lo, sticky, exp
}

// hexFloat64 converts a synHex subject to the nearest float64, refusing
// overflow and underflow to zero as string2d does.
func (s *floatSyntax) hexFloat64() (float64, bool) {
	f, erange := s.hexValue()
	return f, !erange
}

// hexValue converts a synHex subject to the nearest float64 as strtod
// does; erange reports C's ERANGE cases (overflow to +-Inf, a non-zero
// value rounding to zero).
func (s *floatSyntax) hexValue() (f float64, erange bool) {
	if !s.nonzero {
		if s.neg {
			return math.Copysign(0, -1), false
		}
		return 0, false
	}
	hi, lo, sticky, exp := s.hexMantissa()
	q, lsb := roundBits(hi, lo, sticky, exp, f64Prec, f64MinLSB)
	f, overflow := packFloat64(s.neg, q, lsb)
	return f, q == 0 || overflow
}

// Binary formats' parameters for roundBits.
const (
	f64Prec   = 53
	f64MinLSB = -1074 // weight of the smallest subnormal double
	f64Bias   = 1023
)

// packFloat64 encodes the rounded value q * 2^lsb (from roundBits with
// f64Prec and f64MinLSB); overflow is true when it is too large, and f
// is then the infinity of that sign.
func packFloat64(neg bool, q uint64, lsb int64) (f float64, overflow bool) {
	var u uint64
	if q != 0 {
		shift := int64(bits.LeadingZeros64(q)) - (64 - f64Prec)
		if lsb-shift < f64MinLSB {
			shift = lsb - f64MinLSB
		}
		q <<= uint(shift)
		lsb -= shift
		if q>>(f64Prec-1) != 0 {
			be := lsb + (f64Prec - 1) + f64Bias
			if be >= 0x7ff {
				if neg {
					return math.Inf(-1), true
				}
				return math.Inf(1), true
			}
			u = uint64(be)<<52 | q&(1<<52-1)
		} else {
			u = q // subnormal: lsb == f64MinLSB
		}
	}
	if neg {
		u |= 1 << 63
	}
	return math.Float64frombits(u), false
}

// roundBits rounds the non-negative value (hi*2^64 + lo + s) * 2^exp, where
// s in [0, 1) is non-zero exactly when sticky is set, to prec significant
// bits (round half to even), never giving a last bit lighter than 2^minLSB
// (gradual underflow). It returns q and lsb with q*2^lsb the rounded value;
// q < 2^prec, and q is 0 when the value rounds to zero. The exponent range
// above is unbounded: callers check overflow.
//
// A set sticky bit must sit below the rounding point: hi:lo then has more
// than prec significant bits, or the value is subnormal.
func roundBits(hi, lo uint64, sticky bool, exp int64, prec int, minLSB int64) (q uint64, lsb int64) {
	nb := 128 - bits.LeadingZeros64(hi)
	if hi == 0 {
		nb = 64 - bits.LeadingZeros64(lo)
	}
	cut := int64(nb - prec)
	if exp+cut < minLSB {
		cut = minLSB - exp
	}
	if cut <= 0 {
		return lo, exp // exact: fits in prec bits
	}
	q, guard, rest := shiftRightRound(hi, lo, uint64(cut))
	if guard && (rest || sticky || q&1 != 0) {
		q++
		if q == 0 || (prec < 64 && q == 1<<prec) { // carried out
			q = 1 << (prec - 1)
			cut++
		}
	}
	return q, exp + cut
}

// shiftRightRound shifts hi:lo right by n >= 1 bits. The caller guarantees
// that the result fits in 64 bits. guard is the highest bit shifted out and
// rest tells whether any bit below it was set.
func shiftRightRound(hi, lo uint64, n uint64) (q uint64, guard, rest bool) {
	switch {
	case n > 128:
		return 0, false, hi|lo != 0
	case n == 128:
		return 0, hi>>63 != 0, hi<<1|lo != 0
	case n > 64:
		k := n - 64
		return hi >> k, (hi>>(k-1))&1 != 0, hi&(1<<(k-1)-1) != 0 || lo != 0
	case n == 64:
		return hi, lo>>63 != 0, lo<<1 != 0
	default:
		return lo>>n | hi<<(64-n), (lo>>(n-1))&1 != 0, lo&(1<<(n-1)-1) != 0
	}
}

// AppendInt appends the decimal form of n, as Redis's ll2string writes it.
func AppendInt(b []byte, n int64) []byte {
	return strconv.AppendInt(b, n, 10)
}

// AppendFloat17 appends f as Redis 7.0's d2string writes it (scores kept
// in listpacks, and so what DUMP and OBJECT see): "nan", "inf", "-inf",
// "0" and "-0" spelled out; an integral value within +-2^62 (double2ll's
// range) as an integer, so 1e18 is "1000000000000000000"; anything else
// as printf("%.17g"), so 5e18 is "5e+18" and 0.1 is "0.10000000000000001".
func AppendFloat17(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	const lim = 1 << 62 // (double)(LLONG_MAX/2)
	if f >= -lim && f <= lim {
		if n := int64(f); float64(n) == f {
			return strconv.AppendInt(b, n, 10)
		}
	}
	return AppendG(b, f, 17)
}
