package script

import (
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// BenchmarkRunIncr is the VM side of EVALSHA of a one-INCR script: the
// host answers at once.
func BenchmarkRunIncr(b *testing.B) {
	e := NewEngine()
	h := &fakeHost{replies: map[string]string{"incr": ":1\r\n"}}
	s, msg := e.Load([]byte("return redis.call('incr', KEYS[1])"))
	if s == nil {
		b.Fatal(msg)
	}
	keys := [][]byte{[]byte("counter")}
	var w protocol.Writer
	r := &Run{Host: h, Name: s.SHA, Keys: keys}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Reset()
		h.calls = h.calls[:0]
		h.protos = h.protos[:0]
		e.Run(s, r, &w)
	}
}
