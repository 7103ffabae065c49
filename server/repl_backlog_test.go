package server

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestReplBacklogModel writes random chunks to a small backlog and checks
// every readable offset against the whole stream kept aside, across
// wrap-arounds and resizes.
func TestReplBacklogModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	b := newReplBacklog(64, 1)
	var all []byte // all[i] is the byte at offset i+1
	for step := 0; step < 2000; step++ {
		if step%300 == 299 {
			b.resize(int64(16 + rng.IntN(100)))
		} else {
			chunk := make([]byte, rng.IntN(90))
			for i := range chunk {
				chunk[i] = byte(rng.IntN(256))
			}
			b.write(chunk)
			all = append(all, chunk...)
		}
		if b.next() != int64(len(all))+1 {
			t.Fatalf("step %d: next %d, want %d", step, b.next(), len(all)+1)
		}
		if b.histlen > int64(len(b.buf)) {
			t.Fatalf("step %d: histlen %d over size %d", step, b.histlen, len(b.buf))
		}
		for off := b.first - 1; off <= b.next()+1; off++ {
			ok := off >= 1 && off >= b.first && off <= b.next()
			if b.has(off) != ok {
				t.Fatalf("step %d: has(%d) = %v, first %d next %d", step, off, !ok, b.first, b.next())
			}
			if ok {
				if got := b.appendFrom(nil, off); !bytes.Equal(got, all[off-1:]) {
					t.Fatalf("step %d: bytes from %d differ", step, off)
				}
			}
		}
	}
}
