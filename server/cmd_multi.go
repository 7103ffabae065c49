package server

import (
	"github.com/miniwatchd/miniwatchd/multi"
	"github.com/miniwatchd/miniwatchd/protocol"
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
	if s.watchedKeyExpiredLocked(c) {
		c.watch.MarkDirty() // T-3: a watched live key ran out of time
	}
	switch c.multi.Decide(c.watch.Dirty()) {
	case multi.AbortExec:
		c.fail(protocol.ErrExecAbort)
		s.discardTransactionLocked(c)
		return
	case multi.AbortCAS:
		c.w.NullArray()
		s.discardTransactionLocked(c)
		return
	}
	c.watch.UnwatchAll() // M-8b: our own writes must not abort us
	prevDeny := c.denyBlocking
	c.denyBlocking = true
	c.inExec = true
	c.w.Array(c.multi.Len())
	c.multi.Each(func(cmd any, qargs [][]byte) {
		s.call(c, cmd.(*command), qargs)
	})
	c.inExec = false
	c.denyBlocking = prevDeny
	s.discardTransactionLocked(c)
}

// watchedKeyExpiredLocked reports whether a key the client watched while it
// was alive is now past its deadline (Redis's isWatchedKeyExpired).
func (s *Server) watchedKeyExpiredLocked(c *client) bool {
	for _, r := range c.watch.Records() {
		if r.Expired() {
			continue
		}
		if s.ks.DB(r.DB()).KeyIsExpired([]byte(r.Key())) {
			return true
		}
	}
	return false
}
