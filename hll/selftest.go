package hll

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SelfTest is PFSELFTEST: it checks the dense register accessors against a
// byte array over 1000 rounds of random values, then adds 10,000,000
// distinct elements to a dense and a sparse HLL at once, checking at every
// power of ten that the sparse one is still sparse while small, that both
// estimate the same, and that the error is within six standard errors. It
// returns "" or Redis's TESTFAILED message.
func SelfTest(sparseMax int64) string {
	const cycles = 1000
	dense := make([]byte, DenseSize)
	regs := dense[HdrSize:]
	var bytecounters [Registers]uint8
	for j := 0; j < cycles; j++ {
		for i := range bytecounters {
			r := uint8(rand.Uint32() & regMax)
			bytecounters[i] = r
			denseSetReg(regs, i, r)
		}
		for i, want := range bytecounters {
			if got := denseGet(regs, i); got != want {
				return fmt.Sprintf("TESTFAILED Register %d should be %d but is %d", i, want, got)
			}
		}
	}

	clear(regs)
	copy(dense, "HYLL")
	sparse := New()
	relerr := 1.04 / math.Sqrt(Registers)
	checkpoint := int64(1)
	seed := rand.Uint64()
	var ele [8]byte
	for j := int64(1); j <= 10000000; j++ {
		v := uint64(j) ^ seed
		for k := range ele {
			ele[k] = byte(v >> (8 * k))
		}
		idx, count := patLen(ele[:])
		denseSet(regs, idx, count)
		sparse, _ = SetRegister(sparse, idx, count, sparseMax)
		if j != checkpoint {
			continue
		}
		if j < sparseMax/2 && Encoding(sparse) != Sparse {
			return "TESTFAILED sparse encoding not used"
		}
		cd, _ := Count(dense)
		if cs, _ := Count(sparse); cd != cs {
			return "TESTFAILED dense/sparse disagree"
		}
		abserr := checkpoint - int64(cd)
		maxerr := uint64(math.Ceil(relerr * 6 * float64(checkpoint)))
		if j == 10 {
			maxerr = 1
		}
		if abserr < 0 {
			abserr = -abserr
		}
		if abserr > int64(maxerr) {
			return fmt.Sprintf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, abserr)
		}
		checkpoint *= 10
	}
	return ""
}
