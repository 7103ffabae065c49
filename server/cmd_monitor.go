package server

import (
	"bytes"
	"strconv"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// MONITOR (Redis replication.c replicationFeedMonitors, server.c call()).
//
// A monitor receives one status line per command called, after the command
// ran (so a SELECT shows the database it selected, and the commands of a
// transaction come before its EXEC), except admin commands and commands
// run while loading; EVAL, EVALSHA and FCALL are fed before they run, so
// the commands of their script ("lua" as the source) follow them. Unknown
// commands and commands refused before the call (arity, NOAUTH, OOM,
// queued in MULTI) are never fed. Passwords in AUTH, HELLO ... AUTH and
// MIGRATE ... AUTH/AUTH2 are shown as "(redacted)", as Redis's
// redactClientCommandArgument leaves them.
//
// A monitor is, as in Redis, flagged as a replica: its commands that read
// or write the keyspace are refused (checkMonitorKeyspaceLocked), it never
// times out, and a second MONITOR gets no reply at all.

var monitorCommands = []commandDef{{"monitor", cmdMonitor}}

var errMonitorDenyBlocking = protocol.Error("ERR MONITOR isn't allowed for DENY BLOCKING client")

func cmdMonitor(c *client, args [][]byte) {
	if c.denyBlocking {
		c.fail(errMonitorDenyBlocking)
		return
	}
	if c.ops.monitor {
		return // Redis ignores MONITOR from a replica or a monitor: no reply
	}
	s := c.srv
	c.ops.monitor = true
	s.ops.monitors = append(s.ops.monitors, c)
	s.updateCallDutyLocked()
	c.w.OK()
}

// stopMonitorLocked removes c from the monitors (disconnect, RESET).
func (s *Server) stopMonitorLocked(c *client) {
	if !c.ops.monitor {
		return
	}
	c.ops.monitor = false
	for i, m := range s.ops.monitors {
		if m == c {
			s.ops.monitors = append(s.ops.monitors[:i], s.ops.monitors[i+1:]...)
			break
		}
	}
	s.updateCallDutyLocked()
}

var errReplicaKeyspace = protocol.Error("ERR Replica can't interact with the keyspace")

// checkMonitorKeyspaceLocked refuses a monitor's commands that read, write
// or may replicate (processCommand's CLIENT_SLAVE check).
func (s *Server) checkMonitorKeyspaceLocked(c *client, cmd *command) protocol.Error {
	if !c.ops.monitor && (c.repl == nil || c.repl.state == 0) {
		return ""
	}
	if cmd.has(flagWrite|flagReadonly|flagMayReplicate) || (cmd.name == "exec" && c.multi.Active() && c.multi.HasWrite()) {
		return errReplicaKeyspace
	}
	return ""
}

// feedMonitorsLocked sends the line for one call of cmd by c to every
// monitor.
func (s *Server) feedMonitorsLocked(c *client, cmd *command, args [][]byte) {
	line := make([]byte, 0, 64)
	now := time.Now()
	line = strconv.AppendInt(line, now.Unix(), 10)
	line = append(line, '.')
	us := strconv.AppendInt(nil, int64(now.Nanosecond()/1000), 10)
	for i := len(us); i < 6; i++ {
		line = append(line, '0')
	}
	line = append(line, us...)
	line = append(line, " ["...)
	line = strconv.AppendInt(line, int64(c.db.ID()), 10)
	line = append(line, ' ')
	switch {
	case c == s.scripting.sc:
		line = append(line, "lua"...)
	case c.ops.unix:
		line = append(line, "unix:"...)
		line = append(line, s.ops.unixSocket...)
	default:
		line = append(line, c.addr...)
	}
	line = append(line, "] "...)
	redacted := redactedArgs(cmd, args)
	for i, a := range args {
		if i > 0 {
			line = append(line, ' ')
		}
		if redacted != nil && redacted[i] {
			line = append(line, `"(redacted)"`...)
			continue
		}
		line = protocol.AppendRepr(line, a)
	}
	text := string(line)
	for _, m := range s.ops.monitors {
		if m.closeAfterRply || m.killed.Load() || m.ops.replyOff {
			continue
		}
		m.w.Status(text)
		s.loop.queueWriteLocked(m)
	}
}

// redactedArgs reports which arguments Redis redacts from MONITOR and
// SLOWLOG for this command (redactClientCommandArgument calls in
// authCommand, helloCommand, migrateCommand, configSetCommand and ACL
// SETUSER in aclCommand), or nil.
func redactedArgs(cmd *command, args [][]byte) []bool {
	var r []bool
	mark := func(i int) {
		if i >= len(args) {
			return
		}
		if r == nil {
			r = make([]bool, len(args))
		}
		r[i] = true
	}
	switch cmd.name {
	case "auth":
		if len(args) <= 3 { // AUTH with more arguments fails before redacting
			for i := 1; i < len(args); i++ {
				mark(i)
			}
		}
	case "hello":
		for j := 2; j < len(args); j++ {
			more := len(args) - 1 - j
			switch {
			case bytes.EqualFold(args[j], []byte("auth")) && more >= 2:
				mark(j + 1)
				mark(j + 2)
				j += 2
			case bytes.EqualFold(args[j], []byte("setname")) && more >= 1:
				j++
			default:
				return r // a syntax error stops the parse
			}
		}
	case "migrate":
		for j := 6; j < len(args); j++ {
			more := len(args) - 1 - j
			switch {
			case bytes.EqualFold(args[j], []byte("copy")), bytes.EqualFold(args[j], []byte("replace")):
			case bytes.EqualFold(args[j], []byte("auth")):
				if more < 1 {
					return r
				}
				j++
				mark(j)
			case bytes.EqualFold(args[j], []byte("auth2")):
				if more < 2 {
					return r
				}
				mark(j + 1)
				mark(j + 2)
				j += 2
			default:
				return r // KEYS ends the options; anything else is a syntax error
			}
		}
	case "acl|setuser":
		// aclCommand redacts the user name and every rule first.
		for i := 2; i < len(args); i++ {
			mark(i)
		}
	case "config|set":
		// The value of every sensitive parameter (requirepass, masterauth ...).
		return nil // filled by the caller that knows the registry: see redactedArgsFor
	}
	return r
}

// redactedArgsFor is redactedArgs plus CONFIG SET's sensitive values, which
// need the parameter registry.
func (s *Server) redactedArgsFor(cmd *command, args [][]byte) []bool {
	if cmd.name != "config|set" {
		return redactedArgs(cmd, args)
	}
	var r []bool
	for i := 2; i+1 < len(args); i += 2 {
		if s.params.Sensitive(args[i]) {
			if r == nil {
				r = make([]bool, len(args))
			}
			r[i+1] = true
		}
	}
	return r
}
