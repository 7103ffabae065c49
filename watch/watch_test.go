package watch

import "testing"

func TestWatchDuplicateAndPerDB(t *testing.T) {
	var db0, db1 Keys
	var c Client
	c.Watch(&db0, 0, "k", false)
	c.Watch(&db0, 0, "k", false)
	c.Watch(&db1, 1, "k", false)
	if c.Count() != 2 {
		t.Fatalf("records = %d, want 2 (same key in two dbs is two records)", c.Count())
	}
	db1.Touch("k", true)
	if !c.Dirty() {
		t.Fatal("touch in db 1 must dirty the watcher of k in db 1")
	}
	if c.Count() != 0 || db0.Len() != 0 || db1.Len() != 0 {
		t.Fatalf("a touch that dirties must drop all records: client %d, db0 %d, db1 %d", c.Count(), db0.Len(), db1.Len())
	}
}

func TestTouchOtherKeyOrDBDoesNothing(t *testing.T) {
	var db0, db1 Keys
	var c Client
	c.Watch(&db0, 0, "k", false)
	db0.Touch("other", true)
	db1.Touch("k", true)
	if c.Dirty() || c.Count() != 1 {
		t.Fatalf("dirty=%v records=%d after unrelated touches", c.Dirty(), c.Count())
	}
}

func TestDirtyClientRecordsNothing(t *testing.T) {
	var db Keys
	var c Client
	c.MarkDirty()
	c.Watch(&db, 0, "k", false)
	if c.Count() != 0 || db.Len() != 0 {
		t.Fatal("WATCH while dirty must not record (W-6)")
	}
	c.Reset()
	if c.Dirty() {
		t.Fatal("Reset must clear the dirty flag")
	}
}

func TestStaleRecord(t *testing.T) {
	var db Keys
	var a, b Client
	a.Watch(&db, 0, "k", true)
	b.Watch(&db, 0, "k", false)
	// The stale key is deleted (lazy expiry): a's bit clears, b is dirtied.
	db.Touch("k", false)
	if a.Dirty() {
		t.Fatal("deleting a key that was stale at WATCH must not dirty (T-0)")
	}
	if a.Records()[0].Expired() {
		t.Fatal("the stale bit must be cleared once the key is gone")
	}
	if !b.Dirty() {
		t.Fatal("a live watcher is dirtied by the deletion")
	}
	// Re-creating the key now dirties a.
	db.Touch("k", true)
	if !a.Dirty() {
		t.Fatal("re-creating the key must dirty (T-4e)")
	}
}

func TestStaleRecordWithPresentKeyDirtiesEveryWatcher(t *testing.T) {
	// Redis 7.0 stops the walk at a stale record whose key exists (T-6); we
	// visit every record and dirty them all.
	var db Keys
	var a, b, c Client
	a.Watch(&db, 0, "k", false)
	b.Watch(&db, 0, "k", true)
	c.Watch(&db, 0, "k", false)
	db.Touch("k", true)
	for name, cl := range map[string]*Client{"a": &a, "b": &b, "c": &c} {
		if !cl.Dirty() {
			t.Errorf("client %s not dirtied", name)
		}
	}
	if db.Len() != 0 {
		t.Fatalf("watched keys left: %d", db.Len())
	}
}

func TestUnwatchAllKeepsOthers(t *testing.T) {
	var db Keys
	var a, b Client
	for _, k := range []string{"x", "y", "z"} {
		a.Watch(&db, 0, k, false)
		b.Watch(&db, 0, k, false)
	}
	a.Reset()
	if db.Len() != 3 {
		t.Fatalf("keys = %d, want 3 still watched by b", db.Len())
	}
	db.Touch("y", true)
	if !b.Dirty() || a.Dirty() {
		t.Fatalf("a dirty=%v b dirty=%v", a.Dirty(), b.Dirty())
	}
	if db.Len() != 0 {
		t.Fatalf("keys = %d, want 0", db.Len())
	}
}

func TestManyWatchersOneTouch(t *testing.T) {
	var db Keys
	cs := make([]Client, 100)
	for i := range cs {
		cs[i].Watch(&db, 0, "hot", false)
		cs[i].Watch(&db, 0, "cold", false)
	}
	db.Touch("hot", true)
	for i := range cs {
		if !cs[i].Dirty() || cs[i].Count() != 0 {
			t.Fatalf("client %d: dirty=%v records=%d", i, cs[i].Dirty(), cs[i].Count())
		}
	}
	if db.Len() != 0 {
		t.Fatalf("keys left %d", db.Len())
	}
}

func BenchmarkWatchTouch(b *testing.B) {
	var db Keys
	var c Client
	for i := 0; i < b.N; i++ {
		c.Watch(&db, 0, "k", false)
		db.Touch("k", true)
		c.Reset()
	}
}
