package watch

// Record is one (client, db, key) watch entry. Records are kept by value in
// their client's list (Client.recs); a db's watched_keys refers to them by
// (client, index), so a record costs no allocation of its own.
type Record struct {
	keys *Keys
	// eidx is the index of the key's entry in keys.t: the key is kept once
	// per watched (db, key), however many clients watch it.
	eidx uint32
	kidx int32  // position in the key's watcher list (see entry)
	hash uint32 // the key's hash in keys.t (unwatching need not read the key)
	// expired is set when the key was present but already past its deadline
	// at WATCH time (spec W-5).
	expired bool
}

// Key returns the watched key.
func (r *Record) Key() string { return r.keys.t.entry(r.eidx).key }

// DB returns the index of the database the record belongs to.
func (r *Record) DB() int { return r.keys.db }

// Expired reports whether the key was stale when watched and has not been
// deleted since.
func (r *Record) Expired() bool { return r.expired }

// SetExpired sets or clears the stale bit (used by whole-db touches, T-2).
func (r *Record) SetExpired(v bool) { r.expired = v }

// Client returns the owner of the record.
func (r *Record) Client() *Client { return r.keys.t.entry(r.eidx).at(r.keys, int(r.kidx)).c }

// watcher names a record: its client and its index in the client's list.
type watcher struct {
	c    *Client
	ridx int32
}

// rec returns the record w names.
func (w watcher) rec() *Record { return &w.c.recs[w.ridx] }

// entry is a watched key in Keys.t: the key, the first watcher inline (most
// watched keys have one) and, for a key with more, 1 + the index in
// Keys.more of the list of the others. A watcher's position in the key's
// list is 0 for first and i for more[...][i-1].
type entry struct {
	key string
	// the first watcher, flattened (a watcher field would be padded, making
	// the entry 40 bytes instead of 32)
	fc    *Client
	fridx int32
	more  int32
}

func (e *entry) first() watcher { return watcher{e.fc, e.fridx} }

func (e *entry) setFirst(w watcher) { e.fc, e.fridx = w.c, w.ridx }

func (e *entry) n(k *Keys) int {
	if e.more == 0 {
		return 1
	}
	return 1 + len(k.more[e.more-1])
}

func (e *entry) at(k *Keys, i int) watcher {
	if i == 0 {
		return e.first()
	}
	return k.more[e.more-1][i-1]
}

// Keys is one logical database's watched_keys: key -> the records watching
// it, in no particular order. The zero value is ready to use.
type Keys struct {
	t    table
	more [][]watcher // the other watchers of keys with more than one
	free []int32     // unused indices of more
	db   int         // the database's index, set by Watch
	ctx  *Context    // shared touch context; nil: touches are not explained
}

// SetContext attaches the keyspace's touch context (see Context).
func (k *Keys) SetContext(t *Context) { k.ctx = t }

// Context returns the attached touch context, or nil.
func (k *Keys) Context() *Context { return k.ctx }

// Watchers returns how many clients watch key in this db.
func (k *Keys) Watchers(key string) int {
	i, ok := k.t.find(key)
	if !ok {
		return 0
	}
	return k.t.entry(i).n(k)
}

// Len reports how many distinct keys are watched in this db.
func (k *Keys) Len() int { return k.t.n }

// Watched reports whether anybody watches key.
func (k *Keys) Watched(key string) bool {
	_, ok := k.t.find(key)
	return ok
}

// Records is the list of records watching one key, as Each hands it out.
type Records struct {
	k *Keys
	e *entry
}

// Len is the number of records.
func (rs Records) Len() int { return rs.e.n(rs.k) }

// At returns record i, 0 <= i < Len. The pointer is valid until the next
// Watch or UnwatchAll of its client.
func (rs Records) At(i int) *Record { return rs.e.at(rs.k, i).rec() }

// Each calls fn for every watched key with its records. fn must not watch or
// unwatch; it may set stale bits and mark clients dirty.
func (k *Keys) Each(fn func(key string, recs Records)) {
	k.t.each(func(i uint32) {
		e := k.t.entry(i)
		fn(e.key, Records{k, e})
	})
}

// Touch is called after key was modified; present says whether the key
// exists in the keyspace now. See the package documentation for the rules.
// It is one pass over the key's watchers: each dirtied watcher drops its
// records in other keys, and the key's own list is rebuilt at the end from
// the records that stay (stale ones of a deleted key), with no allocation.
func (k *Keys) Touch(key string, present bool) {
	if k.t.n == 0 {
		return
	}
	eidx, ok := k.t.find(key)
	if !ok {
		return
	}
	e := k.t.entry(eidx)
	k.t.hold = true // e must not move while other keys' records go
	var rest []watcher
	if e.more != 0 {
		rest = k.more[e.more-1]
	}
	kept := 0        // records that stay, moved to positions 0..kept-1
	var tmpl *Client // the first client this touch explained
	n := 1 + len(rest)
	for i := 0; i < n; i++ {
		w := e.first()
		if i > 0 {
			w = rest[i-1]
		}
		r := w.rec()
		if r.expired && !present {
			// The stale key was deleted: logically no change (T-0).
			r.expired = false
			r.kidx = int32(kept)
			if kept == 0 {
				e.setFirst(w)
			} else {
				rest[kept-1] = w
			}
			kept++
			continue
		}
		c := w.c
		if !c.dirty {
			if tmpl == nil {
				c.explain(k.ctx, k.db, key, CauseNone)
				tmpl = c
			} else {
				c.explainLike(tmpl, k.ctx)
			}
		}
		c.dirty = true
		c.unwatchAllBut(w.ridx) // r itself leaves with the key's list
		k.ctx.removed()
	}
	switch {
	case kept == 0:
		if e.more != 0 {
			k.freeMore(e.more)
		}
		k.ctx.removedKey(key)
		k.t.delete(eidx, k.t.hash(key))
	case kept == 1 && e.more != 0:
		k.freeMore(e.more)
		e.more = 0
	case kept < n:
		k.more[e.more-1] = rest[:kept-1]
		clear(rest[kept-1:])
	}
	k.t.hold = false
	k.t.maybeShrink()
}

// relink points the records of entry i's watchers at it (the table moved
// it there).
func (k *Keys) relink(i uint32) {
	e := k.t.entry(i)
	for p := range e.n(k) {
		e.at(k, p).rec().eidx = i
	}
}

// add appends c's record ridx to key's list. It returns the key's entry
// index and the record's position in the list.
func (k *Keys) add(c *Client, ridx int32, key string, eidx, h uint32, found bool) (uint32, int32) {
	w := watcher{c, ridx}
	if !found {
		k.t.owner = k
		eidx = k.t.insert(key, h)
		k.t.entry(eidx).setFirst(w)
		k.ctx.added(key, true)
		return eidx, 0
	}
	e := k.t.entry(eidx)
	if e.more == 0 {
		if n := len(k.free); n > 0 {
			e.more = k.free[n-1]
			k.free = k.free[:n-1]
		} else {
			k.more = append(k.more, nil)
			e.more = int32(len(k.more))
		}
	}
	rest := append(k.more[e.more-1], w)
	k.more[e.more-1] = rest
	k.ctx.added(key, false)
	return eidx, int32(len(rest))
}

// freeMore releases index more-1 of k.more.
func (k *Keys) freeMore(more int32) {
	if cap(k.more[more-1]) > 4096 {
		k.more[more-1] = nil // a very big list is not kept for another key
	} else {
		k.more[more-1] = k.more[more-1][:0]
	}
	k.free = append(k.free, more)
}

// remove takes record r out of its key's list: the last watcher moves into
// its position.
func (k *Keys) remove(r *Record) {
	e := k.t.entry(r.eidx)
	if e.more == 0 {
		k.ctx.removed()
		k.ctx.removedKey(e.key)
		k.t.delete(r.eidx, r.hash)
		return
	}
	rest := k.more[e.more-1]
	last := rest[len(rest)-1]
	if int(r.kidx) < len(rest) {
		last.rec().kidx = r.kidx
		if r.kidx == 0 {
			e.setFirst(last)
		} else {
			rest[r.kidx-1] = last
		}
	}
	rest[len(rest)-1] = watcher{}
	rest = rest[:len(rest)-1]
	k.ctx.removed()
	if len(rest) == 0 {
		k.freeMore(e.more)
		e.more = 0
	} else {
		k.more[e.more-1] = rest
	}
}

// Client is a client's watch state: its records and the dirty (CAS) flag.
// The zero value is a client watching nothing.
type Client struct {
	recs      []Record
	dirty     bool
	whySet    bool
	watchedAt int64 // unix ms of the first WATCH since the records were last dropped
	why       Why   // the first touch of the last dirtying (why.go)
}

// Dirty reports CLIENT_DIRTY_CAS: a watched key was touched, so EXEC must
// abort.
func (c *Client) Dirty() bool { return c.dirty }

// MarkDirty sets the dirty flag without dropping any record (whole-db
// touches, T-2, and the EXEC-time deadline check, T-3).
func (c *Client) MarkDirty() { c.dirty = true }

// Count reports how many records the client holds.
func (c *Client) Count() int { return len(c.recs) }

// Records returns the client's records. The slice must not be modified
// (its records' stale bits aside) and is invalidated by Watch and
// UnwatchAll.
func (c *Client) Records() []Record { return c.recs }

// Watch records that the client watches key in the database with index db
// whose watched_keys is k (every call for one k passes the same db). expired
// is the stale bit (W-5). A dirty client records nothing (W-6); a key
// already watched in that db adds nothing (W-4). The duplicate check scans
// the shorter of the client's records and the key's watchers.
func (c *Client) Watch(k *Keys, db int, key string, expired bool) {
	if c.dirty {
		return
	}
	k.db = db
	eidx, h, found := k.t.findHashed(key, k.t.hash(key))
	if found {
		if n := k.t.entry(eidx).n(k); n < len(c.recs) {
			e := k.t.entry(eidx)
			for i := 0; i < n; i++ {
				if e.at(k, i).c == c {
					return
				}
			}
		} else if c.watches(k, eidx) {
			return
		}
	}
	if len(c.recs) == 0 {
		c.watchedAt = k.ctx.nowMs()
	}
	ridx := int32(len(c.recs))
	eidx, kidx := k.add(c, ridx, key, eidx, h, found)
	c.recs = append(c.recs, Record{keys: k, eidx: eidx, kidx: kidx, hash: h, expired: expired})
}

func (c *Client) watches(k *Keys, eidx uint32) bool {
	for i := range c.recs {
		if r := &c.recs[i]; r.keys == k && r.eidx == eidx {
			return true
		}
	}
	return false
}

// UnwatchAll drops every record of the client. It does not clear the dirty
// flag: that is Reset's job (UNWATCH, EXEC, DISCARD, RESET). O(records).
func (c *Client) UnwatchAll() { c.unwatchAllBut(-1) }

// unwatchAllBut drops every record of the client, taking each out of its
// key's list except record skip (-1: none), whose list its caller
// (Touch) rebuilds.
func (c *Client) unwatchAllBut(skip int32) {
	for i := range c.recs {
		r := &c.recs[i]
		if int32(i) != skip {
			r.keys.remove(r)
		}
	}
	clear(c.recs)
	if cap(c.recs) > 64 {
		c.recs = nil // a client that watched many keys does not keep the room
	} else {
		c.recs = c.recs[:0]
	}
}

// Reset drops every record and clears the dirty flag: what UNWATCH does, and
// what the end of a transaction does.
func (c *Client) Reset() {
	c.UnwatchAll()
	c.dirty = false
}
