package server

import (
	"runtime/debug"
	"time"
)

// Idle clients' buffers, as Redis's clientsCron resizes them
// (clientsCronResizeQueryBuffer, clientsCronResizeOutputBuffer): a client
// that sent no command for more than idleBufferSecs seconds gives back its
// query buffer when nothing is buffered (the parser keeps one of up to 4KB,
// as Redis keeps one wasting up to 4KB) and its reply buffer when nothing
// is pending and it holds more than PROTO_REPLY_MIN_BYTES. A busy client
// keeps both, so the command path allocates nothing.
//
// Memory the Go heap frees goes back to the system only after a collection
// and the scavenger, which an idle server may not run for minutes; Redis's
// jemalloc returns it on its own. So once the buffers released since the
// last time add up to idlePurgeBytes, or to idlePurgeMin when a pass
// released nothing more (the wave of clients going idle is over), the pages
// go back at once (debug.FreeOSMemory, as MEMORY PURGE does, in its own
// goroutine and at most every idlePurgeEvery). Measured with cmd/connbench, 10,000 clients
// idle after one PING: 6.7 kB of RSS each before, 2.3 kB after, 5 s after
// the last connected (redis-server 7.0.15: 7.2 kB 1 s after, 1.8 kB 12 s
// after, once its cron shrank the buffers and jemalloc returned the pages).
const (
	idleBufferSecs = 2
	replyMinBytes  = 1024     // PROTO_REPLY_MIN_BYTES
	idlePurgeBytes = 32 << 20 // buffer capacity released before the pages are returned
	idlePurgeMin   = 1 << 20  // ... or this much, once releasing stopped
	idlePurgeEvery = 5 * time.Second
)

// idleBufferState counts what the cron released (mu).
type idleBufferState struct {
	released     int64     // buffer capacity released since the last purge
	lastReleased int64     // released at the previous tick
	lastPurge    time.Time // when the last purge started
}

// releaseIdleBuffersLocked releases c's buffers when it is idle (visited
// by clientsCronLocked; now in Unix milliseconds). Clients executing a
// command, blocked, or holding the master's stream keep theirs.
func (s *Server) releaseIdleBuffersLocked(c *client, now int64) {
	if c.sock == nil || c.executing || c.blocked != nil || c.link != nil || c.lastActive.Load() >= now-idleBufferSecs*1000 {
		return
	}
	st := &s.idleBuf
	if n := c.parser.Cap(); c.parser.Release() {
		st.released += int64(n)
	}
	if len(c.w.Buf) == 0 && cap(c.w.Buf) > replyMinBytes {
		st.released += int64(cap(c.w.Buf))
		c.w.Buf, c.wpos = nil, 0
	}
}

// idlePurgeCronLocked returns the released buffers' pages to the system
// when they add up (a cron hook after clientsCronLocked's visits,
// wiring.go; engine lock held).
func (s *Server) idlePurgeCronLocked() {
	now := time.Now()
	st := &s.idleBuf
	before := st.lastReleased
	st.lastReleased = st.released
	due := st.released >= idlePurgeBytes || st.released >= idlePurgeMin && st.released == before
	if due && now.Sub(st.lastPurge) >= idlePurgeEvery && !s.closing.Load() {
		st.released, st.lastReleased, st.lastPurge = 0, 0, now
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			debug.FreeOSMemory()
		}()
	}
}
