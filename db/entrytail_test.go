package db

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestAllocEntrySizes checks, for every kv length around the tail classes,
// that kv has the asked length, lies in the tail while it fits and in an
// allocation of its own from tailMax on, and that the object the entry
// heads fills a size class exactly (entry plus tail).
func TestAllocEntrySizes(t *testing.T) {
	if unsafe.Sizeof(entry{}) != entryBytes {
		t.Fatalf("sizeof(entry) = %d, entryBytes = %d", unsafe.Sizeof(entry{}), entryBytes)
	}
	for n := 0; n <= tailMax+20; n++ {
		e, buf := allocEntry(n)
		if len(buf) != n || len(e.kv) != n {
			t.Fatalf("n=%d: len(buf) %d, len(kv) %d", n, len(buf), len(e.kv))
		}
		tail := e.tail()
		if n >= tailMax {
			if tail != nil || e.meta&metaTail != 0 {
				t.Fatalf("n=%d: a tail past tailMax", n)
			}
			continue
		}
		size := entryBytes + len(tail) + 1
		if len(tail) < n || size%tailStep != 0 || size > entryBytes+tailMax || size-tailStep >= entryBytes+n+1 {
			t.Fatalf("n=%d: tail %d bytes, object %d bytes", n, len(tail), size)
		}
		if n > 0 && !e.kvInTail(tail) {
			t.Fatalf("n=%d: kv is not in the tail", n)
		}
	}
}

// TestSetStrInTail walks one key through values of growing, shrinking and
// aggregate kinds: the key never changes, the value reads back, kv goes back
// into the tail whenever it fits, and the memory total follows.
func TestSetStrInTail(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	key := []byte("key:000000012345")
	vals := []string{"xxx", "yyy", "", strings.Repeat("a", 150), strings.Repeat("b", 300), "z", strings.Repeat("c", 191), "42"}
	for i, v := range vals {
		d.SetString(key, []byte(v), TTLClear, 0, EvSet)
		e := d.data.main.Find(string(key))
		if e.key() != string(key) {
			t.Fatalf("step %d: key %q", i, e.key())
		}
		if got, _ := d.GetString(key); string(got) != v {
			t.Fatalf("step %d: value %q, want %q", i, got, v)
		}
		tail := e.tail()
		fits := len(key)+len(v) <= len(tail)
		if e.kvInTail(tail) != fits {
			t.Fatalf("step %d: kv in tail %v, value of %d bytes, tail %d", i, e.kvInTail(tail), len(v), len(tail))
		}
		if n, _ := d.KeyMemory(key); n != d.UsedMemory() {
			t.Fatalf("step %d: key memory %d, total %d", i, n, d.UsedMemory())
		}
	}
	// A string becomes an aggregate: the tail keeps the key alone.
	d.Delete(key)
	d.SetString(key, []byte("v"), TTLClear, 0, EvSet)
	if _, err := d.AppendString(key, []byte("more"), 1<<20); err != nil {
		t.Fatal(err)
	}
	e := d.data.main.Find(string(key))
	if e.key() != string(key) || !e.kvInTail(e.tail()) || len(e.kv) != len(key) {
		t.Fatalf("after APPEND: kv %q", e.kv)
	}
	if got, _ := d.GetString(key); string(got) != "vmore" {
		t.Fatalf("after APPEND: %q", got)
	}
	d.Delete(key)
	if d.UsedMemory() != 0 {
		t.Fatalf("used %d after delete", d.UsedMemory())
	}
}

// TestTailOverwriteKeepsOthers overwrites many keys with values of random
// lengths, in place and not, renaming and copying some, and checks every
// key and value against a model, and the memory total against the sum of
// the keys' sizes.
func TestTailOverwriteKeepsOthers(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	r := rand.New(rand.NewPCG(7, 8))
	model := map[string]string{}
	keyOf := func(i int) string { return "k" + strings.Repeat("-", i%40) + string(rune('a'+i%26)) }
	for step := 0; step < 5000; step++ {
		k := keyOf(r.IntN(200))
		switch r.IntN(10) {
		case 0:
			dst := keyOf(r.IntN(200))
			if _, ok := model[k]; ok && k != dst {
				if ok, _ := d.Rename([]byte(k), []byte(dst), false); !ok {
					t.Fatalf("rename %q failed", k)
				}
				model[dst] = model[k]
				delete(model, k)
			}
		case 1:
			d.Delete([]byte(k))
			delete(model, k)
		default:
			v := bytes.Repeat([]byte{byte('0' + step%10)}, r.IntN(260))
			d.SetString([]byte(k), v, TTLClear, 0, EvSet)
			model[k] = string(v)
		}
	}
	var sum int64
	for k, v := range model {
		got, _ := d.GetString([]byte(k))
		if string(got) != v {
			t.Fatalf("%q = %q, want %q", k, got, v)
		}
		n, _ := d.KeyMemory([]byte(k))
		sum += n
	}
	if d.Size() != len(model) || sum != d.UsedMemory() {
		t.Fatalf("size %d (model %d), total %d, sum of keys %d", d.Size(), len(model), d.UsedMemory(), sum)
	}
}
