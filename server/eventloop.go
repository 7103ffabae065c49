package server

import (
	"errors"
	"io"
	"runtime"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/poll"
)

// The event loop is Redis's ae loop: ONE goroutine waits for readiness of
// every client socket (epoll on Linux), reads what is ready, runs the
// complete commands it finds, and before waiting again does Redis's
// beforeSleep duties — serve clients unblocked meanwhile, run the
// before-sleep hooks (the append-only file is written and fsynced there, so
// no reply of a logged write leaves before its bytes are on disk), and write
// every pending reply. All of that happens under the engine lock, taken once
// per round, so a round that finds fifty clients ready costs one lock
// acquisition and no goroutine switches; other goroutines (cron, expiry,
// blocking timeouts, accept) take the lock between rounds and wake the loop
// when they leave output for a client.
//
// Output: a client's replies and the messages pushed to it accumulate in
// c.w.Buf; c.wpos counts the bytes of it already written. A write that
// would block leaves the rest for the next writable event.

type eventLoop struct {
	s      *Server
	p      poll.Poller
	conns  map[int]*client // by socket fd (mu)
	inLoop bool            // the loop goroutine is in a round (mu)

	writes     []*client // clients with output to write this round (mu)
	reprocess  []*client // clients unblocked with commands buffered (mu)
	closing    []*client // clients to free at the end of the round (mu)
	events     []poll.Event
	busyEvents []poll.Event // for processEventsWhileBlockedLocked
	accept     loopAccept   // the listeners it accepts on (accept_linux.go)
}

func newEventLoop(s *Server) (*eventLoop, error) {
	p, err := poll.New(s.cfg.BusyPoll)
	if err != nil {
		return nil, err
	}
	return &eventLoop{s: s, p: p, conns: map[int]*client{}, events: make([]poll.Event, 512)}, nil
}

// run is the loop goroutine: it returns when the server closes.
func (l *eventLoop) run() {
	s := l.s
	var yielded time.Time
	for {
		n, err := l.p.Wait(l.events, -1)
		if s.closing.Load() {
			return
		}
		if err != nil {
			s.log.Warn("event loop wait failed", "err", err)
			time.Sleep(time.Millisecond)
			continue
		}
		s.mu.Lock()
		now := l.roundLocked(l.events[:n])
		s.mu.Unlock()
		if now.Sub(yielded) >= yieldEvery {
			// See yieldEvery.
			runtime.Gosched()
			yielded = now
		}
	}
}

// yieldEvery is how often a busy loop goroutine passes through the
// scheduler. The Go runtime's sysmon preempts a goroutine that ran 10 ms
// without doing so, and when it finds the loop in its epoll_wait then, it
// takes the loop's processor away from it (a hand-off to another thread
// and, for the next millisecond, sysmon waking every 20 us): measured, a
// fifth of the CPU of a server answering one client's pings. A yield
// every few milliseconds costs a few microseconds.
const yieldEvery = 4 * time.Millisecond

// roundLocked handles one batch of ready sockets and then does the
// before-sleep work.
func (l *eventLoop) roundLocked(events []poll.Event) (start time.Time) {
	s := l.s
	l.inLoop = true
	s.cmdStart = time.Now()
	start = s.cmdStart
	for _, ev := range events {
		c := l.conns[ev.Fd]
		if c == nil {
			l.acceptReadyLocked(ev.Fd) // a listening socket, or one gone
			continue
		}
		if ev.Readable {
			l.readLocked(c)
		}
		if ev.Writable && l.conns[ev.Fd] == c {
			l.writeLocked(c)
		}
	}
	l.beforeSleepLocked()
	s.cmdStart = time.Time{}
	l.inLoop = false
	return start
}

// processEventsWhileBlockedLocked is Redis's processEventsWhileBlocked:
// called from inside a command that runs for long (a busy script), it
// serves the other clients once without waiting — their commands are
// answered BUSY unless allowed while busy (SCRIPT KILL, SHUTDOWN NOSAVE,
// ...) — and writes their replies. Clients executing a command (the
// script's caller) are left for later.
func (l *eventLoop) processEventsWhileBlockedLocked() {
	if cap(l.busyEvents) == 0 {
		l.busyEvents = make([]poll.Event, 64)
	}
	n, err := l.p.Wait(l.busyEvents, 0)
	if err != nil {
		return
	}
	was := l.inLoop
	l.inLoop = true
	for _, ev := range l.busyEvents[:n] {
		c := l.conns[ev.Fd]
		if c == nil {
			l.acceptReadyLocked(ev.Fd) // Redis accepts here too
			continue
		}
		if c.executing {
			continue
		}
		if ev.Readable {
			l.readLocked(c)
		}
		if ev.Writable && l.conns[ev.Fd] == c {
			l.writeLocked(c)
		}
	}
	for _, fn := range l.s.hooks.beforeSleep {
		fn(l.s)
	}
	for _, c := range l.writes {
		if c != nil && !c.executing && l.registered(c) {
			l.writeLocked(c) // stays queued: the round's end finds it empty
		}
	}
	l.inLoop = was
}

// beforeSleepLocked is Redis's beforeSleep, as far as it concerns us.
func (l *eventLoop) beforeSleepLocked() {
	s := l.s
	for len(l.reprocess) > 0 {
		c := l.reprocess[0]
		l.reprocess = l.reprocess[1:]
		if l.registered(c) && c.blocked == nil {
			s.processLocked(c)
		}
	}
	l.reprocess = l.reprocess[:0]
	for _, fn := range s.hooks.beforeSleep {
		fn(s)
	}
	for i := 0; i < len(l.writes); i++ { // writing may queue more (closing)
		c := l.writes[i]
		c.writeQueued = false
		if l.registered(c) {
			l.writeLocked(c)
		}
		l.writes[i] = nil
	}
	l.writes = l.writes[:0]
	for _, c := range l.closing {
		l.freeLocked(c)
	}
	clear(l.closing)
	l.closing = l.closing[:0]
}

// fdReader reads a socket without Go's poller (the event loop knows it is
// readable). A closed peer reads as io.EOF.
type fdReader struct{ fd int }

func (r fdReader) Read(b []byte) (int, error) {
	for {
		n, err := poll.Read(r.fd, b)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// readLocked reads once from a readable client and runs what it can.
func (l *eventLoop) readLocked(c *client) {
	s := l.s
	n, err := c.parser.Fill(fdReader{c.fd})
	if n > 0 {
		s.stats.netInputBytes.Add(int64(n))
		if s.queryBufOverLocked(c) { // limits.go
			return
		}
		if c.blocked == nil {
			// Replies wait for the end of the round, as in Redis
			// (handleClientsWithPendingWrites in beforeSleep): writing
			// each client's reply as soon as its commands ran wakes the
			// peer once per socket, and measured 0.6-0.7x of the
			// throughput with -P 16.
			s.processLocked(c)
		} else {
			c.qbuf.Store(int64(c.parser.Buffered()))
		}
	}
	if err != nil && !errors.Is(err, syscall.EAGAIN) {
		l.freeLocked(c) // EOF, reset, or a protocol error already answered
	}
}

// queueWriteLocked schedules c's output for the end of the round, waking
// the loop when called from another goroutine.
func (l *eventLoop) queueWriteLocked(c *client) {
	if !l.registered(c) {
		return // an internal client (scripts) or one already gone
	}
	if !c.writeQueued {
		c.writeQueued = true
		l.writes = append(l.writes, c)
	}
	if !l.inLoop {
		l.p.Wake()
	}
}

// reprocessLocked schedules an unblocked client's buffered commands.
func (l *eventLoop) reprocessLocked(c *client) {
	l.reprocess = append(l.reprocess, c)
	l.queueWriteLocked(c)
}

// closeLocked frees c at the end of the round (Redis's freeClientAsync).
func (l *eventLoop) closeLocked(c *client) {
	l.closing = append(l.closing, c)
	if !l.inLoop {
		l.p.Wake()
	}
}

// writeLocked writes as much of c's output as the socket takes.
func (l *eventLoop) writeLocked(c *client) {
	s := l.s
	for c.wpos < len(c.w.Buf) {
		n, err := poll.Write(c.fd, c.w.Buf[c.wpos:])
		if n > 0 {
			c.wpos += n
			s.stats.netOutputBytes.Add(int64(n))
		}
		switch {
		case err == nil:
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.EAGAIN):
			l.p.SetWrite(c.fd, true)
			return
		default:
			l.freeLocked(c)
			return
		}
	}
	c.wpos = 0
	c.ops.silencedAt = 0 // the output restarts (CLIENT REPLY, cmd_pause.go)
	if cap(c.w.Buf) > 64<<10 {
		c.w.Buf = nil // let a huge reply's buffer go
	} else {
		c.w.Buf = c.w.Buf[:0]
	}
	l.p.SetWrite(c.fd, false)
	if c.closeAfterRply {
		l.freeLocked(c)
	}
}

// freeLocked unregisters and closes a client's connection and frees it.
func (l *eventLoop) freeLocked(c *client) {
	if l.registered(c) {
		l.p.Remove(c.fd)
		delete(l.conns, c.fd)
	}
	c.killed.Store(true)
	l.s.freeClientLocked(c)
	if c.sock != nil {
		c.sock.Close()
	}
}

// registered reports whether c is a connection the loop serves (internal
// clients, such as the scripts' client, never are).
func (l *eventLoop) registered(c *client) bool { return c.fd >= 0 && l.conns[c.fd] == c }

// pending reports the bytes of output c has not written yet.
func (c *client) pending() int { return len(c.w.Buf) - c.wpos }
