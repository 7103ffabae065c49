package watch

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"
)

// TestTableAgainstMap inserts and deletes random keys, growing the table to
// thousands of keys and shrinking it back to none, and checks every key
// against a Go map after every batch.
func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tb table
	want := map[string]uint32{}
	check := func(step int) {
		if tb.n != len(want) {
			t.Fatalf("step %d: %d keys, want %d", step, tb.n, len(want))
		}
		for k, i := range want {
			if j, ok := tb.find(k); !ok || j != i {
				t.Fatalf("step %d: find(%q) = %d %v, want %d", step, k, j, ok, i)
			}
		}
		if _, ok := tb.find("absent"); ok {
			t.Fatalf("step %d: found a key never inserted", step)
		}
		seen := 0
		tb.each(func(i uint32) {
			if want[tb.entry(i).key] != i {
				t.Fatalf("step %d: each gave entry %d (%q)", step, i, tb.entry(i).key)
			}
			seen++
		})
		if seen != len(want) || (tb.n > 0 && tb.n*4 > len(tb.slots)*3) {
			t.Fatalf("step %d: each saw %d, %d keys in %d slots", step, seen, tb.n, len(tb.slots))
		}
	}
	for step := 0; step < 60; step++ {
		grow := step%20 < 12
		for j := 0; j < 500; j++ {
			if grow || len(want) == 0 {
				k := strconv.Itoa(rng.IntN(20000))
				if j%7 == 0 {
					k = "" // the empty key is a key like any other
				}
				if _, ok := want[k]; !ok {
					want[k] = tb.insert(k)
				}
				continue
			}
			for k, i := range want { // a random one
				tb.delete(i)
				delete(want, k)
				break
			}
		}
		check(step)
	}
	for k, i := range want {
		tb.delete(i)
		delete(want, k)
	}
	check(-1)
	if tb.slots != nil || tb.chunks != nil {
		t.Fatal("an empty table keeps its memory")
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
