package db

import (
	"fmt"
	"runtime"
	"slices"
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

// TestStreamLastValid deletes entries from the end, the middle and the
// start of a stream of small nodes, and trims it: LastValid (one step back
// from the end unless the last entry is deleted) always equals the last ID
// a full range finds, and a node's lastID its last entry, deleted or not.
func TestStreamLastValid(t *testing.T) {
	lim := DefaultEncodingLimits()
	lim.StreamNodeMaxEntries = 4
	s := newStream()
	for i := 1; i <= 13; i++ {
		s.appendEntry(StreamID{uint64(i), 0}, fv("f", strconv.Itoa(i)), &lim)
	}
	scan := func() StreamID {
		var last StreamID
		s.Range(StreamID{}, MaxStreamID, false, func(id StreamID, _ [][]byte) bool { last = id; return true })
		return last
	}
	check := func(step string) {
		t.Helper()
		if got, want := s.LastValid(), scan(); got != want {
			t.Fatalf("%s: LastValid %v, the last live entry is %v", step, got, want)
		}
		for _, n := range s.nodes {
			var last StreamID
			for off := 0; off < len(n.buf); off = n.decodeAt(off).end {
				last = n.decodeAt(off).id
			}
			if n.lastID() != last {
				t.Fatalf("%s: node %v lastID %v, its last entry is %v", step, n.master, n.lastID(), last)
			}
		}
	}
	check("13 entries")
	for _, ms := range []uint64{13, 11, 12, 2, 10, 1, 9, 5} {
		s.deleteID(StreamID{ms, 0})
		check(fmt.Sprintf("deleted %d", ms))
	}
	s.appendEntry(StreamID{14, 0}, fv("g", "x"), &lim)
	check("appended 14")
	s.trim(TrimSpec{MaxLen: 2})
	check("trimmed to 2")
	for _, ms := range []uint64{14, 8} {
		s.deleteID(StreamID{ms, 0})
	}
	if s.Len() != 0 || s.LastValid() != (StreamID{}) {
		t.Fatalf("emptied: length %d, LastValid %v", s.Len(), s.LastValid())
	}
}

// TestStreamReadFrom reads a stream of small nodes one entry at a time
// from where the last read stopped, as consumers of one group do, with
// writes in between (entries appended, deleted before and after the read
// position, whole nodes trimmed away): every read returns what Range from
// the same start returns, and a read from an earlier start (a second
// group, XREAD 0) ignores the hint.
func TestStreamReadFrom(t *testing.T) {
	lim := DefaultEncodingLimits()
	lim.StreamNodeMaxEntries = 5
	s := newStream()
	next := uint64(1)
	add := func(k int) {
		for range k {
			s.appendEntry(StreamID{next, 0}, fv("f", strconv.FormatUint(next, 10)), &lim)
			next++
		}
	}
	first := func(read func(StreamID, func(StreamID, [][]byte) bool), start StreamID, k int) []string {
		var out []string
		read(start, func(id StreamID, f [][]byte) bool {
			out = append(out, id.String()+"="+string(f[1]))
			return len(out) < k
		})
		return out
	}
	rng := func(start StreamID, fn func(StreamID, [][]byte) bool) { s.Range(start, MaxStreamID, false, fn) }
	check := func(step string, start StreamID, k int) StreamID {
		t.Helper()
		got, want := first(s.ReadFrom, start, k), first(rng, start, k)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: ReadFrom(%v) %v, Range %v", step, start, got, want)
		}
		if len(got) == 0 {
			return start
		}
		var last StreamID
		fmt.Sscanf(got[len(got)-1], "%d-%d", &last.Ms, &last.Seq)
		n, _ := last.Incr()
		return n
	}
	add(12)
	pos := StreamID{}
	for range 7 {
		pos = check("reading", pos, 1)
	}
	add(3)
	pos = check("after appends", pos, 2)
	s.deleteID(StreamID{pos.Ms, 0})     // the next entry to read
	s.deleteID(StreamID{pos.Ms - 2, 0}) // one already read
	pos = check("after deletes", pos, 1)
	check("an earlier start in the hint's node", StreamID{s.read.node.master.Ms, 0}, 2)
	check("an earlier start", StreamID{2, 0}, 3) // the hint is in the first node now
	hinted := s.read.node
	s.trim(TrimSpec{MaxLen: int64(s.Len()) - int64(s.nodes[0].live)}) // removes the first node
	if hinted == nil || slices.Contains(s.nodes, hinted) || s.read.node != nil {
		t.Fatalf("trim: hint node %p still in the stream %v, hint now %p", hinted, slices.Contains(s.nodes, hinted), s.read.node)
	}
	pos = check("after the trim", pos, 1)
	pos = check("after the trim", pos, 1)
	add(9)
	for range 12 {
		pos = check("to the end", pos, 2)
	}
	s.ReadFrom(MaxStreamID, func(StreamID, [][]byte) bool { t.Fatal("an entry past the end"); return false })
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
