package db

import "github.com/miniwatchd/miniwatchd/watch"

// Whole-database writes: FLUSHDB, FLUSHALL and SWAPDB. They touch watchers
// with Redis's touchAllWatchedKeysInDb rules (spec T-2) before the data
// changes, and only set dirty flags: records stay until EXEC/DISCARD/UNWATCH.

// Flush empties the database and returns how many keys it held (FLUSHDB).
func (d *DB) Flush() int {
	d.touchAllWatched(nil)
	n := d.data.main.Len()
	d.data = d.ks.newDataset()
	d.ks.Stats.Dirty += int64(n)
	if o := d.ks.observer; o != nil {
		o.Flushed(d.id)
	}
	return n
}

// FlushAll empties every database and returns how many keys they held
// (FLUSHALL).
func (ks *Keyspace) FlushAll() int {
	n := 0
	for _, d := range ks.dbs {
		d.touchAllWatched(nil)
		n += d.data.main.Len()
		d.data = d.ks.newDataset()
	}
	ks.Stats.Dirty += int64(n)
	if ks.observer != nil {
		ks.observer.Flushed(-1)
	}
	return n
}

// SwapDB exchanges the data of databases a and b (SWAPDB). Watchers and
// blocked clients stay with their database index, so each sees the other
// dataset afterwards. Swapping a database with itself does nothing.
func (ks *Keyspace) SwapDB(a, b int) {
	if a == b {
		return
	}
	da, db := ks.dbs[a], ks.dbs[b]
	da.touchAllWatched(db)
	db.touchAllWatched(da)
	da.data, db.data = db.data, da.data
	ks.Stats.Dirty++
	if ks.observer != nil {
		ks.observer.Swapped(a, b)
	}
}

// touchAllWatched applies T-2 to every watched key of d, which is about to be
// emptied (other == nil) or replaced by other's data (SWAPDB).
func (d *DB) touchAllWatched(other *DB) {
	if d.watched.Len() == 0 {
		return
	}
	d.watched.Each(func(key string, recs watch.Records) {
		existsHere := d.data.main.Find(key) != nil
		var inOther *entry
		if other != nil {
			inOther = other.data.main.Find(key)
		}
		if !existsHere && inOther == nil {
			return
		}
		for i := range recs.Len() {
			r := recs.At(i)
			if r.Expired() {
				if inOther == nil {
					r.SetExpired(false) // the stale key is gone: no logical change
					continue
				}
				if other.stale(inOther) {
					continue // a stale key stays stale
				}
			} else if !existsHere && other.stale(inOther) {
				r.SetExpired(true) // a missing key is replaced by a stale one
				continue
			}
			r.MarkClientDirty() // explained by the command in the touch context
		}
	})
}
