package expire

import (
	"math"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
)

// Policy is a maxmemory-policy.
type Policy uint8

// Policies, as Redis names them.
const (
	NoEviction Policy = iota
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	VolatileLRU
	VolatileLFU
	VolatileRandom
	VolatileTTL
)

var policyNames = map[string]Policy{
	"noeviction": NoEviction, "allkeys-lru": AllKeysLRU, "allkeys-lfu": AllKeysLFU,
	"allkeys-random": AllKeysRandom, "volatile-lru": VolatileLRU, "volatile-lfu": VolatileLFU,
	"volatile-random": VolatileRandom, "volatile-ttl": VolatileTTL,
}

// ParsePolicy maps a maxmemory-policy name to a Policy.
func ParsePolicy(name string) (Policy, bool) {
	p, ok := policyNames[name]
	return p, ok
}

// LFU reports whether the policy keeps LFU counters.
func (p Policy) LFU() bool { return p == AllKeysLFU || p == VolatileLFU }

// LRU reports whether the policy keeps LRU clocks.
func (p Policy) LRU() bool { return p == AllKeysLRU || p == VolatileLRU }

func (p Policy) volatile() bool { return p >= VolatileLRU }

func (p Policy) random() bool { return p == AllKeysRandom || p == VolatileRandom }

func (p Policy) score() db.ScoreKind {
	switch {
	case p.LFU():
		return db.ScoreLFU
	case p == VolatileTTL:
		return db.ScoreTTL
	}
	return db.ScoreIdle
}

// EvictResult is performEvictions's result.
type EvictResult uint8

// Results.
const (
	EvictOK      EvictResult = iota // under the limit (or nothing to do)
	EvictRunning                    // over the limit, but eviction goes on in the background
	EvictFail                       // over the limit and nothing can be evicted
)

// EvictParams are the settings of one eviction run.
type EvictParams struct {
	MaxMemory int64
	Policy    Policy
	Samples   int // maxmemory-samples
	Tenacity  int // maxmemory-eviction-tenacity, 0..100
	// Used returns the memory figure compared with MaxMemory; it must
	// reflect evictions as they happen (the keyspace estimate does).
	Used func() int64
}

const poolSize = 16 // EVPOOL_SIZE

type poolEntry struct {
	key   string
	db    int
	score uint64
	used  bool
}

// Evictor is Redis's evict.c: the shared candidate pool and the rotation
// over databases for the random policies. Not safe for concurrent use; the
// server calls it under the engine lock.
type Evictor struct {
	pool    [poolSize]poolEntry
	nextDB  int
	running bool // the time budget ran out: keep evicting from the cron
	samples []db.EvictionSample
}

// Running reports whether a previous run ran out of time with memory still
// over the limit, so the cron must call Perform again.
func (ev *Evictor) Running() bool { return ev.running }

// timeLimit is evictionTimeLimitUs.
func timeLimit(tenacity int) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond
	}
	return time.Duration(math.MaxInt64)
}

// Perform is performEvictions: while the used memory is over the limit,
// pick the best candidate under the policy and evict it through db's
// removal path (watchers touched, evicted_keys counted, "evicted" raised).
// Call it with the engine lock held.
func (ev *Evictor) Perform(ks *db.Keyspace, p EvictParams) EvictResult {
	if p.MaxMemory <= 0 || p.Used() <= p.MaxMemory {
		ev.running = false
		return EvictOK
	}
	if p.Policy == NoEviction {
		return EvictFail
	}
	start := time.Now()
	limit := timeLimit(p.Tenacity)
	freed := 0
	for p.Used() > p.MaxMemory {
		key, dbi, ok := ev.pick(ks, p)
		if !ok {
			ev.running = false
			return EvictFail
		}
		if ks.DB(dbi).Evict(key, p.Policy.volatile()) {
			freed++
		}
		if freed%16 == 0 && time.Since(start) > limit {
			ev.running = true
			return EvictRunning
		}
	}
	ev.running = false
	return EvictOK
}

// pick chooses the next key to evict, or reports false when no key can be.
func (ev *Evictor) pick(ks *db.Keyspace, p EvictParams) (string, int, bool) {
	volatile := p.Policy.volatile()
	if p.Policy.random() {
		for i := 0; i < ks.Len(); i++ {
			ev.nextDB++
			j := ev.nextDB % ks.Len()
			if key, ok := ks.DB(j).RandomKeyForEviction(volatile); ok {
				return key, j, true
			}
		}
		return "", 0, false
	}
	for {
		total := 0
		for i := 0; i < ks.Len(); i++ {
			d := ks.DB(i)
			n := d.EvictableKeys(volatile)
			if n == 0 {
				continue
			}
			total += n
			ev.samples = d.SampleForEviction(ev.samples[:0], max(p.Samples, 1), volatile, p.Policy.score())
			for _, s := range ev.samples {
				ev.populate(s, i)
			}
		}
		if total == 0 {
			return "", 0, false
		}
		for k := poolSize - 1; k >= 0; k-- {
			e := ev.pool[k]
			if !e.used {
				continue
			}
			ev.pool[k] = poolEntry{}
			if ks.DB(e.db).HasEvictable(e.key, volatile) {
				return e.key, e.db, true
			}
			// A ghost: the key is gone; try the next candidate.
		}
	}
}

// populate inserts a sample into the pool kept in ascending score order,
// as evictionPoolPopulate does: the best candidates are at the right.
func (ev *Evictor) populate(s db.EvictionSample, dbi int) {
	pool := &ev.pool
	k := 0
	for k < poolSize && pool[k].used && pool[k].score < s.Score {
		k++
	}
	switch {
	case k == 0 && pool[poolSize-1].used:
		return // worse than everything in a full pool
	case k < poolSize && !pool[k].used:
		// an empty slot
	case !pool[poolSize-1].used:
		copy(pool[k+1:], pool[k:poolSize-1]) // room on the right: shift right
	default:
		k-- // full: drop the worst (leftmost) and insert at k-1
		copy(pool[:k], pool[1:k+1])
	}
	pool[k] = poolEntry{key: s.Key, db: dbi, score: s.Score, used: true}
}
