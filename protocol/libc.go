package protocol

// C library number parsing, for the places where Redis 7.0 calls libc
// instead of its own strict parsers (number.go): atoi in the key-extraction
// fallbacks of getKeysFromCommand, atoll in the AOF manifest loader, strtoll
// in the config file and CONFIG SET. They accept what glibc accepts: leading
// white space, an optional sign, then digits, stopping at the first other
// byte. A Go string or []byte has no terminating NUL; a caller that mimics a
// C string cuts at the first NUL itself.

// Strtoll is glibc's strtoll(s, &end, base) for bases 2 to 10: it returns
// the value, how many bytes of s the number took (0 when there are no
// digits, as when glibc sets end to s) and whether it overflowed (ERANGE, v
// then clamped to the int64 range as glibc clamps it).
func Strtoll[T ~string | ~[]byte](s T, base int) (v int64, n int, overflow bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	b := uint64(base)
	var u uint64
	for ; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if s[i] < '0' || d >= b {
			break
		}
		if u > (1<<64-1-d)/b {
			overflow = true
			u = 1<<64 - 1
		} else if !overflow {
			u = u*b + d
		}
	}
	if i == start {
		return 0, 0, false
	}
	switch {
	case neg && (overflow || u > 1<<63):
		return -1 << 63, i, true
	case neg:
		return -int64(u), i, false
	case overflow || u > 1<<63-1:
		return 1<<63 - 1, i, true
	}
	return int64(u), i, false
}

// Atoll is C's atoll: strtoll(s, NULL, 10), 0 when s has no number.
func Atoll[T ~string | ~[]byte](s T) int64 {
	v, _, _ := Strtoll(s, 10)
	return v
}

// Atoi is C's atoi as glibc implements it, (int)strtol(s, NULL, 10): the
// value clamped to the long range, then truncated to 32 bits.
func Atoi[T ~string | ~[]byte](s T) int {
	v, _, _ := Strtoll(s, 10)
	return int(int32(v))
}
