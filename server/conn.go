package server

import (
	"errors"
	"net"
	"os"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/poll"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Connection handling: the accept goroutine registers each new connection
// with the event loop (eventloop.go), which reads, runs and writes for every
// client from one goroutine. A client's whole query buffer runs in one go
// (processLocked), as Redis's processInputBuffer does.

// serveConn hands a new connection to the event loop, or refuses it when
// maxclients is reached. The socket is taken out of Go's network poller
// (poll.TakeSocket: duplicated, the net.Conn closed): the event loop alone
// waits on it, so the runtime does no work for it.
func (s *Server) serveConn(conn net.Conn) {
	c := s.newClient(conn)
	if c == nil {
		return
	}
	sock, err := poll.TakeSocket(conn) // closes conn; the duplicate stays open
	s.attachSocket(c, sock, err)
}

// attachSocket hands client c's socket to the event loop, or frees c when
// taking the socket failed (err).
func (s *Server) attachSocket(c *client, sock *os.File, err error) {
	if err != nil {
		s.log.Warn("cannot take over the connection's socket", "addr", c.addr, "err", err)
		s.mu.Lock()
		s.freeClientLocked(c)
		s.mu.Unlock()
		return
	}
	fd := int(sock.Fd())
	rc, _ := sock.SyscallConn()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		s.freeClientLocked(c)
		sock.Close()
		return
	}
	c.sock, c.fd = sock, fd // under the lock: Close reads them
	s.loop.conns[c.fd] = c
	if err := s.loop.p.Add(c.fd, rc); err != nil {
		s.log.Warn("cannot watch connection", "addr", c.addr, "err", err)
		s.loop.freeLocked(c)
	}
}

// newClient registers a connection, or refuses it when maxclients is
// reached or protected mode denies it (with Redis's errors). The socket
// options are set after the engine lock is left: their five system calls
// need no lock, and every other client waits while it is held.
func (s *Server) newClient(conn net.Conn) *client {
	s.mu.Lock()
	c, keepalive := s.newClientLocked(conn)
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tuneTCP(tc, keepalive)
	}
	return c
}

// newClientLocked is newClient's part under the engine lock: it refuses
// conn (writing the error and closing it) and returns nil, or registers
// the client and returns it with the tcp-keepalive its socket is to get.
func (s *Server) newClientLocked(conn net.Conn) (*client, int64) {
	if len(s.clients) >= s.cfg.MaxClients {
		s.stats.rejectedConnections.Add(1)
		conn.Write([]byte("-ERR max number of clients reached\r\n"))
		conn.Close()
		return nil, 0
	}
	if s.protectedDenyLocked(conn) { // protected.go
		s.stats.rejectedConnections.Add(1)
		conn.Write([]byte(deniedText))
		conn.Close()
		return nil, 0
	}
	c := &client{
		fd:        -1,
		srv:       s,
		id:        s.nextID.Add(1),
		db:        s.ks.DB(0),
		createdAt: time.Now(),
		addr:      conn.RemoteAddr().String(),
	}
	if _, lazy := conn.(lazyLocal); !lazy {
		c.laddr = conn.LocalAddr().String()
	}
	c.w.Proto = 2
	if n := len(s.qbufs); n > 0 {
		c.parser.GiveBuffer(s.qbufs[n-1])
		s.qbufs[n-1] = nil
		s.qbufs = s.qbufs[:n-1]
	}
	s.initUnixClient(c, conn) // listen_unix.go
	s.resetClientUserLocked(c)
	c.parser.MaxBulkLen = s.cfg.ProtoMaxBulkLen
	c.lastActive.Store(time.Now().UnixMilli())
	s.clients[c.id] = c
	s.ring.add(c)
	s.stats.totalConnections.Add(1)
	return c, s.paramInt("tcp-keepalive")
}

// lazyLocal is a connection whose local address costs a system call
// (fdConn): the client reads it on first use, from its sock.
type lazyLocal interface {
	net.Conn
	lazyLocalAddr()
}

// localAddr is the client's laddr, read from its socket on first use
// when the connection is a lazyLocal one. Engine lock held.
func (c *client) localAddr() string {
	if c.laddr == "" {
		if lc, ok := c.sock.(lazyLocal); ok {
			c.laddr = lc.LocalAddr().String()
		}
	}
	return c.laddr
}

// freeClientLocked drops a client's server-side state.
func (s *Server) freeClientLocked(c *client) {
	if _, ok := s.clients[c.id]; !ok {
		return
	}
	s.dropClientWatchesLocked(c) // watch_obs.go: counted and timed
	c.multi.Reset()
	for _, fn := range s.hooks.clientFree {
		fn(s, c)
	}
	delete(s.clients, c.id)
	s.ring.remove(c)
	s.mem.clients -= c.memCounted
	if !c.executing && len(s.qbufs) < maxPooledQueryBufs {
		if b := c.parser.TakeBuffer(); b != nil {
			s.qbufs = append(s.qbufs, b)
		}
	}
}

// maxPooledQueryBufs bounds the query buffers freed clients leave for new
// ones (16KB each: 1MB in all). A connection that sends one command and
// closes, as a health check or a short-lived test process does, would
// otherwise allocate 16KB the collector must reclaim: a collection every
// hundred or so connections. A client freed while its own command runs
// (CLIENT KILL of itself, a script's caller) keeps its buffer, whose
// arguments that command may still read.
const maxPooledQueryBufs = 64

// processLocked runs every complete command in c's query buffer, stopping
// when c blocks, is to be closed, or is killed; its replies are queued for
// writing at the end of the event loop round.
func (s *Server) processLocked(c *client) {
	c.executing = true
	// Redis trims the query buffer after the batch, so while its commands
	// run (CLIENT LIST / INFO of this client) qbuf= counts all of it.
	c.qbuf.Store(int64(c.parser.Buffered()))
	for !c.closeAfterRply && !c.killed.Load() && c.blocked == nil && !c.faultHold {
		c.parser.Unauthenticated = !c.authenticated
		args, ok, err := c.parser.Next()
		if err != nil {
			c.fail(protocol.Error(protocolErrorReply(err)))
			s.log.Debug("protocol error from client", "id", c.id, "addr", c.addr, "err", err)
			c.closeAfterRply = true
			break
		}
		if !ok {
			break
		}
		if c.link != nil { // the master's stream (repl_replica.go)
			s.masterCommandLocked(c, args)
			continue
		}
		if len(args) == 0 {
			continue // an empty inline line or *0: no reply
		}
		if !s.runCommandLocked(c, args) { // CLIENT REPLY modes (cmd_pause.go)
			// Closed without a reply (a cross-protocol attack): drop what
			// is unwritten, as Redis frees such a client at once.
			c.w.Buf = c.w.Buf[:c.wpos]
			c.killed.Store(true)
			s.loop.closeLocked(c)
			break
		}
		if c.pending() > 0 {
			s.checkOutputLimitLocked(c, true) // limits.go: client-output-buffer-limit
		}
	}
	for _, fn := range s.hooks.batchEnd {
		fn(s, c)
	}
	c.executing = false
	c.qbuf.Store(int64(c.parser.Buffered()))
	if c.pending() > 0 || c.closeAfterRply {
		s.loop.queueWriteLocked(c)
	}
}

func protocolErrorReply(err error) string {
	var pe *protocol.ProtocolError
	if errors.As(err, &pe) {
		return string(pe.Reply())
	}
	return "ERR " + err.Error()
}

// tuneTCP sets an accepted socket's options as Redis does
// (connCreateAcceptedSocket, anetKeepAlive): TCP_NODELAY, and with
// tcp-keepalive > 0 SO_KEEPALIVE with the first probe after that many
// seconds of silence, then every third of it, three probes in all. The
// value is read at accept: CONFIG SET tcp-keepalive applies to new
// connections. Go set TCP_NODELAY already (every TCPConn it accepts or
// dials starts with it), and the listeners are opened with KeepAlive -1
// (listen.go) so that accept does not set a keepalive of its own first.
// With tcp-keepalive 0 keepalive is turned off (the master link, dialed,
// has Go's default on).
func tuneTCP(tc *net.TCPConn, keepalive int64) {
	if keepalive <= 0 {
		tc.SetKeepAlive(false)
		return
	}
	period := time.Duration(keepalive) * time.Second
	tc.SetKeepAliveConfig(net.KeepAliveConfig{
		Enable: true, Idle: period, Interval: max(period/3, time.Second), Count: 3,
	})
}
