package script

import (
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// Number <-> string conversions as Lua 5.1 does them in Redis's build
// (luaconf.h: LUA_NUMBER_FMT "%.14g", lua_str2number strtod).

// appendLuaNumber appends f as Lua prints numbers: C's "%.14g" (so 1/3 is
// "0.33333333333333", 1e15 is "1e+15"), "inf", "-inf", and "nan" or "-nan"
// by the sign bit as glibc prints them.
func appendLuaNumber(b []byte, f float64) []byte { return protocol.AppendG(b, f, 14) }

// luaNumberString returns f formatted as appendLuaNumber does.
func luaNumberString(f float64) string {
	if f == math.Trunc(f) && f > -1e14 && f < 1e14 && (f != 0 || !math.Signbit(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return string(appendLuaNumber(nil, f))
}

// luaToString converts a string or number as lua_tostring does; other types
// give "".
func luaToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return luaNumberString(float64(x))
	}
	return ""
}

// isLuaString reports whether v converts to a string (lua_isstring: strings
// and numbers).
func isLuaString(v lua.LValue) bool {
	t := v.Type()
	return t == lua.LTString || t == lua.LTNumber
}

// luaToNumber converts v as lua_tonumber does: numbers as they are, strings
// by luaO_str2d; ok is false for anything else.
func luaToNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return str2d(string(x))
	}
	return 0, false
}

// doubleToInt64 is the x86-64 conversion of a C cast from double to long
// long: truncation toward zero, and the "integer indefinite" value
// math.MinInt64 for NaN and anything outside the int64 range.
func doubleToInt64(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// doubleToInt32 is the x86-64 conversion of a C cast from double to int.
func doubleToInt32(f float64) int32 {
	if f != f || f >= 2147483648.0 || f < -2147483648.0 {
		return math.MinInt32
	}
	return int32(f)
}

// str2d is Lua 5.1's luaO_str2d: strtod on the whole C string (up to the
// first NUL), a "0x" prefix read as a hexadecimal integer by strtoul, and
// only white space allowed after the number.
func str2d(s string) (float64, bool) {
	s = cString(s)
	f, n := strtod(s)
	if n == 0 {
		return 0, false
	}
	if n < len(s) && (s[n] == 'x' || s[n] == 'X') {
		u, m := strtoul(s, 16)
		f, n = float64(u), m
	}
	for n < len(s) && isCSpace(s[n]) {
		n++
	}
	return f, n == len(s)
}

// cString cuts s at its first NUL byte, as C string functions stop there.
func cString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hexVal is c's value as a hexadecimal digit, or -1.
func hexVal(c byte) int {
	if v := digitVal(c); v < 16 {
		return v
	}
	return -1
}

// strtod parses the longest prefix of s that glibc's strtod accepts and
// returns its value and length (0 when there is no number): leading white
// space, a sign, then a decimal number with optional exponent, a
// hexadecimal float ("0x1.8p3"), "inf", "infinity" or "nan" ("nan(...)").
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := s[i:]
	if hasPrefixFold(rest, "inf") {
		if hasPrefixFold(rest, "infinity") {
			return sign(math.Inf(1)), i + 8
		}
		return sign(math.Inf(1)), i + 3
	}
	if hasPrefixFold(rest, "nan") {
		n := i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isDigit(s[j]) || s[j] == '_' || (s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z')) {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		return sign(math.NaN()), n
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1]|0x20) == 'x' {
		if f, n := strtodHex(rest[2:]); n > 0 {
			return sign(f), i + 2 + n
		}
		return 0, i + 1 // just the "0"
	}
	j := i
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j]|0x20) == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	f, _ := strconv.ParseFloat(s[start:j], 64) // ±Inf on overflow, as strtod
	return f, j
}

// strtodHex parses the hexadecimal float after "0x"; n is 0 when no hex
// digit follows.
func strtodHex(s string) (float64, int) {
	j := 0
	digits := 0
	for j < len(s) && hexVal(s[j]) >= 0 {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && hexVal(s[j]) >= 0 {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	mant := s[:j]
	exp := "p0"
	if j < len(s) && (s[j]|0x20) == 'p' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = s[j:k]
			j = k
		}
	}
	if mant[0] == '.' {
		mant = "0" + mant
	}
	f, _ := strconv.ParseFloat("0x"+mant+exp, 64)
	return f, j
}

// strtoul parses an unsigned integer in base as C's strtoul, returning the
// value (saturated at the maximum) and the length consumed (0 if none).
func strtoul(s string, base int) (uint64, int) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+1 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' && i+2 < len(s) && hexVal(s[i+2]) >= 0 {
		i += 2
	}
	var v uint64
	overflow := false
	start := i
	for i < len(s) {
		d := digitVal(s[i])
		if d < 0 || d >= base {
			break
		}
		if v > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		v = v*uint64(base) + uint64(d)
		i++
	}
	if i == start {
		return 0, 0
	}
	if overflow {
		return math.MaxUint64, i
	}
	if neg {
		v = -v
	}
	return v, i
}

// digitVal is c's value as a digit of base up to 36, or -1.
func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if s[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}
