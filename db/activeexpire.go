package db

import (
	"time"

	"github.com/miniwatchd/miniwatchd/watch"
)

// Active expiry support: one pass of Redis 7.0's activeExpireCycle over one
// database. The cycle's control (time budget, effort, which db is next, the
// stale estimate) lives in package expire.

// ExpireStepResult is what one pass over a database found.
type ExpireStepResult struct {
	Sampled, Expired int
	Skipped          bool // nothing to do here: no TTLs, or the table is under 1% full
}

// ActiveExpireStep samples up to keysPerLoop keys with a TTL by walking the
// buckets of the expires table from the database's cursor (at most 20 times
// as many buckets), deleting those past their deadline at time now through
// the single removal path (so their watchers are touched, expired_keys is
// counted and the "expired" event raised). It folds the TTLs of the live
// keys it saw into the average TTL (2% new, 98% old).
func (d *DB) ActiveExpireStep(now int64, keysPerLoop int) ExpireStepResult {
	ds := d.data
	num := ds.expires.Len()
	if num == 0 {
		ds.avgTTL = 0
		return ExpireStepResult{Skipped: true}
	}
	slots := ds.expires.Buckets()
	if slots > 4 && num*100/slots < 1 {
		return ExpireStepResult{Skipped: true}
	}
	if num > keysPerLoop {
		num = keysPerLoop
	}
	maxBuckets := num * 20
	var res ExpireStepResult
	var ttlSum int64
	ttlSamples := 0
	var stale []*entry
	for checked := 0; res.Sampled < num && checked < maxBuckets; checked++ {
		ds.expiresCursor = ds.expires.ScanBuckets(ds.expiresCursor, 1, func(x *expEntry) {
			ttl := x.when - now
			if now > x.when {
				stale = append(stale, x.e)
			} else if ttl > 0 {
				ttlSum += ttl
				ttlSamples++
			}
			res.Sampled++
		})
		for _, e := range stale {
			d.removeEntry(e, RemoveExpired, watch.CauseExpiredActive)
			res.Expired++
		}
		stale = stale[:0]
		if d.data != ds {
			break // an observer hook flushed or swapped the db
		}
	}
	if ttlSamples > 0 {
		avg := ttlSum / int64(ttlSamples)
		if ds.avgTTL == 0 {
			ds.avgTTL = avg
		}
		ds.avgTTL = (ds.avgTTL/50)*49 + avg/50
	}
	return res
}

// ExpireAllStale walks the whole expires table and deletes every key past
// its deadline at time now through the single removal path. It returns how
// many keys it deleted.
func (d *DB) ExpireAllStale(now int64) int {
	var stale []*entry
	d.data.expires.Each(func(x *expEntry) bool {
		if now > x.when {
			stale = append(stale, x.e)
		}
		return true
	})
	for _, e := range stale {
		d.removeEntry(e, RemoveExpired, watch.CauseExpiredActive)
	}
	return len(stale)
}

// DatabasesCron does the periodic table maintenance of Redis's
// databasesCron: shrink tables that became mostly empty and spend up to
// budget rehashing incrementally.
func (ks *Keyspace) DatabasesCron(budget time.Duration) {
	for _, d := range ks.dbs {
		ds := d.data
		if ks.shrinkHeld == 0 && ds.main.NeedsShrink() {
			ds.main.Shrink()
		}
		if ds.expires.NeedsShrink() {
			ds.expires.Shrink()
		}
	}
	for _, d := range ks.dbs {
		ds := d.data
		if ds.main.Rehashing() {
			ds.main.RehashFor(budget)
			return
		}
		if ds.expires.Rehashing() {
			ds.expires.RehashFor(budget)
			return
		}
	}
}
