package db

import (
	"slices"
	"testing"
)

// The bitmap and SORT mutators against the choke point: one signal per
// modification, none for what Redis 7.0.15 does not signal.

func TestBitmapMutatorsSignal(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	k := []byte("k")
	step := func(name string, fn func(), wantMods int, wantEvents ...string) {
		t.Helper()
		m0, e0 := len(rec.modified), len(rec.events)
		fn()
		if got := len(rec.modified) - m0; got != wantMods {
			t.Errorf("%s: %d signals, want %d", name, got, wantMods)
		}
		if got := rec.events[e0:]; !slices.Equal(got, wantEvents) && !(len(got) == 0 && len(wantEvents) == 0) {
			t.Errorf("%s: events %v, want %v", name, got, wantEvents)
		}
	}
	step("SETBIT creates", func() { d.SetBit(k, 3, true) }, 1, "new:k", "setbit:k")
	step("SETBIT same bit", func() { d.SetBit(k, 3, true) }, 0)
	step("SETBIT clear bit that grows", func() { d.SetBit(k, 100, false) }, 1, "setbit:k")
	step("SETBIT changes", func() { d.SetBit(k, 3, false) }, 1, "setbit:k")
	set := BitfieldOp{Kind: BitfieldSetOp, Bits: 8, Offset: 0, Value: 7}
	step("BITFIELD SET", func() { d.Bitfield(k, []BitfieldOp{set}, nil) }, 1, "setbit:k")
	step("BITFIELD SET same", func() { d.Bitfield(k, []BitfieldOp{set, set}, nil) }, 0)
	fail := BitfieldOp{Kind: BitfieldIncrByOp, Bits: 2, Overflow: OverflowFail, Value: 9}
	step("BITFIELD FAIL creates unsignalled", func() { d.Bitfield([]byte("f"), []BitfieldOp{fail}, nil) }, 0, "new:f")
	step("BITOP", func() { d.BitOp(BitOpNot, []byte("d"), [][]byte{k}) }, 1, "new:d", "set:d")
	step("BITOP empty deletes", func() { d.BitOp(BitOpOr, []byte("d"), [][]byte{[]byte("none")}) }, 1, "keymiss:none", "del:d")
	step("BITOP empty on missing", func() { d.BitOp(BitOpOr, []byte("d"), [][]byte{[]byte("none")}) }, 0, "keymiss:none")
	step("StoreList", func() { d.StoreList([]byte("l"), []string{"a", "b"}, EvSortStore) }, 1, "new:l", "sortstore:l")
	step("StoreList empty", func() { d.StoreList([]byte("l"), nil, EvSortStore) }, 1, "del:l")
	step("StoreList empty on missing", func() { d.StoreList([]byte("l"), nil, EvSortStore) }, 0)
	d.ZAdd([]byte("z"), []float64{1}, [][]byte{[]byte("a")}, 0)
	step("SORT source lookup", func() { d.LookupSortSource([]byte("z"), true) }, 0)
	if info, _ := d.Object([]byte("z")); info.Encoding != "skiplist" {
		t.Errorf("sorted set after SORT's lookup: %q, want skiplist", info.Encoding)
	}
	if v, _ := d.GetString(k); len(v) != 13 || v[0] != 7 {
		t.Errorf("value %q", v)
	}
}

func TestBitmapMemoryReturnsToZero(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("s"), []byte("abc"), TTLClear, 0, EvSet)
	d.SetBit([]byte("s"), 1000, true)
	d.SetBit([]byte("b"), 5000, true)
	d.Bitfield([]byte("b"), []BitfieldOp{{Kind: BitfieldSetOp, Bits: 64, Offset: 9000, Value: -1}}, nil)
	d.BitOp(BitOpXor, []byte("x"), [][]byte{[]byte("s"), []byte("b")})
	d.BitOp(BitOpAnd, []byte("s"), [][]byte{[]byte("x"), []byte("b")})
	d.StoreList([]byte("l"), []string{"1", "2", "3"}, EvSortStore)
	d.StoreList([]byte("x"), []string{"4"}, EvSortStore)
	for _, k := range []string{"s", "b", "x", "l"} {
		d.Delete([]byte(k))
	}
	if got := ks.UsedMemory(); got != 0 {
		t.Fatalf("used memory %d after deleting every key, want 0", got)
	}
}

func TestBitPosRangeMatchesNaive(t *testing.T) {
	p := []byte{0xff, 0xf0, 0x00, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	for bit := 0; bit <= 1; bit++ {
		for s := int64(0); s < int64(len(p))*8; s++ {
			for e := s; e < int64(len(p))*8; e++ {
				want := int64(-1)
				for i := s; i <= e; i++ {
					if int(p[i>>3]>>(7-i&7)&1) == bit {
						want = i
						break
					}
				}
				if got := BitPosRange(p, bit, s, e, true, true); got != want {
					t.Fatalf("bit %d range %d-%d: %d, want %d", bit, s, e, got, want)
				}
				if bs, be := s/8, e/8; s%8 == 0 && e%8 == 7 {
					if got := BitPosRange(p, bit, bs, be, false, true); got != want {
						t.Fatalf("byte range %d-%d bit %d: %d, want %d", bs, be, bit, got, want)
					}
				}
			}
		}
	}
}
