package protocol

import (
	"strconv"
	"unsafe"
)

// ParseStrtod parses b as a bare C strtod call whose end must be the end of
// the string, which is how Redis 7.0 reads ZRANGEBYSCORE-style bounds
// (zslParseRange) and a few other doubles: b ends at its first NUL byte,
// leading white space is skipped, the empty string is 0, and a value out
// of range is not an error (overflow gives +-Inf, underflow 0 or a
// subnormal). NaN and trailing bytes are refused, and so is a string of
// white space only (strtod converts nothing and points back at its start).
func ParseStrtod(b []byte) (float64, bool) {
	b = numCString(b)
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	for i < len(b) && numIsSpace(b[i]) {
		i++
	}
	rest := b[i:]
	var s floatSyntax
	if !s.scan(rest) {
		return 0, false
	}
	switch s.kind {
	case synInf:
		return s.inf(), true
	case synHex:
		f, _ := s.hexValue() // out of range is not an error here
		return f, true
	}
	// Overflow gives ErrRange with +-Inf, as strtod gives HUGE_VAL.
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(rest), len(rest)), 64)
	return f, true
}
