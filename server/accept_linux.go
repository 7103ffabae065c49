//go:build linux

package server

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/poll"
)

// acceptRaw accepts on a plain TCP listener the way Redis's
// acceptTcpHandler does: accept4(2) on the listening socket, the new
// socket straight to the event loop, in the accept goroutine, without a
// net.Conn in Go's network poller first (which cost a registration, a
// duplicate, a close and a goroutine per connection: twice Redis's CPU per
// accepted connection). It reports false, doing nothing, for a listener
// it cannot take (TLS and Unix listeners keep acceptLoop's path); else it
// returns when the listener is closed.
func (s *Server) acceptRaw(ln net.Listener) bool {
	al, ok := ln.(*acceptListener)
	if !ok {
		return false
	}
	f, err := al.pollable()
	if err != nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	batch := make([]poll.Accepted, 0, 64)
	for {
		batch, err = poll.AcceptBatch(rc, batch)
		for _, a := range batch {
			s.serveAccepted(a)
		}
		if err == nil {
			continue
		}
		if s.closing.Load() || s.ops.listenersClosed.Load() || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) {
			return true
		}
		s.log.Warn("Accepting client connection: " + err.Error())
		time.Sleep(5 * time.Millisecond)
	}
}

// acceptListener is a TCP listener acceptRaw can take. Go does not let a
// listener's own raw connection wait for readability (its Read is
// refused), so acceptRaw waits on a duplicate of the listening socket
// registered with the runtime's poller; Close closes the duplicate too
// (else the socket would go on listening) and wakes its waiter.
type acceptListener struct {
	*net.TCPListener
	mu     sync.Mutex
	dup    *os.File
	closed bool
}

// wrapListener makes a TCP listener one acceptRaw can take.
func wrapListener(ln net.Listener) net.Listener {
	if tl, ok := ln.(*net.TCPListener); ok {
		return &acceptListener{TCPListener: tl}
	}
	return ln
}

// pollable returns the listening socket's duplicate, made on first use.
func (l *acceptListener) pollable() (*os.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, net.ErrClosed
	}
	if l.dup == nil {
		f, err := poll.PollableDup(l.TCPListener)
		if err != nil {
			return nil, err
		}
		l.dup = f
	}
	return l.dup, nil
}

func (l *acceptListener) Close() error {
	l.mu.Lock()
	l.closed = true
	if l.dup != nil {
		l.dup.Close()
	}
	l.mu.Unlock()
	return l.TCPListener.Close()
}

// serveAccepted registers an accepted socket as a client and hands it to
// the event loop (serveConn for a socket taken from acceptRaw).
func (s *Server) serveAccepted(a poll.Accepted) {
	conn := &fdConn{fd: a.Fd, raddr: tcpAddr(a.Remote)}
	if sa, err := syscall.Getsockname(a.Fd); err == nil {
		conn.laddr = tcpAddr(sa)
	}
	c := s.newClient(conn) // closes conn when it refuses it
	if c == nil {
		return
	}
	sock, err := poll.SocketFile(a.Fd)
	s.attachSocket(c, sock, err)
}

// tcpAddr converts an IPv4 or IPv6 socket address.
func tcpAddr(sa syscall.Sockaddr) *net.TCPAddr {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(append([]byte(nil), a.Addr[:]...)), Port: a.Port}
	case *syscall.SockaddrInet6:
		addr := &net.TCPAddr{IP: net.IP(append([]byte(nil), a.Addr[:]...)), Port: a.Port}
		if a.ZoneId != 0 {
			if ifc, err := net.InterfaceByIndex(int(a.ZoneId)); err == nil {
				addr.Zone = ifc.Name
			}
		}
		return addr
	}
	return &net.TCPAddr{}
}

// fdConn is an accepted socket (blocking mode) as the net.Conn newClient
// reads addresses from and writes a refusal to; the event loop takes the
// descriptor itself afterwards (poll.SocketFile). Deadlines are not
// supported: nothing sets them.
type fdConn struct {
	fd           int
	laddr, raddr *net.TCPAddr
}

func (c *fdConn) Read(b []byte) (int, error) {
	n, err := syscall.Read(c.fd, b)
	if n < 0 {
		n = 0
	}
	return n, err
}

func (c *fdConn) Write(b []byte) (int, error) {
	n, err := syscall.Write(c.fd, b)
	if n < 0 {
		n = 0
	}
	return n, err
}

func (c *fdConn) Close() error { return syscall.Close(c.fd) }

func (c *fdConn) LocalAddr() net.Addr {
	if c.laddr == nil {
		return &net.TCPAddr{}
	}
	return c.laddr
}

func (c *fdConn) RemoteAddr() net.Addr { return c.raddr }

var errNoDeadline = errors.New("deadlines are not supported on an accepted socket")

func (c *fdConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *fdConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *fdConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

// tuneAccepted sets the socket options of a connection acceptRaw took.
func tuneAccepted(conn net.Conn, keepalive int64) bool {
	fc, ok := conn.(*fdConn)
	if ok {
		poll.TuneTCP(fc.fd, keepalive)
	}
	return ok
}
