package db

import "math/rand/v2"

// LRU and LFU bookkeeping, as Redis's evict.c keeps it in the 24-bit lru
// field of every object.

const (
	lruClockMax        = 1<<24 - 1
	lruClockResolution = 1000 // ms
	lfuInitVal         = 5
)

// LRUClock returns Redis's LRU_CLOCK() for the keyspace's current time.
func (ks *Keyspace) LRUClock() uint32 {
	return uint32(ks.nowMs/lruClockResolution) & lruClockMax
}

func (ks *Keyspace) lfuMinutes() uint32 { return uint32(ks.nowMs/1000/60) & 65535 }

// initAccess sets the access data of a new object.
func (ks *Keyspace) initAccess(e *entry) {
	if ks.lfu {
		e.setLRU(ks.lfuMinutes()<<8 | lfuInitVal)
		return
	}
	e.setLRU(ks.LRUClock())
}

// touchAccess records an access to e (Redis's lookupKey without NOTOUCH).
func (ks *Keyspace) touchAccess(e *entry) {
	if ks.lfu {
		c := ks.lfuDecrAndReturn(e.lru())
		c = ks.lfuLogIncr(c)
		e.setLRU(ks.lfuMinutes()<<8 | c)
		return
	}
	e.setLRU(ks.LRUClock())
}

func (ks *Keyspace) lfuDecrAndReturn(v uint32) uint32 {
	ldt := v >> 8
	counter := v & 255
	now := ks.lfuMinutes()
	var elapsed uint32
	if now >= ldt {
		elapsed = now - ldt
	} else {
		elapsed = 65535 - ldt + now
	}
	var periods uint32
	if ks.lfuDecay > 0 {
		periods = elapsed / uint32(ks.lfuDecay)
	}
	if periods > 0 {
		if periods > counter {
			return 0
		}
		return counter - periods
	}
	return counter
}

func (ks *Keyspace) lfuLogIncr(counter uint32) uint32 {
	if counter == 255 {
		return 255
	}
	r := rand.Float64()
	base := float64(counter) - lfuInitVal
	if base < 0 {
		base = 0
	}
	p := 1.0 / (base*float64(ks.lfuLog) + 1)
	if r < p {
		counter++
	}
	return counter
}

// idleMillis estimates how long ago e was accessed (estimateObjectIdleTime).
func (ks *Keyspace) idleMillis(e *entry) int64 {
	now := ks.LRUClock()
	l := e.lru()
	if now >= l {
		return int64(now-l) * lruClockResolution
	}
	return int64(lruClockMax-l+now) * lruClockResolution
}

// lfuCounter returns e's decayed LFU counter (OBJECT FREQ).
func (ks *Keyspace) lfuCounter(e *entry) uint32 { return ks.lfuDecrAndReturn(e.lru()) }
