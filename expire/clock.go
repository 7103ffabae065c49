package expire

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clock is the time source of everything that reads time: TTL arithmetic,
// EXAT/PXAT conversion, TIME, OBJECT IDLETIME, blocking timeouts and the
// active expiry cycle. By default it follows the wall clock; tests (through
// the Go API or DEBUG subcommands) can shift it, set it, or freeze it.
//
// It is safe for concurrent use.
type Clock struct {
	mu       sync.Mutex    // serialises changes; Now reads view without it
	offset   time.Duration // added to the wall clock while not frozen
	frozen   bool
	frozenAt time.Time
	onChange []func()
	view     atomic.Pointer[clockView] // published copy of the three fields above
}

type clockView struct {
	offset   time.Duration
	frozen   bool
	frozenAt time.Time
}

// NewClock returns a clock that follows the wall clock.
func NewClock() *Clock {
	c := &Clock{}
	c.view.Store(&clockView{})
	return c
}

// Now returns the clock's current time. It takes no lock: it runs at the
// start of every command.
func (c *Clock) Now() time.Time {
	v := c.view.Load()
	if v == nil { // the zero Clock follows the wall clock
		return time.Now()
	}
	if v.frozen {
		return v.frozenAt
	}
	if v.offset == 0 {
		return time.Now()
	}
	return time.Now().Add(v.offset)
}

// At returns the clock's time at the wall-clock instant t (t itself when
// the clock follows the wall clock), so a caller that already read the wall
// clock does not read it twice.
func (c *Clock) At(t time.Time) time.Time {
	v := c.view.Load()
	switch {
	case v == nil || (v.offset == 0 && !v.frozen):
		return t
	case v.frozen:
		return v.frozenAt
	}
	return t.Add(v.offset)
}

func (c *Clock) nowLocked() time.Time {
	if c.frozen {
		return c.frozenAt
	}
	return time.Now().Add(c.offset)
}

// publishLocked makes a change visible to Now.
func (c *Clock) publishLocked() {
	c.view.Store(&clockView{offset: c.offset, frozen: c.frozen, frozenAt: c.frozenAt})
}

// UnixMilli returns the current time in unix milliseconds.
func (c *Clock) UnixMilli() int64 { return c.Now().UnixMilli() }

// UnixMicro returns the current time in unix microseconds.
func (c *Clock) UnixMicro() int64 { return c.Now().UnixMicro() }

// Freeze stops the clock at its current time.
func (c *Clock) Freeze() {
	c.mu.Lock()
	if !c.frozen {
		c.frozenAt = c.nowLocked()
		c.frozen = true
	}
	c.publishLocked()
	c.mu.Unlock()
}

// Unfreeze lets a frozen clock run again from where it stands.
func (c *Clock) Unfreeze() {
	c.mu.Lock()
	if c.frozen {
		c.offset = time.Until(c.frozenAt)
		c.frozen = false
	}
	c.publishLocked()
	c.mu.Unlock()
	c.changed()
}

// Frozen reports whether the clock is frozen.
func (c *Clock) Frozen() bool {
	v := c.view.Load()
	return v != nil && v.frozen
}

// Set moves the clock to t (it stays frozen if it was).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	if c.frozen {
		c.frozenAt = t
	} else {
		c.offset = time.Until(t)
	}
	c.publishLocked()
	c.mu.Unlock()
	c.changed()
}

// Advance moves the clock forward by d (backward when d < 0).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if c.frozen {
		c.frozenAt = c.frozenAt.Add(d)
	} else {
		c.offset += d
	}
	c.publishLocked()
	c.mu.Unlock()
	c.changed()
}

// Reset returns to the wall clock.
func (c *Clock) Reset() {
	c.mu.Lock()
	c.frozen = false
	c.offset = 0
	c.publishLocked()
	c.mu.Unlock()
	c.changed()
}

// OnChange registers fn to run (outside the clock's lock) after every Set,
// Advance, Unfreeze or Reset, so that timers driven by this clock (blocking
// timeouts) can re-check their deadlines.
func (c *Clock) OnChange(fn func()) {
	c.mu.Lock()
	c.onChange = append(c.onChange, fn)
	c.mu.Unlock()
}

func (c *Clock) changed() {
	c.mu.Lock()
	fns := append([]func(){}, c.onChange...)
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
