package server

import "time"

// LocalClient is a client without a connection, for code that embeds the
// server (the Go test package's typed access, the fault injector's
// conflicting writes). Do runs one command through the same path as a
// command read from a socket (runCommandLocked -> processCommand -> call),
// so it is looked up in the command table, checked, propagated to the AOF,
// and its writes go through the db choke point: they break WATCHes, raise
// keyspace events and serve blocked clients like any client's.
//
// A local client is authenticated and has no ACL user (it may run every
// command), never blocks (blocking commands act as their non-blocking
// form, as inside MULTI), is not listed by CLIENT LIST, and faults
// (fault.go) never apply to it. It starts in database 0 speaking RESP2.
// It is safe for concurrent use; each Do takes the engine lock.
type LocalClient struct {
	s *Server
	c *client // guarded by the engine lock
}

// NewLocalClient returns a local client; name is its CLIENT SETNAME name
// (as DEBUG WATCH WHY names the client that touched a key).
func (s *Server) NewLocalClient(name string) *LocalClient {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &LocalClient{s: s, c: s.newLocalClientLocked(name)}
}

// newLocalClientLocked builds a local client's state.
func (s *Server) newLocalClientLocked(name string) *client {
	c := &client{
		fd:            -1,
		srv:           s,
		db:            s.ks.DB(0),
		authenticated: true,
		denyBlocking:  true,
		name:          name,
		createdAt:     time.Now(),
		addr:          "local:0",
		laddr:         "local:0",
		local:         true,
	}
	c.w.Proto = 2
	c.lastActive.Store(time.Now().UnixMilli())
	return c
}

// Do runs one command and returns its reply as the bytes a connection
// would have received (RESP2, or RESP3 after HELLO 3), together with any
// push messages sent to the client meanwhile, in order. A command that
// closes the connection (QUIT) leaves the client usable.
func (l *LocalClient) Do(args ...[]byte) []byte {
	if len(args) == 0 {
		return nil
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runLocalLocked(l.c, args)
}

// runLocalLocked runs args as c's command and returns (and takes) its
// output.
func (s *Server) runLocalLocked(c *client, args [][]byte) []byte {
	if s.closing.Load() {
		return []byte("-ERR server closed\r\n")
	}
	fresh := s.cmdStart.IsZero()
	c.executing = true
	s.runCommandLocked(c, args)
	c.executing = false
	c.closeAfterRply = false
	if fresh {
		s.cmdStart = time.Time{}
	}
	out := c.w.Buf
	c.w.Buf = nil
	if !s.loop.inLoop {
		s.loop.p.Wake() // beforeSleep: the AOF is written, other clients' output sent
	}
	return out
}

// DB reports the database the client has selected.
func (l *LocalClient) DB() int {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	return l.c.db.ID()
}

// Close drops the client's WATCH and MULTI state.
func (l *LocalClient) Close() {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.s.dropClientWatchesLocked(l.c)
	l.c.multi.Reset()
}
