package server

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/script"
)

// Running scripts (Redis script.c): the script client, the checks
// redis.call applies before the server's call, and busy scripts.
//
// A script holds the engine lock for its whole run, as Redis's single
// thread does. Every script.HookPeriod VM instructions the VM asks
// Interrupt whether to go on. Once the script has run longer than
// busy-reply-threshold it is "timed out": from then on every Interrupt
// releases the engine lock for a moment, so other clients' commands run and
// are answered with BUSY unless they are allowed while busy (SCRIPT KILL,
// FUNCTION KILL/STATS, SHUTDOWN NOSAVE, MULTI, WATCH, ...; spec L-14), just
// as Redis's processEventsWhileBlocked serves them from inside the script.
// While a script runs, the cron and the active expiry cycle stay out (they
// wait on scriptDone), so nothing changes the dataset under the script.

// Error texts of busy scripts (shared.slowevalerr, shared.slowscripterr).
var (
	errBusyFunction = protocol.Error("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
	errNotBusy      = protocol.Error("NOTBUSY No scripts in execution right now.")
	errUnkillable   = protocol.Error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
)

// scriptKilledMsg is the error a killed script raises.
const scriptKilledMsg = "Script killed by user with SCRIPT KILL..."

// scripting is the server's scripting state (mu).
type scripting struct {
	engine *script.Engine  // EVAL scripts
	lib    *script.Library // FUNCTION libraries
	// libLogger is set once lib's redis.log goes to the server's log.
	libLogger bool
	sc        *client    // the script client commands of scripts run as
	run       *scriptRun // the running script, or nil
	// done is signalled when a script that released the lock ends.
	done *sync.Cond
	// runBuf and luaRun are the state of the running script, reused by
	// every run (scripts never nest: EVAL and FCALL are no-script).
	runBuf scriptRun
	luaRun script.Run
	// lastName and lastCmd cache the last command scripts looked up
	// (commands without subcommands only): a script mostly calls one.
	lastName []byte
	lastCmd  *command
}

// scriptRun is one running script or function (scriptRunCtx).
type scriptRun struct {
	s        *Server
	caller   *client
	argv     [][]byte  // the caller's command, for FUNCTION STATS
	name     string    // sha or function name
	eval     bool      // EVAL family (else FCALL)
	readOnly bool      // *_RO command or a no-writes script
	start    time.Time // when it started (set by the first Interrupt)
	snapshot int64     // the keyspace time of the script (spec L-12)
	allowOOM bool      // a shebang script with allow-oom
	// crossSlot lets the script touch keys of several slots in cluster
	// mode (allow-cross-slot-keys, or a script without a shebang).
	crossSlot bool
	wrote     bool // a write command ran (SCRIPT_WRITE_DIRTY)
	timedOut  bool // past busy-reply-threshold
	killed    bool // SCRIPT KILL / FUNCTION KILL
}

// scriptsLocked returns the scripting state, creating it on first use.
func (s *Server) scriptsLocked() *scripting {
	st := &s.scripting
	if st.engine == nil {
		st.engine = script.NewEngine()
		st.lib = script.NewLibrary(st.engine)
		st.done = sync.NewCond(&s.mu)
		st.sc = &client{srv: s, db: s.ks.DB(0), denyBlocking: true, createdAt: time.Now(), name: ""}
		st.sc.w.Proto = 2
	}
	return st
}

// scriptBusyLocked reports whether a running script has timed out, so
// that other clients are to be refused with BUSY.
func (s *Server) scriptBusyLocked() bool {
	return s.scripting.run != nil && s.scripting.run.timedOut
}

// scriptBusyError is the BUSY error for the running script's kind.
func (s *Server) scriptBusyError() protocol.Error {
	if r := s.scripting.run; r != nil && !r.eval {
		return errBusyFunction
	}
	return protocol.ErrBusy
}

// busyScriptCheck is processCommand's BUSY step: while a script runs for
// longer than busy-reply-threshold, only allow-busy commands run.
func busyScriptCheck(s *Server, c *client, cmd *command) protocol.Error {
	if s.scriptBusyLocked() && !cmd.has(flagAllowBusy) {
		return s.scriptBusyError()
	}
	return ""
}

// newRunLocked returns the (reused) state of the next script run.
func (s *Server) newRunLocked(name string, eval, readOnly bool) *scriptRun {
	r := &s.scripting.runBuf
	*r = scriptRun{name: name, eval: eval, readOnly: readOnly}
	return r
}

// luaRunLocked returns the (reused) invocation the VM runs under.
func (s *Server) luaRunLocked(h script.Host, name string, keys, args [][]byte) *script.Run {
	lr := &s.scripting.luaRun
	*lr = script.Run{Host: h, Name: name, Keys: keys, Args: args}
	return lr
}

// runScriptLocked runs a script (r names it) for caller, the checks of
// scriptPrepareForRun done; body runs the VM and writes the reply to
// caller.w.
func (s *Server) runScriptLocked(caller *client, args [][]byte, r *scriptRun, body func(h script.Host) script.Result) {
	st := s.scriptsLocked()
	r.s, r.caller, r.argv = s, caller, args
	// The keyspace time was set when the command started (spec L-12).
	r.snapshot = s.ks.Now() // r.start is taken at the first interrupt (time.Now is not free)
	sc := st.sc
	sc.db = caller.db
	sc.w.Reset()
	st.run = r
	s.ks.SetTime(r.snapshot)
	at := len(caller.w.Buf)
	res := body(r)
	st.run = nil
	sc.w.Reset()
	if res.CountErr {
		var reply []byte
		if at <= len(caller.w.Buf) {
			reply = caller.w.Buf[at:]
		}
		s.countReplyErrorLocked(reply)
	}
	if r.timedOut {
		st.done.Broadcast()
	}
}

// Call runs a command for redis.call (scriptCall): the script-specific
// refusals, then the server's call with the script client.
func (r *scriptRun) Call(args [][]byte, proto int) ([]byte, string) {
	s := r.s
	cmd := s.scripting.lastCmd
	if cmd == nil || !bytes.Equal(args[0], s.scripting.lastName) {
		cmd, _ = s.table.lookup(args)
		if cmd != nil && cmd.subs == nil && cmd.parent == nil {
			s.scripting.lastName = append(s.scripting.lastName[:0], args[0]...)
			s.scripting.lastCmd = cmd
		}
	}
	if cmd == nil {
		return r.refuse(nil, "Unknown Redis command called from script")
	}
	if (cmd.arity > 0 && cmd.arity != len(args)) || len(args) < -cmd.arity {
		return r.refuse(cmd, "Wrong number of args calling Redis command from script")
	}
	if cmd.has(flagNoScript) && !s.wobs.compat.blockingInScript(cmd) { // watch_compat.go
		return r.refuse(cmd, "This Redis command is not allowed from script")
	}
	if u := r.caller.user; u != nil && !u.full { // scriptVerifyACL (acl_check.go)
		if msg := s.aclScriptCheckLocked(r.caller, u, cmd, args); msg != "" {
			return r.refuse(cmd, msg)
		}
	}
	if r.readOnly && cmd.has(flagWrite|flagMayReplicate) {
		return r.refuse(cmd, "Write commands are not allowed from read-only scripts.")
	}
	// scriptVerifyOOM: only before the script's first write.
	if s.cfg.MaxMemory != 0 && !r.allowOOM && !r.wrote && s.mem.scriptOOM && cmd.has(flagDenyOOM) {
		return r.refuse(cmd, "-"+string(protocol.ErrOOM))
	}
	if cmd.has(flagWrite) {
		r.wrote = true
	}
	if s.cluster.on && !r.caller.replay { // scriptVerifyClusterState (cluster_redirect.go)
		if msg := s.scriptClusterCheckLocked(r, cmd, args); msg != "" {
			return r.refuse(cmd, msg)
		}
	}
	sc := s.scripting.sc
	sc.w.Reset()
	sc.w.Proto = proto
	s.call(sc, cmd, args)
	return sc.w.Buf, ""
}

// refuse is scriptCall's error path: the refusal counts as an error reply
// (afterErrorReply: under ERR, or under the code of a "-CODE ..." text) and
// as a rejected call of cmd, so the script's own error reply, raised from
// it, is not counted again.
func (r *scriptRun) refuse(cmd *command, msg string) ([]byte, string) {
	if strings.HasPrefix(msg, "-") {
		r.s.countErrorLocked(msg[1:])
	} else {
		r.s.countErrorLocked("ERR " + msg)
	}
	if cmd != nil {
		cmd.rejected.Add(1)
	}
	return nil, msg
}

// ACLCheckCmd is redis.acl_check_cmd: the command's existence, and the
// permission of the script caller's user (acl.go's checkCmd).
func (r *scriptRun) ACLCheckCmd(args [][]byte) (exists, allowed bool) {
	cmd, _ := r.s.table.lookup(args)
	if cmd == nil {
		return false, false
	}
	if u := r.caller.user; u != nil && !u.full {
		res, _ := u.checkCmd(cmd, args)
		return true, res == aclOK
	}
	return true, true
}

// Log writes a redis.log message through the server's logger.
func (r *scriptRun) Log(level int, msg string) { r.s.scriptLog(level, msg) }

// scriptLog logs msg at a Redis log level (0 debug .. 3 warning) unless the
// configured loglevel is above it.
func (s *Server) scriptLog(level int, msg string) {
	verbosity := 2
	switch s.cfg.LogLevel {
	case "debug":
		verbosity = 0
	case "verbose":
		verbosity = 1
	case "warning":
		verbosity = 3
	}
	if level < verbosity {
		return
	}
	lv := []slog.Level{slog.LevelDebug - 4, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn}[level]
	s.log.Log(context.Background(), lv, msg)
}

// Interrupt is the script's periodic check (scriptInterrupt).
func (r *scriptRun) Interrupt() string {
	s := r.s
	if s.closing.Load() {
		return scriptKilledMsg // SHUTDOWN NOSAVE: stop, nobody reads the reply
	}
	if r.start.IsZero() {
		// Backdate to the script's start by the keyspace clock, unless
		// it is frozen (DEBUG CLOCK FREEZE).
		r.start = time.Now()
		if !s.clock.Frozen() {
			r.start = r.start.Add(-time.Duration(s.clock.UnixMilli()-r.snapshot) * time.Millisecond)
		}
	}
	if !r.timedOut {
		elapsed := time.Since(r.start)
		if elapsed < time.Duration(s.cfg.BusyReplyThreshold)*time.Millisecond {
			return ""
		}
		r.timedOut = true
		cmd := "SCRIPT KILL"
		if !r.eval {
			cmd = "FUNCTION KILL"
		}
		s.log.Warn("Slow script detected: still in execution after " + strconv.FormatInt(elapsed.Milliseconds(), 10) +
			" milliseconds. You can try killing the script using the " + cmd + " command.")
	}
	// Serve the other clients once; they see BUSY. Their commands move the
	// keyspace clock and the current client (Redis's
	// processEventsWhileBlocked restores server.current_client).
	cur := s.ps.current
	s.loop.processEventsWhileBlockedLocked()
	s.mu.Yield() // and let background work waiting for the lock look in
	s.ps.current = cur
	s.ks.SetTime(r.snapshot)
	if r.killed || s.closing.Load() {
		if r.killed {
			s.log.Warn("Lua script killed by user with SCRIPT KILL.")
		}
		return scriptKilledMsg
	}
	return ""
}

// elapsedMs is how long the script has run (FUNCTION STATS duration_ms).
func (r *scriptRun) elapsedMs() int64 {
	if r.start.IsZero() {
		return max(r.s.clock.UnixMilli()-r.snapshot, 0)
	}
	return time.Since(r.start).Milliseconds()
}

// scriptKillLocked is SCRIPT KILL (eval) and FUNCTION KILL (scriptKill).
func (s *Server) scriptKillLocked(c *client, eval bool) {
	r := s.scripting.run
	switch {
	case r == nil:
		c.fail(errNotBusy)
	case r.wrote:
		c.fail(errUnkillable)
	case eval && !r.eval:
		c.fail(errBusyFunction)
	case !eval && r.eval:
		c.fail(protocol.ErrBusy)
	default:
		r.killed = true
		c.w.OK()
	}
}
