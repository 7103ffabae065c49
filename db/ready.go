package db

// Operations used to serve clients blocked on keys (Redis blocked.c's
// handleClientsBlockedOnKeys and serveClientBlockedOnList). They run after
// the command that made a key ready, under the engine lock.

// ReadyType is the lookup made when a ready key is served: a stale key is
// expired through the removal path (touching its watchers), no keyspace
// hit or miss is counted (Redis's LOOKUP_NOSTATS). It returns the key's type,
// TypeNone when missing.
func (d *DB) ReadyType(key string) Type {
	e := d.lookup(key, 0)
	if e == nil {
		return TypeNone
	}
	return e.typ()
}

// StoredType returns the type of the value stored at key without any side
// effect, counting a key past its deadline as present (Redis's dictFind in
// scanDatabaseForReadyKeys, after SWAPDB).
func (d *DB) StoredType(key string) Type {
	e := d.data.main.Find(key)
	if e == nil {
		return TypeNone
	}
	return e.typ()
}

// readyList returns the list stored at key, or nils.
func (d *DB) readyList(key string) (*entry, *List) {
	e := d.data.main.Find(key)
	if e == nil || e.typ() != TypeList {
		return nil, nil
	}
	return e, e.val.(*List)
}

// ServeListPop pops one element from the head (left) or tail of the list at
// key for a client blocked in BLPOP or BRPOP. ok is false when no list is
// stored there. The key is signalled (it is a write) but, as in Redis 7.0,
// the pop is not counted as a change for rdb_changes_since_last_save: the
// push that made the key ready was.
func (d *DB) ServeListPop(key string, left bool) (v string, deleted, ok bool) {
	e, l := d.readyList(key)
	if e == nil {
		return "", false, false
	}
	out, deleted := d.popFrom(e, l, left, 1, nil)
	d.ks.Stats.Dirty--
	return out[0], deleted, true
}

// ServeListPopCount pops up to count elements for a client blocked in
// BLMPOP, appending them to out; it counts like LMPOP. ok is false when no
// list is stored at key.
func (d *DB) ServeListPopCount(key string, left bool, count int, out []string) (vals []string, deleted, ok bool) {
	e, l := d.readyList(key)
	if e == nil {
		return out, false, false
	}
	out, deleted = d.popFrom(e, l, left, count, out)
	return out, deleted, true
}

// ServeListMove moves one element from the list at src to dst for a client
// blocked in BLMOVE or BRPOPLPUSH, as ListMove does (dst is created when
// missing; ErrWrongType, with nothing changed, when dst holds another type).
// Neither key counts as a change for rdb_changes_since_last_save, as in
// Redis 7.0. srcDeleted reports whether src became empty and was deleted;
// it is also true, with nothing done, when no list is stored at src.
func (d *DB) ServeListMove(src string, dst []byte, fromLeft, toLeft bool) (v string, srcDeleted bool, err error) {
	e, l := d.readyList(src)
	if e == nil {
		return "", true, nil
	}
	v, srcDeleted, err = d.moveFrom(e, l, dst, fromLeft, toLeft)
	if err == nil {
		d.ks.Stats.Dirty -= 2
	}
	return v, srcDeleted, err
}
