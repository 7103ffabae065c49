package hll

// The dense encoding: 6-bit registers packed from the least significant
// bit of each byte (HLL_DENSE_GET_REGISTER / HLL_DENSE_SET_REGISTER).
// Redis reads and writes the byte after the last register's (the sds
// terminator); here that byte is read as zero and left alone, which the
// last register's position (bits 2..7 of the final byte) makes equivalent.

func denseGet(regs []byte, i int) uint8 {
	byteIdx := i * bits / 8
	fb := uint(i*bits) & 7
	b0 := uint(regs[byteIdx])
	var b1 uint
	if byteIdx+1 < len(regs) {
		b1 = uint(regs[byteIdx+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & regMax)
}

func denseSetReg(regs []byte, i int, val uint8) {
	byteIdx := i * bits / 8
	fb := uint(i*bits) & 7
	fb8 := 8 - fb
	v := uint(val)
	regs[byteIdx] &^= byte(regMax << fb)
	regs[byteIdx] |= byte(v << fb)
	if byteIdx+1 < len(regs) {
		regs[byteIdx+1] &^= byte(regMax >> fb8)
		regs[byteIdx+1] |= byte(v >> fb8)
	}
}

// denseSet is hllDenseSet: raise register i to count; 1 if it changed.
func denseSet(regs []byte, i int, count uint8) int {
	if count > denseGet(regs, i) {
		denseSetReg(regs, i, count)
		return 1
	}
	return 0
}

// denseHisto is hllDenseRegHisto: 16 registers from every 12 bytes.
func denseHisto(regs []byte, h *[64]int) {
	r := regs[:Registers*bits/8]
	for j := 0; j < len(r); j += 12 {
		q := r[j : j+12 : j+12]
		h[q[0]&63]++
		h[(q[0]>>6|q[1]<<2)&63]++
		h[(q[1]>>4|q[2]<<4)&63]++
		h[(q[2]>>2)&63]++
		h[q[3]&63]++
		h[(q[3]>>6|q[4]<<2)&63]++
		h[(q[4]>>4|q[5]<<4)&63]++
		h[(q[5]>>2)&63]++
		h[q[6]&63]++
		h[(q[6]>>6|q[7]<<2)&63]++
		h[(q[7]>>4|q[8]<<4)&63]++
		h[(q[8]>>2)&63]++
		h[q[9]&63]++
		h[(q[9]>>6|q[10]<<2)&63]++
		h[(q[10]>>4|q[11]<<4)&63]++
		h[(q[11]>>2)&63]++
	}
}
