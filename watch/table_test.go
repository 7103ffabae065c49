package watch

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"
)

// TestTableAgainstMap inserts and deletes random keys, growing the table to
// thousands of keys and shrinking (and compacting) it back to none, and
// checks every key against a Go map after every batch.
func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var k Keys
	tb := &k.t
	tb.owner = &k
	owner := Client{recs: make([]Record, 1)} // every entry's first watcher
	want := map[string]bool{}
	check := func(step int) {
		if tb.n != len(want) {
			t.Fatalf("step %d: %d keys, want %d", step, tb.n, len(want))
		}
		for key := range want {
			if i, ok := tb.find(key); !ok || tb.entry(i).key != key {
				t.Fatalf("step %d: find(%q) = %d %v", step, key, i, ok)
			}
		}
		if _, ok := tb.find("absent"); ok {
			t.Fatalf("step %d: found a key never inserted", step)
		}
		seen := 0
		tb.each(func(i uint32) {
			if !want[tb.entry(i).key] {
				t.Fatalf("step %d: each gave entry %d (%q)", step, i, tb.entry(i).key)
			}
			seen++
		})
		if seen != len(want) || (tb.n > 0 && tb.n*4 > len(tb.slots)*3) {
			t.Fatalf("step %d: each saw %d, %d keys in %d slots", step, seen, tb.n, len(tb.slots))
		}
		if int(tb.top) > 4*tb.n+chunkLen && tb.n*8 < len(tb.slots) {
			t.Fatalf("step %d: %d entries handed out for %d keys: not compacted", step, tb.top, tb.n)
		}
	}
	del := func(key string) {
		i, ok := tb.find(key)
		if !ok {
			t.Fatalf("delete: %q not found", key)
		}
		tb.delete(i, tb.hash(key))
		delete(want, key)
	}
	for step := 0; step < 60; step++ {
		grow := step%20 < 12
		for j := 0; j < 500; j++ {
			if grow || len(want) == 0 {
				key := strconv.Itoa(rng.IntN(20000))
				if j%7 == 0 {
					key = "" // the empty key is a key like any other
				}
				if !want[key] {
					tb.entry(tb.insert(key, tb.hash(key))).setFirst(watcher{&owner, 0})
					want[key] = true
				}
				continue
			}
			for key := range want { // a random one
				del(key)
				break
			}
		}
		check(step)
	}
	for key := range want {
		del(key)
	}
	check(-1)
	if len(tb.slots) > keptSlots || len(tb.chunks) > keptChunks {
		t.Fatalf("an empty table keeps %d slots and %d chunks", len(tb.slots), len(tb.chunks))
	}
}

// TestLayoutSizes pins the sizes the memory estimate (doc.go, RecordBytes)
// and the WSCALE memory row rely on.
func TestLayoutSizes(t *testing.T) {
	if s := unsafe.Sizeof(Record{}); s != 24 {
		t.Errorf("Record is %d bytes, want 24", s)
	}
	if s := unsafe.Sizeof(entry{}); s != 32 {
		t.Errorf("entry is %d bytes, want 32", s)
	}
	if s := unsafe.Sizeof(watcher{}); s != 16 {
		t.Errorf("watcher is %d bytes, want 16", s)
	}
}
