package protocol

// This file holds the lenient C-library number parsers Redis uses where it
// calls libc or its own memtoull rather than string2ll: glibc's strtoll
// with its end pointer (config values: save points, octal permissions,
// ports) and Redis 7.0's memtoull (memory values like "64mb"). Like the
// strict parsers of number.go they read a C string (b ends at its first
// NUL byte) and do not allocate.

// Strtoll is glibc's strtoll(b, &end, base) for base 8 or 10 over the C
// string b: leading white space (isspace in the C locale), an optional
// sign, digits. rest is what follows the number: all of the C string when
// it has no digits (so an empty rest with v == 0 may also mean an empty
// string). overflow reports ERANGE, with v clamped to the int64 range as
// glibc does.
func Strtoll(b []byte, base int) (v int64, rest []byte, overflow bool) {
	b = numCString(b)
	ubase := uint64(base)
	i := 0
	for i < len(b) && numIsSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var u uint64
	for ; i < len(b); i++ {
		d := uint64(b[i] - '0')
		if b[i] < '0' || d >= ubase {
			break
		}
		if u > (1<<64-1-d)/ubase {
			overflow = true
			u = 1<<64 - 1
		} else if !overflow {
			u = u*ubase + d
		}
	}
	if i == start {
		return 0, b, false
	}
	switch {
	case neg && (overflow || u > 1<<63):
		return -1 << 63, b[i:], true
	case neg:
		return -int64(u), b[i:], false
	case overflow || u > 1<<63-1:
		return 1<<63 - 1, b[i:], true
	}
	return int64(u), b[i:], false
}

// ParseMemory is Redis 7.0's memtoull: decimal digits and an optional unit
// (b, k, kb, m, mb, g, gb in any ASCII case) filling the C string b. A
// leading '-' and more than 127 digits are refused; overflowing digits
// give ULLONG_MAX and the unit multiplication wraps, as in Redis.
func ParseMemory(b []byte) (uint64, bool) {
	b = numCString(b)
	if len(b) > 0 && b[0] == '-' {
		return 0, false
	}
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	var mul uint64
	switch unit := b[i:]; {
	case len(unit) == 0, numEqualFold(unit, "b"):
		mul = 1
	case numEqualFold(unit, "k"):
		mul = 1000
	case numEqualFold(unit, "kb"):
		mul = 1024
	case numEqualFold(unit, "m"):
		mul = 1000 * 1000
	case numEqualFold(unit, "mb"):
		mul = 1024 * 1024
	case numEqualFold(unit, "g"):
		mul = 1000 * 1000 * 1000
	case numEqualFold(unit, "gb"):
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var v uint64
	for j := 0; j < i; j++ {
		d := uint64(b[j] - '0')
		if v > (1<<64-1-d)/10 {
			v = 1<<64 - 1
			break
		}
		v = v*10 + d
	}
	return v * mul, true
}
