package server

import (
	"bytes"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Standalone replication answers (Redis replication.c): miniwatchd is
// always a master without replicas. ROLE says so, WAIT has no replica to
// wait for (0 at once when no replica is asked for, else 0 after the
// timeout), REPLICAOF/SLAVEOF NO ONE is the state we are in, and REPLICAOF
// host port is refused, after Redis's own argument checks, with an error
// that says replication is not implemented. min-replicas-to-write refuses
// writes with Redis's NOREPLICAS error, as a master whose replicas are all
// missing does.

var replCommands = []commandDef{
	{"role", cmdRole},
	{"wait", cmdWait},
	{"replicaof", cmdReplicaOf},
	{"slaveof", cmdReplicaOf},
}

var (
	errNoReplicas        = protocol.Error("NOREPLICAS Not enough good replicas to write.")
	errInvalidMasterPort = protocol.Error("ERR Invalid master port")
	errReplicationNotSup = protocol.Error("ERR REPLICAOF is not supported: miniwatchd does not implement replication, it can only be a master")
)

func cmdRole(c *client, args [][]byte) {
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(0)
	c.w.Array(0)
}

func cmdWait(c *client, args [][]byte) {
	n, ok := protocol.ParseInt(args[1])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	ms, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(errTimeoutNoInt)
		return
	}
	if ms < 0 {
		c.fail(errTimeoutNeg)
		return
	}
	if n <= 0 || c.denyBlocking {
		c.w.Int(0)
		return
	}
	s := c.srv
	s.blockingDBLocked(c.db.ID())
	b := &blockedClient{c: c, kind: blockNone, dbIndex: c.db.ID(), heapIdx: -1}
	c.blocked = b
	s.blk.blocked++
	s.blk.byKind[blockNone]++
	if ms == 0 {
		return // no replica will ever acknowledge: blocked until killed
	}
	time.AfterFunc(time.Duration(ms)*time.Millisecond, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c.blocked != b {
			return // gone
		}
		s.unblockClientLocked(c)
		c.w.Int(0)
		s.wakeLocked(c)
	})
}

func cmdReplicaOf(c *client, args [][]byte) {
	if bytes.EqualFold(args[1], []byte("no")) && bytes.EqualFold(args[2], []byte("one")) {
		c.w.OK()
		return
	}
	port, ok := protocol.ParseInt(args[2])
	if !ok || port < 0 || port > 65535 {
		c.fail(errInvalidMasterPort)
		return
	}
	c.fail(errReplicationNotSup)
}

// checkMinReplicasLocked refuses writes while min-replicas-to-write asks
// for replicas (checkGoodReplicasStatus: a master has none good here).
func (s *Server) checkMinReplicasLocked(c *client, cmd *command) protocol.Error {
	if s.ops.minReplicas == 0 || s.ops.minReplicasLag == 0 {
		return ""
	}
	if cmd.has(flagWrite) || (cmd.name == "exec" && c.multi.Active() && c.multi.HasWrite()) {
		return errNoReplicas
	}
	return ""
}

// replIDLocked is the replication ID INFO reports: the run id until DEBUG
// CHANGE-REPL-ID gives a new one.
func (s *Server) replIDLocked() string {
	if s.ops.replID != "" {
		return s.ops.replID
	}
	return s.runID
}
