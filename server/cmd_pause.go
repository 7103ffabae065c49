package server

import (
	"bytes"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/script"
)

// CLIENT PAUSE / UNPAUSE and CLIENT REPLY (Redis 7.0 networking.c).
//
// CLIENT PAUSE ms [WRITE|ALL] postpones clients' commands until the pause
// ends (its timeout, or CLIENT UNPAUSE): in ALL mode every command, in
// WRITE mode the commands that may write or replicate — writes, PUBLISH,
// PFCOUNT, EVAL/EVALSHA/FCALL of a script or function not declared
// no-writes, an EXEC whose transaction writes. Reads go on. A postponed
// client is blocked (CLIENT LIST flag b, INFO blocked_clients) with its
// command kept, and runs it and what it sent meanwhile when the pause ends,
// in the order the clients were postponed. While paused, keys are neither
// expired nor evicted (the active cycle stays off and lazy expiry reports a
// stale key missing without deleting it). A new pause never makes the
// current one shorter or less strict.
//
// CLIENT REPLY OFF silences every reply of the client until CLIENT REPLY
// ON; SKIP silences the next command's reply (runCommandLocked).

var pauseCommands = []commandDef{
	{"client|pause", cmdClientPause},
	{"client|unpause", cmdClientUnpause},
	{"client|reply", cmdClientReply},
}

type pauseKind uint8

const (
	pauseOff pauseKind = iota
	pauseWrite
	pauseAll
)

// pauseState is the server's client pause (mu).
type pauseState struct {
	kind      pauseKind
	end       time.Time // when it ends (wall clock)
	timer     *time.Timer
	postponed []*client // in the order they were postponed
}

// active reports whether clients are paused.
func (p *pauseState) active() bool { return p.kind != pauseOff }

var (
	errPauseMode    = protocol.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
	errTimeoutNeg   = protocol.Error("ERR timeout is negative")
	errTimeoutNoInt = protocol.Error("ERR timeout is not an integer or out of range")
)

// parseTimeoutMs parses a milliseconds timeout as Redis's
// getTimeoutFromObjectOrReply does for CLIENT PAUSE and WAIT (UNIT_MILLISECONDS):
// an integer, not negative; on failure it replies the error and returns false.
func parseTimeoutMs(c *client, arg []byte) (int64, bool) {
	ms, ok := protocol.ParseInt(arg)
	if !ok {
		c.fail(errTimeoutNoInt)
		return 0, false
	}
	if ms < 0 {
		c.fail(errTimeoutNeg)
		return 0, false
	}
	return ms, true
}

func cmdClientPause(c *client, args [][]byte) {
	ms, ok := parseTimeoutMs(c, args[2])
	if !ok {
		return
	}
	kind := pauseAll
	switch {
	case len(args) == 4 && bytes.EqualFold(args[3], []byte("write")):
		kind = pauseWrite
	case len(args) == 4 && bytes.EqualFold(args[3], []byte("all")):
	case len(args) == 4:
		c.fail(errPauseMode)
		return
	case len(args) > 4:
		c.fail(errSubcommandSyntax(args[1], "CLIENT"))
		return
	}
	c.srv.pauseClientsLocked(kind, time.Now().Add(time.Duration(ms)*time.Millisecond))
	c.w.OK()
}

func cmdClientUnpause(c *client, args [][]byte) {
	c.srv.unpauseClientsLocked()
	c.w.OK()
}

// pauseClientsLocked starts or extends the pause (pauseClients): the kind
// only gets stricter and the end only later.
func (s *Server) pauseClientsLocked(kind pauseKind, end time.Time) {
	p := &s.ops.pause
	if kind > p.kind {
		p.kind = kind
	}
	if end.After(p.end) || p.timer == nil {
		p.end = end
		if p.timer != nil {
			p.timer.Stop()
		}
		p.timer = time.AfterFunc(time.Until(end), func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.pauseCronLocked()
		})
	}
	s.ks.SetExpiryPaused(true)
}

// pauseCronLocked ends a pause whose time is up.
func (s *Server) pauseCronLocked() {
	p := &s.ops.pause
	if p.active() && !time.Now().Before(p.end) {
		s.unpauseClientsLocked()
	}
}

// unpauseClientsLocked ends the pause and runs the postponed clients
// (unpauseClients + unblockPostponedClients).
func (s *Server) unpauseClientsLocked() {
	p := &s.ops.pause
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.kind = pauseOff
	p.end = time.Time{}
	s.ks.SetExpiryPaused(false)
	list := p.postponed
	p.postponed = nil
	if !s.loop.inLoop {
		// From the pause timer: each postponed command starts now (see
		// Server.cmdStart), and the next loop round starts afresh.
		defer func() { s.cmdStart = time.Time{} }()
	}
	for _, c := range list {
		if !c.ops.paused {
			continue
		}
		args := c.ops.postponed
		c.ops.postponed, c.ops.paused = nil, false
		s.unblockClientLocked(c)
		if c.killed.Load() {
			continue
		}
		was := c.executing
		c.executing = true
		s.runCommandLocked(c, args)
		c.executing = was
		if c.blocked == nil {
			s.loop.reprocessLocked(c) // what it sent while it waited
		} else {
			s.loop.queueWriteLocked(c)
		}
	}
}

// postponeLocked blocks c with its command when the pause applies to it,
// and reports whether it did. Monitors (replicas in Redis) are never
// paused.
func (s *Server) postponeLocked(c *client, cmd *command, args [][]byte) bool {
	p := &s.ops.pause
	if c.ops.monitor || c.fd < 0 {
		return false
	}
	if p.kind != pauseAll && !s.mayReplicateLocked(c, cmd, args) {
		return false
	}
	owned := make([][]byte, len(args))
	for i, a := range args {
		owned[i] = append([]byte(nil), a...)
	}
	c.ops.postponed, c.ops.paused = owned, true
	s.blockingDBLocked(c.db.ID()) // unblockClientLocked indexes it
	c.blocked = &blockedClient{c: c, kind: blockNone, dbIndex: c.db.ID(), heapIdx: -1}
	s.blk.blocked++
	s.blk.byKind[blockNone]++
	p.postponed = append(p.postponed, c)
	return true
}

// dropPostponedLocked forgets a postponed client that goes away.
func (s *Server) dropPostponedLocked(c *client) {
	if !c.ops.paused {
		return
	}
	c.ops.paused, c.ops.postponed = false, nil
	p := &s.ops.pause
	for i, pc := range p.postponed {
		if pc == c {
			p.postponed = append(p.postponed[:i], p.postponed[i+1:]...)
			break
		}
	}
}

// mayReplicateLocked is processCommand's is_may_replicate_command: the
// command writes or may replicate (PUBLISH, PFCOUNT, script loading, a
// script or function that may write, an EXEC of a transaction that writes).
func (s *Server) mayReplicateLocked(c *client, cmd *command, args [][]byte) bool {
	if cmd.has(flagWrite | flagMayReplicate) {
		return true
	}
	switch cmd.name {
	case "publish", "spublish", "pfcount", "script|load", "script|flush":
		return true
	case "exec":
		return c.multi.Active() && c.multi.HasWrite()
	case "eval", "evalsha":
		return !s.scriptNoWritesLocked(args, cmd.name == "evalsha")
	case "fcall":
		f := s.scriptsLocked().lib.Function(args[1])
		return f == nil || f.Flags&script.FlagNoWrites == 0
	}
	return false
}

// scriptNoWritesLocked reports whether the script EVAL or EVALSHA names
// declares no-writes (evalGetCommandFlags).
func (s *Server) scriptNoWritesLocked(args [][]byte, sha bool) bool {
	if sha {
		if len(args[1]) != 40 {
			return false
		}
		sc := s.scriptsLocked().engine.Lookup(args[1])
		return sc != nil && sc.Flags&script.FlagNoWrites != 0 && sc.Flags&script.FlagCompat == 0
	}
	flags, _, errText := script.ParseShebang(args[1])
	return errText == "" && flags&script.FlagNoWrites != 0 && flags&script.FlagCompat == 0
}

func cmdClientReply(c *client, args [][]byte) {
	switch {
	case bytes.EqualFold(args[2], []byte("on")):
		c.ops.replyOff, c.ops.replySkip, c.ops.skipNext = false, false, false
		c.w.OK()
	case bytes.EqualFold(args[2], []byte("off")):
		c.ops.replyOff = true
	case bytes.EqualFold(args[2], []byte("skip")):
		if !c.ops.replyOff {
			c.ops.skipNext = true
		}
	default:
		c.fail(protocol.ErrSyntax)
	}
}

// runCommandLocked runs one command of c's query buffer through
// processCommand, dropping its reply while CLIENT REPLY says so (Redis's
// prepareClientToWrite refuses to add output then); afterwards the SKIP of
// the previous command ends and a SKIP just given applies to the next one
// (resetClient).
func (s *Server) runCommandLocked(c *client, args [][]byte) bool {
	if h := s.hooks.intercept; h != nil {
		return h(s, c, args, (*Server).runCommandPlainLocked)
	}
	return s.runCommandPlainLocked(c, args)
}

// runCommandPlainLocked is runCommandLocked past the intercept hook.
func (s *Server) runCommandPlainLocked(c *client, args [][]byte) bool {
	if !c.ops.replyOff && !c.ops.replySkip {
		ok := s.processCommand(c, args)
		if c.ops.skipNext {
			c.ops.skipNext, c.ops.replySkip = false, true
		}
		return ok
	}
	at := len(c.w.Buf)
	ok := s.processCommand(c, args)
	if c.ops.replyOff || c.ops.replySkip {
		switch {
		case c.blocked != nil && !c.ops.paused:
			// The reply comes when it is served: drop it then (wakeLocked).
			c.ops.silenced, c.ops.silencedAt = true, len(c.w.Buf)
		case len(c.w.Buf) >= at && c.wpos <= at:
			c.w.Buf = c.w.Buf[:at]
		}
	}
	c.ops.replySkip = false
	if c.ops.skipNext {
		c.ops.skipNext, c.ops.replySkip = false, true
	}
	return ok
}

// dropSilencedReplyLocked drops the reply a blocked command wrote when it
// was served or timed out, if CLIENT REPLY OFF or SKIP applied to it.
func (s *Server) dropSilencedReplyLocked(c *client) {
	if !c.ops.silenced {
		return
	}
	c.ops.silenced = false
	if at := c.ops.silencedAt; at >= c.wpos && at <= len(c.w.Buf) {
		c.w.Buf = c.w.Buf[:at]
	}
}
