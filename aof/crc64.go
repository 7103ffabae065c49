package aof

// crc64Table is Redis's crc64 (crc64.c): the Jones polynomial
// 0xad93d23594c935a9, reflected input and output, initial value 0 and no
// final xor. The RDB format ends with this checksum of everything before it.
var crc64Table = func() (t [256]uint64) {
	const poly = 0x95ac9329ac4bc9b5 // 0xad93d23594c935a9 bit-reversed
	for i := range t {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc64Update extends crc with p.
func crc64Update(crc uint64, p []byte) uint64 {
	for _, b := range p {
		crc = crc64Table[byte(crc)^b] ^ crc>>8
	}
	return crc
}
