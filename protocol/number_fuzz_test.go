package protocol

import (
	"bytes"
	"math"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol/internal/libcref"
)

// string2llC is the oracle for ParseInt: Redis 7.0.15's util.c string2ll
// transcribed statement by statement (LONG_STR_SIZE is 21).
func string2llC(s []byte) (int64, bool) {
	const longStrSize = 21
	slen := len(s)
	p, plen := 0, 0
	negative := false
	var v uint64

	/* A string of zero length or excessive length is not a valid number. */
	if plen == slen || slen >= longStrSize {
		return 0, false
	}
	/* Special case: first and only digit is 0. */
	if slen == 1 && s[0] == '0' {
		return 0, true
	}
	if s[p] == '-' {
		negative = true
		p++
		plen++
		/* Abort on only a negative sign. */
		if plen == slen {
			return 0, false
		}
	}
	/* First digit should be 1-9, otherwise the string should just be 0. */
	if s[p] >= '1' && s[p] <= '9' {
		v = uint64(s[p] - '0')
		p++
		plen++
	} else {
		return 0, false
	}
	/* Parse all the other digits, checking for overflow at every step. */
	for plen < slen && s[p] >= '0' && s[p] <= '9' {
		if v > math.MaxUint64/10 { /* Overflow. */
			return 0, false
		}
		v *= 10
		if v > math.MaxUint64-uint64(s[p]-'0') { /* Overflow. */
			return 0, false
		}
		v += uint64(s[p] - '0')
		p++
		plen++
	}
	/* Return if not all bytes were used. */
	if plen < slen {
		return 0, false
	}
	if negative {
		if v > uint64(-(math.MinInt64+1))+1 { /* Overflow. */
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 { /* Overflow. */
		return 0, false
	}
	return int64(v), true
}

// FuzzParseInt checks that ParseInt accepts exactly what string2ll
// accepts, with the same value, and that ll2string's output (AppendInt)
// parses back.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "-1", "01", "+1", " 1", "1 ", "", "-", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "-99999999999999999999", "123456789012345678901", "1\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ParseInt(b)
		want, wok := string2llC(b)
		if ok != wok || got != want {
			t.Fatalf("ParseInt(%q) = %d, %v; string2ll %d, %v", b, got, ok, want, wok)
		}
		if ok {
			if s := AppendInt(nil, got); !bytes.Equal(s, b) {
				t.Fatalf("ParseInt(%q) = %d, which prints as %q", b, got, s)
			}
		}
	})
}

// string2dC is Redis 7.0.15's util.c string2d over glibc's strtod: slen
// is the argument's length, strtod reads it as a C string.
func string2dC(s []byte) (float64, bool) {
	v, end, erange := libcref.Strtod(s)
	if len(s) == 0 || numIsSpace(s[0]) || end != len(s) ||
		erange && (math.IsInf(v, 0) || v == 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// string2ldC is Redis 7.0.15's util.c string2ld over glibc's strtold: the
// argument is copied into a buffer of MAX_LONG_DOUBLE_CHARS (5120) bytes
// and NUL-terminated; besides eptr[0] == '\0' the end pointer must be at
// slen, so an embedded NUL is refused (redis-server 7.0.15 refuses
// INCRBYFLOAT k "1\x002" and "\x00").
func string2ldC(s []byte) (LongDouble, bool) {
	if len(s) == 0 || len(s) >= maxLongDoubleChars {
		return LongDouble{}, false
	}
	se, mant, end, erange := libcref.Strtold(s)
	v := longDoubleFromBits80(se, mant)
	isInf := se&0x7fff == 0x7fff && mant == 1<<63
	isNaN := se&0x7fff == 0x7fff && mant != 1<<63
	isZero := se&0x7fff == 0 && mant == 0
	if numIsSpace(s[0]) || end != len(s) || erange && (isInf || isZero) || isNaN {
		return LongDouble{}, false
	}
	// strtold sets EINVAL only for an invalid base: never here.
	return v, true
}

var floatSeeds = []string{"0", "-0", "1", "1.5", "-1.5e10", ".5", "5.", ".", "e5", "1e", "1e+", "1e-5", "inf", "-inf",
	"+Infinity", "infinit", "nan", "NaN", "0x1p3", "0x.8", "0x", "0X1P-1074", "1e308", "1e309", "2e-308",
	"4.9e-324", "2e-324", "1e-400", "1e4932", "1e4933", "1e-4951", "1e-4952", " 1", "1 ", "+1", "1\x002",
	"0.1000000000000000055511151231257827", "123456789012345678901234567890", "0x1.fffffffffffff8p1023",
	"1.7976931348623158e308", "1.18973149535723176502e+4932", "00000000000000000000001", "-0x0p0"}

// FuzzParseFloat checks ParseFloat against string2d over glibc's strtod
// (when cgo is available), and that d2string's output (AppendFloat17)
// parses back to the same double.
func FuzzParseFloat(f *testing.F) {
	for _, s := range floatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ParseFloat(b)
		if libcref.Available {
			want, wok := string2dC(b)
			if ok != wok || ok && math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("ParseFloat(%q) = %v (%#x), %v; string2d %v (%#x), %v",
					b, got, math.Float64bits(got), ok, want, math.Float64bits(want), wok)
			}
		}
		if ok {
			s := AppendFloat17(nil, got)
			back, ok2 := ParseFloat(s)
			if !ok2 || math.Float64bits(back) != math.Float64bits(got) {
				t.Fatalf("ParseFloat(%q) = %v prints as %q, which parses as %v, %v", b, got, s, back, ok2)
			}
		}
	})
}

// FuzzParseLongDouble checks ParseLongDouble against string2ld over
// glibc's strtold (when cgo is available), and that ld2string's output
// (AppendLongDouble in LD_STR_HEX mode, exact) parses back to the same
// value.
func FuzzParseLongDouble(f *testing.F) {
	for _, s := range floatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ParseLongDouble(b)
		if libcref.Available {
			want, wok := string2ldC(b)
			if ok != wok || ok && got != want {
				t.Fatalf("ParseLongDouble(%q) = %s, %v; string2ld %s, %v", b, ldHex(got), ok, ldHex(want), wok)
			}
		}
		if ok {
			s := AppendLongDouble(nil, got, LDStrHex)
			back, ok2 := ParseLongDouble(s)
			if !ok2 || back != got {
				t.Fatalf("ParseLongDouble(%q) = %s prints as %q, which parses as %s, %v", b, ldHex(got), s, ldHex(back), ok2)
			}
		}
	})
}
