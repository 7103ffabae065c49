package db

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// dictTestNode is the node type of the dict tests: a key, the intrusive next
// pointer and a payload.
type dictTestNode struct {
	key  string
	next *dictTestNode
	val  int
}

func (n *dictTestNode) dictKey() string             { return n.key }
func (n *dictTestNode) dictNext() *dictTestNode     { return n.next }
func (n *dictTestNode) setDictNext(x *dictTestNode) { n.next = x }

type dictTest = dict[dictTestNode, *dictTestNode]

func dictTestKey(i int) string { return fmt.Sprintf("key:%d", i) }

// dictFill inserts keys key:from .. key:to-1 with val = i.
func dictFill(d *dictTest, from, to int) {
	for i := from; i < to; i++ {
		d.Insert(&dictTestNode{key: dictTestKey(i), val: i})
	}
}

// dictFinishRehash completes any rehash in progress.
func dictFinishRehash(t testing.TB, d *dictTest) {
	t.Helper()
	for range 1 << 20 {
		if !d.RehashFor(0) {
			return
		}
	}
	t.Fatal("rehash did not finish")
}

// dictCheck verifies the structural invariants of d: table sizes are powers
// of two, every node sits in the bucket its hash selects, the per-table
// counts match, no node appears twice, and while rehashing ht[0] is empty
// below rehashIdx. It returns the stored nodes by key.
func dictCheck(t testing.TB, d *dictTest) map[string]*dictTestNode {
	t.Helper()
	seen := make(map[*dictTestNode]bool)
	byKey := make(map[string]*dictTestNode)
	if d.ht[0] == nil && (d.ht[1] != nil || d.Len() != 0) {
		t.Fatalf("no main table but ht[1]=%d buckets, Len=%d", len(d.ht[1]), d.Len())
	}
	for ti, tab := range d.ht {
		if tab == nil {
			continue
		}
		if len(tab) < dictInitialSize || len(tab)&(len(tab)-1) != 0 {
			t.Fatalf("table %d has %d buckets, not a power of two >= 4", ti, len(tab))
		}
		count := 0
		for b, head := range tab {
			if ti == 0 && d.ht[1] != nil && b < d.rehashIdx && head != nil {
				t.Fatalf("ht[0] bucket %d below rehashIdx %d is not empty", b, d.rehashIdx)
			}
			for n := head; n != nil; n = n.next {
				if seen[n] {
					t.Fatalf("node %q linked twice (cycle or duplicate)", n.key)
				}
				seen[n] = true
				if want := int(dictHash(n.key) & uint64(len(tab)-1)); want != b {
					t.Fatalf("node %q in table %d bucket %d, hash selects %d", n.key, ti, b, want)
				}
				if _, dup := byKey[n.key]; dup {
					t.Fatalf("key %q stored twice", n.key)
				}
				byKey[n.key] = n
				count++
			}
		}
		if count != d.used[ti] {
			t.Fatalf("table %d holds %d nodes, used says %d", ti, count, d.used[ti])
		}
	}
	return byKey
}

// dictModelOps weights the operations of TestDictModel.
type dictModelOps struct {
	insert, remove, find, shrink, rehash, random int
}

func TestDictModel(t *testing.T) {
	cases := []struct {
		name     string
		seed     uint64
		steps    int
		keySpace int
		phaseLen int // steps per grow/shrink phase; 0 = no phases
		ops      dictModelOps
	}{
		{"small-keyspace", 1, 20000, 16, 0, dictModelOps{4, 4, 4, 1, 1, 1}},
		{"medium-churn", 2, 60000, 500, 0, dictModelOps{5, 4, 5, 1, 1, 1}},
		{"grow-shrink-phases", 3, 80000, 1000, 5000, dictModelOps{6, 6, 4, 1, 1, 1}},
		{"insert-heavy", 4, 40000, 30000, 0, dictModelOps{10, 1, 4, 0, 0, 1}},
		{"no-manual-rehash", 5, 60000, 800, 4000, dictModelOps{6, 6, 6, 1, 0, 1}},
		{"remove-heavy-phases", 6, 60000, 500, 3000, dictModelOps{3, 3, 3, 2, 1, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 99))
			var d dictTest
			model := make(map[string]*dictTestNode)
			var opsWhileRehashing, shrinks, grows int
			total := tc.ops.insert + tc.ops.remove + tc.ops.find + tc.ops.shrink + tc.ops.rehash + tc.ops.random
			for step := range tc.steps {
				ops := tc.ops
				if tc.phaseLen > 0 {
					// Alternate phases that only insert and mostly remove, so
					// the table grows and shrinks repeatedly.
					if (step/tc.phaseLen)%2 == 0 {
						ops.remove = 0
					} else {
						ops.insert = 0
						ops.remove *= 4
					}
				}
				total = ops.insert + ops.remove + ops.find + ops.shrink + ops.rehash + ops.random
				if d.Rehashing() {
					opsWhileRehashing++
				}
				key := dictTestKey(rng.IntN(tc.keySpace))
				r := rng.IntN(total)
				switch {
				case r < ops.insert:
					if model[key] == nil {
						before := d.Buckets()
						n := &dictTestNode{key: key, val: step}
						d.Insert(n)
						model[key] = n
						if d.Buckets() > before && before > 0 {
							grows++
						}
					}
				case r < ops.insert+ops.remove:
					got := d.Remove(key)
					if got != model[key] {
						t.Fatalf("step %d: Remove(%q) = %p, want %p", step, key, got, model[key])
					}
					if got != nil && got.next != nil {
						t.Fatalf("step %d: removed node keeps its next pointer", step)
					}
					delete(model, key)
				case r < ops.insert+ops.remove+ops.find:
					if got := d.Find(key); got != model[key] {
						t.Fatalf("step %d: Find(%q) = %p, want %p", step, key, got, model[key])
					}
				case r < ops.insert+ops.remove+ops.find+ops.shrink:
					if d.NeedsShrink() {
						before := d.Buckets()
						d.Shrink()
						if d.Buckets() != before || d.Rehashing() {
							shrinks++
						}
					}
				case r < ops.insert+ops.remove+ops.find+ops.shrink+ops.rehash:
					d.RehashFor(0)
				default:
					got := d.Random()
					if (got == nil) != (len(model) == 0) || (got != nil && model[got.key] != got) {
						t.Fatalf("step %d: Random() = %v with %d keys", step, got, len(model))
					}
				}
				if d.Len() != len(model) {
					t.Fatalf("step %d: Len() = %d, model has %d", step, d.Len(), len(model))
				}
				if step%997 == 0 || step == tc.steps-1 {
					stored := dictCheck(t, &d)
					if len(stored) != len(model) {
						t.Fatalf("step %d: %d nodes stored, model has %d", step, len(stored), len(model))
					}
					for k, n := range model {
						if stored[k] != n {
							t.Fatalf("step %d: key %q stored as %p, model %p", step, k, stored[k], n)
						}
					}
				}
			}
			// The point of the test is to exercise rehashing: fail if the
			// schedule never reached it.
			if opsWhileRehashing == 0 {
				t.Fatalf("no operation ran while rehashing")
			}
			if tc.phaseLen > 0 && shrinks == 0 {
				t.Fatalf("no shrink happened")
			}
			if tc.keySpace > 8 && grows == 0 {
				t.Fatalf("no growth happened")
			}
			t.Logf("ops while rehashing %d, grows %d, shrinks %d, final len %d buckets %d",
				opsWhileRehashing, grows, shrinks, d.Len(), d.Buckets())
		})
	}
}

func TestDictGrowthSizes(t *testing.T) {
	cases := []struct{ n, buckets int }{
		{1, 4}, {4, 4}, {5, 8}, {8, 8}, {9, 16}, {17, 32}, {1000, 1024}, {1024, 1024}, {1025, 2048},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			var d dictTest
			dictFill(&d, 0, tc.n)
			dictFinishRehash(t, &d)
			if d.Buckets() != tc.buckets || d.Len() != tc.n {
				t.Fatalf("after %d inserts: %d buckets, Len %d; want %d buckets", tc.n, d.Buckets(), d.Len(), tc.buckets)
			}
			dictCheck(t, &d)
		})
	}
}

func TestDictTableSize(t *testing.T) {
	cases := []struct{ in, want int }{
		{-1, 4}, {0, 4}, {1, 4}, {4, 4}, {5, 8}, {8, 8}, {9, 16}, {1 << 20, 1 << 20}, {1<<20 + 1, 1 << 21},
	}
	for _, tc := range cases {
		if got := dictTableSize(tc.in); got != tc.want {
			t.Errorf("dictTableSize(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestDictShrink(t *testing.T) {
	cases := []struct {
		name          string
		fill, keep    int
		needsShrink   bool
		bucketsBefore int
		bucketsAfter  int // after Shrink and a completed rehash
	}{
		{"empty-initial", 4, 0, false, 4, 4},
		// Shrink does not consult NeedsShrink, as dictResize.
		{"fill-at-threshold", 100, 13, false, 128, 16},
		{"fill-below-threshold", 100, 12, true, 128, 16},
		{"emptied-table", 8, 0, true, 8, 4},
		{"large-to-minimum", 1000, 3, true, 1024, 4},
		{"large-to-middle", 5000, 300, true, 8192, 512},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d dictTest
			dictFill(&d, 0, tc.fill)
			dictFinishRehash(t, &d)
			for i := tc.keep; i < tc.fill; i++ {
				if d.Remove(dictTestKey(i)) == nil {
					t.Fatalf("Remove(%d) found nothing", i)
				}
			}
			if d.Buckets() != tc.bucketsBefore {
				t.Fatalf("buckets before shrink = %d, want %d", d.Buckets(), tc.bucketsBefore)
			}
			if got := d.NeedsShrink(); got != tc.needsShrink {
				t.Fatalf("NeedsShrink() = %v, want %v", got, tc.needsShrink)
			}
			d.Shrink()
			// A shrink of a non-empty table is incremental.
			if tc.keep > 0 && tc.bucketsAfter != tc.bucketsBefore && !d.Rehashing() {
				t.Fatalf("Shrink did not start a rehash")
			}
			// While rehashing, Shrink is a no-op.
			b := d.Buckets()
			d.Shrink()
			if d.Buckets() != b {
				t.Fatalf("Shrink during rehash changed buckets %d -> %d", b, d.Buckets())
			}
			dictFinishRehash(t, &d)
			if d.Buckets() != tc.bucketsAfter {
				t.Fatalf("buckets after shrink = %d, want %d", d.Buckets(), tc.bucketsAfter)
			}
			stored := dictCheck(t, &d)
			for i := range tc.keep {
				if stored[dictTestKey(i)] == nil {
					t.Fatalf("key %d lost by shrink", i)
				}
			}
			if len(stored) != tc.keep {
				t.Fatalf("%d keys after shrink, want %d", len(stored), tc.keep)
			}
		})
	}
}

// dictScanScenario drives a full Scan while mutating the dict between calls.
type dictScanScenario struct {
	name    string
	seed    uint64
	stable  int // keys present for the whole scan; all must be returned
	initial int // extra keys present at the start, which may be removed
	prepare func(t testing.TB, d *dictTest, h *dictScanHarness)
	between func(call int, d *dictTest, h *dictScanHarness)
	// mutateCalls limits between to the first calls (default 300): a
	// table that keeps growing forever can outrun any cursor.
	mutateCalls int
	wantGrow    bool // some Scan call must run while the table grows
	wantSh      bool // some Scan call must run while the table shrinks
	minCalls    int  // the scan must take at least this many calls
}

// dictScanHarness tracks the transient keys that between-call mutations add
// and remove.
type dictScanHarness struct {
	rng       *rand.Rand
	next      int                 // next transient key number
	transient map[string]struct{} // transient keys currently stored
	order     []string            // transient keys, for random removal
}

func (h *dictScanHarness) add(d *dictTest, n int) {
	for range n {
		k := fmt.Sprintf("tmp:%d", h.next)
		h.next++
		d.Insert(&dictTestNode{key: k})
		h.transient[k] = struct{}{}
		h.order = append(h.order, k)
	}
}

func (h *dictScanHarness) remove(d *dictTest, n int) {
	for ; n > 0 && len(h.order) > 0; n-- {
		i := h.rng.IntN(len(h.order))
		k := h.order[i]
		h.order[i] = h.order[len(h.order)-1]
		h.order = h.order[:len(h.order)-1]
		delete(h.transient, k)
		if d.Remove(k) == nil {
			panic("transient key missing: " + k)
		}
	}
}

// shrinkIfNeeded does what the server cron does.
func (h *dictScanHarness) shrinkIfNeeded(d *dictTest) {
	if d.NeedsShrink() {
		d.Shrink()
	}
}

func TestDictScanGuarantee(t *testing.T) {
	scenarios := []dictScanScenario{
		{
			name: "no-mutation", seed: 1, stable: 3000,
		},
		{
			name: "grow", seed: 2, stable: 200,
			between:  func(_ int, d *dictTest, h *dictScanHarness) { h.add(d, 40) },
			wantGrow: true,
		},
		{
			name: "grow-with-removes", seed: 3, stable: 300, initial: 300,
			between: func(_ int, d *dictTest, h *dictScanHarness) {
				h.add(d, 30)
				h.remove(d, 10)
			},
			wantGrow: true,
		},
		{
			name: "shrink", seed: 4, stable: 50, initial: 8000,
			between: func(_ int, d *dictTest, h *dictScanHarness) {
				h.remove(d, 150)
				h.shrinkIfNeeded(d)
			},
			wantSh: true,
		},
		{
			name: "grow-then-shrink", seed: 5, stable: 100, initial: 100,
			between: func(call int, d *dictTest, h *dictScanHarness) {
				if call < 120 {
					h.add(d, 60)
				} else {
					h.remove(d, 120)
					h.shrinkIfNeeded(d)
				}
				d.Find("absent") // one rehash step
			},
			wantGrow: true, wantSh: true,
		},
		{
			name: "shrink-then-grow", seed: 6, stable: 100, initial: 20000,
			between: func(call int, d *dictTest, h *dictScanHarness) {
				if call < 60 {
					h.remove(d, 400)
					h.shrinkIfNeeded(d)
				} else {
					h.add(d, 80)
				}
			},
			wantGrow: true, wantSh: true,
		},
		{
			// A shrink by 2^14: each Scan call visits at most
			// dictScanMaxExpansions buckets of the large table, so the
			// scan resumes in the middle of an expansion run.
			name: "huge-shrink-capped-expansions", seed: 7, stable: 20, initial: 40000,
			prepare: func(t testing.TB, d *dictTest, h *dictScanHarness) {
				dictFinishRehash(t, d)
				h.remove(d, len(h.order))
				d.Shrink()
			},
			between: func(call int, d *dictTest, h *dictScanHarness) {
				if call%5 == 0 {
					d.Find("absent")
				}
			},
			// 2^16 buckets over 32: 2048 expansions per small bucket,
			// two calls each at 1024 per call.
			wantSh: true, minCalls: 2 * 32,
		},
		{
			name: "random-churn", seed: 8, stable: 400, initial: 2000,
			between: func(call int, d *dictTest, h *dictScanHarness) {
				switch h.rng.IntN(6) {
				case 0, 1:
					h.add(d, h.rng.IntN(200))
				case 2, 3:
					h.remove(d, h.rng.IntN(300))
				case 4:
					h.shrinkIfNeeded(d)
				default:
					d.RehashFor(0)
				}
			},
		},
	}
	// random-churn again under more seeds.
	for seed := uint64(100); seed < 130; seed++ {
		s := scenarios[len(scenarios)-1]
		s.name = fmt.Sprintf("random-churn-seed-%d", seed)
		s.seed = seed
		scenarios = append(scenarios, s)
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var d dictTest
			h := &dictScanHarness{rng: rand.New(rand.NewPCG(sc.seed, 7)), transient: map[string]struct{}{}}
			stable := make(map[string]bool, sc.stable)
			for i := range sc.stable {
				k := dictTestKey(i)
				d.Insert(&dictTestNode{key: k})
				stable[k] = false
			}
			h.add(&d, sc.initial)
			if sc.prepare != nil {
				sc.prepare(t, &d, h)
			}
			startBuckets, peak, low := d.Buckets(), d.Buckets(), d.Buckets()
			growingCalls, shrinkingCalls := 0, 0
			var cursor uint64
			calls := 0
			for {
				if d.Rehashing() {
					if len(d.ht[1]) > len(d.ht[0]) {
						growingCalls++
					} else {
						shrinkingCalls++
					}
				}
				cursor = d.Scan(cursor, func(n *dictTestNode) {
					if _, ok := stable[n.key]; ok {
						stable[n.key] = true
						return
					}
					if _, ok := h.transient[n.key]; !ok {
						t.Fatalf("Scan returned %q, which is not stored", n.key)
					}
				})
				calls++
				if cursor == 0 {
					break
				}
				if calls > 1<<20 {
					t.Fatalf("Scan did not finish after %d calls", calls)
				}
				mutateCalls := sc.mutateCalls
				if mutateCalls == 0 {
					mutateCalls = 300
				}
				if sc.between != nil && calls <= mutateCalls {
					sc.between(calls, &d, h)
				}
				peak = max(peak, d.Buckets())
				low = min(low, d.Buckets())
			}
			missed := 0
			for k, seen := range stable {
				if !seen {
					missed++
					if missed < 5 {
						t.Errorf("stable key %q never returned", k)
					}
				}
			}
			if missed > 0 {
				t.Fatalf("%d of %d stable keys missed", missed, len(stable))
			}
			// The scenario must have exercised what it claims.
			if sc.wantGrow && growingCalls == 0 {
				t.Fatalf("no Scan call ran while the table grew")
			}
			if sc.wantSh && shrinkingCalls == 0 {
				t.Fatalf("no Scan call ran while the table shrank")
			}
			if calls < sc.minCalls {
				t.Fatalf("scan took %d calls, want at least %d", calls, sc.minCalls)
			}
			dictCheck(t, &d)
			t.Logf("calls %d (while growing %d, shrinking %d), buckets start %d peak %d low %d end %d",
				calls, growingCalls, shrinkingCalls, startBuckets, peak, low, d.Buckets())
		})
	}
}

func TestDictScanEdgeCases(t *testing.T) {
	var d dictTest
	if c := d.Scan(0, func(*dictTestNode) { t.Fatal("fn called on empty dict") }); c != 0 {
		t.Fatalf("Scan on empty dict returned %d", c)
	}
	dictFill(&d, 0, 100)
	// Arbitrary cursors must not panic, while stable or rehashing.
	for _, c := range []uint64{1, 12345, 1 << 40, ^uint64(0)} {
		d.Scan(c, func(*dictTestNode) {})
	}
	dictFill(&d, 100, 129) // starts a grow to 256
	if !d.Rehashing() {
		t.Fatal("expected a rehash in progress")
	}
	for _, c := range []uint64{1, 12345, 1 << 40, ^uint64(0)} {
		d.Scan(c, func(*dictTestNode) {})
	}
	// A full scan of a stable table returns each key exactly once.
	dictFinishRehash(t, &d)
	seen := map[string]int{}
	cursor := uint64(0)
	for {
		cursor = d.Scan(cursor, func(n *dictTestNode) { seen[n.key]++ })
		if cursor == 0 {
			break
		}
	}
	if len(seen) != d.Len() {
		t.Fatalf("full scan saw %d keys of %d", len(seen), d.Len())
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("stable full scan returned %q %d times", k, c)
		}
	}
}

// dictPaused runs fn with rehash steps paused, to hold a rehash in progress.
func dictPaused(d *dictTest, fn func()) {
	d.paused++
	defer func() { d.paused-- }()
	fn()
}

// dictRehashingFixture returns a dict of n keys that is in the middle of a
// grow (paused is left at 0; callers pause as needed).
func dictRehashingFixture(t *testing.T, n int) *dictTest {
	t.Helper()
	d := &dictTest{}
	dictFill(d, 0, n)
	dictFinishRehash(t, d)
	size := d.Buckets()
	dictFill(d, n, size+1) // the insert of size+1 starts the grow
	d.rehash(size / 8)
	if !d.Rehashing() || d.rehashIdx == 0 {
		t.Fatalf("fixture not mid-rehash: rehashing=%v idx=%d", d.Rehashing(), d.rehashIdx)
	}
	return d
}

func TestDictRandom(t *testing.T) {
	var empty dictTest
	if n := empty.Random(); n != nil {
		t.Fatalf("Random on zero dict = %v", n)
	}
	cases := []struct {
		name      string
		build     func(t *testing.T) *dictTest
		rehashing bool
	}{
		{"single", func(*testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 1); return d }, false},
		{"stable-200", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 200)
			dictFinishRehash(t, d)
			return d
		}, false},
		{"rehashing-grow", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 200) }, true},
		{"rehashing-shrink", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 4000)
			dictFinishRehash(t, d)
			for i := 150; i < 4000; i++ {
				d.Remove(dictTestKey(i))
			}
			d.Shrink()
			d.rehash(20)
			return d
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			stored := dictCheck(t, d)
			counts := map[string]int{}
			draws := len(stored) * 400
			dictPaused(d, func() {
				if d.Rehashing() != tc.rehashing {
					t.Fatalf("Rehashing() = %v, want %v", d.Rehashing(), tc.rehashing)
				}
				for range draws {
					n := d.Random()
					if n == nil || stored[n.key] != n {
						t.Fatalf("Random returned %v, not a stored node", n)
					}
					counts[n.key]++
				}
			})
			expected := float64(draws) / float64(len(stored))
			for k := range stored {
				// Chain-length bias is bounded by the longest chain, a
				// handful of nodes at load factor <= 1.
				if c := float64(counts[k]); c < expected/8 || c > expected*8 {
					t.Fatalf("key %q drawn %v times, expected about %v", k, c, expected)
				}
			}
		})
	}
	// After removing every key, Random is nil again even though the
	// table still has buckets.
	var d dictTest
	dictFill(&d, 0, 50)
	for i := range 50 {
		d.Remove(dictTestKey(i))
	}
	if n := d.Random(); n != nil || d.Buckets() == 0 {
		t.Fatalf("Random after removing all = %v (buckets %d)", n, d.Buckets())
	}
}

func TestDictSample(t *testing.T) {
	var empty dictTest
	prefix := []*dictTestNode{{key: "sentinel"}}
	if got := empty.Sample(prefix, 5); len(got) != 1 || got[0].key != "sentinel" {
		t.Fatalf("Sample on empty dict changed dst: %v", got)
	}
	cases := []struct {
		name  string
		build func(t *testing.T) *dictTest
		count int
		exact bool // Len >= count on a dense table: expect exactly count
	}{
		{"fewer-keys-than-count", func(*testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 3); return d }, 10, false},
		{"dense-1000", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 1000)
			dictFinishRehash(t, d)
			return d
		}, 16, true},
		// Mid-grow, most of the larger table is still empty, and like
		// Redis's the sampler can miss within its step budget.
		{"rehashing", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 500) }, 16, false},
		{"zero-count", func(*testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 10); return d }, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			stored := dictCheck(t, d)
			seen := map[string]bool{}
			dictPaused(d, func() {
				for round := 0; round < 5000 && len(seen) < len(stored); round++ {
					got := d.Sample(prefix[:1], tc.count)
					if got[0].key != "sentinel" {
						t.Fatalf("Sample overwrote dst's prefix")
					}
					got = got[1:]
					if len(got) > tc.count || len(got) > len(stored) {
						t.Fatalf("Sample returned %d nodes for count %d, Len %d", len(got), tc.count, len(stored))
					}
					if tc.exact && len(got) != tc.count {
						t.Fatalf("Sample returned %d nodes, want %d", len(got), tc.count)
					}
					for _, n := range got {
						if stored[n.key] != n {
							t.Fatalf("Sample returned %v, not a stored node", n)
						}
						seen[n.key] = true
					}
					if tc.count == 0 {
						break
					}
				}
			})
			if tc.count > 0 && len(seen) != len(stored) {
				t.Fatalf("repeated Sample reached %d of %d keys", len(seen), len(stored))
			}
		})
	}
}

func TestDictScanBuckets(t *testing.T) {
	cases := []struct {
		name       string
		build      func(t *testing.T) *dictTest
		maxBuckets int
	}{
		{"stable-step-1", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 700)
			dictFinishRehash(t, d)
			return d
		}, 1},
		{"stable-step-7", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 700)
			dictFinishRehash(t, d)
			return d
		}, 7},
		{"stable-one-call", func(t *testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 700); dictFinishRehash(t, d); return d }, 1 << 20},
		{"rehashing-grow", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 300) }, 5},
		{"rehashing-shrink", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 3000)
			dictFinishRehash(t, d)
			for i := 100; i < 3000; i++ {
				d.Remove(dictTestKey(i))
			}
			d.Shrink()
			d.rehash(30)
			return d
		}, 3},
	}
	for _, tc := range cases {
		for _, removeOdd := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/remove-odd=%v", tc.name, removeOdd), func(t *testing.T) {
				d := tc.build(t)
				stored := dictCheck(t, d)
				wasRehashing := d.Rehashing()
				seen := map[string]bool{}
				var cursor uint64
				calls := 0
				for {
					prev := cursor
					cursor = d.ScanBuckets(cursor, tc.maxBuckets, func(n *dictTestNode) {
						if stored[n.key] != n {
							t.Fatalf("ScanBuckets passed %v, not a stored node", n)
						}
						seen[n.key] = true
						if removeOdd && n.val%2 == 1 {
							if d.Remove(n.key) != n {
								t.Fatalf("Remove from inside fn failed")
							}
						}
					})
					calls++
					if cursor != 0 && cursor-prev != uint64(tc.maxBuckets) {
						t.Fatalf("cursor advanced %d -> %d with maxBuckets %d", prev, cursor, tc.maxBuckets)
					}
					if cursor == 0 || calls > 1<<20 {
						break
					}
				}
				if d.Rehashing() != wasRehashing {
					t.Fatalf("ScanBuckets changed the rehash state")
				}
				if len(seen) != len(stored) {
					t.Fatalf("a full cycle passed %d of %d nodes", len(seen), len(stored))
				}
				after := dictCheck(t, d)
				for k, n := range stored {
					want := !(removeOdd && n.val%2 == 1)
					if (after[k] != nil) != want {
						t.Fatalf("key %q present=%v after the cycle, want %v", k, after[k] != nil, want)
					}
				}
				if d.paused != 0 {
					t.Fatalf("paused = %d after ScanBuckets", d.paused)
				}
			})
		}
	}
	// Edge cases: empty dict, cursor past the end.
	var d dictTest
	if c := d.ScanBuckets(0, 10, func(*dictTestNode) { t.Fatal("fn on empty dict") }); c != 0 {
		t.Fatalf("ScanBuckets on empty dict = %d", c)
	}
	dictFill(&d, 0, 10)
	if c := d.ScanBuckets(1<<30, 10, func(*dictTestNode) { t.Fatal("fn past the end") }); c != 0 {
		t.Fatalf("ScanBuckets past the end = %d", c)
	}
}

func TestDictEach(t *testing.T) {
	builds := []struct {
		name  string
		build func(t *testing.T) *dictTest
	}{
		{"stable", func(t *testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 500); dictFinishRehash(t, d); return d }},
		{"rehashing", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 500) }},
	}
	for _, b := range builds {
		t.Run(b.name+"/all-once", func(t *testing.T) {
			d := b.build(t)
			stored := dictCheck(t, d)
			seen := map[string]int{}
			d.Each(func(n *dictTestNode) bool { seen[n.key]++; return true })
			if len(seen) != len(stored) {
				t.Fatalf("Each visited %d of %d", len(seen), len(stored))
			}
			for k, c := range seen {
				if c != 1 {
					t.Fatalf("Each visited %q %d times", k, c)
				}
			}
		})
		t.Run(b.name+"/stop-early", func(t *testing.T) {
			d := b.build(t)
			calls := 0
			d.Each(func(*dictTestNode) bool { calls++; return calls < 17 })
			if calls != 17 {
				t.Fatalf("Each made %d calls after fn returned false at 17", calls)
			}
		})
		t.Run(b.name+"/remove-current", func(t *testing.T) {
			d := b.build(t)
			n := d.Len()
			removed := 0
			d.Each(func(x *dictTestNode) bool {
				if d.Remove(x.key) != x {
					t.Fatalf("Remove(%q) inside Each failed", x.key)
				}
				removed++
				return true
			})
			if removed != n || d.Len() != 0 {
				t.Fatalf("removed %d of %d, Len now %d", removed, n, d.Len())
			}
			dictCheck(t, d)
			if d.paused != 0 {
				t.Fatalf("paused = %d after Each", d.paused)
			}
		})
	}
	var empty dictTest
	empty.Each(func(*dictTestNode) bool { t.Fatal("Each on empty dict called fn"); return false })
}

func TestDictClear(t *testing.T) {
	cases := []struct {
		name  string
		build func(t *testing.T) *dictTest
	}{
		{"zero", func(*testing.T) *dictTest { return &dictTest{} }},
		{"small", func(*testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 3); return d }},
		{"rehashing", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 1000) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			d.Clear()
			if d.Len() != 0 || d.Buckets() != 0 || d.Rehashing() {
				t.Fatalf("after Clear: Len %d Buckets %d Rehashing %v", d.Len(), d.Buckets(), d.Rehashing())
			}
			if d.Find(dictTestKey(1)) != nil || d.Remove(dictTestKey(1)) != nil || d.Random() != nil {
				t.Fatal("cleared dict still finds a node")
			}
			if c := d.Scan(0, func(*dictTestNode) { t.Fatal("Scan after Clear called fn") }); c != 0 {
				t.Fatalf("Scan after Clear = %d", c)
			}
			// The dict is usable again, with the same keys.
			dictFill(d, 0, 40)
			stored := dictCheck(t, d)
			if len(stored) != 40 || d.Find(dictTestKey(39)) == nil {
				t.Fatalf("reuse after Clear: %d stored", len(stored))
			}
		})
	}
}

func TestDictZeroAllocs(t *testing.T) {
	var d dictTest
	const n = 5000
	nodes := make([]*dictTestNode, n)
	for i := range nodes {
		nodes[i] = &dictTestNode{key: dictTestKey(i)}
		d.Insert(nodes[i])
	}
	dictFinishRehash(t, &d)
	i := 0
	cases := []struct {
		name string
		fn   func()
	}{
		{"find-hit", func() { d.Find(nodes[i%n].key); i++ }},
		{"find-miss", func() { d.Find("missing-key") }},
		{"remove-insert", func() { x := d.Remove(nodes[i%n].key); d.Insert(x); i++ }},
		{"random", func() { d.Random() }},
		{"scan", func() { d.Scan(uint64(i), func(*dictTestNode) {}); i++ }},
		{"scanbuckets", func() { d.ScanBuckets(uint64(i%1024), 4, func(*dictTestNode) {}); i++ }},
	}
	for _, tc := range cases {
		if a := testing.AllocsPerRun(1000, tc.fn); a != 0 {
			t.Errorf("%s: %v allocs per op, want 0", tc.name, a)
		}
	}
	buf := make([]*dictTestNode, 0, 16)
	if a := testing.AllocsPerRun(1000, func() { buf = d.Sample(buf[:0], 16) }); a != 0 {
		t.Errorf("sample: %v allocs per op, want 0", a)
	}
}

// TestDictKeyNotRetained looks keys up through unsafe.String over a buffer
// that is overwritten afterwards, as the server does with request bytes.
func TestDictKeyNotRetained(t *testing.T) {
	var d dictTest
	dictFill(&d, 0, 100)
	buf := make([]byte, 0, 32)
	for i := range 100 {
		buf = fmt.Appendf(buf[:0], "key:%d", i)
		k := unsafe.String(unsafe.SliceData(buf), len(buf))
		if n := d.Find(k); n == nil || n.val != i {
			t.Fatalf("Find(%q) = %v", k, n)
		}
		if i%2 == 0 {
			if d.Remove(k) == nil {
				t.Fatalf("Remove(%q) = nil", k)
			}
		}
		for j := range buf {
			buf[j] = 'X'
		}
	}
	stored := dictCheck(t, &d)
	for i := range 100 {
		if (stored[dictTestKey(i)] != nil) != (i%2 == 1) {
			t.Fatalf("key %d in wrong state after lookups through a reused buffer", i)
		}
	}
}

// TestDictFairRandomUniform checks FairRandom with a chi-square test: over
// draws of 200 per node the statistic divided by its degrees of freedom is
// about 1 for a uniform sampler, with a standard deviation of sqrt(2/df);
// the bound is six of them. Random (chain-length biased) scores 1.5-3 here.
func TestDictFairRandomUniform(t *testing.T) {
	var empty dictTest
	if n := empty.FairRandom(); n != nil {
		t.Fatalf("FairRandom on zero dict = %v", n)
	}
	cases := []struct {
		name  string
		build func(t *testing.T) *dictTest
	}{
		{"small-60", func(*testing.T) *dictTest { d := &dictTest{}; dictFill(d, 0, 60); return d }},
		{"stable-2000", func(t *testing.T) *dictTest {
			d := &dictTest{}
			dictFill(d, 0, 2000)
			dictFinishRehash(t, d)
			return d
		}},
		{"rehashing-grow", func(t *testing.T) *dictTest { return dictRehashingFixture(t, 1500) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.build(t)
			stored := dictCheck(t, d)
			counts := map[string]int{}
			draws := len(stored) * 100
			dictPaused(d, func() {
				for range draws {
					n := d.FairRandom()
					if n == nil || stored[n.key] != n {
						t.Fatalf("FairRandom returned %v, not a stored node", n)
					}
					counts[n.key]++
				}
			})
			e := float64(draws) / float64(len(stored))
			chi := 0.0
			for k := range stored {
				diff := float64(counts[k]) - e
				chi += diff * diff / e
			}
			df := float64(len(stored) - 1)
			limit := 1 + 6*math.Sqrt(2/df)
			if chi/df > limit {
				t.Fatalf("chi-square/df %.3f over %d nodes, want <= %.3f (uniform)", chi/df, len(stored), limit)
			}
		})
	}
}
