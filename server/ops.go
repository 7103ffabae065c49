package server

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Server operations (issue #26): MONITOR (cmd_monitor.go), the slow log
// (slowlog.go), the latency monitor (latency.go), CLIENT PAUSE / REPLY
// (cmd_pause.go) and the standalone replication answers (cmd_repl.go).
//
// All of it is engine state, guarded by the engine lock. Each command call
// (top-level, inside EXEC or from a script) passes through
// opsBeforeCallLocked and opsAfterCallLocked, which do Redis's call()
// duties for these subsystems: feed monitors, log slow commands, sample
// latency. Both return at once when nobody monitors and the thresholds
// leave nothing to record, so the hot path costs two predictable branches.

// opsState is the server-operations state of a Server (mu).
type opsState struct {
	monitors []*client // MONITOR clients, in the order they started (Redis's server.monitors)
	slowlog  slowLog
	latency  latencyMonitor
	pause    pauseState

	// Cached parameters (refreshed by the apply hooks below).
	slowerThan      int64 // slowlog-log-slower-than, µs; <0 logs nothing
	slowMaxLen      int64 // slowlog-max-len
	latencyLimit    int64 // latency-monitor-threshold, ms; 0 is off
	latencyTracking bool  // latency-tracking: per-command histograms
	minReplicas     int64 // min-replicas-to-write
	minReplicasLag  int64 // min-replicas-max-lag
	anyCallDuty     bool  // some after-call duty is on (monitors, slowlog, latency)
	unixSocket      string
	unixSocketPerms uint32

	replID     string // DEBUG CHANGE-REPL-ID's replication id ("" = the run id)
	cronPaused bool   // DEBUG PAUSE-CRON 1: the cron and active expiry stay idle

	// listenersClosed is set by SHUTDOWN before it closes the listeners
	// (read by the accept goroutines without the engine lock).
	listenersClosed atomic.Bool
}

// clientOps is the per-client state of these subsystems (mu).
type clientOps struct {
	monitor   bool // MONITOR: receives the feed (Redis's CLIENT_MONITOR|CLIENT_SLAVE)
	replyOff  bool // CLIENT REPLY OFF
	replySkip bool // CLIENT REPLY SKIP: this command's reply is dropped
	skipNext  bool // CLIENT REPLY SKIP was just run: drop the next command's reply
	// silenced: a command whose reply is to be dropped blocked (its reply
	// comes later); silencedAt is where that reply will start in the
	// output buffer (reset to 0 when the buffer is written out).
	silencedAt int
	silenced   bool
	unix       bool     // connected over the Unix socket (CLIENT LIST flag U)
	postponed  [][]byte // the command held by CLIENT PAUSE (owned copy), or nil
	paused     bool     // the client is postponed by CLIENT PAUSE
}

// opsParams are the parameters whose values this subsystem caches.
var opsParams = []string{
	"slowlog-log-slower-than", "slowlog-max-len", "latency-monitor-threshold",
	"min-replicas-to-write", "min-replicas-max-lag", "latency-tracking",
}

// opsStartLocked caches the subsystem's parameters and registers their
// CONFIG SET hook.
func (s *Server) opsStartLocked() {
	s.loadOpsParamsLocked()
	s.params.onApply(func(s *Server) error { s.loadOpsParamsLocked(); return nil }, opsParams...)
	s.ops.unixSocket = s.paramText("unixsocket")
	if n, err := strconv.ParseUint(s.paramText("unixsocketperm"), 8, 32); err == nil {
		s.ops.unixSocketPerms = uint32(n)
	}
}

// opsClientFree stops a monitor and drops a command CLIENT PAUSE holds.
func opsClientFree(s *Server, c *client) {
	s.stopMonitorLocked(c)
	s.dropPostponedLocked(c)
}

// opsReset is RESET's part: no more MONITOR, CLIENT REPLY back to ON.
func opsReset(s *Server, c *client) {
	s.stopMonitorLocked(c)
	c.ops.replyOff, c.ops.replySkip, c.ops.skipNext = false, false, false
}

// paramText returns a parameter's CONFIG GET text.
func (s *Server) paramText(name string) string {
	v, _ := s.params.Value(name)
	return v
}

func (s *Server) paramInt(name string) int64 {
	n, _ := strconv.ParseInt(s.paramText(name), 10, 64)
	return n
}

// loadOpsParamsLocked refreshes the cached parameters.
func (s *Server) loadOpsParamsLocked() {
	o := &s.ops
	o.slowerThan = s.paramInt("slowlog-log-slower-than")
	o.slowMaxLen = s.paramInt("slowlog-max-len")
	o.latencyLimit = s.paramInt("latency-monitor-threshold")
	o.latencyTracking = s.paramText("latency-tracking") == "yes"
	o.minReplicas = s.paramInt("min-replicas-to-write")
	o.minReplicasLag = s.paramInt("min-replicas-max-lag")
	o.slowlog.trim(o.slowMaxLen)
	s.updateCallDutyLocked()
}

// updateCallDutyLocked recomputes whether opsAfterCallLocked has work.
func (s *Server) updateCallDutyLocked() {
	o := &s.ops
	o.anyCallDuty = len(o.monitors) > 0 || o.slowerThan >= 0 || o.latencyLimit > 0 || o.latencyTracking
}

// opsBeforeCallLocked runs before a command's handler: the commands that
// feed MONITOR themselves before they run (EVAL, EVALSHA, FCALL and their
// _RO forms, flagged skip_monitor) are fed here, so the commands their
// script runs follow them.
func (s *Server) opsBeforeCallLocked(c *client, cmd *command, args [][]byte) {
	if len(s.ops.monitors) > 0 && isSkipMonitor(cmd) {
		s.feedMonitorsLocked(c, cmd, args)
	}
}

// opsAfterCallLocked runs after a command's handler, with its duration:
// the slow log, the latency monitor and the MONITOR feed, in Redis's
// call() order.
func (s *Server) opsAfterCallLocked(c *client, cmd *command, args [][]byte, d time.Duration) {
	if !s.ops.anyCallDuty {
		return
	}
	us := d.Microseconds()
	if s.ops.latencyTracking && c.blocked == nil {
		s.recordLatencyLocked(cmd, us) // latency_hist.go
	}
	if s.ops.latencyLimit > 0 && cmd.name != "exec" {
		event := "command"
		if cmd.has(flagFast) {
			event = "fast-command"
		}
		s.latencyAddSampleLocked(event, us/1000)
	}
	if s.ops.slowerThan >= 0 && us >= s.ops.slowerThan && c.blocked == nil && cmd.name != "exec" {
		s.slowlogPushLocked(c, cmd, args, us)
	}
	if len(s.ops.monitors) > 0 && !isSkipMonitor(cmd) && !cmd.has(flagAdmin) {
		s.feedMonitorsLocked(c, cmd, args)
	}
}

// isSkipMonitor reports Redis's CMD_SKIP_MONITOR: the script commands,
// which feed monitors before they run.
func isSkipMonitor(cmd *command) bool {
	switch cmd.name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// errSubcommandSyntax is Redis's addReplySubcommandSyntaxError for a
// subcommand of container given the wrong arguments.
func errSubcommandSyntax(sub []byte, container string) protocol.Error {
	return protocol.Error("ERR unknown subcommand or wrong number of arguments for '" +
		string(truncForErr(sub)) + "'. Try " + container + " HELP.")
}

// truncForErr cuts b at 128 bytes, as %.128s does.
func truncForErr(b []byte) []byte {
	if len(b) > 128 {
		return b[:128]
	}
	return b
}
