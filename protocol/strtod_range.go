package protocol

import "math"

// ParseStrtodNoRange is ParseStrtod with glibc's ERANGE counted as a
// failure, which is how Redis 7.0's SORT reads a weight (strtod, then
// "eptr[0] != '\0' || errno == ERANGE || isnan"): besides what ParseStrtod
// refuses, a finite text that overflows to +-Inf, and one that underflows
// (a subnormal result, or zero from non-zero digits) fail. "inf" and
// "infinity" stay valid.
func ParseStrtodNoRange(b []byte) (float64, bool) {
	f, ok := ParseStrtod(b)
	if !ok {
		return 0, false
	}
	b = numCString(b)
	i := 0
	for i < len(b) && numIsSpace(b[i]) {
		i++
	}
	var s floatSyntax
	if i == len(b) || !s.scan(b[i:]) {
		return f, true // the empty string (or only spaces): strtod converts nothing, 0
	}
	switch {
	case math.IsInf(f, 0):
		return f, s.kind == synInf
	case f == 0:
		return f, !s.nonzero
	case math.Abs(f) < 0x1p-1022:
		return 0, false // subnormal: glibc reports underflow
	}
	return f, true
}
