package db

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// Unit tests of the stream value: node splitting as Redis's listpacks
// split (the cases were measured on redis-server 7.0.15 with XINFO
// STREAM's radix-tree-keys and radix-tree-nodes), the radix tree node
// count, and the memory an entry takes.

func fv(kv ...string) [][]byte {
	out := make([][]byte, len(kv))
	for i, s := range kv {
		out[i] = []byte(s)
	}
	return out
}

func TestStreamNodeSplitsLikeListpacks(t *testing.T) {
	lim := DefaultEncodingLimits()
	big := string(make([]byte, 1000))
	s := newStream()
	for i := 1; i <= 5; i++ {
		s.appendEntry(StreamID{uint64(i), 0}, fv("f", big), &lim)
		want := 1
		if i == 5 { // 4065 bytes + 1001 >= 4096: redis-server opens a second node
			want = 2
		}
		if s.Nodes() != want {
			t.Fatalf("after %d entries of 1000 bytes: %d nodes, want %d (lp bytes %d)", i, s.Nodes(), want, s.nodes[0].lpBytes())
		}
	}
	s = newStream()
	for i := 1; i <= 101; i++ {
		s.appendEntry(StreamID{uint64(i), 0}, fv("f", "v"), &lim)
	}
	if s.Nodes() != 2 || s.RaxNodes() != 6 {
		t.Fatalf("101 small entries: %d nodes, %d rax nodes; redis-server: 2 and 6", s.Nodes(), s.RaxNodes())
	}
	if n := newStream().RaxNodes(); n != 1 {
		t.Fatalf("empty stream: %d rax nodes, want 1", n)
	}
}

func TestStreamRangeAcrossNodes(t *testing.T) {
	lim := DefaultEncodingLimits()
	lim.StreamNodeMaxEntries = 3
	s := newStream()
	for i := 1; i <= 10; i++ {
		s.appendEntry(StreamID{uint64(i), 0}, fv("f", strconv.Itoa(i), "g", "x"), &lim)
	}
	s.deleteID(StreamID{4, 0})
	s.deleteID(StreamID{5, 0})
	s.deleteID(StreamID{6, 0}) // the whole second node
	var got, rev []uint64
	s.Range(StreamID{2, 0}, StreamID{9, 0}, false, func(id StreamID, f [][]byte) bool {
		if string(f[1]) != strconv.FormatUint(id.Ms, 10) {
			t.Fatalf("entry %v holds %q", id, f)
		}
		got = append(got, id.Ms)
		return true
	})
	s.Range(StreamID{2, 0}, StreamID{9, 0}, true, func(id StreamID, _ [][]byte) bool { rev = append(rev, id.Ms); return true })
	if fmt.Sprint(got) != "[2 3 7 8 9]" || fmt.Sprint(rev) != "[9 8 7 3 2]" || s.Nodes() != 3 {
		t.Fatalf("range %v, reverse %v, %d nodes", got, rev, s.Nodes())
	}
}

// TestStreamBytesPerEntry measures the heap an entry of one small field
// takes (XADD s * f <6 digits>, the bench row's entries) and checks the
// estimate the memory accounting keeps against it.
func TestStreamBytesPerEntry(t *testing.T) {
	n := 1000000
	if testing.Short() {
		n = 100000
	}
	lim := DefaultEncodingLimits()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s := newStream()
	base := uint64(1796160000000)
	args := fv("f", "000000")
	for i := 0; i < n; i++ {
		copy(args[1], fmt.Sprintf("%06d", i%1000000))
		s.appendEntry(StreamID{base + uint64(i/3), uint64(i % 3)}, args, &lim)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	heap := float64(m1.HeapAlloc-m0.HeapAlloc) / float64(n)
	est := float64(s.memUsage()) / float64(n)
	t.Logf("%d entries: %.1f heap bytes per entry, estimate %.1f", n, heap, est)
	if heap > 24 {
		t.Errorf("%.1f heap bytes per entry, want at most 24", heap)
	}
	if est < heap*0.8 || est > heap*1.25 {
		t.Errorf("estimate %.1f bytes per entry is off the heap's %.1f", est, heap)
	}
	runtime.KeepAlive(s)
}
