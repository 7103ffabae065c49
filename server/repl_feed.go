package server

import (
	"fmt"
	"time"
)

// Feeding the replication stream (Redis 7.0 replicationFeedSlaves,
// replicationCron): every execution unit the propagator records
// (aof_propagate.go) is encoded once with the stream's own SELECT state,
// appended to the backlog, which advances master_repl_offset, and copied to
// every replica that is not waiting for its snapshot to start. Once a
// second the replication cron pings replicas every repl-ping-replica-period
// seconds (a PING in the stream, counted in the offset), sends "\n" to
// replicas waiting for a snapshot, drops replicas silent for longer than
// repl-timeout, frees the backlog repl-backlog-ttl seconds after the last
// replica left, and starts the diskless snapshot replicas have waited
// repl-diskless-sync-delay seconds for.
//
// Engine lock throughout.

// replFeedUnitLocked feeds the propagator's current unit to the stream.
func (s *Server) replFeedUnitLocked() {
	if s.repl.link != nil {
		return // a replica forwards its master's stream instead (repl_replica.go)
	}
	p := &s.aof.prop
	out := p.encodeUnit(nil, &s.repl.selected)
	s.replFeedLocked(out)
}

// replFeedLocked appends raw stream bytes to the backlog and the replicas.
func (s *Server) replFeedLocked(b []byte) {
	if s.repl.backlog == nil || len(b) == 0 {
		return
	}
	s.repl.backlog.write(b)
	s.repl.offset += int64(len(b))
	for _, c := range s.repl.replicas {
		if c.repl.state == replWaitStart {
			continue
		}
		s.deliverLocked(c, b) // push.go: output limits of the replica class
	}
}

// replCronLocked is the replication part of serverCron: replicationCron
// once a second, and the start of diskless snapshots whose delay passed
// (replicationStartPendingFork).
func (s *Server) replCronLocked() {
	now := time.Now()
	if b := s.repl.backlog; b != nil && int64(len(b.buf)) != s.replBacklogSizeLocked() {
		b.resize(s.replBacklogSizeLocked()) // CONFIG SET repl-backlog-size keeps the newest bytes
	}
	if now.Sub(s.repl.lastCron) >= time.Second {
		s.repl.lastCron = now
		s.replicationCronLocked(now)
		s.repl.cronLoops++
	}
	s.replStartPendingLocked(now)
}

// replicationCronLocked is replicationCron's master duties (and the
// replica's, repl_replica.go).
func (s *Server) replicationCronLocked(now time.Time) {
	s.replicaCronLocked(now)
	period := max(s.paramInt("repl-ping-replica-period"), 1)
	if s.repl.cronLoops%period == 0 && len(s.repl.replicas) > 0 && s.repl.link == nil {
		s.replFeedLocked(replPingCommand)
	}
	timeout := time.Duration(s.paramInt("repl-timeout")) * time.Second
	for _, c := range append([]*client(nil), s.repl.replicas...) {
		r := c.repl
		switch {
		case r.state == replWaitStart:
			s.deliverLocked(c, []byte("\n"))
		case !r.preSync && now.Sub(r.ackTime) > timeout:
			s.log.Warn(fmt.Sprintf("Disconnecting timedout replica (streaming sync): %s", s.replicaNameLocked(c)))
			s.loop.closeLocked(c)
		}
	}
	ttl := s.paramInt("repl-backlog-ttl")
	if len(s.repl.replicas) == 0 && ttl > 0 && s.repl.backlog != nil && s.repl.link == nil &&
		now.Sub(s.repl.noReplicas) > time.Duration(ttl)*time.Second {
		s.changeReplIDLocked()
		s.clearReplID2Locked()
		s.freeBacklogLocked()
		s.log.Info(fmt.Sprintf("Replication backlog freed after %d seconds without connected replicas.", ttl))
	}
}

// freeBacklogLocked drops the backlog (freeReplicationBacklog).
func (s *Server) freeBacklogLocked() {
	s.repl.backlog = nil
	s.aof.prop.setRepl(false)
}

// replStartPendingLocked starts the diskless snapshot when the replicas
// waiting for one waited long enough, or enough of them wait
// (shouldStartChildForReplication).
func (s *Server) replStartPendingLocked(now time.Time) {
	waiting, maxIdle := 0, time.Duration(0)
	for _, c := range s.repl.replicas {
		if c.repl.state == replWaitStart {
			waiting++
			maxIdle = max(maxIdle, now.Sub(c.repl.waitSince))
		}
	}
	if waiting == 0 {
		return
	}
	maxReplicas := s.paramInt("repl-diskless-sync-max-replicas")
	if s.paramText("repl-diskless-sync") != "yes" || (maxReplicas > 0 && int64(waiting) >= maxReplicas) ||
		maxIdle >= time.Duration(s.paramInt("repl-diskless-sync-delay"))*time.Second {
		s.replFullSyncLocked(true)
		s.replFullSyncLocked(false)
	}
}

// replBeforeSleepLocked answers the WAIT clients whose replicas acked, and
// asks replicas for acks when a WAIT blocked (beforeSleep's
// processClientsWaitingReplicas and the GETACK of get_ack_from_slaves).
func (s *Server) replBeforeSleepLocked() {
	if len(s.repl.waiting) > 0 {
		s.processWaitingReplicasLocked() // repl_wait.go
	}
	if s.repl.getAck && !s.ops.pause.active() {
		s.repl.getAck = false
		s.replFeedLocked(replGetAckCommand)
	}
}
