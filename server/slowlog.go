package server

import (
	"fmt"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// SLOWLOG (Redis slowlog.c). Every call that took at least
// slowlog-log-slower-than microseconds (a negative value disables the log)
// is recorded, newest first, keeping at most slowlog-max-len entries.
// Commands run by EXEC and by scripts are logged one by one; EXEC itself is
// not (skip_slowlog); a command that blocked is not logged when it blocks.
// Arguments are kept as Redis keeps them: at most 32 (the last one then
// says how many more there were), each cut at 128 bytes, passwords
// redacted as in MONITOR.

const (
	slowlogMaxArgc   = 32  // SLOWLOG_ENTRY_MAX_ARGC
	slowlogMaxString = 128 // SLOWLOG_ENTRY_MAX_STRING
)

var slowlogCommands = []commandDef{
	{"slowlog|get", cmdSlowlogGet},
	{"slowlog|len", cmdSlowlogLen},
	{"slowlog|reset", cmdSlowlogReset},
	{"slowlog|help", cmdHelp},
}

// slowEntry is one slow log entry (slowlogEntry).
type slowEntry struct {
	id       int64
	time     int64 // unix seconds
	duration int64 // µs
	args     [][]byte
	peer     string
	name     string
}

// slowLog is the log, newest entry last in entries (mu).
type slowLog struct {
	entries []slowEntry
	nextID  int64
}

// trim drops the oldest entries beyond max.
func (l *slowLog) trim(max int64) {
	if max < 0 {
		max = 0
	}
	if over := int64(len(l.entries)) - max; over > 0 {
		n := copy(l.entries, l.entries[over:])
		clear(l.entries[n:])
		l.entries = l.entries[:n]
	}
}

// slowlogPushLocked records a call of cmd by c that took us microseconds.
func (s *Server) slowlogPushLocked(c *client, cmd *command, args [][]byte, us int64) {
	redacted := s.redactedArgsFor(cmd, args)
	n := min(len(args), slowlogMaxArgc)
	e := slowEntry{id: s.ops.slowlog.nextID, time: time.Now().Unix(), duration: us,
		args: make([][]byte, n), peer: s.peerIDLocked(c), name: c.name}
	s.ops.slowlog.nextID++
	for j := 0; j < n; j++ {
		switch {
		case n != len(args) && j == n-1:
			e.args[j] = fmt.Appendf(nil, "... (%d more arguments)", len(args)-n+1)
		case redacted != nil && redacted[j]:
			e.args[j] = []byte("(redacted)")
		case len(args[j]) > slowlogMaxString:
			e.args[j] = fmt.Appendf(append([]byte(nil), args[j][:slowlogMaxString]...),
				"... (%d more bytes)", len(args[j])-slowlogMaxString)
		default:
			e.args[j] = append([]byte(nil), args[j]...)
		}
	}
	l := &s.ops.slowlog
	l.entries = append(l.entries, e)
	l.trim(s.ops.slowMaxLen)
}

// peerIDLocked is Redis's getClientPeerId: "ip:port", "path:0" for a Unix
// socket client, and "?:0" for the script client, which has no connection.
func (s *Server) peerIDLocked(c *client) string {
	if c == s.scripting.sc {
		return "?:0"
	}
	return c.addr
}

var errSlowlogCount = protocol.Error("ERR count should be greater than or equal to -1")

func cmdSlowlogGet(c *client, args [][]byte) {
	l := &c.srv.ops.slowlog
	count := int64(10)
	if len(args) == 3 {
		n, ok := protocol.ParseInt(args[2])
		if !ok || n < -1 {
			c.fail(errSlowlogCount)
			return
		}
		count = n
		if count == -1 {
			count = int64(len(l.entries))
		}
	} else if len(args) > 3 {
		c.fail(errSubcommandSyntax(args[1], "SLOWLOG"))
		return
	}
	n := int(min(count, int64(len(l.entries))))
	c.w.Array(n)
	for i := 0; i < n; i++ {
		e := &l.entries[len(l.entries)-1-i]
		c.w.Array(6)
		c.w.Int(e.id)
		c.w.Int(e.time)
		c.w.Int(e.duration)
		c.w.Array(len(e.args))
		for _, a := range e.args {
			c.w.Bulk(a)
		}
		c.w.BulkString(e.peer)
		c.w.BulkString(e.name)
	}
}

func cmdSlowlogLen(c *client, args [][]byte) { c.w.Int(int64(len(c.srv.ops.slowlog.entries))) }

func cmdSlowlogReset(c *client, args [][]byte) {
	l := &c.srv.ops.slowlog
	clear(l.entries)
	l.entries = l.entries[:0]
	c.w.OK()
}
