package watch

// Record is one (client, db, key) watch entry.
type Record struct {
	client *Client
	keys   *Keys
	key    string
	db     int
	// expired is set when the key was present but already past its deadline
	// at WATCH time (spec W-5).
	expired bool
	kidx    int // index in keys.m[key]
}

// Key returns the watched key.
func (r *Record) Key() string { return r.key }

// DB returns the index of the database the record belongs to.
func (r *Record) DB() int { return r.db }

// Expired reports whether the key was stale when watched and has not been
// deleted since.
func (r *Record) Expired() bool { return r.expired }

// SetExpired sets or clears the stale bit (used by whole-db touches, T-2).
func (r *Record) SetExpired(v bool) { r.expired = v }

// Client returns the owner of the record.
func (r *Record) Client() *Client { return r.client }

// Keys is one logical database's watched_keys: key -> records, in no
// particular order. The zero value is ready to use.
type Keys struct {
	m   map[string][]*Record
	ctx *Context // shared touch context; nil: touches are not explained
}

// SetContext attaches the keyspace's touch context (see Context).
func (k *Keys) SetContext(t *Context) { k.ctx = t }

// Context returns the attached touch context, or nil.
func (k *Keys) Context() *Context { return k.ctx }

// Watchers returns how many clients watch key in this db.
func (k *Keys) Watchers(key string) int { return len(k.m[key]) }

// Len reports how many distinct keys are watched in this db.
func (k *Keys) Len() int { return len(k.m) }

// Watched reports whether anybody watches key.
func (k *Keys) Watched(key string) bool {
	_, ok := k.m[key]
	return ok
}

// Each calls fn for every watched key with its records. fn must not watch or
// unwatch; it may set stale bits and mark clients dirty.
func (k *Keys) Each(fn func(key string, recs []*Record)) {
	for key, recs := range k.m {
		fn(key, recs)
	}
}

// Touch is called after key was modified; present says whether the key
// exists in the keyspace now. See the package documentation for the rules.
func (k *Keys) Touch(key string, present bool) {
	if len(k.m) == 0 {
		return
	}
	recs := k.m[key]
	for i := 0; i < len(recs); {
		r := recs[i]
		if r.expired && !present {
			// The stale key was deleted: logically no change (T-0).
			r.expired = false
			i++
			continue
		}
		if !r.client.dirty {
			r.client.explain(k.ctx, r.db, key, CauseNone)
		}
		r.client.dirty = true
		r.client.UnwatchAll() // removes r, swapping another record into i
		recs = k.m[key]
	}
}

func (k *Keys) add(r *Record) {
	if k.m == nil {
		k.m = make(map[string][]*Record)
	}
	recs := k.m[r.key]
	r.kidx = len(recs)
	k.m[r.key] = append(recs, r)
	k.ctx.added(r.key, len(recs) == 0)
}

func (k *Keys) remove(r *Record) {
	recs := k.m[r.key]
	last := len(recs) - 1
	if r.kidx != last {
		recs[r.kidx] = recs[last]
		recs[r.kidx].kidx = r.kidx
	}
	recs[last] = nil
	k.ctx.removed(r.key, last == 0)
	if last == 0 {
		delete(k.m, r.key)
		return
	}
	k.m[r.key] = recs[:last]
}

// Client is a client's watch state: its records and the dirty (CAS) flag.
// The zero value is a client watching nothing.
type Client struct {
	recs      []*Record
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

// Records returns the client's records. The slice must not be modified and
// is invalidated by Watch and UnwatchAll.
func (c *Client) Records() []*Record { return c.recs }

// Watch records that the client watches key in the database with index db
// whose watched_keys is k. expired is the stale bit (W-5). A dirty client
// records nothing (W-6); a key already watched in that db adds nothing (W-4).
func (c *Client) Watch(k *Keys, db int, key string, expired bool) {
	if c.dirty {
		return
	}
	for _, r := range k.m[key] {
		if r.client == c {
			return
		}
	}
	if len(c.recs) == 0 {
		c.watchedAt = k.ctx.nowMs()
	}
	r := &Record{client: c, keys: k, key: key, db: db, expired: expired}
	c.recs = append(c.recs, r)
	k.add(r)
}

// UnwatchAll drops every record of the client. It does not clear the dirty
// flag: that is Reset's job (UNWATCH, EXEC, DISCARD, RESET).
func (c *Client) UnwatchAll() {
	for i, r := range c.recs {
		r.keys.remove(r)
		c.recs[i] = nil
	}
	c.recs = c.recs[:0]
}

// Reset drops every record and clears the dirty flag: what UNWATCH does, and
// what the end of a transaction does.
func (c *Client) Reset() {
	c.UnwatchAll()
	c.dirty = false
}
