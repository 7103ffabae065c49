package server

import (
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Client limits (Redis networking.c): client-query-buffer-limit closes a
// client whose unparsed input grows past it (readQueryFromClient), and
// client-output-buffer-limit closes one whose pending output does
// (closeClientOnOutputBufferLimitReached, push.go), checked whenever
// output is added and once a second from the cron for the soft limit's
// seconds (clientsCron). maxclients is checked at accept (conn.go).

// limitsState caches the limit parameters (mu).
type limitsState struct {
	queryBufLimit int64 // client-query-buffer-limit, bytes
}

var limitParams = []string{"client-query-buffer-limit", "proto-max-bulk-len"}

// limitsStartLocked caches the parameters and registers their CONFIG SET
// hook (wiring.go).
func (s *Server) limitsStartLocked() {
	s.loadLimitsLocked()
	s.params.onApply(func(s *Server) error { s.loadLimitsLocked(); return nil }, limitParams...)
}

func (s *Server) loadLimitsLocked() {
	s.lim.queryBufLimit = s.paramInt("client-query-buffer-limit")
	for _, c := range s.clients { // Redis reads proto-max-bulk-len at every bulk header
		c.parser.MaxBulkLen = s.cfg.ProtoMaxBulkLen
	}
}

// queryBufOverLocked closes c when its query buffer passed
// client-query-buffer-limit, logging as Redis does, and reports whether
// it did.
func (s *Server) queryBufOverLocked(c *client) bool {
	if int64(c.parser.Buffered()) <= s.lim.queryBufLimit || c.replay {
		return false
	}
	head := c.parser.Unparsed()
	if len(head) > 64 {
		head = head[:64]
	}
	c.qbuf.Store(int64(c.parser.Buffered()))
	s.log.Warn("Closing client that reached max query buffer length: " + s.clientInfoLocked(c) +
		" (qbuf initial bytes: " + string(protocol.AppendRepr(nil, head)) + ")")
	s.loop.freeLocked(c)
	return true
}

// checkOutputLimitLocked applies client-output-buffer-limit to c's
// pending output (replies included) and closes c when it is over.
func (s *Server) checkOutputLimitLocked(c *client, async bool) {
	if c.killed.Load() || !s.loop.registered(c) {
		return
	}
	if s.outputLimitReachedLocked(c, c.pending()) {
		s.closeOverLimitLocked(c, async) // push.go
	}
}

// outputLimitsCronLocked is clientsCron's check: a client that stays over
// the soft limit without new output is closed once its seconds passed.
func (s *Server) outputLimitsCronLocked() {
	for _, c := range s.clients {
		if c.pending() > 0 && !c.executing {
			s.checkOutputLimitLocked(c, false)
		}
	}
}
