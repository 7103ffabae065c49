package db

import (
	"slices"
	"testing"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The index follows every way a key enters or leaves the main table, keeps
// Redis's newest-first order, and is rebuilt empty by FLUSHDB/FLUSHALL.
func TestSlotIndex(t *testing.T) {
	ks := NewKeyspace(2)
	ks.EnableSlotIndex()
	d := ks.DB(0)
	slot := cluster.KeyHashSlot("{t}a")
	for _, k := range []string{"{t}a", "{t}b", "{t}c", "other"} {
		d.SetString([]byte(k), []byte("v"), TTLClear, 0, EvSet)
	}
	d.SetString([]byte("{t}b"), []byte("an overwrite keeps its place"), TTLClear, 0, EvSet)
	if n := d.CountKeysInSlot(slot); n != 3 {
		t.Fatalf("CountKeysInSlot = %d, want 3", n)
	}
	if got := d.KeysInSlot(nil, slot, 10); !slices.Equal(got, []string{"{t}c", "{t}b", "{t}a"}) {
		t.Fatalf("KeysInSlot = %q", got)
	}
	if got := d.KeysInSlot(nil, slot, 1); !slices.Equal(got, []string{"{t}c"}) {
		t.Fatalf("KeysInSlot max 1 = %q", got)
	}
	d.Delete([]byte("{t}b"))
	if _, err := d.Rename([]byte("{t}a"), []byte("moved"), false); err != nil {
		t.Fatal(err)
	}
	if got := d.KeysInSlot(nil, slot, 10); !slices.Equal(got, []string{"{t}c"}) {
		t.Fatalf("after DEL and RENAME: %q", got)
	}
	if n := d.CountKeysInSlot(cluster.KeyHashSlot("moved")); n != 1 {
		t.Fatalf("renamed key not indexed under its new slot (%d)", n)
	}
	d.Flush()
	if n := d.CountKeysInSlot(slot); n != 0 {
		t.Fatalf("after FLUSHDB: %d", n)
	}
	d.SetString([]byte("{t}x"), []byte("v"), TTLClear, 0, EvSet)
	if n := d.CountKeysInSlot(slot); n != 1 {
		t.Fatalf("the index is not kept after FLUSHDB (%d)", n)
	}
	ks.FlushAll()
	ks.DB(1).SetString([]byte("{t}y"), []byte("v"), TTLClear, 0, EvSet)
	if n := ks.DB(1).CountKeysInSlot(slot); n != 1 {
		t.Fatalf("db 1 after FLUSHALL: %d", n)
	}
}

// Without EnableSlotIndex nothing is kept.
func TestSlotIndexOff(t *testing.T) {
	d := NewKeyspace(1).DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet)
	if d.data.slots != nil || d.CountKeysInSlot(cluster.KeyHashSlot("k")) != 0 {
		t.Fatal("a keyspace without cluster mode keeps a slot index")
	}
}
