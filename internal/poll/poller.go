// Package poll is miniwatchd's readiness poller and raw socket I/O: the
// epoll poller on Linux (poller_linux.go), a portable poller over Go's own
// network poller elsewhere (poller_other.go), read(2)/write(2) without the
// scheduler's system-call bookkeeping (rawio_*.go), and the busy-poll
// decision (cpus.go). It knows nothing of commands or clients.
//
// Locking: a Poller has one user, the server's event loop. Add, SetWrite,
// Remove, Wait and Close are called from the loop goroutine or with the
// engine lock held; Wake may be called from any goroutine.
package poll

import (
	"syscall"
	"time"
)

// Poller waits for readiness of many sockets at once, the way Redis's ae
// library drives its event loop (epoll on Linux).
type Poller interface {
	// Add starts watching fd for readability; rc is the same socket as a
	// syscall.RawConn (the portable poller waits through it).
	Add(fd int, rc syscall.RawConn) error
	// SetWrite turns watching fd for writability on or off.
	SetWrite(fd int, on bool) error
	// Remove stops watching fd (before it is closed).
	Remove(fd int)
	// Wait blocks until some fds are ready, Wake is called, or timeout
	// passes (negative: no timeout), and fills events. A Wait without
	// timeout may first poll for the spin duration given to New while
	// the server is busy.
	Wait(events []Event, timeout time.Duration) (int, error)
	// Wake makes a Wait in progress (or the next one) return at once.
	Wake()
	Close() error
}

// Event is one ready socket.
type Event struct {
	Fd       int
	Readable bool // data, EOF or an error to read
	Writable bool
}
