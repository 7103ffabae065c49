//go:build !linux

package poll

import (
	"sync"
	"syscall"
	"time"
)

// chanPoller is the portable poller for systems without epoll: one
// goroutine per socket waits for readiness through Go's own network poller
// (syscall.RawConn.Read with a function that reports "not done" the first
// time blocks until the socket is readable, without consuming data) and
// reports it on a channel. A socket is re-armed only after the event loop
// has had its turn with it, so an unread socket does not spin.
type chanPoller struct {
	mu      sync.Mutex
	ready   chan Event
	wakeCh  chan struct{}
	socks   map[int]*chanSock
	pending []int // delivered by the last wait, re-armed by the next
}

type chanSock struct {
	rc      syscall.RawConn
	rearm   chan struct{}
	stop    chan struct{}
	writing bool
}

// New returns the portable poller (it never busy-polls).
func New(time.Duration) (Poller, error) {
	return &chanPoller{
		ready:  make(chan Event, 1024),
		wakeCh: make(chan struct{}, 1),
		socks:  map[int]*chanSock{},
	}, nil
}

func (p *chanPoller) Add(fd int, rc syscall.RawConn) error {
	s := &chanSock{rc: rc, rearm: make(chan struct{}, 1), stop: make(chan struct{})}
	p.mu.Lock()
	p.socks[fd] = s
	p.mu.Unlock()
	go p.watch(fd, s, false)
	return nil
}

// watch reports readiness (or writability) of one socket until stopped.
func (p *chanPoller) watch(fd int, s *chanSock, write bool) {
	for {
		first := true
		wait := func(uintptr) bool {
			if first {
				first = false
				return false
			}
			return true
		}
		var err error
		if write {
			err = s.rc.Write(wait)
		} else {
			err = s.rc.Read(wait)
		}
		select {
		case <-s.stop:
			return
		case p.ready <- Event{Fd: fd, Readable: !write, Writable: write}:
		}
		if err != nil || write {
			return // closed socket, or a one-shot write watch
		}
		select {
		case <-s.stop:
			return
		case <-s.rearm:
		}
	}
}

func (p *chanPoller) SetWrite(fd int, on bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.socks[fd]
	if s == nil || s.writing == on {
		return nil
	}
	s.writing = on
	if on {
		go p.watch(fd, s, true)
	}
	return nil
}

func (p *chanPoller) Remove(fd int) {
	p.mu.Lock()
	if s := p.socks[fd]; s != nil {
		close(s.stop)
		delete(p.socks, fd)
	}
	p.mu.Unlock()
}

func (p *chanPoller) Wait(events []Event, timeout time.Duration) (int, error) {
	p.mu.Lock()
	for _, fd := range p.pending {
		if s := p.socks[fd]; s != nil {
			select {
			case s.rearm <- struct{}{}:
			default:
			}
		}
	}
	p.pending = p.pending[:0]
	p.mu.Unlock()
	var timer <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	n := 0
	select {
	case ev := <-p.ready:
		events[0] = ev
		n = 1
	case <-p.wakeCh:
	case <-timer:
	}
	for n < len(events) {
		select {
		case ev := <-p.ready:
			events[n] = ev
			n++
			continue
		default:
		}
		break
	}
	p.mu.Lock()
	for _, ev := range events[:n] {
		if ev.Readable {
			p.pending = append(p.pending, ev.Fd)
		}
		if ev.Writable {
			if s := p.socks[ev.Fd]; s != nil {
				s.writing = false
			}
		}
	}
	p.mu.Unlock()
	return n, nil
}

func (p *chanPoller) Wake() {
	select {
	case p.wakeCh <- struct{}{}:
	default:
	}
}

func (p *chanPoller) Close() error { return nil }

// Read and Write are read(2) and write(2) on a non-blocking socket.
func Read(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }

func Write(fd int, b []byte) (int, error) { return syscall.Write(fd, b) }
