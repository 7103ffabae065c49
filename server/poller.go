package server

import (
	"syscall"
	"time"
)

// poller waits for readiness of many sockets at once, the way Redis's ae
// library drives its event loop (epoll on Linux). The event loop is its
// only user: add/remove/setWrite/wait are called with the engine lock held
// or from the loop goroutine; wake may be called from any goroutine.
type poller interface {
	// add starts watching fd for readability; rc is the same socket as a
	// syscall.RawConn (the portable poller waits through it).
	add(fd int, rc syscall.RawConn) error
	// setWrite turns watching fd for writability on or off.
	setWrite(fd int, on bool) error
	// remove stops watching fd (before it is closed).
	remove(fd int)
	// wait blocks until some fds are ready, wake is called, or timeout
	// passes (negative: no timeout), and fills events. A wait without
	// timeout may first poll for Config.BusyPoll while the server is busy.
	wait(events []pollEvent, timeout time.Duration) (int, error)
	// wake makes a wait in progress (or the next one) return at once.
	wake()
	close() error
}

// pollEvent is one ready socket.
type pollEvent struct {
	fd       int
	readable bool // data, EOF or an error to read
	writable bool
}
