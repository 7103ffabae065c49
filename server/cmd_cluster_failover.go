package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// CLUSTER REPLICATE and CLUSTER FAILOVER (Redis 7.0 cluster.c
// clusterCommand, clusterSetMaster, the manual failover of
// clusterHandleManualFailover / clusterFailoverReplaceYourMaster). The
// messages between the replica and its master (MFSTART, the master's
// PAUSED flag and offset in its PING) go over the in-process cluster bus
// (cluster_peers.go), so a failover needs the master to be a node of this
// process; a master elsewhere never answers and the manual failover times
// out, as with a master that is unreachable. Votes are not counted: every
// master of the process is reachable, so an election started is won; its
// epoch is the greatest epoch this node knows plus one (the bus brings
// every node's current epoch with each broadcast).
//
// The default manual failover: the replica asks its master (MFSTART);
// the master pauses writes for twice the failover timeout (CLIENT PAUSE
// WRITE's mechanism, so a postponed write runs again once the master is
// a replica and gets MOVED) and tells its replication offset; when the
// replica has applied the stream up to that offset it takes a new config
// epoch (the greatest current epoch known plus one, the election's
// epoch), becomes a master, takes its master's slots and tells the
// others; the old master, seeing its slots claimed with a higher epoch,
// becomes a replica of the new one (ending its pause) and resyncs from
// it. FORCE skips the wait for the offset; TAKEOVER also skips the
// election: the replica bumps its epoch without consensus and takes over
// before replying. A manual failover not done within 5 seconds
// (CLUSTER_MF_TIMEOUT) is abandoned.
//
// Locking: the handlers, the cron step and the bus's receiver run under
// the engine lock of the node they change; a message to the other node
// goes to its inbox (cluster_peers.go).

var clusterFailoverCommands = []commandDef{
	{"cluster|replicate", clusterOnly(cmdClusterReplicate)},
	{"cluster|failover", clusterOnly(cmdClusterFailover)},
}

// clusterMFTimeout is CLUSTER_MF_TIMEOUT; the master pauses writes for
// CLUSTER_MF_PAUSE_MULT times it.
const (
	clusterMFTimeout   = 5 * time.Second
	clusterMFPauseMult = 2
)

// manualFailover is the state of a manual failover (the mf_* fields of
// clusterState), on the replica and on its master.
type manualFailover struct {
	end          time.Time // zero: none in progress
	canStart     bool      // mf_can_start: the election may start
	masterOffset int64     // mf_master_offset, -1 until the master told it
	paused       bool      // master side: writes are paused for a replica's failover
}

func cmdClusterReplicate(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	n := st.Lookup(string(args[2]))
	switch {
	case n == nil:
		c.fail(protocol.Error("ERR Unknown node " + string(args[2])))
	case n == st.Myself:
		c.fail(protocol.Error("ERR Can't replicate myself"))
	case n.IsReplica():
		c.fail(protocol.Error("ERR I can only replicate a master, not a replica."))
	case st.Myself.IsMaster() && (st.Myself.NumSlots() != 0 || s.ks.DB(0).Size() != 0):
		c.fail(protocol.Error("ERR To set a master the node must be empty and without assigned slots."))
	default:
		s.clusterSetMasterLocked(n)
		s.clusterChangedLocked()
		s.clusterBroadcast()
		c.w.OK()
	}
}

func cmdClusterFailover(c *client, args [][]byte) {
	s := c.srv
	if len(args) > 3 {
		c.fail(protocol.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(string(args[1])) + "'. Try CLUSTER HELP."))
		return
	}
	force, takeover := false, false
	if len(args) == 3 {
		switch strings.ToLower(string(args[2])) {
		case "force":
			force = true
		case "takeover":
			force, takeover = true, true
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	st := s.cluster.st
	me := st.Myself
	switch {
	case me.IsMaster():
		c.fail(protocol.Error("ERR You should send CLUSTER FAILOVER to a replica"))
		return
	case me.Master == nil:
		c.fail(protocol.Error("ERR I'm a replica but my master is unknown to me"))
		return
	case !force && (me.Master.Flags&cluster.FlagFail != 0 || !me.Master.Linked):
		c.fail(protocol.Error("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE"))
		return
	}
	s.clusterResetManualFailoverLocked()
	mf := &s.cluster.mf
	mf.end = time.Now().Add(clusterMFTimeout)
	mf.masterOffset = -1
	switch {
	case takeover:
		// A takeover needs no consensus: the epoch is bumped at once.
		s.log.Info("Taking over the master (user request).")
		st.BumpEpoch()
		s.clusterFailoverReplaceYourMasterLocked()
	case force:
		s.log.Info("Forced failover user request accepted.")
		mf.canStart = true
		s.clusterManualFailoverCronLocked()
	default:
		s.log.Info("Manual failover user request accepted.")
		s.busSendToLocked(me.Master, busMFStart)
	}
	c.w.OK()
}

// clusterMFStartLocked is the master's handling of MFSTART from the
// replica sender: writes are paused, and a PING with the PAUSED flag tells
// the replica the offset to reach.
func (s *Server) clusterMFStartLocked(sender *cluster.Node) {
	st := s.cluster.st
	if !st.Myself.IsMaster() || sender.Master != st.Myself {
		return
	}
	s.clusterResetManualFailoverLocked()
	mf := &s.cluster.mf
	mf.end = time.Now().Add(clusterMFTimeout)
	mf.paused = true
	s.log.Info("Manual failover requested by replica " + sender.ID + ".")
	s.pauseClientsLocked(pauseWrite, time.Now().Add(clusterMFTimeout*clusterMFPauseMult))
	s.busPingLocked(sender)
}

// clusterManualFailoverCronLocked is clusterHandleManualFailover and the
// manual part of clusterHandleSlaveFailover: a failover past its time is
// abandoned; once the replica has the master's offset the election
// starts, and is won.
func (s *Server) clusterManualFailoverCronLocked() {
	mf := &s.cluster.mf
	if mf.end.IsZero() {
		return
	}
	if time.Now().After(mf.end) {
		s.log.Warn("Manual failover timed out.")
		s.clusterResetManualFailoverLocked()
		return
	}
	me := s.cluster.st.Myself
	if !me.IsReplica() || me.Master == nil {
		return // the master side waits to be reconfigured
	}
	if !mf.canStart && mf.masterOffset >= 0 && s.clusterMyOffsetLocked() == mf.masterOffset {
		mf.canStart = true
		s.log.Info("All master replication stream processed, manual failover can start.")
	}
	if !mf.canStart {
		return
	}
	st := s.cluster.st
	epoch := st.MaxEpoch() + 1
	st.CurrentEpoch = epoch
	s.log.Info("Starting a failover election for epoch " + strconv.FormatUint(epoch, 10) + ".")
	s.log.Info("Failover election won: I'm the new master.")
	me.ConfigEpoch = epoch
	s.log.Info("configEpoch set to " + strconv.FormatUint(epoch, 10) + " after successful failover")
	s.clusterFailoverReplaceYourMasterLocked()
}

// clusterFailoverReplaceYourMasterLocked is clusterFailoverReplaceYourMaster:
// myself becomes a master serving its master's slots, and says so.
func (s *Server) clusterFailoverReplaceYourMasterLocked() {
	st := s.cluster.st
	me := st.Myself
	old := me.Master
	if me.IsMaster() || old == nil {
		return
	}
	st.SetAsMaster(me)
	if s.repl.link != nil {
		s.replUnsetMasterLocked()
	}
	for j := 0; j < cluster.Slots; j++ {
		if st.Owner(j) == old {
			st.DelSlot(j)
			st.AddSlot(me, j)
		}
	}
	s.clusterResetManualFailoverLocked()
	s.clusterChangedLocked()
	s.clusterBroadcast() // clusterBroadcastPong: every node learns the new master
}

// clusterSetMasterLocked is clusterSetMaster: myself becomes a replica of
// n (a master giving up its migrations) and replicates from it; a manual
// failover in progress ends.
func (s *Server) clusterSetMasterLocked(n *cluster.Node) {
	st := s.cluster.st
	me := st.Myself
	if me.IsMaster() {
		st.CloseSlots()
	}
	st.SetReplicaOf(me, n)
	s.clusterResetManualFailoverLocked()
	if n.IP != "" || n.Port != 0 {
		s.replSetMasterLocked(clusterNodeHost(n), n.Port)
	}
}

// clusterNodeHost is the host a replica connects to for n.
func clusterNodeHost(n *cluster.Node) string {
	if n.IP == "" {
		return "127.0.0.1"
	}
	return n.IP
}

// clusterReplicaCronLocked is clusterCron's part for a replica: without a
// master link it connects to its master (clusterCron's
// replicationSetMaster), and the manual failover advances.
func (s *Server) clusterReplicaCronLocked() {
	me := s.cluster.st.Myself
	if me.IsReplica() && me.Master != nil && s.repl.link == nil && (me.Master.IP != "" || me.Master.Port != 0) {
		s.replSetMasterLocked(clusterNodeHost(me.Master), me.Master.Port)
	}
	s.clusterManualFailoverCronLocked()
}

// clusterResetManualFailoverLocked is resetManualFailover: a master that
// paused writes for the failover ends the pause.
func (s *Server) clusterResetManualFailoverLocked() {
	mf := &s.cluster.mf
	if mf.paused {
		s.unpauseClientsLocked()
	}
	*mf = manualFailover{masterOffset: -1}
}
