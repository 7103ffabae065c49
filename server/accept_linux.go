//go:build linux

package server

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/poll"
)

// The plain TCP listeners are accepted on in the event loop, as Redis's
// acceptTcpHandler does in its ae loop: the listening socket is in the
// loop's epoll set, and a readable listener is accept4(2)ed up to
// maxAcceptsPerCall times in the round, each socket becoming a client
// registered with the poller right there (no goroutine, no net.Conn in
// Go's network poller, no second round of the engine lock). TLS and Unix
// listeners keep acceptLoop's path (listen.go).
//
// Locking: the loop accepts with the engine lock held; l.accept.mu guards
// the table of watched listeners; a listener's own mu orders its accepts
// against its Close, which may run with or without the engine lock
// (CONFIG SET, SHUTDOWN, Close): Close takes the socket out of the epoll
// set before it closes it, under that mu. Order: engine lock, then
// listener mu; the table's mu is never held with another.

// maxAcceptsPerCall is Redis's MAX_ACCEPTS_PER_CALL.
const maxAcceptsPerCall = 1000

// acceptPause is how long a listener is left out of the loop's epoll set
// after accept failed (EMFILE, ENFILE): the pending connections wait in
// the backlog instead of waking the loop at every round.
const acceptPause = 10 * time.Millisecond

// loopAccept is the event loop's state for accepting.
type loopAccept struct {
	mu       sync.Mutex
	lns      map[int]*acceptListener // by listening fd (mu)
	batch    []poll.Accepted         // the loop's accept buffer (engine lock)
	lastWarn time.Time               // last accept failure logged (engine lock)
}

// acceptListener is a plain TCP listener the event loop accepts on: a
// duplicate of the socket net.Listen opened, which Go's network poller
// does not watch (the original is closed, taking it out of the runtime's
// epoll set, whose edge-triggered wake-ups would cost a thread wake-up per
// connection besides the loop's own).
type acceptListener struct {
	fd   int // listening socket, non-blocking
	addr net.Addr

	mu     sync.Mutex
	closed bool
	paused bool       // out of the epoll set for acceptPause
	loop   *eventLoop // the loop that watches it, nil before watchListener
}

// errLoopAccepts answers Accept on a listener the event loop accepts on.
var errLoopAccepts = errors.New("the event loop accepts on this listener")

// wrapListener makes a plain TCP listener one the event loop accepts on
// (another listener, or one whose socket cannot be duplicated, is
// returned as is and accepted on by acceptLoop).
func wrapListener(ln net.Listener) net.Listener {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return ln
	}
	fd, err := poll.ListenerDup(tl)
	if err != nil {
		return ln
	}
	al := &acceptListener{fd: fd, addr: tl.Addr()}
	tl.Close()
	return al
}

func (al *acceptListener) Accept() (net.Conn, error) { return nil, errLoopAccepts }
func (al *acceptListener) Addr() net.Addr            { return al.addr }

// Close stops the listening: the socket leaves the loop's epoll set, then
// is closed. Safe to call more than once and from any goroutine.
func (al *acceptListener) Close() error {
	al.mu.Lock()
	if al.closed {
		al.mu.Unlock()
		return nil
	}
	al.closed = true
	l := al.loop
	if l != nil {
		poll.RemoveListener(l.p, al.fd)
	}
	err := syscall.Close(al.fd)
	al.mu.Unlock()
	if l != nil {
		l.accept.mu.Lock()
		if l.accept.lns[al.fd] == al {
			delete(l.accept.lns, al.fd)
		}
		l.accept.mu.Unlock()
	}
	return err
}

// watchListener puts a listener of wrapListener into the event loop's
// epoll set and reports true; false for any other listener (acceptLoop's).
func (s *Server) watchListener(ln net.Listener) bool {
	al, ok := ln.(*acceptListener)
	if !ok {
		return false
	}
	l := s.loop
	al.mu.Lock()
	defer al.mu.Unlock()
	if al.closed || al.loop != nil {
		return true
	}
	l.accept.mu.Lock()
	if l.accept.lns == nil {
		l.accept.lns = map[int]*acceptListener{}
	}
	l.accept.lns[al.fd] = al // a closed listener's fd may be reused
	l.accept.mu.Unlock()
	al.loop = l
	if err := poll.AddListener(l.p, al.fd); err != nil {
		s.log.Warn("Accepting client connection: " + err.Error())
	}
	return true
}

// acceptReadyLocked accepts on the listener behind fd, when fd is one,
// and registers every connection as a client (acceptTcpHandler).
func (l *eventLoop) acceptReadyLocked(fd int) {
	l.accept.mu.Lock()
	al := l.accept.lns[fd]
	l.accept.mu.Unlock()
	if al == nil {
		return
	}
	if l.accept.batch == nil {
		l.accept.batch = make([]poll.Accepted, 0, maxAcceptsPerCall)
	}
	al.mu.Lock()
	if al.closed || al.paused {
		al.mu.Unlock()
		return
	}
	batch, err := poll.AcceptReady(al.fd, l.accept.batch)
	if err != nil {
		al.paused = true
		poll.PauseListener(l.p, al.fd, true)
		time.AfterFunc(acceptPause, al.resume)
	}
	al.mu.Unlock()
	for _, a := range batch {
		l.serveAcceptedLocked(a)
	}
	clear(batch)
	if err != nil && time.Since(l.accept.lastWarn) >= time.Second {
		l.accept.lastWarn = time.Now()
		l.s.log.Warn("Accepting client connection: " + err.Error())
	}
}

// resume puts a paused listener back into the epoll set.
func (al *acceptListener) resume() {
	al.mu.Lock()
	defer al.mu.Unlock()
	if !al.closed && al.paused {
		al.paused = false
		poll.PauseListener(al.loop.p, al.fd, false)
	}
}

// serveAcceptedLocked registers an accepted socket as a client and
// watches it (newClient and attachSocket in one round of the engine lock).
// The socket stays a bare descriptor owned by its fdConn (no *os.File, no
// fcntl), and its local address is read only when CLIENT LIST or CLIENT
// KILL LADDR asks for it (client.localAddr), as Redis fills c->sockname
// lazily: accept costs accept4, the socket options, epoll_ctl.
func (l *eventLoop) serveAcceptedLocked(a poll.Accepted) {
	s := l.s
	conn := &fdConn{fd: a.Fd, raddr: tcpAddr(a.Remote)}
	c, keepalive := s.newClientLocked(conn) // closes conn when it refuses it
	if c == nil {
		return
	}
	poll.TuneTCP(a.Fd, keepalive)
	if s.closing.Load() {
		s.freeClientLocked(c)
		conn.Close()
		return
	}
	c.sock, c.fd = conn, a.Fd
	l.conns[c.fd] = c
	if err := l.p.Add(c.fd, nil); err != nil {
		s.log.Warn("cannot watch connection", "addr", c.addr, "err", err)
		l.freeLocked(c)
	}
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

// fdConn is an accepted socket (non-blocking) as the net.Conn
// newClientLocked reads addresses from and writes a refusal to, then the
// client's sock, which the event loop closes. Close is idempotent and,
// like every method after the client is registered, runs under the engine
// lock: a descriptor is closed once, never after its number was reused.
// The local address is read from the socket on first use (getsockname).
// Deadlines are not supported: nothing sets them.
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

func (c *fdConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	fd := c.fd
	c.fd = -1
	return syscall.Close(fd)
}

func (c *fdConn) LocalAddr() net.Addr {
	if c.laddr == nil && c.fd >= 0 {
		if sa, err := syscall.Getsockname(c.fd); err == nil {
			c.laddr = tcpAddr(sa)
		}
	}
	if c.laddr == nil {
		return &net.TCPAddr{}
	}
	return c.laddr
}

// lazyLocalAddr marks fdConn as a lazyLocal connection.
func (c *fdConn) lazyLocalAddr() {}

func (c *fdConn) RemoteAddr() net.Addr { return c.raddr }

var errNoDeadline = errors.New("deadlines are not supported on an accepted socket")

func (c *fdConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *fdConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *fdConn) SetWriteDeadline(time.Time) error { return errNoDeadline }
