package server

import (
	"errors"
	"net"
	"os"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Connection handling: one goroutine per connection reads into the client's
// query buffer, runs every complete command of the batch under ONE
// acquisition of the engine lock (as Redis runs a client's whole query buffer
// in one event-loop turn), moves the replies to the output buffer, releases
// the lock and writes. Pipelined commands therefore cost one lock round and
// one write syscall per batch, not per command.

// serveConn runs a connection until it closes.
func (s *Server) serveConn(conn net.Conn) {
	c := s.newClient(conn)
	if c == nil {
		return
	}
	defer s.freeClient(c)
	for {
		n, err := c.parser.Fill(conn)
		if n > 0 {
			s.stats.netInputBytes.Add(int64(n))
			if !s.processInput(c) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && !c.killed.Load() {
				// A wake-up from an unblock (or a late one): resume the
				// commands that arrived while the client was blocked.
				conn.SetReadDeadline(time.Time{})
				if !s.processInput(c) {
					return
				}
				continue
			}
			return
		}
	}
}

// newClient registers a connection, or refuses it when maxclients is
// reached (with Redis's error).
func (s *Server) newClient(conn net.Conn) *client {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		tc.SetKeepAlive(true)
		tc.SetKeepAlivePeriod(300 * time.Second)
	}
	s.mu.Lock()
	if len(s.clients) >= s.cfg.MaxClients {
		s.mu.Unlock()
		s.stats.rejectedConnections.Add(1)
		conn.Write([]byte("-ERR max number of clients reached\r\n"))
		conn.Close()
		return nil
	}
	c := &client{
		srv:       s,
		id:        s.nextID.Add(1),
		conn:      conn,
		db:        s.ks.DB(0),
		createdAt: time.Now(),
		addr:      conn.RemoteAddr().String(),
		laddr:     conn.LocalAddr().String(),
	}
	c.w.Proto = 2
	c.authenticated = s.cfg.RequirePass == ""
	c.parser.MaxBulkLen = s.cfg.ProtoMaxBulkLen
	c.lastActive.Store(time.Now().UnixMilli())
	s.clients[c.id] = c
	s.mu.Unlock()
	s.stats.totalConnections.Add(1)
	return c
}

// freeClient unregisters a client and releases everything it holds
// (watches, blocking state, subscriptions).
func (s *Server) freeClient(c *client) {
	s.mu.Lock()
	s.freeClientLocked(c)
	s.mu.Unlock()
	c.out.close()
	c.conn.Close()
}

// freeClientLocked drops a client's server-side state.
func (s *Server) freeClientLocked(c *client) {
	if _, ok := s.clients[c.id]; !ok {
		return
	}
	c.watch.Reset()
	c.multi.Reset()
	for _, fn := range clientFreeHooks {
		fn(s, c)
	}
	delete(s.clients, c.id)
}

// batchEndHooks run under the engine lock when a client's batch of commands
// is done, before its replies move to the output buffer (Redis's
// beforeSleep duties: broadcast invalidations of client-side caching).
var batchEndHooks []func(s *Server, c *client)

// clientFreeHooks are run, under the engine lock, when a client goes away;
// subsystems (blocking, pub/sub, tracking) register theirs in init.
var clientFreeHooks []func(s *Server, c *client)

// processInput runs every complete command in the query buffer. It returns
// false when the connection must be closed.
func (s *Server) processInput(c *client) bool {
	s.mu.Lock()
	s.cmdStart = time.Now() // each command of the batch starts when the previous ended
	c.executing = true
	for !c.closeAfterRply && !c.killed.Load() && c.blocked == nil {
		c.parser.Unauthenticated = !c.authenticated
		args, ok, err := c.parser.Next()
		if err != nil {
			c.w.Error(protocolErrorReply(err))
			s.log.Debug("protocol error from client", "id", c.id, "addr", c.addr, "err", err)
			c.closeAfterRply = true
			break
		}
		if !ok {
			break
		}
		if len(args) == 0 {
			continue // an empty inline line or *0: no reply
		}
		if !s.processCommand(c, args) {
			c.closeAfterRply = true
			c.w.Buf = c.w.Buf[:0]
			break
		}
	}
	for _, fn := range batchEndHooks {
		fn(s, c)
	}
	c.executing = false
	s.cmdStart = time.Time{}
	c.qbuf.Store(int64(c.parser.Buffered()))
	c.out.take(&c.w.Buf)
	closing := c.closeAfterRply || c.killed.Load()
	s.mu.Unlock()
	if err := c.out.flush(c.conn); err != nil {
		return false
	}
	return !closing
}

func protocolErrorReply(err error) string {
	var pe *protocol.ProtocolError
	if errors.As(err, &pe) {
		return string(pe.Reply())
	}
	return "ERR " + err.Error()
}
