package protocol

// C's atoll and atoi, for the places where Redis 7.0 calls them instead of
// its own strict parsers (number.go): atoi in the key-extraction fallbacks
// of getKeysFromCommand, atoll in the AOF manifest loader. Both are
// strtoll(s, NULL, 10) (strtol.go): leading white space, an optional sign,
// digits, stopping at the first other byte or NUL; 0 when there are none.

// Atoll is C's atoll: strtoll(b, NULL, 10), clamped on overflow as glibc's.
func Atoll(b []byte) int64 {
	v, _, _ := Strtoll(b, 10)
	return v
}

// Atoi is C's atoi as glibc implements it, (int)strtol(b, NULL, 10): the
// value clamped to the long range, then truncated to 32 bits.
func Atoi(b []byte) int {
	v, _, _ := Strtoll(b, 10)
	return int(int32(v))
}
