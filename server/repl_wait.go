package server

import (
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// WAIT and min-replicas-to-write (Redis 7.0 waitCommand,
// processClientsWaitingReplicas, refreshGoodSlavesCount). Each client
// remembers the stream offset its last command left (woff); WAIT numreplicas
// timeout counts the online replicas whose REPLCONF ACK reached that
// offset, replies at once when enough did, and otherwise blocks, asking
// every replica for an ack (REPLCONF GETACK * in the stream) before the
// loop sleeps. Acks are counted before each sleep; the timeout (server
// clock, the blocked clients' timeout heap) replies with the count reached.
//
// Engine lock throughout.

var errWaitOnReplica = protocol.Error("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")

// waitReq is what a client blocked in WAIT waits for (client.waitFor).
type waitReq struct {
	offset int64
	n      int64
}

func cmdWait(c *client, args [][]byte) {
	s := c.srv
	if s.repl.link != nil {
		c.fail(errWaitOnReplica)
		return
	}
	n, ok := protocol.ParseInt(args[1])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	ms, ok := parseTimeoutMs(c, args[2])
	if !ok {
		return
	}
	acked := s.replCountAcksLocked(c.woff)
	if acked >= n || c.denyBlocking {
		c.w.Int(acked)
		return
	}
	s.blockingDBLocked(c.db.ID())
	b := &blockedClient{c: c, kind: blockNone, dbIndex: c.db.ID(), heapIdx: -1}
	c.blocked = b
	c.waitFor = waitReq{offset: c.woff, n: n}
	s.blk.blocked++
	s.blk.byKind[blockNone]++
	if ms > 0 {
		b.deadline = s.blockDeadline(ms)
		s.addBlockTimeoutLocked(b)
	}
	s.repl.waiting = append(s.repl.waiting, c)
	s.repl.getAck = true
}

// replCountAcksLocked counts the online replicas that acknowledged offset
// (replicationCountAcksByOffset).
func (s *Server) replCountAcksLocked(offset int64) int64 {
	n := int64(0)
	for _, c := range s.repl.replicas {
		if c.repl.state == replOnline && c.repl.ackOff >= offset {
			n++
		}
	}
	return n
}

// processWaitingReplicasLocked unblocks the WAIT clients whose offset
// enough replicas acknowledged.
func (s *Server) processWaitingReplicasLocked() {
	keep := s.repl.waiting[:0]
	for _, c := range s.repl.waiting {
		if c.blocked == nil {
			continue // timed out or unblocked meanwhile
		}
		n := s.replCountAcksLocked(c.waitFor.offset)
		if n < c.waitFor.n {
			keep = append(keep, c)
			continue
		}
		s.unblockClientLocked(c)
		c.w.Int(n)
		s.wakeLocked(c)
	}
	clear(s.repl.waiting[len(keep):])
	s.repl.waiting = keep
}

// replWaitTimeoutReplyLocked is the reply of a WAIT that timed out or was
// unblocked: the replicas that acknowledged so far.
func (s *Server) replWaitTimeoutReplyLocked(c *client) {
	c.w.Int(s.replCountAcksLocked(c.waitFor.offset))
}

// replWaitClientFree drops a freed client from the WAIT list.
func (s *Server) replWaitClientFree(c *client) {
	for i, w := range s.repl.waiting {
		if w == c {
			s.repl.waiting = append(s.repl.waiting[:i], s.repl.waiting[i+1:]...)
			return
		}
	}
}

// replAfterCall remembers the stream offset after each call (c->woff).
func replAfterCall(s *Server, c *client, cmd *command, args [][]byte) {
	c.woff = s.repl.offset
}

// replGoodReplicasLocked counts the online replicas whose last ack is at
// most min-replicas-max-lag seconds old (repl_good_slaves_count).
func (s *Server) replGoodReplicasLocked() int64 {
	now := time.Now().Unix()
	n := int64(0)
	for _, c := range s.repl.replicas {
		if c.repl.state == replOnline && now-c.repl.ackTime.Unix() <= s.ops.minReplicasLag {
			n++
		}
	}
	return n
}

// checkMinReplicasLocked refuses writes while fewer than
// min-replicas-to-write replicas are good (checkGoodReplicasStatus); a
// replica never refuses for it.
func (s *Server) checkMinReplicasLocked(c *client, cmd *command) protocol.Error {
	if s.ops.minReplicas == 0 || s.ops.minReplicasLag == 0 || s.repl.link != nil || c.isMaster() {
		return ""
	}
	if !(cmd.has(flagWrite) || (cmd.name == "exec" && c.multi.Active() && c.multi.HasWrite())) {
		return ""
	}
	if s.replGoodReplicasLocked() < s.ops.minReplicas {
		return errNoReplicas
	}
	return ""
}
