package server

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The CLUSTER subcommands that change this node's view of the cluster
// (cluster.c clusterCommand): slot assignment (ADDSLOTS, DELSLOTS and
// their ranges, FLUSHSLOTS, SETSLOT), RESET, FORGET, the epochs and
// SAVECONFIG. Each change ends in clusterChangedLocked (cluster.go): the
// state is recomputed, nodes.conf rewritten and blocked clients
// redirected. The family's table is in cmd_cluster.go.

// checkSlotAssignments is checkSlotAssignmentsOrReply for the slots
// start..end, marking them in seen.
func (s *Server) checkSlotAssignments(c *client, seen []bool, del bool, start, end int) bool {
	st := s.cluster.st
	for j := start; j <= end; j++ {
		if del && st.Owner(j) == nil {
			c.fail(protocol.Error("ERR Slot " + strconv.Itoa(j) + " is already unassigned"))
			return false
		}
		if !del && st.Owner(j) != nil {
			c.fail(protocol.Error("ERR Slot " + strconv.Itoa(j) + " is already busy"))
			return false
		}
		if seen[j] {
			c.fail(protocol.Error("ERR Slot " + strconv.Itoa(j) + " specified multiple times"))
			return false
		}
		seen[j] = true
	}
	return true
}

// updateSlots is clusterUpdateSlots: the marked slots are given to
// myself (or unassigned), ending any import of them.
func (s *Server) updateSlots(seen []bool, del bool) {
	st := s.cluster.st
	if del {
		s.removeShardChannelsLocked(func(slot int) bool { return seen[slot] && s.servesLocked(slot) })
	}
	for j, on := range seen {
		if !on {
			continue
		}
		st.SetImporting(j, nil)
		if del {
			st.DelSlot(j)
		} else {
			st.AddSlot(st.Myself, j)
		}
	}
	s.clusterChangedLocked()
	s.clusterBroadcast()
}

func cmdClusterAddDelSlots(c *client, args [][]byte) {
	s := c.srv
	del := bytes.EqualFold(args[1], []byte("delslots"))
	for _, a := range args[2:] {
		if _, ok := slotArg(a); !ok {
			c.fail(errInvalidSlot)
			return
		}
	}
	seen := make([]bool, cluster.Slots)
	for _, a := range args[2:] {
		j, _ := slotArg(a)
		if !s.checkSlotAssignments(c, seen, del, j, j) {
			return
		}
	}
	s.updateSlots(seen, del)
	c.w.OK()
}

func cmdClusterAddDelSlotsRange(c *client, args [][]byte) {
	s := c.srv
	if len(args)%2 == 1 {
		c.fail(protocol.ErrWrongArity(strings.ToLower("cluster|" + string(args[1]))))
		return
	}
	del := bytes.EqualFold(args[1], []byte("delslotsrange"))
	seen := make([]bool, cluster.Slots)
	for j := 2; j < len(args); j += 2 {
		start, ok := slotArg(args[j])
		if !ok {
			c.fail(errInvalidSlot)
			return
		}
		end, ok := slotArg(args[j+1])
		if !ok {
			c.fail(errInvalidSlot)
			return
		}
		if start > end {
			c.fail(protocol.Error("ERR start slot number " + strconv.Itoa(start) + " is greater than end slot number " + strconv.Itoa(end)))
			return
		}
		if !s.checkSlotAssignments(c, seen, del, start, end) {
			return
		}
	}
	s.updateSlots(seen, del)
	c.w.OK()
}

func cmdClusterFlushSlots(c *client, args [][]byte) {
	s := c.srv
	if s.ks.DB(0).Size() != 0 {
		c.fail(protocol.Error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS."))
		return
	}
	me := s.cluster.st.Myself
	s.removeShardChannelsLocked(func(slot int) bool { return s.cluster.st.Owner(slot) == me })
	s.cluster.st.DelNodeSlots(me)
	s.clusterChangedLocked()
	s.clusterBroadcast()
	c.w.OK()
}

func cmdClusterSetSlot(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	me := st.Myself
	if me.IsReplica() {
		c.fail(protocol.Error("ERR Please use SETSLOT only with masters."))
		return
	}
	slot, ok := slotArg(args[2])
	if !ok {
		c.fail(errInvalidSlot)
		return
	}
	action := strings.ToLower(string(args[3]))
	target := func(unknown string) *cluster.Node {
		n := st.Lookup(string(args[4]))
		if n == nil {
			c.fail(protocol.Error("ERR " + unknown + " " + string(args[4])))
			return nil
		}
		if n.IsReplica() {
			c.fail(protocol.Error("ERR Target node is not a master"))
			return nil
		}
		return n
	}
	switch {
	case action == "migrating" && len(args) == 5:
		if st.Owner(slot) != me {
			c.fail(protocol.Error("ERR I'm not the owner of hash slot " + strconv.Itoa(slot)))
			return
		}
		n := target("I don't know about node")
		if n == nil {
			return
		}
		st.SetMigrating(slot, n)
	case action == "importing" && len(args) == 5:
		if st.Owner(slot) == me {
			c.fail(protocol.Error("ERR I'm already the owner of hash slot " + strconv.Itoa(slot)))
			return
		}
		n := target("I don't know about node")
		if n == nil {
			return
		}
		st.SetImporting(slot, n)
	case action == "stable" && len(args) == 4:
		st.SetImporting(slot, nil)
		st.SetMigrating(slot, nil)
	case action == "node" && len(args) == 5:
		n := target("Unknown node")
		if n == nil {
			return
		}
		keys := s.ks.DB(0).CountKeysInSlot(slot)
		if st.Owner(slot) == me && n != me && keys != 0 {
			c.fail(protocol.Error("ERR Can't assign hashslot " + strconv.Itoa(slot) + " to a different node while I still hold keys for this hash slot."))
			return
		}
		if keys == 0 && st.MigratingTo(slot) != nil {
			st.SetMigrating(slot, nil)
		}
		wasMine := st.Owner(slot) == me
		if s.servesLocked(slot) { // clusterDelSlot drops the slot's shard channels
			s.removeShardChannelsLocked(func(j int) bool { return j == slot })
		}
		st.DelSlot(slot)
		st.AddSlot(n, slot)
		if wasMine && n != me && me.NumSlots() == 0 && paramOr(&s.cfg, "cluster-allow-replica-migration", "yes") == "yes" {
			// Redis's clusterSetMaster: a master left without slots
			// follows the node that took the last one.
			s.log.Warn("Configuration change detected. Reconfiguring myself as a replica of " + n.ID)
			me.Flags = me.Flags&^cluster.FlagMaster | cluster.FlagSlave
			me.Master = n
		}
		if n == me && st.ImportingFrom(slot) != nil {
			if st.BumpEpoch() {
				s.log.Warn("configEpoch updated after importing slot " + strconv.Itoa(slot))
			}
			st.SetImporting(slot, nil)
		}
	default:
		c.fail(protocol.Error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP"))
		return
	}
	s.clusterChangedLocked()
	if action == "node" {
		s.clusterBroadcast()
	}
	c.w.OK()
}

func cmdClusterReset(c *client, args [][]byte) {
	s := c.srv
	hard := false
	if len(args) == 3 {
		switch {
		case bytes.EqualFold(args[2], []byte("hard")):
			hard = true
		case bytes.EqualFold(args[2], []byte("soft")):
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	} else if len(args) > 3 {
		c.fail(protocol.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(string(args[1])) + "'. Try CLUSTER HELP."))
		return
	}
	st := s.cluster.st
	if st.Myself.IsMaster() && c.db.Size() != 0 {
		c.fail(protocol.Error("ERR CLUSTER RESET can't be called with master nodes containing keys"))
		return
	}
	s.removeShardChannelsLocked(s.servesLocked)
	wasReplica := st.Myself.IsReplica()
	st.Reset(hard, cluster.NewNodeID())
	if wasReplica {
		// clusterReset: a replica becomes a master and empties its data.
		if s.repl.link != nil {
			s.replUnsetMasterLocked()
		}
		s.ks.FlushAll()
	}
	s.clusterChangedLocked()
	c.w.OK()
}

func cmdClusterCountFailureReports(c *client, args [][]byte) {
	if c.srv.cluster.st.Lookup(string(args[2])) == nil {
		c.fail(protocol.Error("ERR Unknown node " + string(args[2])))
		return
	}
	c.w.Int(0) // failure reports come from the cluster bus: none here
}

func cmdClusterForget(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	n := st.Lookup(string(args[2]))
	switch {
	case n == nil:
		c.fail(protocol.Error("ERR Unknown node " + string(args[2])))
		return
	case n == st.Myself:
		c.fail(protocol.Error("ERR I tried hard but I can't forget myself..."))
		return
	case st.Myself.IsReplica() && st.Myself.Master == n:
		c.fail(protocol.Error("ERR Can't forget my master!"))
		return
	}
	s.blacklistAddLocked(n.ID) // gossip may not bring it back for a minute
	st.Forget(n)
	s.clusterChangedLocked()
	c.w.OK()
}

func cmdClusterReplicas(c *client, args [][]byte) {
	st := c.srv.cluster.st
	n := st.Lookup(string(args[2]))
	if n == nil {
		c.fail(protocol.Error("ERR Unknown node " + string(args[2])))
		return
	}
	if n.IsReplica() {
		c.fail(protocol.Error("ERR The specified node is not a master"))
		return
	}
	reps := replicasOf(st, n)
	c.w.Array(len(reps))
	for _, r := range reps {
		c.w.Bulk(st.AppendNode(nil, r))
	}
}

func cmdClusterSaveConfig(c *client, args [][]byte) {
	if err := c.srv.clusterSaveConfigLocked(); err != nil {
		c.fail(protocol.Error("ERR error saving the cluster node config: " + strerror(err)))
		return
	}
	c.w.OK()
}

func cmdClusterBumpEpoch(c *client, args [][]byte) {
	s := c.srv
	word := "STILL "
	if s.cluster.st.BumpEpoch() {
		word = "BUMPED "
		s.clusterChangedLocked()
		s.clusterBroadcast()
	}
	c.w.Status(word + strconv.FormatUint(s.cluster.st.Myself.ConfigEpoch, 10))
}

func cmdClusterSetConfigEpoch(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	epoch, ok := protocol.ParseInt(args[2])
	switch {
	case !ok:
		c.fail(protocol.ErrNotInteger)
	case epoch < 0:
		c.fail(protocol.Error("ERR Invalid config epoch specified: " + strconv.FormatInt(epoch, 10)))
	case len(st.Nodes()) > 1:
		c.fail(protocol.Error("ERR The user can assign a config epoch only when the node does not know any other node."))
	case st.Myself.ConfigEpoch != 0:
		c.fail(protocol.Error("ERR Node config epoch is already non-zero"))
	default:
		st.Myself.ConfigEpoch = uint64(epoch)
		s.log.Warn("configEpoch set to " + strconv.FormatInt(epoch, 10) + " via CLUSTER SET-CONFIG-EPOCH")
		if st.CurrentEpoch < uint64(epoch) {
			st.CurrentEpoch = uint64(epoch)
		}
		s.clusterChangedLocked()
		s.clusterBroadcast()
		c.w.OK()
	}
}
