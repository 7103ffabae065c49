package db

import (
	"github.com/miniwatchd/miniwatchd/watch"
)

// Observer receives what the write choke point announces. The server
// implements it (keyspace notifications, client-side caching invalidation,
// blocked clients); tests may use their own. Every method is called under the
// engine lock and must not call back into the db package.
type Observer interface {
	// Modified is called once per modification of key, right after its
	// watchers were touched (Redis's signalModifiedKey minus the WATCH part).
	Modified(db *DB, key string)
	// Notify delivers one keyspace event (Redis's notifyKeyspaceEvent).
	Notify(db *DB, ev Event, key string)
	// Ready is called when a key that clients may block on (list, sorted
	// set, stream) is created (Redis's signalKeyAsReady from dbAdd).
	Ready(db *DB, key string, t Type)
	// Flushed is called after FLUSHDB (db >= 0) or FLUSHALL (db == -1).
	Flushed(db int)
	// Swapped is called after SWAPDB exchanged the data of two databases.
	Swapped(a, b int)
}

// Stats are the keyspace counters INFO reports.
type Stats struct {
	ExpiredKeys              int64
	EvictedKeys              int64
	KeyspaceHits             int64
	KeyspaceMisses           int64
	ExpiredStalePerc         float64
	ExpiredTimeCapReachedCnt int64
	ExpireCycleCPUMillis     int64
	Dirty                    int64 // modifications since start (rdb_changes_since_last_save)
}

// Keyspace is every logical database of a server, plus the state they share:
// the time deadlines are compared with, the observer and the counters.
type Keyspace struct {
	dbs      []*DB
	observer Observer
	nowMs    int64 // see SetTime
	lfu      bool  // an LFU maxmemory policy is selected
	lfuLog   int   // lfu-log-factor
	lfuDecay int   // lfu-decay-time
	noShared bool  // see SetNoSharedIntegers
	limits   EncodingLimits
	Stats    Stats
	touch    watch.Context // the current touch context (TouchContext)

	shrinkHeld int // see HoldShrink (persist.go)

	slotIndexed bool // datasets keep the per-slot key index (slotindex.go)

	// expiryPaused is set while clients are paused (CLIENT PAUSE): a stale
	// key reads as missing but is not deleted (Redis's expireIfNeeded with
	// checkClientPauseTimeoutAndReturnIfPaused).
	expiryPaused bool
	// replicaExpiry is set on a replica: stale keys read as missing but
	// stay until the master's DEL; staleVisible is set while the master's
	// commands run, which see them as present (Redis's expireIfNeeded on
	// a replica).
	replicaExpiry, staleVisible bool
}

// SetExpiryPaused turns lazy deletion of stale keys off (true) or on.
func (k *Keyspace) SetExpiryPaused(on bool) { k.expiryPaused = on }

// SetReplicaExpiry keeps stale keys for the master's DEL (true) or lets
// lookups delete them (false).
func (k *Keyspace) SetReplicaExpiry(on bool) { k.replicaExpiry = on }

// SetStaleVisible makes stale keys present to lookups (the master's
// commands on a replica) or not.
func (k *Keyspace) SetStaleVisible(on bool) { k.staleVisible = on }

// NewKeyspace returns n empty databases.
func NewKeyspace(n int) *Keyspace {
	ks := &Keyspace{lfuLog: 10, lfuDecay: 1, limits: DefaultEncodingLimits()}
	ks.dbs = make([]*DB, n)
	ks.touch.SetClock(&ks.nowMs)
	for i := range ks.dbs {
		ks.dbs[i] = &DB{id: i, ks: ks, data: &dataset{}}
		ks.dbs[i].watched.SetContext(&ks.touch)
	}
	return ks
}

// SetObserver installs the observer (nil for none).
func (ks *Keyspace) SetObserver(o Observer) { ks.observer = o }

// SetTime sets "now" in unix milliseconds: the time TTLs are computed from and
// deadlines are compared with until the next call. The server calls it when
// a top-level command (or script) starts, so one command sees one time, as in
// Redis 7.0 (spec X-2).
func (ks *Keyspace) SetTime(ms int64) { ks.nowMs = ms }

// Now returns the time set by SetTime.
func (ks *Keyspace) Now() int64 { return ks.nowMs }

// SetLFU selects LFU (true) or LRU (false) bookkeeping for key accesses, with
// Redis's lfu-log-factor and lfu-decay-time.
func (ks *Keyspace) SetLFU(on bool, logFactor, decayTime int) {
	ks.lfu, ks.lfuLog, ks.lfuDecay = on, logFactor, decayTime
}

// TouchContext returns the touch context every database's watchers are
// explained by (watch.Context): the server fills it before each command.
func (ks *Keyspace) TouchContext() *watch.Context { return &ks.touch }

// Len returns the number of databases.
func (ks *Keyspace) Len() int { return len(ks.dbs) }

// DB returns database i; i must be in range.
func (ks *Keyspace) DB(i int) *DB { return ks.dbs[i] }

// dataset is what SWAPDB exchanges between two databases: the keys, their
// deadlines and the expiry bookkeeping. watched_keys stay with the index.
type dataset struct {
	main          dict[entry, *entry]
	expires       dict[expEntry, *expEntry]
	avgTTL        int64
	expiresCursor uint64
	used          int64      // estimated bytes of the keys (memory.go)
	slots         *slotIndex // cluster mode's keys by slot, else nil (slotindex.go)
}

// DB is one logical database.
type DB struct {
	id      int
	ks      *Keyspace
	data    *dataset
	watched watch.Keys
}

// ID returns the database's index.
func (d *DB) ID() int { return d.id }

// Keyspace returns the keyspace the database belongs to.
func (d *DB) Keyspace() *Keyspace { return d.ks }

// Watched returns the database's watched_keys.
func (d *DB) Watched() *watch.Keys { return &d.watched }

// Size returns the number of keys, counting keys that are past their
// deadline but not yet deleted (as DBSIZE does).
func (d *DB) Size() int { return d.data.main.Len() }

// Expires returns the number of keys with a TTL.
func (d *DB) Expires() int { return d.data.expires.Len() }

// AvgTTL returns the running estimate of the average TTL in milliseconds, as
// INFO keyspace reports it.
func (d *DB) AvgTTL() int64 { return d.data.avgTTL }

// lookupFlags select the side effects of a lookup.
type lookupFlags uint8

const (
	lookupRead     lookupFlags = 1 << iota // count keyspace hits and misses
	lookupNoTouch                          // do not update the LRU/LFU data
	lookupNoExpire                         // report stale keys as missing but do not delete them
	lookupNoNotify                         // no "keymiss" event for a missing key (OBJECT)
)

// lookup finds key. A key past its deadline is deleted through the single
// removal path (which touches its watchers) and reported missing.
func (d *DB) lookup(key string, flags lookupFlags) *entry {
	e := d.data.main.Find(key)
	if e != nil && e.hasTTL() {
		if d.expireIfNeeded(e, flags&lookupNoExpire != 0) {
			e = nil
		}
	}
	if flags&lookupRead != 0 {
		if e == nil {
			d.ks.Stats.KeyspaceMisses++
			if o := d.ks.observer; o != nil && flags&lookupNoNotify == 0 {
				o.Notify(d, EvKeyMiss, key) // Redis's lookupKey raises it with the miss
			}
		} else {
			d.ks.Stats.KeyspaceHits++
		}
	}
	if e != nil && flags&lookupNoTouch == 0 {
		d.ks.touchAccess(e)
	}
	return e
}

// lookupWrite is the lookup every write command makes first.
func (d *DB) lookupWrite(key []byte) *entry { return d.lookup(bstr(key), 0) }

// deadline returns e's deadline in unix ms, or -1 when it has no TTL.
func (d *DB) deadline(e *entry) int64 {
	if !e.hasTTL() {
		return -1
	}
	if x := d.data.expires.Find(e.key()); x != nil {
		return x.when
	}
	return -1
}

// stale reports whether e is past its deadline at the current time.
func (d *DB) stale(e *entry) bool {
	if !e.hasTTL() {
		return false
	}
	when := d.deadline(e)
	return when >= 0 && d.ks.nowMs > when
}

// expireIfNeeded deletes e when it is past its deadline and reports whether
// it is (logically) gone. With keep, a stale key is reported gone but kept.
func (d *DB) expireIfNeeded(e *entry, keep bool) bool {
	if !d.stale(e) || d.ks.staleVisible {
		return false
	}
	if !keep && !d.ks.expiryPaused && !d.ks.replicaExpiry {
		d.removeEntry(e, RemoveExpired, watch.CauseExpiredLazy)
	}
	return true
}

// RemoveReason says why a key leaves the keyspace without a command asking.
type RemoveReason uint8

// Removal reasons.
const (
	RemoveExpired RemoveReason = iota // lazy or active expiry
	RemoveEvicted                     // maxmemory eviction
)

// removeEntry is the single removal path for expiry and eviction (Redis's
// deleteExpiredKeyAndPropagate and the eviction loop): delete, count, raise
// the event, touch the watchers.
// cause is how the watchers' explanations name it (lazy or active expiry,
// eviction).
func (d *DB) removeEntry(e *entry, why RemoveReason, cause watch.Cause) {
	prev := d.ks.touch.BeginRemoval(cause)
	defer d.ks.touch.EndRemoval(prev)
	key := e.key()
	d.unlink(e)
	ev := EvExpired
	if why == RemoveEvicted {
		ev = EvEvicted
		d.ks.Stats.EvictedKeys++
	} else {
		d.ks.Stats.ExpiredKeys++
	}
	o := d.ks.observer
	if ro, ok := o.(RemovalObserver); ok {
		ro.Removing(d, key, why)
	}
	// Redis raises "expired" before signalModifiedKey and "evicted" after.
	if why == RemoveEvicted {
		d.signal(key, false)
		if o != nil {
			o.Notify(d, ev, key)
		}
		return
	}
	if o != nil {
		o.Notify(d, ev, key)
	}
	d.signal(key, false)
}

// RemovalObserver is implemented by an Observer that wants to know, before
// the signal, that a change is an expiry or an eviction (a change no client
// made: client-side caching attributes BCAST invalidations by it).
type RemovalObserver interface {
	Removing(d *DB, key string, why RemoveReason)
}

// removeIfStale deletes e through the expiry path when it is past its
// deadline; it reports whether it did. RANDOMKEY and SCAN use it for the
// keys they meet without a lookup (the active expiry cycle calls
// removeEntry directly).
func (d *DB) removeIfStale(e *entry) bool {
	if d.stale(e) {
		d.removeEntry(e, RemoveExpired, watch.CauseExpiredLazy)
		return true
	}
	return false
}

// unlink removes e from both tables without any signal.
func (d *DB) unlink(e *entry) {
	d.accountRemove(e)
	if e.hasTTL() {
		d.data.expires.Remove(e.key())
	}
	d.data.main.Remove(e.key())
	if d.data.slots != nil {
		d.data.slots.remove(e.key())
	}
}

// insert adds the new key e (Redis's dbAdd). It does not signal: the
// caller's write does. Like dbAdd it raises the "new" event and tells the
// observer when a key that clients may block on appears.
func (d *DB) insert(e *entry) {
	d.ks.initAccess(e)
	d.data.main.Insert(e)
	if d.data.slots != nil {
		d.data.slots.add(e.key())
	}
	d.accountInsert(e)
	if o := d.ks.observer; o != nil {
		o.Notify(d, EvNew, e.key())
		if t := e.typ(); t == TypeList || t == TypeZSet || t == TypeStream {
			o.Ready(d, e.key(), t)
		}
	}
}

// setDeadline gives e the deadline when (unix ms), replacing any other.
func (d *DB) setDeadline(e *entry, when int64) {
	if e.hasTTL() {
		if x := d.data.expires.Find(e.key()); x != nil {
			x.when = when
			return
		}
	}
	d.data.expires.Insert(&expEntry{e: e, when: when})
	e.setHasTTL(true)
	d.data.used += expEntryBytes
}

// clearDeadline removes e's TTL and reports whether it had one.
func (d *DB) clearDeadline(e *entry) bool {
	if !e.hasTTL() {
		return false
	}
	d.data.expires.Remove(e.key())
	e.setHasTTL(false)
	d.data.used -= expEntryBytes
	return true
}

// signal is THE write choke point: every modification of a key ends here
// exactly once, for every writer (commands, scripts, EXEC bodies, expiry,
// eviction). It touches the key's watchers (so EXEC of a client that watched
// it aborts), tells the observer (client-side caching invalidation), raises
// the keyspace events evs in order, and counts the change. present says
// whether the key exists after the write. A write that changed nothing must
// not call it (spec T-5: DEL of a missing key, SREM of a missing member, ...).
// The "new" event of a created key is raised earlier, by insert, as Redis's
// dbAdd does.
func (d *DB) signal(key string, present bool, evs ...Event) {
	if present {
		if e := d.data.main.Find(key); e != nil && e.val != nil {
			d.accountValueChange(e)
		}
	}
	d.watched.Touch(key, present)
	d.ks.Stats.Dirty++
	o := d.ks.observer
	if o == nil {
		return
	}
	o.Modified(d, key)
	for _, ev := range evs {
		o.Notify(d, ev, key)
	}
}

// LFU reports whether an LFU maxmemory policy is selected (OBJECT FREQ
// works, OBJECT IDLETIME does not).
func (ks *Keyspace) LFU() bool { return ks.lfu }

// SetNoSharedIntegers records whether maxmemory is set with an LRU or LFU
// policy, in which case Redis does not use shared integer objects (OBJECT
// REFCOUNT reports 1 instead of INT_MAX for small integers).
func (ks *Keyspace) SetNoSharedIntegers(v bool) { ks.noShared = v }

// NoSharedIntegers reports what SetNoSharedIntegers set.
func (ks *Keyspace) NoSharedIntegers() bool { return ks.noShared }
