package server

import (
	"strconv"
	"testing"
)

// Benchmarks of the stream commands through processCommand.

func BenchmarkXAdd(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		benchRun(b, s, c, argv("XADD", "bench:stream", "*", "field", strconv.Itoa(i)))
	}
}

func BenchmarkXRange100(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	for i := 0; i < 100; i++ {
		benchRun(b, s, c, argv("XADD", "r", "*", "field", "value:"+strconv.Itoa(i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		benchRun(b, s, c, argv("XRANGE", "r", "-", "+"))
	}
}

// BenchmarkXReadGroupAck is one iteration of a worker's loop: XREADGROUP
// COUNT 1 of a new entry, then XACK of it.
func BenchmarkXReadGroupAck(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	const n = 200000
	for i := 0; i < n; i++ {
		benchRun(b, s, c, argv("XADD", "q", strconv.Itoa(i+1)+"-0", "job", strconv.Itoa(i)))
	}
	benchRun(b, s, c, argv("XGROUP", "CREATE", "q", "g", "0"))
	read := argv("XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "q", ">")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == n {
			b.StopTimer()
			benchRun(b, s, c, argv("XGROUP", "SETID", "q", "g", "0"))
			i = 0
			b.StartTimer()
		}
		i++
		benchRun(b, s, c, read)
		benchRun(b, s, c, argv("XACK", "q", "g", strconv.Itoa(i)+"-0"))
	}
}
