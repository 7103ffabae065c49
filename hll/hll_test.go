package hll

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// Values recorded from redis-server 7.0.15 (PFADD in batches, then GET).
const (
	// PFADD s1 e0..e49, e50..e99, e100..e149, e150..e199
	oracleSparse200 = "48594c4c010000000000000000000080368421801980409f8408a40e88409084406c9c0190018812883884409480411c8817884055800080407a80411d8812804075800d842a8040638440768c404684414880098040d5800980409480407e9040738040628440a280408384405d84148040cb8407840d8040f080405e80068427844081803c844047840780404e80408f84039404844043840c842684406e80407380404084409d84198019802a8441028c088441298010801c884060801080404b8c4052881b8040b080406e8040bc802b8c40f58040618c1a840380407e80408080404580088440fd80405a80406684409f8040468c108c018401841e8811802384407d8440de84406280308812844065840784198040de84404684408b8814802988008402800a8840578041a79011842e844070801f840180189440f98440848c168421813c881d801380368410804089844044804147800380228040b88440bb88404684168040c684404980048440e680404380388c405c80405584409980268005800380405480409e88404c882e8840448040b080198408841f880380405b841b803f804044804055800d88128440d380405988408b800290407e800784407b801d841d8040af8418840f844045803384404f80288440a78440768040578419844048800e9022840a80406a840d8039801380409a8828804046844044"
	// PFADD d1 e0..e9999 in batches of 1000: sha256 of the dense value
	oracleDense10k = "5f94be2c770f456ca505c757976fb27a6222332b042358459ecd3dd8cf30599b"
)

func build(t *testing.T, n, batch int) []byte {
	t.Helper()
	b := New()
	for i := 0; i < n; i += batch {
		changed := false
		for j := i; j < i+batch && j < n; j++ {
			var r int
			b, r = Add(b, []byte(fmt.Sprintf("e%d", j)), 3000)
			if r < 0 {
				t.Fatalf("Add e%d: corrupted", j)
			}
			changed = changed || r == 1
		}
		if changed {
			InvalidateCache(b)
		}
	}
	return b
}

func TestSparseBytesEqualRedis(t *testing.T) {
	b := build(t, 200, 50)
	if got := hex.EncodeToString(b); got != oracleSparse200 {
		t.Fatalf("sparse value differs from Redis's:\n got %s\nwant %s", got, oracleSparse200)
	}
	if c, inv := Count(b); inv || c != 200 {
		t.Fatalf("Count = %d, %v; Redis says 200", c, inv)
	}
	want := "z:55 v:2,1 z:34 v:1,1 z:26 v:1,1 Z:160 v:2,1 z:9 v:10,1"
	if got := Decode(b); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("Decode = %.80q", got)
	}
}

func TestDenseBytesEqualRedis(t *testing.T) {
	b := build(t, 10000, 1000)
	if Encoding(b) != Dense || len(b) != DenseSize {
		t.Fatalf("encoding %d len %d", Encoding(b), len(b))
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != oracleDense10k {
		t.Fatalf("dense value differs from Redis's (sha256 %s)", got)
	}
	if c, _ := Count(b); c != 9973 {
		t.Fatalf("Count = %d; Redis says 9973", c)
	}
}

func TestRegistersRoundTrip(t *testing.T) {
	regs := make([]byte, DenseSize-HdrSize)
	vals := make([]uint8, Registers)
	for i := range vals {
		vals[i] = uint8((i*7 + i/3) & regMax)
		denseSetReg(regs, i, vals[i])
	}
	for i, v := range vals {
		if got := denseGet(regs, i); got != v {
			t.Fatalf("register %d = %d, want %d", i, got, v)
		}
	}
}

func TestSparseAndDenseAgree(t *testing.T) {
	s := New()
	d, _ := SparseToDense(New())
	for i := 0; i < 3000; i++ {
		ele := []byte(fmt.Sprintf("x:%d", i))
		s, _ = Add(s, ele, 1<<30)
		d, _ = Add(d, ele, 1<<30)
		if i%97 == 0 {
			cs, _ := Count(s)
			cd, _ := Count(d)
			if cs != cd {
				t.Fatalf("at %d: sparse %d dense %d", i, cs, cd)
			}
		}
	}
	conv, err := SparseToDense(s)
	if err != nil {
		t.Fatal(err)
	}
	copy(conv[:HdrSize], d[:HdrSize])
	if string(conv) != string(d) {
		t.Fatal("converted sparse differs from dense")
	}
}

func TestCacheBytes(t *testing.T) {
	b := New()
	if _, ok := CachedCard(b); !ok {
		t.Fatal("new HLL has a stale cache")
	}
	SetCachedCard(b, 0x0102)
	if c, ok := CachedCard(b); !ok || c != 0x0102 {
		t.Fatalf("cache %d %v", c, ok)
	}
	InvalidateCache(b)
	if _, ok := CachedCard(b); ok {
		t.Fatal("still valid")
	}
}

func TestCorruptedNeverPanics(t *testing.T) {
	b := New()
	b = append(b, 0x80, 0x80) // covers more than 16384 registers
	if _, inv := Count(b); !inv {
		t.Fatal("not reported invalid")
	}
	var max [Registers]uint8
	if Merge(&max, b) == nil {
		t.Fatal("merge accepted it")
	}
	if _, err := SparseToDense(b); err == nil {
		t.Fatal("conversion accepted it")
	}
	trunc := New()[:HdrSize+1] // XZERO cut in half
	Add(trunc, []byte("a"), 3000)
	Count(trunc)
	Decode(trunc)
}

// FuzzSparse runs every entry point on arbitrary sparse opcodes.
func FuzzSparse(f *testing.F) {
	raw, _ := hex.DecodeString(oracleSparse200)
	f.Add(raw[HdrSize:], []byte("a"))
	f.Add([]byte{0x7f, 0xff}, []byte("x"))
	f.Add([]byte{0x80, 0x41}, []byte(""))
	f.Fuzz(func(t *testing.T, ops, ele []byte) {
		b := append(New()[:HdrSize], ops...)
		if !IsValid(b) {
			t.Fatal("sparse header rejected")
		}
		Count(b)
		Decode(b)
		var max [Registers]uint8
		Merge(&max, b)
		SparseToDense(b)
		nb, _ := Add(append([]byte(nil), b...), ele, 3000)
		if len(nb) > DenseSize {
			t.Fatalf("grew to %d", len(nb))
		}
		nb, _ = SetRegister(append([]byte(nil), b...), len(ops)%Registers, 5, 3000)
		_ = nb
	})
}

func BenchmarkAddDense(b *testing.B) {
	h, _ := SparseToDense(New())
	ele := []byte("element:000000")
	for i := 0; b.Loop(); i++ {
		ele[8] = byte(i)
		ele[9] = byte(i >> 8)
		h, _ = Add(h, ele, 3000)
	}
}

func BenchmarkCountDense(b *testing.B) {
	h, _ := SparseToDense(New())
	for b.Loop() {
		Count(h)
	}
}
