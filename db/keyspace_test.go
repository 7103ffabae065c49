package db

import (
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/watch"
)

// recorder is an Observer that records what the choke point announces.
type recorder struct {
	modified []string
	events   []string
}

func (r *recorder) Modified(d *DB, key string)         { r.modified = append(r.modified, key) }
func (r *recorder) Notify(d *DB, ev Event, key string) { r.events = append(r.events, ev.Name+":"+key) }
func (r *recorder) Ready(d *DB, key string, t Type)    {}
func (r *recorder) Flushed(db int)                     {}
func (r *recorder) Swapped(a, b int)                   {}

func newTestKS(t *testing.T) (*Keyspace, *recorder) {
	t.Helper()
	ks := NewKeyspace(4)
	rec := &recorder{}
	ks.SetObserver(rec)
	ks.SetTime(1_000_000)
	return ks, rec
}

func watchKey(d *DB, c *watch.Client, key string) {
	c.Watch(d.Watched(), d.ID(), key, d.KeyIsExpired([]byte(key)))
}

func TestSetSignalsEvenSameValue(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet)
	var c watch.Client
	watchKey(d, &c, "k")
	d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet)
	if !c.Dirty() {
		t.Fatal("SET of the same value must touch watchers (T-5)")
	}
	want := []string{"new:k", "set:k", "set:k"}
	if len(rec.events) != 3 || rec.events[0] != want[0] || rec.events[2] != want[2] {
		t.Fatalf("events %v, want %v", rec.events, want)
	}
}

func TestDeleteMissingDoesNotTouch(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	var c watch.Client
	watchKey(d, &c, "missing")
	if d.Delete([]byte("missing")) {
		t.Fatal("deleted a missing key")
	}
	if c.Dirty() || len(rec.modified) != 0 {
		t.Fatal("DEL of a missing key must not touch (T-8)")
	}
}

func TestLazyExpiryTouchesAndCounts(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLSet, 1_000_100, EvSet)
	var c watch.Client
	watchKey(d, &c, "k")
	ks.SetTime(1_000_101)
	if v, _ := d.GetString([]byte("k")); v != nil {
		t.Fatal("stale key still readable")
	}
	if !c.Dirty() {
		t.Fatal("lazy expiry must touch watchers (T-1.4)")
	}
	if ks.Stats.ExpiredKeys != 1 {
		t.Fatalf("expired_keys = %d", ks.Stats.ExpiredKeys)
	}
	// Redis notifies the expiry, then the miss of the read that found it.
	if n := len(rec.events); n < 2 || rec.events[n-2] != "expired:k" || rec.events[n-1] != "keymiss:k" {
		t.Fatalf("events %q, want them to end with expired:k keymiss:k", rec.events)
	}
}

func TestDeadlineIsStrict(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLSet, 1_000_100, EvSet)
	ks.SetTime(1_000_100)
	if !d.Exists([]byte("k")) {
		t.Fatal("a key is expired only when now > deadline (X-1)")
	}
}

func TestStaleAtWatch(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLSet, 1_000_100, EvSet)
	ks.SetTime(1_000_200)
	var c watch.Client
	watchKey(d, &c, "k")
	if !c.Records()[0].Expired() {
		t.Fatal("the stale bit must be set at WATCH (W-5)")
	}
	// Another client's read deletes it lazily: no logical change (T-4b).
	d.Exists([]byte("k"))
	if c.Dirty() {
		t.Fatal("lazy deletion of a key stale at WATCH must not dirty")
	}
	// Re-creating it does (T-4e).
	d.SetString([]byte("k"), []byte("new"), TTLClear, 0, EvSet)
	if !c.Dirty() {
		t.Fatal("re-creating the key must dirty")
	}
}

func TestExpireInPastDeletes(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet)
	var c watch.Client
	watchKey(d, &c, "k")
	if !d.Expire([]byte("k"), 5) {
		t.Fatal("EXPIRE on an existing key reports true")
	}
	if last := rec.events[len(rec.events)-1]; last != "del:k" {
		t.Fatalf("event %q, want del:k", last)
	}
	if d.Exists([]byte("k")) || !c.Dirty() {
		t.Fatal("EXPIRE in the past deletes and touches")
	}
}

// orderRecorder records modifications and events in one sequence.
type orderRecorder struct {
	recorder
	seq []string
}

func (r *orderRecorder) Modified(d *DB, key string) { r.seq = append(r.seq, "modified:"+key) }
func (r *orderRecorder) Notify(d *DB, ev Event, key string) {
	r.seq = append(r.seq, ev.Name+":"+key)
}
func (r *orderRecorder) Removing(d *DB, key string, why RemoveReason) {
	r.seq = append(r.seq, "removing:"+key)
}

// TestRemovalOrder: Redis notifies "expired" before signalModifiedKey and
// "evicted" after it; a RemovalObserver hears of the removal first.
func TestRemovalOrder(t *testing.T) {
	ks := NewKeyspace(1)
	rec := &orderRecorder{}
	ks.SetObserver(rec)
	ks.SetTime(1_000_000)
	d := ks.DB(0)
	d.SetString([]byte("x"), []byte("v"), TTLSet, 1_000_100, EvSet)
	d.SetString([]byte("v"), []byte("v"), TTLClear, 0, EvSet)
	rec.seq = nil
	ks.SetTime(1_000_200)
	d.Exists([]byte("x"))
	d.Evict("v", false)
	want := "removing:x expired:x modified:x keymiss:x removing:v modified:v evicted:v"
	if got := strings.Join(rec.seq, " "); got != want {
		t.Fatalf("sequence %q, want %q", got, want)
	}
}

func TestKeyMissEvent(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	for _, tc := range []struct {
		name string
		read func()
		want bool
	}{
		{"GET", func() { d.GetString([]byte("m")) }, true},
		{"EXISTS", func() { d.Exists([]byte("m")) }, true},
		{"TYPE", func() { d.TypeOf([]byte("m")) }, true},
		{"TTL", func() { d.Deadline([]byte("m")) }, true},
		{"OBJECT", func() { d.Object([]byte("m")) }, false},
		{"write lookup", func() { d.Delete([]byte("m")) }, false},
	} {
		rec.events = nil
		tc.read()
		got := len(rec.events) == 1 && rec.events[0] == "keymiss:m"
		if got != tc.want || (!tc.want && len(rec.events) != 0) {
			t.Errorf("%s of a missing key: events %q, want keymiss %v", tc.name, rec.events, tc.want)
		}
	}
}

func TestFlushTouchRules(t *testing.T) {
	ks, _ := newTestKS(t)
	d0, d1 := ks.DB(0), ks.DB(1)
	d1.SetString([]byte("x"), []byte("1"), TTLClear, 0, EvSet)
	d0.SetString([]byte("y"), []byte("1"), TTLClear, 0, EvSet)
	var a, b watch.Client
	watchKey(d0, &a, "x") // missing in db 0, exists in db 1 (E-4)
	watchKey(d0, &b, "y")
	ks.FlushAll()
	if a.Dirty() {
		t.Fatal("FLUSHALL must ignore a watched key missing from the watcher's db (E-4)")
	}
	if !b.Dirty() {
		t.Fatal("FLUSHALL must dirty the watcher of an existing key")
	}
	if b.Count() != 1 {
		t.Fatal("a whole-db touch leaves the records in place (W-10)")
	}
}

func TestSwapDBTouchRules(t *testing.T) {
	ks, _ := newTestKS(t)
	d0, d1 := ks.DB(0), ks.DB(1)
	d1.SetString([]byte("x"), []byte("1"), TTLClear, 0, EvSet)
	var a watch.Client
	watchKey(d0, &a, "x")
	ks.SwapDB(0, 0)
	if a.Dirty() {
		t.Fatal("SWAPDB i i is a no-op")
	}
	ks.SwapDB(0, 1)
	if !a.Dirty() {
		t.Fatal("SWAPDB dirties a watcher whose key is missing here but present in the partner (E-4)")
	}
	if !d0.Exists([]byte("x")) || d1.Exists([]byte("x")) {
		t.Fatal("data not swapped")
	}
	// A stale key in the partner sets the stale bit instead.
	var b watch.Client
	watchKey(d1, &b, "s")
	d0.SetString([]byte("s"), []byte("1"), TTLSet, 1_000_010, EvSet)
	ks.SetTime(1_000_020)
	ks.SwapDB(0, 1)
	if b.Dirty() || !b.Records()[0].Expired() {
		t.Fatalf("missing key replaced by a stale one: dirty=%v stale=%v", b.Dirty(), b.Records()[0].Expired())
	}
}

func TestRenameSignalsBoth(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("a"), []byte("v"), TTLSet, 2_000_000, EvSet)
	var wa, wb watch.Client
	watchKey(d, &wa, "a")
	watchKey(d, &wb, "b")
	rec.events = nil
	if ok, err := d.Rename([]byte("a"), []byte("b"), false); !ok || err != nil {
		t.Fatalf("rename: %v %v", ok, err)
	}
	if !wa.Dirty() || !wb.Dirty() {
		t.Fatal("RENAME touches source and destination")
	}
	if got := d.Deadline([]byte("b")); got != 2_000_000 {
		t.Fatalf("TTL not carried: %d", got)
	}
	want := []string{"new:b", "rename_from:a", "rename_to:b"}
	for i := range want {
		if i >= len(rec.events) || rec.events[i] != want[i] {
			t.Fatalf("events %v, want %v", rec.events, want)
		}
	}
}

func TestCopyTouchesOnlyDestination(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.SetString([]byte("src"), []byte("v"), TTLClear, 0, EvSet)
	var ws watch.Client
	watchKey(d, &ws, "src")
	if !d.Copy([]byte("src"), d, []byte("dst"), false) {
		t.Fatal("copy failed")
	}
	if ws.Dirty() {
		t.Fatal("COPY must not touch its source")
	}
	if d.Copy([]byte("src"), d, []byte("dst"), false) {
		t.Fatal("COPY without REPLACE onto an existing key must fail")
	}
}

func TestActiveExpireStep(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	for i := 0; i < 1000; i++ {
		k := []byte{'k', byte(i >> 8), byte(i)}
		d.SetString(k, []byte("v"), TTLSet, 1_000_050, EvSet)
	}
	var c watch.Client
	watchKey(d, &c, "k\x00\x07")
	ks.SetTime(1_000_100)
	total := 0
	for i := 0; i < 1000 && d.Size() > 0; i++ {
		res := d.ActiveExpireStep(ks.Now(), 20)
		total += res.Expired
		// Like Redis, a table under 1% full is skipped until the cron
		// shrinks it.
		ks.DatabasesCron(time.Millisecond)
	}
	if d.Size() != 0 || total != 1000 {
		t.Fatalf("size %d after expiring %d", d.Size(), total)
	}
	if !c.Dirty() {
		t.Fatal("active expiry must touch watchers (T-1.5)")
	}
}

func TestAppendAndSetRange(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	for i := 0; i < 100; i++ {
		if _, err := d.AppendString([]byte("s"), []byte("ab"), 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := d.GetString([]byte("s"))
	if len(v) != 200 {
		t.Fatalf("len %d", len(v))
	}
	n, err := d.SetRange([]byte("s"), 300, []byte("x"), 1<<20)
	if err != nil || n != 301 {
		t.Fatalf("setrange: %d %v", n, err)
	}
	var c watch.Client
	watchKey(d, &c, "s")
	d.SetRange([]byte("s"), 0, nil, 1<<20)
	if c.Dirty() {
		t.Fatal("an empty SETRANGE must not touch (T-5)")
	}
	if info, _ := d.Object([]byte("s")); info.Encoding != "raw" {
		t.Fatalf("encoding %q, want raw", info.Encoding)
	}
}

func TestMemoryAccountingReturnsToZero(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	for i := 0; i < 500; i++ {
		k := []byte{'k', byte(i >> 8), byte(i)}
		d.SetString(k, []byte("value"), TTLClear, 0, EvSet)
		if i%3 == 0 {
			d.Expire(k, 5_000_000)
		}
		if i%5 == 0 {
			d.AppendString(k, []byte("more bytes here"), 1<<20)
		}
		if i%7 == 0 {
			d.SetRange(k, 100, []byte("x"), 1<<20)
		}
	}
	if ks.UsedMemory() <= 500*64 {
		t.Fatalf("used %d is implausibly small", ks.UsedMemory())
	}
	d.Rename([]byte{'k', 0, 1}, []byte("renamed"), false)
	d.Copy([]byte{'k', 0, 2}, ks.DB(1), []byte("copied"), false)
	ks.DB(1).Flush()
	for i := 0; i < 500; i++ {
		d.Delete([]byte{'k', byte(i >> 8), byte(i)})
	}
	d.Delete([]byte("renamed"))
	if got := ks.UsedMemory(); got != 0 {
		t.Fatalf("used memory %d after deleting every key, want 0", got)
	}
}
