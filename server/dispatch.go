package server

import (
	"bytes"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// processCommand is Redis's processCommand: it looks the command up, runs
// the checks in Redis's order, and then queues it (inside MULTI) or calls it.
// Every rejection goes through rejectCommand, which poisons a transaction in
// progress. It returns false when the connection must be closed without a
// reply. Called with the engine lock held.
func (s *Server) processCommand(c *client, args [][]byte) bool {
	if s.cmdStart.IsZero() {
		s.cmdStart = time.Now()
	}
	now := s.clock.At(s.cmdStart)
	c.lastActive.Store(now.UnixMilli())
	s.ks.SetTime(now.UnixMilli())
	for _, fn := range s.hooks.beforeCommand {
		fn(s, c, args)
	}

	if bytes.EqualFold(args[0], []byte("host:")) || bytes.EqualFold(args[0], []byte("post")) {
		s.log.Warn("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection aborted.")
		return false
	}

	if s.cluster.on {
		c.clusterBeforeCommand() // cluster.go: ASKING's one-command life
	}
	cmd, container := s.table.lookup(args)
	// CLIENT LIST's cmd= is the last command looked up, queued or rejected
	// ones included ("NULL" when unknown), as Redis sets c->lastcmd here.
	c.lastCmd = ""
	if cmd != nil {
		c.lastCmd = cmd.name
	}
	if cmd == nil {
		if container {
			s.rejectCommand(c, nil, protocol.ErrUnknownSubcommand(args[1], string(bytes.ToUpper(args[0]))))
		} else {
			s.rejectCommand(c, nil, protocol.ErrUnknownCommand(args))
		}
		return true
	}
	if (cmd.arity > 0 && cmd.arity != len(args)) || len(args) < -cmd.arity {
		s.rejectCommandFormat(c, cmd, protocol.ErrWrongArity(cmd.name))
		return true
	}
	if cmd.has(flagProtected) && !s.protectedAllowedLocked(c) {
		s.rejectCommand(c, cmd, errDebugNotAllowed)
		return true
	}
	if !c.authenticated && !cmd.has(flagNoAuth) {
		s.rejectCommand(c, cmd, protocol.ErrNoAuth)
		return true
	}
	if c.multi.Active() && (cmd.has(flagNoMulti) || s.wobs.compat.noMulti(cmd)) { // watch_compat.go
		s.rejectCommand(c, cmd, protocol.ErrNoMulti)
		return true
	}
	if u := c.user; u != nil && !u.full { // ACLCheckAllPerm (acl_check.go)
		if err := s.aclCheckLocked(c, u, cmd, args); err != "" {
			s.rejectCommandFormat(c, cmd, err)
			return true
		}
	}
	// Cluster redirection (cluster_redirect.go), for commands with keys and
	// EXEC, unless the client must be obeyed (the AOF).
	if s.cluster.on && cmd.keyed && !c.replay && s.clusterCheckLocked(c, cmd, args) {
		return true
	}
	if err := s.checkBeforeCallLocked(c, cmd); err != "" {
		s.rejectCommand(c, cmd, err)
		return true
	}

	if s.ops.pause.active() && s.postponeLocked(c, cmd, args) { // CLIENT PAUSE (cmd_pause.go)
		return true
	}
	if c.multi.Active() && !runsInsideMulti(cmd) {
		c.multi.Queue(cmd, args, cmd.has(flagWrite), cmd.has(flagDenyOOM), c.watch.Dirty())
		c.w.Queued()
		return true
	}
	s.cmdStart = s.callTimed(c, cmd, args, s.cmdStart)
	if !s.scriptBusyLocked() { // blocked clients wait for the script's end
		s.afterCommandLocked()
	}
	return true
}

// runsInsideMulti lists the commands that MULTI does not queue (spec M-2).
func runsInsideMulti(cmd *command) bool {
	switch cmd.name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

var errDebugNotAllowed = protocol.Error("ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.")

// protectedAllowedLocked applies enable-debug-command to DEBUG.
func (s *Server) protectedAllowedLocked(c *client) bool {
	switch s.cfg.EnableDebugCommand {
	case "yes":
		return true
	case "local":
		return c.isLocal()
	}
	return false
}

// isLocal reports whether the client connected over loopback.
func (c *client) isLocal() bool {
	if c.ops.unix {
		return true
	}
	host := c.addr
	if i := bytes.LastIndexByte([]byte(host), ':'); i >= 0 {
		host = host[:i]
	}
	return host == "127.0.0.1" || host == "[::1]" || host == "::1"
}

// rejectCommand replies with err instead of running cmd (Redis's
// rejectCommand): a transaction in progress is poisoned, and a rejected EXEC
// aborts the transaction with EXECABORT.
func (s *Server) rejectCommand(c *client, cmd *command, err protocol.Error) {
	c.multi.Poison()
	if cmd != nil {
		cmd.rejected.Add(1)
		if cmd.name == "exec" {
			if c.multi.Active() {
				s.noteExecLocked(c, execAbortErr) // watch_obs.go
			}
			s.discardTransactionLocked(c)
			msg := string(err)
			c.fail(protocol.Error("EXECABORT Transaction discarded because of: " + msg))
			return
		}
	}
	c.fail(err)
}

// rejectCommandFormat is Redis's rejectCommandFormat: the error was built
// by addReplyErrorFormat, so the "ERR " prefix is not part of the message
// and EXECABORT quotes it without (rejectCommand keeps the code of shared
// errors such as OOM or BUSY).
func (s *Server) rejectCommandFormat(c *client, cmd *command, err protocol.Error) {
	if cmd != nil && cmd.name == "exec" {
		err = protocol.Error(strings.TrimPrefix(string(err), "ERR "))
	}
	s.rejectCommand(c, cmd, err)
}

// call runs cmd and keeps its statistics (Redis's call). Commands queued
// in EXEC and run by scripts come through here too.
//
// A call counts as failed (commandstats failed_calls) when it replied with
// an error of its own. Errors of nested calls (the commands EXEC runs) are
// counted for those commands only, as Redis's incrCommandStatsOnError
// does: an EXEC whose queued INCR failed did not fail itself.
func (s *Server) call(c *client, cmd *command, args [][]byte) {
	s.callTimed(c, cmd, args, time.Now())
}

// callTimed is call for a command that started at start (wall clock); it
// returns when it ended. A batch of pipelined commands reads the clock
// once per command this way: each one starts when the previous ended.
func (s *Server) callTimed(c *client, cmd *command, args [][]byte, start time.Time) time.Time {
	errs := s.stats.totalErrorReplies
	at := len(c.w.Buf)
	s.setTouchContextLocked(c, cmd)     // watch_obs.go: explains the watchers it dirties
	s.opsBeforeCallLocked(c, cmd, args) // MONITOR, slow log, latency (ops.go)
	if s.aof.prop.on {
		s.callPropagating(c, cmd, args) // aof_propagate.go
	} else {
		cmd.proc(c, args)
	}
	for _, fn := range s.hooks.afterCall {
		fn(s, c, cmd, args)
	}
	end := time.Now()
	s.opsAfterCallLocked(c, cmd, args, end.Sub(start))
	cmd.calls.Add(1)
	cmd.usec.Add(end.Sub(start).Microseconds())
	if s.stats.totalErrorReplies != errs && (len(c.w.Buf) <= at || c.w.Buf[at] == '-') {
		cmd.failed.Add(1)
	}
	s.stats.totalCommands.Add(1)
	return end
}

// checkBeforeCallLocked runs the checks of processCommand that belong to
// subsystems (out of memory, disk errors, pub/sub context, busy scripts),
// in the order hooks.preCall lists them (Redis's). It returns the
// rejection error, or "".
func (s *Server) checkBeforeCallLocked(c *client, cmd *command) protocol.Error {
	for _, check := range s.hooks.preCall {
		if err := check(s, c, cmd); err != "" {
			return err
		}
	}
	return ""
}

// afterCommandLocked runs what Redis runs after each top-level command
// (hooks.afterCommand: serving clients blocked on keys that became ready,
// sending deferred invalidations).
func (s *Server) afterCommandLocked() {
	for _, fn := range s.hooks.afterCommand {
		fn(s)
	}
}
