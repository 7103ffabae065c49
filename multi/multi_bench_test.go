package multi

import "testing"

// Hot-path benchmark of the MULTI queue: what one transaction of the
// contention loop (MULTI; SET k v; EXEC) costs here, without the commands.

var benchCmd = struct{ name string }{"set"}

// BenchmarkQueueOneCommand is MULTI, one queued SET, the EXEC decision,
// walking the queue, and the reset at the end of EXEC.
func BenchmarkQueueOneCommand(b *testing.B) {
	var s State
	args := [][]byte{[]byte("SET"), []byte("key:000000012345"), []byte("12345")}
	b.ReportAllocs()
	for b.Loop() {
		s.Begin()
		s.Queue(&benchCmd, args, true, true, false)
		if s.Decide(false) != Run {
			b.Fatal("not Run")
		}
		s.Each(func(cmd any, a [][]byte) {
			if len(a) != 3 {
				b.Fatal("lost arguments")
			}
		})
		s.Reset()
	}
}

// BenchmarkQueueTenCommands queues ten commands per transaction.
func BenchmarkQueueTenCommands(b *testing.B) {
	var s State
	args := [][]byte{[]byte("INCR"), []byte("counter:000000012345")}
	b.ReportAllocs()
	for b.Loop() {
		s.Begin()
		for range 10 {
			s.Queue(&benchCmd, args, true, true, false)
		}
		n := 0
		s.Each(func(any, [][]byte) { n++ })
		if n != 10 {
			b.Fatal(n)
		}
		s.Reset()
	}
}
