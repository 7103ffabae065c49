package server

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The hook contributions of pub/sub, keyspace notifications and
// client-side caching; wiring.go lists where each one runs. The checks
// before a call take Redis 7.0's processCommand positions: the tracking
// table limit right after the out-of-memory check, the RESP2 pub/sub
// context check after the replica checks.

// trackingBatchEnd sends, once a client's batch of commands is done, the
// invalidations still pending and the BCAST ones collected meanwhile.
func trackingBatchEnd(s *Server, c *client) {
	s.flushPendingInvalidationsLocked()
	s.broadcastInvalidationsLocked()
}

// pubsubClientFree drops a freed client's subscriptions and tracking.
func pubsubClientFree(s *Server, c *client) {
	s.dropSubscriptionsLocked(c)
	s.disableTrackingLocked(c)
	if s.ps.current == c {
		s.ps.current = nil
	}
}

// pubsubReset is RESET's part: tracking off, then every subscription
// dropped (Redis's clearClientConnectionState).
func pubsubReset(s *Server, c *client) {
	s.disableTrackingLocked(c)
	s.dropSubscriptionsLocked(c)
}

// trackingBeforeCommand notes the client whose command starts (Redis's
// server.current_client) and ends the life of a CLIENT CACHING flag: it
// covers the one command (or transaction) after CLIENT CACHING, and is
// cleared after any command that is not a CLIENT subcommand, outside
// MULTI, as Redis's resetClient does.
func trackingBeforeCommand(s *Server, c *client, args [][]byte) {
	s.ps.current = c
	t := &c.ps.tracking
	if t.caching && !t.prevWasClient && !c.multi.Active() {
		t.caching = false
	}
	t.prevWasClient = false
	if len(args) >= 2 && bytes.EqualFold(args[0], []byte("client")) {
		if cmd, _ := s.table.lookup(args); cmd != nil && cmd.parent != nil {
			t.prevWasClient = true
		}
	}
}

// trackingLimitCheck keeps the tracking table under tracking-table-max-keys
// before a command runs; it never rejects.
func trackingLimitCheck(s *Server, c *client, cmd *command) protocol.Error {
	if s.ps.tracking.clients > 0 {
		s.trackingLimitUsedSlotsLocked(c)
	}
	return ""
}

// pubsubContextCheck refuses, for a RESP2 client in pub/sub mode, every
// command but the subscription commands, PING, QUIT and RESET. RESP3
// clients may run anything while subscribed.
func pubsubContextCheck(s *Server, c *client, cmd *command) protocol.Error {
	if c.w.Proto == 3 || !c.ps.subscribed() {
		return ""
	}
	switch cmd.name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe",
		"psubscribe", "punsubscribe", "quit", "reset":
		return ""
	}
	return protocol.Error("ERR Can't execute '" + cmd.name +
		"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
}

// trackingAfterCall remembers the keys of a read command for its client
// (Redis 7.0's call: trackingRememberKeys). A read command run by a script
// remembers the keys of the script's caller's command, that is the keys
// the script declared (Redis 7.0 passes the caller's argv), not the keys
// the command read: a script that reads nothing remembers none. Read-only
// script commands themselves are skipped, as in Redis.
func trackingAfterCall(s *Server, c *client, cmd *command, args [][]byte) {
	if !cmd.has(flagReadonly) || cmd.has(flagPubSub) {
		return
	}
	caller := c
	if c.sock == nil {
		if caller = s.currentLocked(); caller == nil {
			return
		}
	}
	if t := &caller.ps.tracking; !t.on || t.bcast {
		return
	}
	if run := s.scripting.run; run != nil && c == s.scripting.sc {
		if cmd, _ = s.table.lookup(run.argv); cmd == nil {
			return
		}
		s.trackingRememberKeysLocked(caller, cmd, run.argv)
		return
	}
	switch cmd.name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	s.trackingRememberKeysLocked(caller, cmd, args)
}

// pubsubPing answers PING for a RESP2 client in pub/sub mode with a "pong"
// message (the argument, or an empty string).
func pubsubPing(c *client, args [][]byte) bool {
	if c.w.Proto == 3 || !c.ps.subscribed() {
		return false
	}
	c.w.Array(2)
	c.w.BulkString("pong")
	if len(args) == 1 {
		c.w.BulkString("")
	} else {
		c.w.Bulk(args[1])
	}
	return true
}

// clientPubSubInfo supplies CLIENT LIST's sub=, psub=, ssub=, redir= and the
// flag letters P (pub/sub), t (tracking), R (broken redirect), B (BCAST).
func clientPubSubInfo(s *Server, c *client) (sub, psub, ssub int, redir int64, flags string) {
	p := &c.ps
	redir = -1
	if p.tracking.on {
		redir = p.tracking.redirect
	}
	var b []byte
	if p.subscribed() {
		b = append(b, 'P')
	}
	if p.tracking.on {
		b = append(b, 't')
	}
	if p.tracking.brokenRedir {
		b = append(b, 'R')
	}
	if p.tracking.bcast {
		b = append(b, 'B')
	}
	return p.subs[kindChannel].len(), p.subs[kindPattern].len(), p.subs[kindShard].len(), redir, string(b)
}

// clientFlagOrder is the order of the flag letters in Redis's
// catClientInfoString (T, NO-TOUCH, is 7.2's and comes last).
const clientFlagOrder = "OSMPxbtRBdcuAUreT"

// mergeClientFlags merges the letters subsystems add into base ("N" when
// empty), in Redis's order.
func mergeClientFlags(base, extra string) string {
	if extra == "" {
		return base
	}
	if base == "N" {
		base = ""
	}
	all := base + extra
	b := make([]byte, 0, len(all))
	for i := 0; i < len(clientFlagOrder); i++ {
		if strings.IndexByte(all, clientFlagOrder[i]) >= 0 {
			b = append(b, clientFlagOrder[i])
		}
	}
	for i := 0; i < len(all); i++ { // letters outside the table keep their place at the end
		if strings.IndexByte(clientFlagOrder, all[i]) < 0 {
			b = append(b, all[i])
		}
	}
	return string(b)
}

// infoPubSubStats appends the pub/sub and tracking fields of INFO stats.
func infoPubSubStats(s *Server, b *strings.Builder) {
	ts := &s.ps.tracking
	line := func(name string, v int) {
		b.WriteString(name)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(v))
		b.WriteString("\r\n")
	}
	line("pubsub_channels", len(s.ps.subs[kindChannel]))
	line("pubsub_patterns", len(s.ps.subs[kindPattern]))
	line("pubsubshard_channels", len(s.ps.subs[kindShard]))
	line("tracking_total_keys", len(ts.table))
	line("tracking_total_items", ts.items)
	line("tracking_total_prefixes", len(ts.prefixes))
}

// trackingClientsLocked is INFO clients' tracking_clients.
func (s *Server) trackingClientsLocked() int { return s.ps.tracking.clients }
