package server

import (
	"fmt"
	"strings"
	"time"
)

// INFO replication and ROLE (Redis 7.0 genRedisInfoString's replication
// section, roleCommand), for a master and for a replica (repl_replica.go
// keeps the link's state).

// replicaStateName is INFO's state= of a replica.
func replicaStateName(r *replicaLink) string {
	if r.state == replWaitStart {
		return "wait_bgsave"
	}
	return "online"
}

func (s *Server) infoReplication(b *strings.Builder) {
	l := s.repl.link
	if l == nil {
		field(b, "role", "master")
	} else {
		field(b, "role", "slave")
		s.infoReplicaLinkLocked(b, l) // repl_replica.go
	}
	field(b, "connected_slaves", len(s.repl.replicas))
	if s.ops.minReplicas > 0 && s.ops.minReplicasLag > 0 {
		field(b, "min_slaves_good_slaves", s.replGoodReplicasLocked())
	}
	now := time.Now().Unix()
	for i, c := range s.repl.replicas {
		r := c.repl
		lag := int64(0)
		if r.state == replOnline {
			lag = now - r.ackTime.Unix()
		}
		fmt.Fprintf(b, "slave%d:ip=%s,port=%d,state=%s,offset=%d,lag=%d\r\n",
			i, replicaIP(c), r.port, replicaStateName(r), r.ackOff, lag)
	}
	field(b, "master_failover_state", "no-failover")
	field(b, "master_replid", s.replIDLocked())
	field(b, "master_replid2", s.replID2Text())
	field(b, "master_repl_offset", s.repl.offset)
	field(b, "second_repl_offset", s.repl.secondOffset)
	bl := s.repl.backlog
	if bl == nil {
		field(b, "repl_backlog_active", 0)
		field(b, "repl_backlog_size", s.paramInt("repl-backlog-size"))
		field(b, "repl_backlog_first_byte_offset", 0)
		field(b, "repl_backlog_histlen", 0)
		return
	}
	field(b, "repl_backlog_active", 1)
	field(b, "repl_backlog_size", s.paramInt("repl-backlog-size"))
	field(b, "repl_backlog_first_byte_offset", bl.first)
	field(b, "repl_backlog_histlen", bl.histlen)
}

func cmdRole(c *client, args [][]byte) {
	s := c.srv
	if l := s.repl.link; l != nil {
		c.w.Array(5)
		c.w.BulkString("slave")
		c.w.BulkString(l.host)
		c.w.Int(int64(l.port))
		c.w.BulkString(l.roleState())
		off := int64(-1)
		if l.client != nil {
			off = l.offset
		}
		c.w.Int(off)
		return
	}
	c.w.Array(3)
	c.w.BulkString("master")
	c.w.Int(s.repl.offset)
	d := c.w.DeferLen()
	n := 0
	for _, r := range s.repl.replicas {
		if r.repl.state != replOnline {
			continue
		}
		c.w.Array(3)
		c.w.BulkString(replicaIP(r))
		c.w.BulkInt(r.repl.port)
		c.w.BulkInt(r.repl.ackOff)
		n++
	}
	c.w.SetArrayLen(d, n)
}

// roleState is ROLE's state of the link.
func (l *masterLink) roleState() string {
	switch l.state {
	case linkConnect:
		return "connect"
	case linkHandshake:
		return "handshake"
	case linkTransfer:
		return "sync"
	case linkConnected:
		return "connected"
	}
	return "unknown"
}

// infoReplicaLinkLocked writes INFO replication's replica fields.
func (s *Server) infoReplicaLinkLocked(b *strings.Builder, l *masterLink) {
	now := time.Now()
	off, readOff := int64(1), int64(1)
	lastIO := int64(-1)
	if c := l.client; c != nil {
		off, readOff = l.offset, l.offset+int64(c.parser.Buffered())
		lastIO = (now.UnixMilli() - c.lastActive.Load()) / 1000
	} else if l.cachedID != "" {
		off, readOff = l.cachedOff, l.cachedOff
	}
	field(b, "master_host", l.host)
	field(b, "master_port", l.port)
	status := "down"
	if l.state == linkConnected {
		status = "up"
	}
	field(b, "master_link_status", status)
	field(b, "master_last_io_seconds_ago", lastIO)
	sync := 0
	if l.state == linkTransfer {
		sync = 1
	}
	field(b, "master_sync_in_progress", sync)
	field(b, "slave_read_repl_offset", readOff)
	field(b, "slave_repl_offset", off)
	if l.state == linkTransfer {
		size := max(l.xferSize, 0)
		perc := 0.0
		if size > 0 {
			perc = float64(l.xferRead) / float64(size) * 100
		}
		field(b, "master_sync_total_bytes", l.xferSize)
		field(b, "master_sync_read_bytes", l.xferRead)
		field(b, "master_sync_left_bytes", size-l.xferRead)
		field(b, "master_sync_perc", fmt.Sprintf("%.2f", perc))
		field(b, "master_sync_last_io_seconds_ago", int64(now.Sub(l.xferLastIO).Seconds()))
	}
	if l.state != linkConnected {
		down := int64(-1)
		if !l.downSince.IsZero() {
			down = int64(now.Sub(l.downSince).Seconds())
		}
		field(b, "master_link_down_since_seconds", down)
	}
	field(b, "slave_priority", s.paramInt("replica-priority"))
	ro := 0
	if s.paramText("replica-read-only") == "yes" {
		ro = 1
	}
	field(b, "slave_read_only", ro)
	ann := 0
	if s.paramText("replica-announced") == "yes" {
		ann = 1
	}
	field(b, "replica_announced", ann)
}
