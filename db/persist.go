package db

// Read-only access for persistence (the AOF rewrite): walking a database
// and viewing one key with no side effect at all — no expiry, no keyspace
// statistics, no LRU/LFU update — as Redis's rewrite reads the dataset in a
// forked child.

// KeyView is one key as persistence sees it. Its slices and values alias
// the stored data: use them before the next write to the keyspace.
type KeyView struct {
	Key      string
	Type     Type
	Deadline int64 // unix ms; -1 without TTL (a past deadline is reported as is)
	// Str is the value of a string key.
	Str []byte
	// Obj is the value of any other type: the type's exported value
	// (*Hash, *Set, ...), to read through its exported read-only methods.
	Obj any
}

func (d *DB) view(e *entry) KeyView {
	v := KeyView{Key: e.key(), Type: e.typ(), Deadline: d.deadline(e)}
	if v.Type == TypeString {
		v.Str = e.str()
	} else {
		v.Obj = e.val
	}
	return v
}

// Walk calls fn for the keys of the main table from cursor on, one table
// position at a time, until at least count keys were passed or the walk
// ended, and returns the cursor to continue from (0 when the walk is
// complete). Start with 0. Every key present from the first call to the
// last is passed at least once, and exactly once if the table does not
// shrink in between, which Keyspace.HoldShrink prevents. fn must not
// modify the keyspace.
func (d *DB) Walk(cursor uint64, count int, fn func(KeyView)) uint64 {
	n := 0
	for {
		cursor = d.data.main.Scan(cursor, func(e *entry) {
			fn(d.view(e))
			n++
		})
		if cursor == 0 || n >= count {
			return cursor
		}
	}
}

// View returns key's value, including a key past its deadline that was not
// deleted yet; ok is false when the key is missing.
func (d *DB) View(key string) (v KeyView, ok bool) {
	e := d.data.main.Find(key)
	if e == nil {
		return KeyView{}, false
	}
	return d.view(e), true
}

// HoldShrink stops (hold true) or allows again (false) the shrinking of
// main tables by the periodic table maintenance, so that a Walk in
// progress passes each key once (Redis avoids resizing while a child
// process snapshots the dataset for the same reason). Holds nest.
func (ks *Keyspace) HoldShrink(hold bool) {
	if hold {
		ks.shrinkHeld++
	} else if ks.shrinkHeld > 0 {
		ks.shrinkHeld--
	}
}
