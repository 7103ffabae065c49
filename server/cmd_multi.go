package server

import (
	"github.com/miniwatchd/miniwatchd/multi"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

// WATCH, UNWATCH, MULTI, EXEC, DISCARD (Redis multi.c; spec sections 1-3).

var multiCommands = []commandDef{
	{"watch", cmdWatch},
	{"unwatch", cmdUnwatch},
	{"multi", cmdMulti},
	{"exec", cmdExec},
	{"discard", cmdDiscard},
}

func cmdWatch(c *client, args [][]byte) {
	if c.multi.Active() {
		c.fail(protocol.ErrWatchInMulti)
		return
	}
	s := c.srv
	s.noteWatchLocked()
	if !c.watch.Dirty() {
		for _, key := range args[1:] {
			c.watch.Watch(c.db.Watched(), c.db.ID(), string(key), c.db.KeyIsExpired(key))
		}
	}
	c.w.OK()
}

func cmdUnwatch(c *client, args [][]byte) {
	c.watch.Reset()
	c.w.OK()
}

func cmdMulti(c *client, args [][]byte) {
	if c.multi.Active() {
		c.fail(protocol.ErrMultiNested)
		return
	}
	c.multi.Begin()
	c.w.OK()
}

func cmdDiscard(c *client, args [][]byte) {
	if !c.multi.Active() {
		c.fail(protocol.ErrDiscardNoMulti)
		return
	}
	c.srv.discardTransactionLocked(c)
	c.w.OK()
}

// discardTransactionLocked ends a transaction: queue, flags and watches go
// (Redis's discardTransaction).
func (s *Server) discardTransactionLocked(c *client) {
	c.multi.Reset()
	c.watch.Reset()
}

func cmdExec(c *client, args [][]byte) {
	s := c.srv
	if !c.multi.Active() {
		c.fail(protocol.ErrExecNoMulti)
		return
	}
	if r := s.watchedKeyExpiredLocked(c); r != nil {
		c.watch.MarkDirtyExpired(r) // T-3: a watched live key ran out of time
	}
	switch c.multi.Decide(c.watch.Dirty()) {
	case multi.AbortExec:
		s.noteExecLocked(c, execAbortErr)
		c.fail(protocol.ErrExecAbort)
		s.discardTransactionLocked(c)
		return
	case multi.AbortCAS:
		s.noteExecLocked(c, execAborted)
		c.w.NullArray()
		s.discardTransactionLocked(c)
		return
	}
	s.noteExecLocked(c, execCommitted)
	c.watch.UnwatchAll() // M-8b: our own writes must not abort us
	prevDeny := c.denyBlocking
	c.denyBlocking = true
	c.inExec = true
	c.w.Array(c.multi.Len())
	c.multi.Each(func(cmd any, qargs [][]byte) {
		if u := c.user; u != nil && !u.full { // ACL rules may have changed (acl_check.go)
			if err := s.aclExecCheckLocked(c, u, cmd.(*command), qargs); err != "" {
				c.fail(err)
				return
			}
		}
		s.call(c, cmd.(*command), qargs)
	})
	c.inExec = false
	c.denyBlocking = prevDeny
	s.discardTransactionLocked(c)
}

// watchedKeyExpiredLocked returns a record of a key the client watched
// while it was alive that is now past its deadline, or nil (Redis's
// isWatchedKeyExpired).
func (s *Server) watchedKeyExpiredLocked(c *client) *watch.Record {
	recs := c.watch.Records()
	for i := range recs {
		r := &recs[i]
		if r.Expired() {
			continue
		}
		if s.ks.DB(r.DB()).KeyIsExpired([]byte(r.Key())) {
			return r
		}
	}
	return nil
}
