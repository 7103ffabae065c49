package server

import "strings"

// compatProfile is watch-compat: whose transaction rules apply (spec
// watch.md section 9). The default, redis-7.0, is Redis 7.0.15's.
type compatProfile uint8

const (
	compatRedis70 compatProfile = iota
	compatRedis72
	compatRedis74
	compatValkey8
)

var compatNames = [...]string{"redis-7.0", "redis-7.2", "redis-7.4", "valkey-8"}

func (p compatProfile) String() string { return compatNames[p] }

func parseCompat(name string) compatProfile {
	for i, n := range compatNames {
		if n == name {
			return compatProfile(i)
		}
	}
	return compatRedis70
}

// The rules each profile changes. Each names its source; tests in
// watch_compat_test.go state the same.

// refusesAllWhileQueueingOOM: out of memory while queueing in MULTI, Redis
// 7.0 and 7.2 refuse every command but EXEC, DISCARD, QUIT and RESET; 7.4
// refuses only deny-oom commands (redis/redis #12961, server.c
// processCommand: "is_denyoom_command" without the CLIENT_MULTI clause;
// spec watch.md section 9).
func (p compatProfile) refusesAllWhileQueueingOOM() bool { return p != compatRedis74 }

// blockingInScript: Redis 7.0 flags BLPOP, BRPOP, BLMOVE, BRPOPLPUSH,
// BZPOPMIN and BZPOPMAX no-script; 7.2 (redis/redis #11568) lets scripts call
// every blocking command, which then acts as its non-blocking form (the
// script client never blocks). Valkey 8 forked from 7.2 and keeps it.
func (p compatProfile) blockingInScript(cmd *command) bool {
	if p == compatRedis70 {
		return false
	}
	switch cmd.name {
	case "blpop", "brpop", "blmove", "brpoplpush", "bzpopmin", "bzpopmax":
		return true
	}
	return false
}

// infoWatchingClients is Redis 7.4's INFO clients watching_clients (clients
// with at least one watched key; redis/redis #12966, printed after
// pubsub_clients, which follows tracking_clients). Only under redis-7.4, so
// 7.0's INFO layout is unchanged by default.
func (s *Server) infoWatchingClients(b *strings.Builder) {
	if s.wobs.compat != compatRedis74 {
		return
	}
	n := 0
	for _, c := range s.clients {
		if c.watch.Count() > 0 {
			n++
		}
	}
	field(b, "watching_clients", n)
}

// infoTotalWatchedKeys is Redis 7.4's total_watched_keys (distinct watched
// keys over every db; #12966), after clients_in_timeout_table.
func (s *Server) infoTotalWatchedKeys(b *strings.Builder) {
	if s.wobs.compat != compatRedis74 {
		return
	}
	field(b, "total_watched_keys", s.ks.TouchContext().Stats.Keys)
}

// noMulti: Valkey 8 flags MULTI and WATCH no-multi (valkey-io/valkey #723,
// in 8.0): a nested MULTI or a WATCH inside MULTI is refused with "ERR
// Command not allowed inside a transaction" and, being rejected, poisons
// the transaction, so EXEC replies EXECABORT. Redis 7.0 to 7.4 reply their
// own errors and let the transaction run (spec W-7, E-7).
func (p compatProfile) noMulti(cmd *command) bool {
	return p == compatValkey8 && (cmd.name == "multi" || cmd.name == "watch")
}
