package db

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

func listOf(t *testing.T, d *DB, key string) []string {
	t.Helper()
	l, err := d.LookupList([]byte(key))
	if err == protocol.ErrWrongType {
		return []string{"(not a list)"}
	}
	if err != nil {
		t.Fatal(err)
	}
	if l == nil {
		return nil
	}
	return listElems(l)
}

// TestListWritesTouchAsRedis checks, for each list write, whether it
// touches a watcher of k, which events it raises and what it leaves behind
// (spec T-5 rows for lists, and Redis's notify order).
func TestListWritesTouchAsRedis(t *testing.T) {
	type op func(d *DB) error
	push := func(key string, left bool, vals ...string) op {
		return func(d *DB) error { _, err := d.ListPush([]byte(key), bs(vals...), left, false); return err }
	}
	cases := []struct {
		name    string
		setup   []op
		do      op
		touched bool
		events  []string
		after   []string // k's elements afterwards; nil: missing
		err     error
	}{
		{"lpush creates", nil, push("k", true, "a", "b"), true, []string{"new:k", "lpush:k"}, []string{"b", "a"}, nil},
		{"rpush appends", []op{push("k", false, "a")}, push("k", false, "b", "c"), true, []string{"rpush:k"}, []string{"a", "b", "c"}, nil},
		{"lpushx missing", nil, func(d *DB) error {
			n, err := d.ListPush([]byte("k"), bs("a"), true, true)
			if n != 0 {
				return errors.New("LPUSHX on a missing key must reply 0")
			}
			return err
		}, false, nil, nil, nil},
		{"lpush wrong type", []op{func(d *DB) error { d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet); return nil }},
			push("k", true, "a"), false, nil, []string{"(not a list)"}, protocol.ErrWrongType},
		{"lpop last deletes", []op{push("k", false, "a")}, func(d *DB) error {
			v, err := d.ListPop([]byte("k"), true, 1, nil)
			if !slices.Equal(v, []string{"a"}) {
				return errors.New("wrong element")
			}
			return err
		}, true, []string{"lpop:k", "del:k"}, nil, nil},
		{"rpop count", []op{push("k", false, "a", "b", "c")}, func(d *DB) error {
			v, err := d.ListPop([]byte("k"), false, 2, nil)
			if !slices.Equal(v, []string{"c", "b"}) {
				return errors.New("wrong elements")
			}
			return err
		}, true, []string{"rpop:k"}, []string{"a"}, nil},
		{"lpop missing", nil, func(d *DB) error {
			v, err := d.ListPop([]byte("k"), true, 1, nil)
			if v != nil {
				return errors.New("popped from a missing key")
			}
			return err
		}, false, nil, nil, nil},
		{"lrem nothing", []op{push("k", false, "a")}, func(d *DB) error {
			_, err := d.ListRemove([]byte("k"), 0, []byte("b"))
			return err
		}, false, nil, []string{"a"}, nil},
		{"lrem empties", []op{push("k", false, "a", "a")}, func(d *DB) error {
			_, err := d.ListRemove([]byte("k"), 0, []byte("a"))
			return err
		}, true, []string{"lrem:k", "del:k"}, nil, nil},
		{"linsert no pivot", []op{push("k", false, "a")}, func(d *DB) error {
			n, err := d.ListInsert([]byte("k"), true, []byte("zz"), []byte("x"))
			if n != -1 {
				return errors.New("want -1")
			}
			return err
		}, false, nil, []string{"a"}, nil},
		{"linsert after", []op{push("k", false, "a", "b")}, func(d *DB) error {
			_, err := d.ListInsert([]byte("k"), false, []byte("a"), []byte("x"))
			return err
		}, true, []string{"linsert:k"}, []string{"a", "x", "b"}, nil},
		{"ltrim keeps all", []op{push("k", false, "a")}, func(d *DB) error {
			return d.ListTrim([]byte("k"), 0, -1)
		}, true, []string{"ltrim:k"}, []string{"a"}, nil},
		{"ltrim empties", []op{push("k", false, "a", "b")}, func(d *DB) error {
			return d.ListTrim([]byte("k"), 5, 10)
		}, true, []string{"ltrim:k", "del:k"}, nil, nil},
		{"ltrim missing", nil, func(d *DB) error { return d.ListTrim([]byte("k"), 0, 1) }, false, nil, nil, nil},
		{"lset same value", []op{push("k", false, "a")}, func(d *DB) error {
			return d.ListSet([]byte("k"), 0, []byte("a"))
		}, true, []string{"lset:k"}, []string{"a"}, nil},
		{"lset out of range", []op{push("k", false, "a")}, func(d *DB) error {
			return d.ListSet([]byte("k"), 1, []byte("a"))
		}, false, nil, []string{"a"}, protocol.ErrOutOfRange},
		{"lset missing", nil, func(d *DB) error {
			return d.ListSet([]byte("k"), 0, []byte("a"))
		}, false, nil, nil, protocol.ErrNoSuchKey},
		{"rpoplpush onto itself", []op{push("k", false, "a")}, func(d *DB) error {
			_, _, err := d.ListMove([]byte("k"), []byte("k"), false, true)
			return err
		}, true, []string{"lpush:k", "rpop:k"}, []string{"a"}, nil},
		{"lmove to new key", []op{push("k", false, "a", "b")}, func(d *DB) error {
			v, ok, err := d.ListMove([]byte("k"), []byte("d"), true, false)
			if v != "a" || !ok {
				return errors.New("wrong move")
			}
			return err
		}, true, []string{"new:d", "rpush:d", "lpop:k"}, []string{"b"}, nil},
		{"lmove into wrong type", []op{push("k", false, "a"), func(d *DB) error {
			d.SetString([]byte("d"), []byte("v"), TTLClear, 0, EvSet)
			return nil
		}}, func(d *DB) error {
			_, _, err := d.ListMove([]byte("k"), []byte("d"), true, false)
			return err
		}, false, nil, []string{"a"}, protocol.ErrWrongType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ks, rec := newTestKS(t)
			d := ks.DB(0)
			for _, s := range tc.setup {
				if err := s(d); err != nil {
					t.Fatal(err)
				}
			}
			var w watch.Client
			watchKey(d, &w, "k")
			rec.events = nil
			err := tc.do(d)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if w.Dirty() != tc.touched {
				t.Errorf("watcher dirty = %v, want %v", w.Dirty(), tc.touched)
			}
			if !slices.Equal(rec.events, tc.events) {
				t.Errorf("events %v, want %v", rec.events, tc.events)
			}
			if got := listOf(t, d, "k"); !slices.Equal(got, tc.after) {
				t.Errorf("k = %v, want %v", got, tc.after)
			}
		})
	}
}

// TestListDirtyCountsAsRedis checks rdb_changes_since_last_save's counter:
// Redis counts pushed, popped, removed and trimmed elements.
func TestListDirtyCountsAsRedis(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	step := func(name string, want int64, fn func()) {
		t.Helper()
		before := ks.Stats.Dirty
		fn()
		if got := ks.Stats.Dirty - before; got != want {
			t.Errorf("%s: dirty +%d, want +%d", name, got, want)
		}
	}
	step("rpush 3", 3, func() { d.ListPush([]byte("k"), bs("a", "b", "a"), false, false) })
	step("lrem 2", 2, func() { d.ListRemove([]byte("k"), 0, []byte("a")) })
	step("rpush 4", 4, func() { d.ListPush([]byte("k"), bs("c", "d", "e", "f"), false, false) })
	step("ltrim 2", 2, func() { d.ListTrim([]byte("k"), 1, -2) })
	step("ltrim 0", 0, func() { d.ListTrim([]byte("k"), 0, -1) })
	step("lpop 2", 2, func() { d.ListPop([]byte("k"), true, 2, nil) })
	step("lmove", 1, func() { d.ListMove([]byte("k"), []byte("k2"), true, true) })
	step("served blpop", 0, func() { d.ServeListPop("k2", true) })
}

// TestServeOperations covers the lookups and pops used to serve blocked
// clients.
func TestServeOperations(t *testing.T) {
	ks, rec := newTestKS(t)
	d := ks.DB(0)
	d.ListPush([]byte("q"), bs("a", "b", "c"), false, false)
	if d.ReadyType("q") != TypeList || d.StoredType("nosuch") != TypeNone {
		t.Fatal("ReadyType/StoredType")
	}
	var w watch.Client
	watchKey(d, &w, "q")
	rec.events = nil
	if v, deleted, ok := d.ServeListPop("q", false); v != "c" || deleted || !ok {
		t.Fatalf("ServeListPop = %q %v %v", v, deleted, ok)
	}
	if !w.Dirty() {
		t.Error("a served pop must touch the source's watchers")
	}
	vals, deleted, ok := d.ServeListPopCount("q", true, 5, nil)
	if !slices.Equal(vals, []string{"a", "b"}) || !deleted || !ok {
		t.Fatalf("ServeListPopCount = %v %v %v", vals, deleted, ok)
	}
	want := []string{"rpop:q", "lpop:q", "del:q"}
	if !slices.Equal(rec.events, want) {
		t.Errorf("events %v, want %v", rec.events, want)
	}
	if _, _, ok := d.ServeListPop("q", true); ok {
		t.Error("served a pop from a missing key")
	}

	d.ListPush([]byte("src"), bs("x"), false, false)
	d.SetString([]byte("str"), []byte("v"), TTLClear, 0, EvSet)
	if _, _, err := d.ServeListMove("src", []byte("str"), true, true); err != protocol.ErrWrongType {
		t.Fatalf("move into a string: %v", err)
	}
	var wd watch.Client
	watchKey(d, &wd, "dst")
	v, deleted, err := d.ServeListMove("src", []byte("dst"), true, true)
	if v != "x" || !deleted || err != nil {
		t.Fatalf("ServeListMove = %q %v %v", v, deleted, err)
	}
	if !wd.Dirty() {
		t.Error("serving BLMOVE must touch the destination's watchers")
	}
	if got := listOf(t, d, "dst"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("dst = %v", got)
	}
}

// TestReadyHookOnCreation checks that creating a list tells the observer,
// and that pushing onto an existing list does not.
func TestReadyHookOnCreation(t *testing.T) {
	ks := NewKeyspace(1)
	var ready []string
	ks.SetObserver(readyRecorder{&ready})
	d := ks.DB(0)
	d.ListPush([]byte("k"), bs("a"), true, false)
	d.ListPush([]byte("k"), bs("b"), true, false)
	d.ListMove([]byte("k"), []byte("k2"), true, true)
	if want := []string{"k:list", "k2:list"}; !slices.Equal(ready, want) {
		t.Fatalf("ready %v, want %v", ready, want)
	}
}

type readyRecorder struct{ ready *[]string }

func (r readyRecorder) Modified(d *DB, key string)         {}
func (r readyRecorder) Notify(d *DB, ev Event, key string) {}
func (r readyRecorder) Ready(d *DB, key string, t Type) {
	*r.ready = append(*r.ready, key+":"+t.String())
}
func (r readyRecorder) Flushed(db int)   {}
func (r readyRecorder) Swapped(a, b int) {}

// TestListMemoryAccounting runs random list writes, served pops included,
// and checks that the keyspace's running total equals the sum of every
// key's estimate, and returns to 0 when the lists are gone.
func TestListMemoryAccounting(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	r := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "b", "c", "d"}
	for i := 0; i < 4000; i++ {
		k := []byte(keys[r.IntN(len(keys))])
		k2 := []byte(keys[r.IntN(len(keys))])
		v := []byte(strings.Repeat("x", r.IntN(40)))
		switch r.IntN(9) {
		case 0, 1:
			d.ListPush(k, [][]byte{v, v}, r.IntN(2) == 0, false)
		case 2:
			d.ListPop(k, r.IntN(2) == 0, 1+r.IntN(3), nil)
		case 3:
			d.ListMove(k, k2, true, false)
		case 4:
			d.ListSet(k, int64(r.IntN(4)), v)
		case 5:
			d.ListInsert(k, true, v, []byte("ins"))
		case 6:
			d.ListRemove(k, int64(r.IntN(3)-1), v)
		case 7:
			d.ListTrim(k, int64(r.IntN(3)), int64(-1-r.IntN(3)))
		case 8:
			if d.ReadyType(string(k)) == TypeList {
				d.ServeListMove(string(k), k2, false, true)
			}
		}
		var sum int64
		d.Keys([]byte("*"), func(key string) {
			n, _ := d.KeyMemory([]byte(key))
			sum += n
		})
		if sum != d.UsedMemory() {
			t.Fatalf("op %d: running total %d, sum of keys %d", i, d.UsedMemory(), sum)
		}
	}
	for _, k := range keys {
		d.Delete([]byte(k))
	}
	if got := d.UsedMemory(); got != 0 {
		t.Fatalf("used memory %d after deleting every list, want 0", got)
	}
}
