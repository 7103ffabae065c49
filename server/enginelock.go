package server

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// engineLock is the engine lock: a mutex that counts the goroutines waiting
// for it, so that long work done under it in slices (the active expiry
// cycle) can really hand it over between slices. A plain sync.Mutex lets
// the releasing goroutine take it back before a woken waiter runs, so a
// client could wait several slices.
type engineLock struct {
	mu      sync.Mutex
	waiting atomic.Int32
}

// Lock takes the lock.
func (l *engineLock) Lock() {
	l.waiting.Add(1)
	l.mu.Lock()
	l.waiting.Add(-1)
}

// Unlock releases the lock.
func (l *engineLock) Unlock() { l.mu.Unlock() }

// Yield is called with the lock held: when others wait for it, it releases
// the lock until they have had their turn (or a bounded number of
// scheduling rounds passed) and takes it back.
func (l *engineLock) Yield() {
	if l.waiting.Load() == 0 {
		return
	}
	l.mu.Unlock()
	for i := 0; i < 64 && l.waiting.Load() > 0; i++ {
		runtime.Gosched()
	}
	l.mu.Lock()
}

// engineLocker is the engine lock as background work takes it: it waits
// while a script runs (a timed-out script hands the lock to waiting
// clients now and then, and the expiry cycle must not change the dataset
// under it).
type engineLocker struct{ s *Server }

func (l engineLocker) Lock() {
	l.s.mu.Lock()
	l.waitScript()
}

func (l engineLocker) Unlock() { l.s.mu.Unlock() }

// Yield hands the lock to waiting clients (expire.Lock).
func (l engineLocker) Yield() {
	l.s.mu.Yield()
	l.waitScript()
}

// waitScript waits, the lock held, until no script runs.
func (l engineLocker) waitScript() {
	for l.s.scripting.run != nil {
		l.s.scripting.done.Wait()
	}
}
