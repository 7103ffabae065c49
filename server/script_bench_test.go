package server

import "testing"

// BenchmarkEvalshaIncr is EVALSHA of a one-INCR script through the
// dispatcher, without the network.
func BenchmarkEvalshaIncr(b *testing.B) {
	s, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	c := testClient(s)
	sha := c.run("SCRIPT", "LOAD", "return redis.call('incr', KEYS[1])")
	if len(sha) < 40 {
		b.Fatal(sha)
	}
	args := [][]byte{[]byte("EVALSHA"), []byte("2bab3b661081db58bd2341920e0ba7cf5dc77b25"), []byte("1"), []byte("counter")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.mu.Lock()
		c.w.Reset()
		s.processCommand(c, args)
		s.mu.Unlock()
	}
	if c.w.Buf[0] != ':' {
		b.Fatalf("%q", c.w.Buf)
	}
}

// BenchmarkIncr is the same INCR without a script, for comparison.
func BenchmarkIncr(b *testing.B) {
	s, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	c := testClient(s)
	args := [][]byte{[]byte("INCR"), []byte("counter")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.mu.Lock()
		c.w.Reset()
		s.processCommand(c, args)
		s.mu.Unlock()
	}
}
