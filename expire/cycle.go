package expire

import (
	"sync"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
)

// Cycle is Redis 7.0's activeExpireCycle (expire.c): it walks the expires
// table of each database, deleting keys past their deadline through db's
// single removal path, and keeps going on a database while more than the
// acceptable share of the sampled keys were stale, under a time budget.
//
// Unlike Redis, which holds its only thread for the whole budget (25 ms at
// hz 10), Run holds the engine lock for at most SliceBudget at a time and
// lets clients in between slices, so a mass expiry never stalls a client for
// longer than one slice.
//
// A Cycle is not safe for concurrent use; the server runs one at a time.
type Cycle struct {
	currentDB     int
	timelimitExit bool
	lastFast      time.Time
	stalePerc     float64 // the stale estimate after the last run
}

// WantsFast reports whether the fast cycle would run now that the last
// run ended: it hit its time limit, or the share of stale keys sampled is
// at least the acceptable level for the effort. The server polls the fast
// cycle often only while this holds.
func (cy *Cycle) WantsFast(effort int) bool {
	_, _, _, acceptable := Params{Effort: effort}.derive()
	return cy.timelimitExit || cy.stalePerc*100 >= float64(acceptable)
}

// Kind selects the slow cycle (from the hz timer) or the fast one (run when
// the last slow cycle hit its time limit or many keys are stale).
type Kind int

// Cycle kinds.
const (
	Slow Kind = iota
	Fast
)

// Params are the knobs of one run.
type Params struct {
	Kind   Kind
	Hz     int // server hz (slow cycle budget = share / hz)
	Effort int // active-expire-effort, 1..10
	// SliceBudget bounds how long the engine lock is held at a time
	// (default 1ms).
	SliceBudget time.Duration
}

// cycle parameters as activeExpireCycle derives them from the effort.
func (p Params) derive() (keysPerLoop int, fastDuration time.Duration, slowPerc int, acceptableStale int) {
	e := p.Effort - 1
	if e < 0 {
		e = 0
	}
	if e > 9 {
		e = 9
	}
	return 20 + 20/4*e, time.Duration(1000+1000/4*e) * time.Microsecond, 25 + 2*e, 10 - e
}

// Lock is the engine lock as the cycle uses it: Yield hands the lock to the
// goroutines waiting for it and takes it back.
type Lock interface {
	sync.Locker
	Yield()
}

// Run performs one cycle. lock is the engine lock (taken once, and yielded
// to waiting clients every SliceBudget); now returns the clock's unix ms; ks
// is read only while locked.
func (cy *Cycle) Run(ks *db.Keyspace, lock Lock, now func() int64, p Params) {
	keysPerLoop, fastDuration, slowPerc, acceptable := p.derive()
	start := time.Now()
	lock.Lock()
	stalePerc := ks.Stats.ExpiredStalePerc
	dbnum := ks.Len()
	lock.Unlock()

	if p.Kind == Fast {
		if !cy.timelimitExit && stalePerc*100 < float64(acceptable) {
			return
		}
		if start.Before(cy.lastFast.Add(2 * fastDuration)) {
			return
		}
		cy.lastFast = start
	}
	dbsPerCall := 16
	if dbsPerCall > dbnum || cy.timelimitExit {
		dbsPerCall = dbnum
	}
	hz := p.Hz
	if hz < 1 {
		hz = 1
	}
	timelimit := time.Duration(slowPerc) * time.Second / time.Duration(hz) / 100
	if timelimit <= 0 {
		timelimit = time.Microsecond
	}
	if p.Kind == Fast {
		timelimit = fastDuration
	}
	slice := p.SliceBudget
	if slice <= 0 {
		slice = time.Millisecond
	}
	cy.timelimitExit = false
	var totalSampled, totalExpired int
	iteration := 0

	lock.Lock()
	sliceStart := time.Now()
	for j := 0; j < dbsPerCall && !cy.timelimitExit; j++ {
		if cy.currentDB >= ks.Len() {
			cy.currentDB = 0
		}
		d := ks.DB(cy.currentDB % ks.Len())
		cy.currentDB++
		for {
			iteration++
			ks.SetTime(now())
			res := d.ActiveExpireStep(ks.Now(), keysPerLoop)
			if res.Skipped {
				break
			}
			totalSampled += res.Sampled
			totalExpired += res.Expired
			if iteration&0xf == 0 && time.Since(start) > timelimit {
				cy.timelimitExit = true
				ks.Stats.ExpiredTimeCapReachedCnt++
				break
			}
			if time.Since(sliceStart) > slice {
				lock.Yield() // let waiting clients in
				sliceStart = time.Now()
			}
			if !(res.Sampled == 0 || res.Expired*100/res.Sampled > acceptable) {
				break
			}
		}
	}
	cur := 0.0
	if totalSampled > 0 {
		cur = float64(totalExpired) / float64(totalSampled)
	}
	ks.Stats.ExpiredStalePerc = cur*0.05 + ks.Stats.ExpiredStalePerc*0.95
	cy.stalePerc = ks.Stats.ExpiredStalePerc
	ks.Stats.ExpireCycleCPUMillis += time.Since(start).Milliseconds()
	lock.Unlock()
}

// SweepLocked deletes every key past its deadline in every database, with
// the engine lock already held, through the same removal path as the cycle.
// DEBUG ACTIVE-EXPIRE-CYCLE uses it so tests get a deterministic sweep
// instead of the cycle's sampling. It returns how many keys it deleted.
func SweepLocked(ks *db.Keyspace, now func() int64) int {
	n := 0
	for i := 0; i < ks.Len(); i++ {
		ks.SetTime(now())
		n += ks.DB(i).ExpireAllStale(ks.Now())
	}
	return n
}
