package db

import "github.com/miniwatchd/miniwatchd/watch"

// Eviction support: sampling keys with their eviction scores and removing a
// chosen key through the single removal path. The policy and the candidate
// pool live in package expire.

// ScoreKind selects how a sampled key is scored; a higher score is a better
// candidate for eviction (Redis's evictionPoolPopulate "idle").
type ScoreKind uint8

// Score kinds.
const (
	ScoreIdle ScoreKind = iota // LRU: estimated idle milliseconds
	ScoreLFU                   // LFU: 255 - decayed counter
	ScoreTTL                   // volatile-ttl: sooner deadline scores higher
)

// EvictionSample is one sampled key.
type EvictionSample struct {
	Key   string
	Score uint64
}

// EvictableKeys returns how many keys an eviction policy may pick from:
// every key, or only keys with a TTL (volatile).
func (d *DB) EvictableKeys(volatile bool) int {
	if volatile {
		return d.data.expires.Len()
	}
	return d.data.main.Len()
}

// SampleForEviction samples up to count keys (dictGetSomeKeys over the main
// table, or the expires table when volatile) and appends them with their
// scores to dst.
func (d *DB) SampleForEviction(dst []EvictionSample, count int, volatile bool, kind ScoreKind) []EvictionSample {
	ks := d.ks
	if volatile {
		var buf [64]*expEntry
		for _, x := range d.data.expires.Sample(buf[:0], min(count, len(buf))) {
			dst = append(dst, EvictionSample{x.e.key(), ks.evictionScore(x.e, x.when, kind)})
		}
		return dst
	}
	var buf [64]*entry
	for _, e := range d.data.main.Sample(buf[:0], min(count, len(buf))) {
		when := int64(-1)
		if kind == ScoreTTL {
			when = d.deadline(e)
		}
		dst = append(dst, EvictionSample{e.key(), ks.evictionScore(e, when, kind)})
	}
	return dst
}

func (ks *Keyspace) evictionScore(e *entry, when int64, kind ScoreKind) uint64 {
	switch kind {
	case ScoreLFU:
		return 255 - uint64(ks.lfuCounter(e))
	case ScoreTTL:
		return ^uint64(0) - uint64(when)
	}
	return uint64(ks.idleMillis(e))
}

// RandomKeyForEviction picks a random key (from the keys with a TTL when
// volatile), or reports false when there is none.
func (d *DB) RandomKeyForEviction(volatile bool) (string, bool) {
	if volatile {
		if x := d.data.expires.Random(); x != nil {
			return x.e.key(), true
		}
		return "", false
	}
	if e := d.data.main.Random(); e != nil {
		return e.key(), true
	}
	return "", false
}

// Evict removes key, if it still exists (and still has a TTL when
// volatile), through the single removal path: its watchers are touched,
// evicted_keys is counted and the "evicted" event raised. A key past its
// deadline is evicted like any other (no lazy expiry on this path, as in
// Redis). It reports whether a key was removed.
func (d *DB) Evict(key string, volatile bool) bool {
	e := d.data.main.Find(key)
	if e == nil || (volatile && !e.hasTTL()) {
		return false
	}
	d.removeEntry(e, RemoveEvicted, watch.CauseEvicted)
	return true
}

// HasEvictable reports whether key exists (with a TTL when volatile), the
// check Redis makes before evicting a pool candidate.
func (d *DB) HasEvictable(key string, volatile bool) bool {
	e := d.data.main.Find(key)
	return e != nil && (!volatile || e.hasTTL())
}
