package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The rules a node applies to a message of the in-process cluster bus
// (cluster_peers.go), from cluster.c clusterProcessPacket: epochs, roles,
// claimed slots (clusterUpdateSlotsConfigWith, UPDATE), config epoch
// collisions, the gossip section, and the replication offset and PAUSED
// flag a manual failover waits for. Everything here runs under the
// receiving node's engine lock only.

// myClaims is what this node's PINGs say about itself.
type myClaims struct {
	epoch  uint64
	master string
	slots  slotBitmap
}

func (s *Server) myClaimsLocked() myClaims {
	st := s.cluster.st
	me := st.Myself
	c := myClaims{epoch: me.ConfigEpoch, slots: slotsOf(st, me)}
	if me.Master != nil {
		c.master = me.Master.ID
	}
	return c
}

// busReceiveLocked applies one message (clusterProcessPacket).
func (s *Server) busReceiveLocked(m *busMessage) {
	if !s.cluster.on {
		return
	}
	st := s.cluster.st
	me := st.Myself
	before := s.myClaimsLocked()
	known := len(st.Nodes())
	changed := false
	sender := st.Lookup(m.from.ID)
	if sender != nil && sender.Flags&cluster.FlagHandshake != 0 {
		sender = nil
	}
	// A MEET, or any message while this node does not know its own IP,
	// tells it the address it is reached at (the local address of the
	// link: for a node of this process, the sender's address is on the
	// same host).
	if paramOr(&s.cfg, "cluster-announce-ip", "") == "" && (m.kind == busMeet || me.IP == "") {
		ip := m.meetIP
		if m.kind != busMeet {
			ip = m.ip
			if sender != nil {
				ip = sender.IP
			}
		}
		if ip != "" && ip != me.IP {
			me.IP = ip
			s.log.Warn("IP address for this node updated to " + me.IP)
			changed = true
		}
	}
	switch m.kind {
	case busMeet:
		if sender == nil && m.from.ID != me.ID {
			// The receiver's own handshake with the sender, which
			// completes at once in this process.
			sender = &cluster.Node{ID: m.from.ID, IP: m.ip, Port: m.from.Port, CPort: m.from.CPort,
				Hostname: m.from.Hostname, Flags: m.from.Flags & (cluster.FlagMaster | cluster.FlagSlave | cluster.FlagNoFailover), Linked: true}
			st.AddNode(sender)
			changed = true
		}
		pong := s.busMessageLocked(busPong)
		pong.shakeID = m.shakeID
		busSend(m.src, pong)
	case busPing:
		pong := s.busMessageLocked(busPong)
		pong.pinged = m.pinged
		busSend(m.src, pong)
	case busPong:
		if n := st.Lookup(m.pinged); m.pinged != "" && m.pinged != m.from.ID && n != nil && n != me && n.Flags&cluster.FlagHandshake == 0 {
			// Another node answers at n's address (a CLUSTER RESET HARD
			// gave it a new ID): n loses its address.
			// (Redis's line goes on with the node's age and flags, which
			// are not kept here.)
			s.log.Debug("PONG contains mismatching sender ID. About node " + n.ID)
			n.Flags |= cluster.FlagNoAddr
			n.IP, n.Port, n.CPort, n.Linked = "", 0, 0, false
			s.cluster.bus.dirty = true
			return
		}
		if h := st.Lookup(m.shakeID); m.shakeID != "" && h != nil && h.Flags&cluster.FlagHandshake != 0 {
			delete(s.cluster.bus.shakes, h)
			if sender != nil || m.from.ID == me.ID {
				s.log.Debug("Handshake: we already know node " + m.from.ID + ", updating the address if needed.")
				st.Forget(h)
				s.cluster.bus.dirty = true
				return
			}
			st.Rename(h, m.from.ID)
			h.Flags = m.from.Flags & (cluster.FlagMaster | cluster.FlagSlave | cluster.FlagNoFailover)
			h.Linked = true
			h.Hostname = m.from.Hostname
			if m.ip != "" {
				h.IP = m.ip
			}
			sender = h
			changed = true
		}
	case busUpdate:
		n := st.Lookup(m.updateID)
		if n == nil || n.ConfigEpoch >= m.updateEpoch {
			return
		}
		if n.IsReplica() {
			st.SetAsMaster(n)
		}
		n.ConfigEpoch = m.updateEpoch
		s.updateSlotsConfigWithLocked(n, m.updateEpoch, &m.slots)
		s.busAfterReceiveLocked(before, known, true)
		return
	}
	if sender == nil || sender == me {
		if changed {
			s.cluster.bus.dirty = true
		}
		return
	}
	sender.Linked = true
	if m.currentEpoch > st.CurrentEpoch {
		st.CurrentEpoch = m.currentEpoch
		changed = true
	}
	sender.ReplOffset = m.offset
	if mf := &s.cluster.mf; m.paused && !mf.end.IsZero() && me.IsReplica() && me.Master == sender && mf.masterOffset < 0 {
		mf.masterOffset = m.offset
		s.log.Info("Received replication offset for paused master manual failover: " + strconv.FormatInt(m.offset, 10))
		s.clusterManualFailoverCronLocked()
	}
	if m.kind == busMFStart {
		s.clusterMFStartLocked(sender)
		if changed {
			s.cluster.bus.dirty = true
		}
		return
	}
	// The sender's role.
	if m.masterID == "" {
		if sender.IsReplica() || !sender.IsMaster() {
			st.SetAsMaster(sender)
			changed = true
		}
		if m.configEpoch > sender.ConfigEpoch {
			sender.ConfigEpoch = m.configEpoch
			changed = true
		}
	} else {
		master := st.Lookup(m.masterID)
		if sender.IsMaster() { // a master turned into a replica
			st.DelNodeSlots(sender)
			st.SetReplicaOf(sender, master)
			changed = true
		}
		if master != nil && sender.Master != master {
			st.SetReplicaOf(sender, master)
			changed = true
		}
	}
	// The slots the sender (or its master) claims.
	claimer := sender
	if m.masterID != "" {
		claimer = st.Lookup(m.masterID)
	}
	if claimer != nil && claimer != me && slotsOf(st, claimer) != m.slots {
		if m.masterID == "" {
			s.updateSlotsConfigWithLocked(sender, m.configEpoch, &m.slots)
			changed = true
		}
		// A claim of a slot whose owner has a greater epoch: the
		// sender is told about the owner (clusterSendUpdate).
		for j := 0; j < cluster.Slots; j++ {
			o := st.Owner(j)
			if !m.slots.has(j) || o == nil || o == claimer || st.ImportingFrom(j) != nil {
				continue
			}
			if o.ConfigEpoch > m.configEpoch {
				u := s.busMessageLocked(busUpdate)
				u.updateID, u.updateEpoch, u.slots = o.ID, o.ConfigEpoch, slotsOf(st, o)
				busSend(m.src, u)
				break
			}
		}
	}
	if sender.IsMaster() && me.IsMaster() && m.masterID == "" && m.configEpoch == me.ConfigEpoch {
		s.configEpochCollisionLocked(sender)
	}
	// The gossip section (clusterProcessGossipSection): unknown nodes
	// join with their IDs, unless FORGET blacklisted them.
	for _, g := range m.gossip {
		if g.ID == me.ID || st.Lookup(g.ID) != nil || g.Flags&cluster.FlagNoAddr != 0 || s.blacklistedLocked(g.ID) {
			continue
		}
		n := &cluster.Node{ID: g.ID, IP: g.IP, Port: g.Port, CPort: g.CPort, Hostname: g.Hostname,
			Flags: g.Flags & (cluster.FlagMaster | cluster.FlagSlave | cluster.FlagNoFailover)}
		n.Linked = busLookup(n.IP, n.CPort) != nil
		st.AddNode(n)
		changed = true
		s.busPingLocked(n) // its PONG tells its slots and master
	}
	if changed {
		s.cluster.bus.dirty = true
	}
	s.busAfterReceiveLocked(before, known, false)
}

// busAfterReceiveLocked broadcasts when the message changed what this node
// claims or the set of nodes it knows; changed says nodes.conf must be
// written.
func (s *Server) busAfterReceiveLocked(before myClaims, known int, changed bool) {
	if changed {
		s.cluster.bus.dirty = true
	}
	if s.myClaimsLocked() != before || len(s.cluster.st.Nodes()) > known {
		s.clusterBroadcast()
	}
}

// updateSlotsConfigWithLocked is clusterUpdateSlotsConfigWith: each slot
// of slots goes to sender when it is unassigned or its owner's config
// epoch is below epoch, unless this node imports it. A master left without
// slots by the change follows the sender as its replica (with
// cluster-allow-replica-migration, or when the sender took all of them);
// otherwise keys of slots this node lost are deleted (propagated as DEL).
func (s *Server) updateSlotsConfigWithLocked(sender *cluster.Node, epoch uint64, slots *slotBitmap) {
	st := s.cluster.st
	me := st.Myself
	if sender == me {
		s.log.Info("Discarding UPDATE message about myself.")
		return
	}
	cur := me
	if me.IsReplica() && me.Master != nil {
		cur = me.Master
	}
	var newMaster *cluster.Node
	var dirty []int
	senderSlots, migrated := 0, 0
	for j := 0; j < cluster.Slots; j++ {
		if !slots.has(j) {
			continue
		}
		senderSlots++
		o := st.Owner(j)
		if o == sender || st.ImportingFrom(j) != nil {
			continue
		}
		if o != nil && o.ConfigEpoch >= epoch {
			continue
		}
		if o == me && s.ks.DB(0).CountKeysInSlot(j) > 0 {
			dirty = append(dirty, j)
		}
		if o == cur {
			newMaster = sender
			migrated++
		}
		if s.servesLocked(j) {
			s.removeShardChannelsLocked(func(k int) bool { return k == j })
		}
		st.DelSlot(j)
		st.AddSlot(sender, j)
	}
	switch {
	case newMaster != nil && cur.NumSlots() == 0 &&
		(paramOr(&s.cfg, "cluster-allow-replica-migration", "yes") == "yes" || senderSlots == migrated):
		s.log.Warn("Configuration change detected. Reconfiguring myself as a replica of " + sender.ID)
		s.clusterSetMasterLocked(sender)
	default:
		for _, j := range dirty {
			s.clusterDelKeysInSlotLocked(j)
		}
	}
}

// clusterDelKeysInSlotLocked deletes the keys of a slot this node lost
// (delKeysInSlot): each through db's Delete, propagated as DEL.
func (s *Server) clusterDelKeysInSlotLocked(slot int) {
	d := s.ks.DB(0)
	for _, k := range d.KeysInSlot(nil, slot, d.CountKeysInSlot(slot)) {
		if d.Delete([]byte(k)) {
			s.propagateLocked(d, []byte("DEL"), []byte(k))
		}
	}
}

// configEpochCollisionLocked is clusterHandleConfigEpochCollision: of two
// masters with the same config epoch, the one with the smaller ID takes a
// new epoch.
func (s *Server) configEpochCollisionLocked(sender *cluster.Node) {
	st := s.cluster.st
	me := st.Myself
	if sender.ID <= me.ID {
		return
	}
	st.CurrentEpoch++
	me.ConfigEpoch = st.CurrentEpoch
	s.cluster.bus.dirty = true
	s.log.Debug("WARNING: configEpoch collision with node " + sender.ID + ". configEpoch set to " + strconv.FormatUint(me.ConfigEpoch, 10))
}
