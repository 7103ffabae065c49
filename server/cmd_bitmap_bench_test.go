package server

import (
	"strconv"
	"testing"
)

// BenchmarkDispatchSetBit is bench/targets.sh's SETBIT row without the
// network: SETBIT bits:<n> 7 1 over 100,000 keys (created, then unchanged).
func BenchmarkDispatchSetBit(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte { return argv("SETBIT", "bits:"+strconv.Itoa(i%100000), "7", "1") })
}

// BenchmarkDispatchSetBitFlip changes a bit of one key every time.
func BenchmarkDispatchSetBitFlip(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte { return argv("SETBIT", "bits", strconv.Itoa(i%8192), strconv.Itoa(i/8192%2)) })
}

// BenchmarkDispatchBitCount1K counts the bits of a 1 kB string.
func BenchmarkDispatchBitCount1K(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	benchRun(b, s, c, argv("SETBIT", "bigbits", "8191", "1"))
	cmd := argv("BITCOUNT", "bigbits")
	b.ReportAllocs()
	for b.Loop() {
		benchRun(b, s, c, cmd)
	}
}
