package watch

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAgainstModel runs random WATCH, touch, UNWATCH and EXEC-style
// unwatching on a few clients, dbs and keys, and after every step compares
// the bookkeeping with a plain model (per client: dirty flag and a map of
// (db, key) -> stale bit) and checks the cross references: every watcher a
// key lists names a record of that key whose position is where it is
// listed, and the gauges count what is there.
func TestAgainstModel(t *testing.T) {
	t.Run("few keys", func(t *testing.T) { testAgainstModel(t, 12, 6, 200000, 1) })
	// Enough keys to grow, shrink and compact the table.
	t.Run("many keys", func(t *testing.T) { testAgainstModel(t, 8, 3000, 100000, 500) })
}

func testAgainstModel(t *testing.T, nclients, nkeys, steps, checkEvery int) {
	type mkey struct {
		db  int
		key string
	}
	type mclient struct {
		dirty bool
		recs  map[mkey]bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ctx Context
	dbs := make([]Keys, 3)
	for i := range dbs {
		dbs[i].SetContext(&ctx)
	}
	cs := make([]Client, nclients)
	model := make([]mclient, len(cs))
	for i := range model {
		model[i].recs = map[mkey]bool{}
	}
	keyName := func() string { return "k" + strconv.Itoa(rng.IntN(nkeys)) }
	for step := 0; step < steps; step++ {
		ci := rng.IntN(len(cs))
		db := rng.IntN(len(dbs))
		switch op := rng.IntN(10); {
		case op < 5:
			key, stale := keyName(), rng.IntN(4) == 0
			cs[ci].Watch(&dbs[db], db, key, stale)
			m := &model[ci]
			if _, ok := m.recs[mkey{db, key}]; !ok && !m.dirty {
				m.recs[mkey{db, key}] = stale
			}
		case op < 8:
			key, present := keyName(), rng.IntN(2) == 0
			dbs[db].Touch(key, present)
			for i := range model {
				m := &model[i]
				stale, ok := m.recs[mkey{db, key}]
				if !ok {
					continue
				}
				if stale && !present {
					m.recs[mkey{db, key}] = false
					continue
				}
				m.dirty = true
				clear(m.recs)
			}
		case op < 9:
			cs[ci].Reset()
			model[ci].dirty = false
			clear(model[ci].recs)
		default:
			cs[ci].UnwatchAll()
			clear(model[ci].recs)
		}
		if step%checkEvery != 0 && step != steps-1 {
			continue
		}
		// Compare.
		var records int64
		for i := range cs {
			c, m := &cs[i], &model[i]
			if c.Dirty() != m.dirty || c.Count() != len(m.recs) {
				t.Fatalf("step %d client %d: dirty %v records %d, model %v %d", step, i, c.Dirty(), c.Count(), m.dirty, len(m.recs))
			}
			for j := range c.recs {
				r := &c.recs[j]
				stale, ok := m.recs[mkey{r.DB(), r.Key()}]
				if !ok || stale != r.Expired() {
					t.Fatalf("step %d client %d: record %d/%s stale=%v, model has %v %v", step, i, r.DB(), r.Key(), r.Expired(), ok, stale)
				}
				if r.Client() != c {
					t.Fatalf("step %d client %d: record %s names another client", step, i, r.Key())
				}
			}
			records += int64(c.Count())
		}
		var keys int64
		for d := range dbs {
			k := &dbs[d]
			for i := range k.t.top {
				e := k.t.entry(i)
				if e.key == "" {
					continue
				}
				key := e.key
				if j, ok := k.t.find(key); !ok || j != i {
					t.Fatalf("step %d db %d key %s: entry %d not found by its key", step, d, key, i)
				}
				n := e.n(k)
				want := 0
				for i := range model {
					if _, ok := model[i].recs[mkey{d, key}]; ok {
						want++
					}
				}
				if n != want || k.Watchers(key) != want {
					t.Fatalf("step %d db %d key %s: %d watchers, model %d", step, d, key, n, want)
				}
				for p := 0; p < n; p++ {
					r := e.at(k, p).rec()
					if r.Key() != key || int(r.kidx) != p || r.keys != k {
						t.Fatalf("step %d db %d key %s position %d: record %s at %d", step, d, key, p, r.Key(), r.kidx)
					}
				}
			}
			keys += int64(k.Len())
			inUse := 0
			k.t.each(func(i uint32) {
				if k.t.entry(i).more != 0 {
					inUse++
				}
			})
			if inUse+len(k.free) != len(k.more) {
				t.Fatalf("step %d db %d: %d lists in use + %d free != %d", step, d, inUse, len(k.free), len(k.more))
			}
		}
		if ctx.Stats.Records != records || ctx.Stats.Keys != keys {
			t.Fatalf("step %d: stats %+v, counted %d records %d keys", step, ctx.Stats, records, keys)
		}
	}
	for i := range cs {
		cs[i].Reset()
	}
	if ctx.Stats.Records != 0 || ctx.Stats.Keys != 0 || ctx.Stats.Bytes != 0 {
		t.Fatalf("stats after everything is unwatched: %+v", ctx.Stats)
	}
}
