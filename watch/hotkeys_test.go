package watch

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestHotKeysFindsHotKeyAmongMany: 100,000 distinct keys receive aborts
// with a Zipf-skewed workload, plus one very hot key; the 128-entry summary
// ranks the hot key first with an exact count (Space-Saving keeps any key
// with more than N/size hits) and holds at most MaxBytes.
func TestHotKeysFindsHotKeyAmongMany(t *testing.T) {
	const keys = 100000
	h := NewHotKeys(128)
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 1, keys-1)
	hot := 0
	for i := 0; i < 400000; i++ {
		if i%4 == 0 {
			h.Add(0, "hot:key", "incr", "writer")
			hot++
		}
		// every key appears at least once: a sweep, then the skewed draws
		k := i
		if i >= keys {
			k = int(z.Uint64())
		}
		h.Add(0, "key:"+strconv.Itoa(k), "set", "c"+strconv.Itoa(k%7))
	}
	top := h.Top(3)
	if top[0].Key != "hot:key" || top[0].Count-top[0].Err > int64(hot) || top[0].Count < int64(hot) {
		t.Fatalf("top = %+v, want hot:key with %d", top[0], hot)
	}
	if top[1].Key != "key:0" {
		t.Errorf("second = %q, want the Zipf head key:0", top[1].Key)
	}
	if it := top[0].Cmds.Items(); it[0].Name != "incr" || it[0].Count < int64(hot) {
		t.Errorf("commands of the hot key: %+v", it)
	}
	if h.Len() != 128 || h.Bytes() > h.MaxBytes() {
		t.Errorf("len %d, bytes %d > bound %d", h.Len(), h.Bytes(), h.MaxBytes())
	}
	t.Logf("hot key: %d aborts (err %d); bound %d bytes for %d entries, holding %d",
		top[0].Count, top[0].Err, h.MaxBytes(), h.Cap(), h.Bytes())
}

// TestHotKeysMemoryBound fills a summary with long keys and long names and
// checks both the estimate and the heap growth against MaxBytes.
func TestHotKeysMemoryBound(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := NewHotKeys(128)
	long := strings.Repeat("k", 10000)
	name := strings.Repeat("n", 1000)
	for i := 0; i < 20000; i++ {
		s := strconv.Itoa(i)
		h.Add(i%16, long+s, "cmd"+strconv.Itoa(i%9), name+s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if h.Bytes() > h.MaxBytes() {
		t.Errorf("estimate %d > bound %d", h.Bytes(), h.MaxBytes())
	}
	if grown > 2*h.MaxBytes() {
		t.Errorf("heap grew %d bytes, bound %d", grown, h.MaxBytes())
	}
	for _, e := range h.Top(0) {
		if len(e.Key) != MaxHotKeyLen || e.KeyLen <= MaxHotKeyLen {
			t.Fatalf("key kept %d bytes of %d", len(e.Key), e.KeyLen)
		}
	}
	runtime.KeepAlive(h)
	t.Logf("bound %d, estimate %d, heap growth %d", h.MaxBytes(), h.Bytes(), grown)
}

// TestWhyFirstTouchOnly checks the explanation machinery without a server.
func TestWhyFirstTouchOnly(t *testing.T) {
	var now int64 = 100
	var ctx Context
	ctx.SetClock(&now)
	var k Keys
	k.SetContext(&ctx)
	var a, b Client
	a.Watch(&k, 3, "x", false)
	if ctx.Stats.Records != 1 || ctx.Stats.Keys != 1 {
		t.Fatalf("stats %+v", ctx.Stats)
	}
	now = 150
	ctx.Cause, ctx.Src, ctx.Cmd = CauseWrite, &b, "set"
	k.Touch("x", true)
	w := a.Why()
	if !a.Dirty() || w.Cause != CauseWrite || w.Key != "x" || w.DB != 3 || w.AtMs-w.WatchedAtMs != 50 || w.ByID != -1 {
		t.Fatalf("why %+v", *w)
	}
	if ctx.Stats.Records != 0 || ctx.Stats.Bytes != 0 {
		t.Fatalf("stats after touch %+v", ctx.Stats)
	}
	a.Reset()
	a.Watch(&k, 0, "y", false)
	ctx.Src = &a
	prev := ctx.BeginRemoval(CauseExpiredLazy)
	k.Touch("y", false)
	ctx.EndRemoval(prev)
	if w := a.Why(); w.Cause != CauseExpiredLazy || w.Cmd != "set" {
		t.Fatalf("lazy why %+v", *w)
	}
}

// TestWhyOneTouchManyWatchers: every watcher a touch dirties gets the same
// explanation but for its own first WATCH time and, for the writer's own
// watch state, the own-write cause.
func TestWhyOneTouchManyWatchers(t *testing.T) {
	var now int64 = 100
	var ctx Context
	ctx.SetClock(&now)
	var k Keys
	k.SetContext(&ctx)
	cs := make([]Client, 4)
	for i := range cs {
		now = int64(100 + i)
		cs[i].Watch(&k, 2, "x", false)
	}
	now = 200
	ctx.Cause, ctx.Src, ctx.By, ctx.Cmd = CauseWrite, &cs[2], benchBreaker{}, "set"
	k.Touch("x", true)
	for i := range cs {
		w := cs[i].Why()
		want := CauseWrite
		if i == 2 {
			want = CauseOwn
		}
		if !cs[i].Dirty() || !cs[i].Explained() || w.Cause != want || w.Key != "x" || w.DB != 2 || w.AtMs != 200 ||
			w.WatchedAtMs != int64(100+i) || w.ByID != 7 || w.ByName != "writer" || w.Cmd != "set" {
			t.Fatalf("watcher %d: %+v", i, *w)
		}
	}
	// A server cause (expiry) is the same for everyone.
	for i := range cs {
		cs[i].Reset()
		cs[i].Watch(&k, 2, "y", false)
	}
	prev := ctx.BeginRemoval(CauseExpiredActive)
	k.Touch("y", false)
	ctx.EndRemoval(prev)
	for i := range cs {
		if w := cs[i].Why(); w.Cause != CauseExpiredActive || w.ByID != -1 || w.ByName != "" {
			t.Fatalf("watcher %d after expiry: %+v", i, *w)
		}
	}
}
