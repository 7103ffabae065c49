package server

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

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
	queryBufLimit  int64 // client-query-buffer-limit, bytes
	evictLimit     int64 // maxmemory-clients in bytes (0: off), clientEvictionLimitLocked
	evictedClients int64 // INFO evicted_clients
}

var limitParams = []string{"client-query-buffer-limit", "proto-max-bulk-len", "maxmemory-clients", "maxmemory"}

// limitsStartLocked caches the parameters and registers their CONFIG SET
// hook (wiring.go).
func (s *Server) limitsStartLocked() {
	s.loadLimitsLocked()
	s.params.onApply(func(s *Server) error { s.loadLimitsLocked(); return nil }, limitParams...)
}

func (s *Server) loadLimitsLocked() {
	s.lim.queryBufLimit = s.paramInt("client-query-buffer-limit")
	s.lim.evictLimit = s.clientEvictionLimitLocked()
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

// Client eviction (maxmemory-clients, Redis 7.0 evictClients): before the
// event loop sleeps, while the normal and pub/sub clients together use at
// least the limit (bytes, or a percentage of maxmemory), the client using
// most is closed ("Evicting client: ..." logged, INFO evicted_clients),
// except clients with CLIENT NO-EVICT on. A client's memory is its query
// and output buffers, as CLIENT LIST's tot-mem reports it.

// clientEvictionLimitLocked is Redis's getClientEvictionLimit (0: off).
func (s *Server) clientEvictionLimitLocked() int64 {
	v := s.paramText("maxmemory-clients")
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, _ := strconv.ParseInt(pct, 10, 64)
		return int64(s.cfg.MaxMemory) * n / 100
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// clientMemory is the memory a client accounts for (CLIENT LIST tot-mem).
func clientMemory(c *client) int64 { return int64(c.parser.Cap() + cap(c.w.Buf)) }

// evictClientsLocked closes the largest clients while over the limit.
func (s *Server) evictClientsLocked() {
	limit := s.lim.evictLimit // cached at start and CONFIG SET (loadLimitsLocked)
	if limit <= 0 {
		return
	}
	var total int64
	var cands []*client
	for _, c := range s.clients {
		if c.sock == nil || c.killed.Load() || c.ops.monitor {
			continue // internal clients; monitors count as replicas in Redis
		}
		total += clientMemory(c)
		if !c.noEvict && !c.executing { // not the caller of a busy script
			cands = append(cands, c)
		}
	}
	if total < limit {
		return
	}
	slices.SortFunc(cands, func(a, b *client) int { return cmp.Compare(clientMemory(b), clientMemory(a)) })
	for _, c := range cands {
		if total < limit {
			break
		}
		total -= clientMemory(c)
		s.log.Info("Evicting client: " + s.clientInfoLocked(c))
		s.lim.evictedClients++
		s.loop.freeLocked(c)
	}
}
