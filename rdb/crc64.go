package rdb

import "encoding/binary"

// Redis's crc64 (crc64.c): the Jones polynomial 0xad93d23594c935a9,
// reflected input and output, initial value 0, no final xor. An RDB file
// and a DUMP payload end with this checksum of everything before it. The
// tables are for slicing by 8 (SAVE checksums every byte it writes).
var crcTables = func() (t [8][256]uint64) {
	const poly = 0x95ac9329ac4bc9b5 // 0xad93d23594c935a9 bit-reversed
	for i := range t[0] {
		c := uint64(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range t[0] {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][byte(c)] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}()

// CRC64 extends crc with p (crc64(crc, p, len)).
func CRC64(crc uint64, p []byte) uint64 {
	t := &crcTables
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint64(p)
		crc = t[7][byte(crc)] ^ t[6][byte(crc>>8)] ^ t[5][byte(crc>>16)] ^ t[4][byte(crc>>24)] ^
			t[3][byte(crc>>32)] ^ t[2][byte(crc>>40)] ^ t[1][byte(crc>>48)] ^ t[0][byte(crc>>56)]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return crc
}
