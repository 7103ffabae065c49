package server

import (
	"context"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The listeners, as Redis's listenToPort, changeListenPort and
// changeBindAddr (server.c) and the apply steps of bind, port and tls-port
// (config.c applyBind, updatePort, applyTLSPort).
//
// Each bind entry gets one listener per port (the plain port and the TLS
// port); "*" is every IPv4 address, "::*" every IPv6 address (IPv6 only),
// and an entry starting with "-" is optional: an address the machine does
// not have (or a protocol it lacks) is skipped with a warning, as Redis
// does. CONFIG SET bind / port / tls-port rebind while the server runs: the
// new listeners are opened before the old ones close, so clients never
// see the port refused, and connections already accepted stay. When an
// address cannot be opened the call fails, CONFIG SET rolls every
// parameter of the command back, and the apply step runs again with the
// old values: it finds the listeners it has (or reopens them) and the
// server keeps serving where it did. An old listener that holds an
// address the new set needs on the same port (0.0.0.0 before 127.0.0.1)
// is closed first and the opening retried, as Redis closes before it
// binds.
//
// Locking: lnMu guards the listener set; the apply steps run with the
// engine lock held too (CONFIG SET), Close and SHUTDOWN take only lnMu.

// listenerSet is every listener of the server (lnMu).
type listenerSet struct {
	tcp, tls  portListeners
	unix      net.Listener
	listening bool // Listen has run: the apply steps rebind
	serving   bool // Serve has run: new listeners get their accept loop at once
}

// portListeners are the listeners of one port, one per bind entry (nil
// for an optional address that could not be opened). port 0 means none;
// -1 means a failed rebind left them closed (any configuration differs).
type portListeners struct {
	binds []string
	port  int
	lns   []net.Listener
}

// any returns the first open listener, or nil.
func (p *portListeners) first() net.Listener {
	for _, ln := range p.lns {
		if ln != nil {
			return ln
		}
	}
	return nil
}

// closeAll closes every listener of p and leaves it closed (port -1).
func (p *portListeners) closeAll() {
	for _, ln := range p.lns {
		if ln != nil {
			ln.Close()
		}
	}
	*p = portListeners{port: -1}
}

// bindAddrs returns the bind entries of cfg (127.0.0.1 when none).
func bindAddrs(binds []string) []string {
	if len(binds) == 0 {
		return []string{"127.0.0.1"}
	}
	return binds
}

// Listen opens the listeners for cfg.Bind and cfg.Port (port 0 picks a
// free port, the same for every address; with a Unix socket it means no
// TCP listener, as in Redis), the TLS port when tls-port is set, and the
// Unix socket when unixsocket is set.
func (s *Server) Listen() error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	binds := bindAddrs(s.cfg.Bind)
	port := s.cfg.Port
	if port != 0 || s.ops.unixSocket == "" {
		lns, got, err := s.openPort(binds, port, "TCP")
		if err != nil {
			return err
		}
		s.lns.tcp = portListeners{binds: slices.Clone(binds), port: got, lns: lns}
		s.cfg.Port = got
	}
	if err := s.listenTLSLocked(); err != nil { // tls.go
		s.closeListenersLocked()
		return err
	}
	if err := s.listenUnix(); err != nil { // listen_unix.go
		s.closeListenersLocked()
		return err
	}
	s.lns.listening = true
	return nil
}

// openPort opens one listener per bind entry on port; port 0 takes the
// free port the first listener gets for all of them. kind ("TCP", "TLS")
// names them in the log, as Redis's warning does.
func (s *Server) openPort(binds []string, port int, kind string) ([]net.Listener, int, error) {
	lns := make([]net.Listener, len(binds))
	for i, b := range binds {
		ln, err := s.openAddr(b, port, kind)
		if err != nil {
			closeEach(lns)
			return nil, 0, err
		}
		lns[i] = ln
		if ln != nil && port == 0 {
			port = ln.Addr().(*net.TCPAddr).Port
		}
	}
	return lns, port, nil
}

// openAddr opens the listener of one bind entry; nil without error for an
// optional entry whose address is not available.
func (s *Server) openAddr(bind string, port int, kind string) (net.Listener, error) {
	addr, optional := strings.CutPrefix(bind, "-")
	network, host := "tcp4", addr
	switch {
	case addr == "*":
		host = "0.0.0.0"
	case addr == "::*":
		network, host = "tcp6", "::"
	case strings.Contains(addr, ":"):
		network = "tcp6"
	}
	// KeepAlive -1: Go's accept would turn on its own keepalive (four
	// setsockopt calls per connection) that tuneTCP then sets again.
	lc := net.ListenConfig{KeepAlive: -1}
	ln, err := lc.Listen(context.Background(), network, net.JoinHostPort(host, strconv.Itoa(port)))
	if err == nil {
		if kind == "TCP" {
			return wrapListener(ln), nil // accept_linux.go: the event loop accepts
		}
		return ln, nil
	}
	s.log.Warn("Warning: Could not create server " + kind + " listening socket " + addr + ":" +
		strconv.Itoa(port) + ": " + netErrText(err))
	if optional && addrUnavailable(err) {
		return nil, nil
	}
	return nil, err
}

// netErrText renders a listen error as Redis's anet error ("bind: Address
// already in use", "Name or service not known").
func netErrText(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "Name or service not known"
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Syscall + ": " + strerror(se.Err)
	}
	return err.Error()
}

// addrUnavailable reports the errors an optional bind entry ignores
// (Redis's listenToPort: the address or its protocol is not available).
func addrUnavailable(err error) bool {
	for _, e := range []syscall.Errno{syscall.EADDRNOTAVAIL, syscall.EAFNOSUPPORT, syscall.EPROTONOSUPPORT,
		syscall.ENOPROTOOPT, syscall.ESOCKTNOSUPPORT, syscall.EPFNOSUPPORT} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func closeEach(lns []net.Listener) {
	for _, ln := range lns {
		if ln != nil {
			ln.Close()
		}
	}
}

// rebindLocked makes p listen on binds and port (0: not at all), keeping
// the listeners it already has for the same entry and port, opening the
// others before it closes what is no longer wanted. tls marks p as the
// TLS port's listeners (for the accept loops).
func (s *Server) rebindLocked(p *portListeners, binds []string, port int, tls bool) error {
	if port == p.port && slices.Equal(binds, p.binds) {
		return nil
	}
	if port == 0 {
		p.closeAll()
		*p = portListeners{binds: slices.Clone(binds)}
		return nil
	}
	kind := "TCP"
	if tls {
		kind = "TLS"
	}
	keep := map[string]net.Listener{}
	if port == p.port {
		for i, b := range p.binds {
			if p.lns[i] != nil {
				keep[b] = p.lns[i]
			}
		}
	}
	open := func() ([]net.Listener, error) {
		lns := make([]net.Listener, len(binds))
		for i, b := range binds {
			if ln := keep[b]; ln != nil {
				lns[i] = ln
				delete(keep, b) // a repeated entry opens (and fails) as in Redis
				continue
			}
			ln, err := s.openAddr(b, port, kind)
			if err != nil {
				for j, l := range lns[:i] {
					if l != nil && !slices.Contains(p.lns, l) {
						l.Close()
					}
					lns[j] = nil
				}
				return nil, err
			}
			lns[i] = ln
		}
		return lns, nil
	}
	lns, err := open()
	if err != nil && port == p.port && errors.Is(err, syscall.EADDRINUSE) {
		// One of the old listeners may hold the address: close them all
		// and open again (Redis closes the old listeners before it binds).
		p.closeAll()
		keep = map[string]net.Listener{}
		lns, err = open()
	}
	if err != nil {
		return err
	}
	for _, old := range p.lns {
		if old != nil && !slices.Contains(lns, old) {
			old.Close()
		}
	}
	oldLns := p.lns
	*p = portListeners{binds: slices.Clone(binds), port: port, lns: lns}
	for _, ln := range lns {
		if ln != nil && !slices.Contains(oldLns, ln) {
			s.startAcceptLocked(ln, tls)
		}
	}
	return nil
}

// applyBind is the apply step of bind: the plain port and the TLS port
// listen on the new addresses (config.c applyBind).
func applyBind(s *Server) error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if !s.lns.listening {
		return nil
	}
	binds := bindAddrs(s.cfg.Bind)
	if err := s.rebindLocked(&s.lns.tcp, binds, s.cfg.Port, false); err != nil {
		return errors.New("Failed to bind to specified addresses.")
	}
	if err := s.rebindLocked(&s.lns.tls, binds, s.tlsPortLocked(), true); err != nil {
		return errors.New("Failed to bind to specified addresses.")
	}
	return nil
}

// applyPort is the apply step of port (config.c updatePort).
func applyPort(s *Server) error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if !s.lns.listening {
		return nil
	}
	if err := s.rebindLocked(&s.lns.tcp, bindAddrs(s.cfg.Bind), s.cfg.Port, false); err != nil {
		return errors.New("Unable to listen on this port. Check server logs.")
	}
	return nil
}

// listenStartLocked registers the apply steps of the listeners (wiring.go).
func (s *Server) listenStartLocked() {
	s.params.onApply(applyBind, "bind")
	s.params.onApply(applyPort, "port")
}

// Addr returns the address of the first listener: the plain port's, else
// the TLS port's, else the Unix socket's (nil when none is open).
func (s *Server) Addr() net.Addr {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	for _, ln := range []net.Listener{s.lns.tcp.first(), s.lns.tls.first(), s.lns.unix} {
		if ln != nil {
			return ln.Addr()
		}
	}
	return nil
}

// TLSAddr returns the address of the first TLS listener (nil when
// tls-port is 0).
func (s *Server) TLSAddr() net.Addr {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if ln := s.lns.tls.first(); ln != nil {
		return ln.Addr()
	}
	return nil
}

// Serve accepts connections on the listeners opened by Listen (and on
// those CONFIG SET opens later) and runs the background tasks, until Close
// or SHUTDOWN.
func (s *Server) Serve() error {
	s.lnMu.Lock()
	if s.lns.tcp.first() == nil && s.lns.tls.first() == nil && s.lns.unix == nil {
		s.lnMu.Unlock()
		return errors.New("not listening")
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.cron()
	}()
	go func() {
		defer s.wg.Done()
		s.loop.run()
	}()
	s.lns.serving = true
	for _, ln := range s.lns.tcp.lns {
		if ln != nil {
			s.startAcceptLocked(ln, false)
		}
	}
	for _, ln := range s.lns.tls.lns {
		if ln != nil {
			s.startAcceptLocked(ln, true)
		}
	}
	if s.lns.unix != nil {
		s.startAcceptLocked(s.lns.unix, false)
	}
	s.lnMu.Unlock()
	<-s.stopped
	return nil
}

// startAcceptLocked starts accepting on ln once the server serves (lnMu):
// in the event loop for a plain TCP listener on Linux (accept_linux.go),
// else in an accept loop of its own.
func (s *Server) startAcceptLocked(ln net.Listener, tls bool) {
	if !s.lns.serving || s.closing.Load() {
		return
	}
	if !tls && s.watchListener(ln) {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.acceptLoop(ln, tls)
	}()
}

// acceptLoop accepts on ln until it is closed; each connection is handed
// to the event loop (TLS connections after their handshake, tls.go).
func (s *Server) acceptLoop(ln net.Listener, tls bool) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.closing.Load() || s.ops.listenersClosed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				s.log.Warn("Accepting client connection: " + err.Error())
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if tls {
				s.serveTLSConn(conn)
			} else {
				s.serveConn(conn)
			}
		}()
	}
}

// closeListeners closes every listener (Close, SHUTDOWN).
func (s *Server) closeListeners() {
	s.lnMu.Lock()
	s.closeListenersLocked()
	s.lnMu.Unlock()
}

func (s *Server) closeListenersLocked() {
	s.lns.tcp.closeAll()
	s.lns.tls.closeAll()
	if s.lns.unix != nil {
		s.lns.unix.Close()
		s.lns.unix = nil
	}
}
