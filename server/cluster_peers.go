package server

import (
	"sync"
	"sync/atomic"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The peer registry: the cluster nodes of one process (an emulated
// cluster, cluster_emulate.go) tell each other what the cluster bus would
// carry about a node itself — its role, its master, its config epoch, the
// slots it claims, the current epoch, its replication offset — so that
// their views converge as gossip makes them converge in Redis.
//
// Contracts:
//   - clusterBroadcast is called, engine lock held, after every change of
//     this node's own role, master, slots or config epoch; clusterChangedLocked
//     calls it, so every CLUSTER subcommand that changes the topology does.
//     It sends a snapshot (a peerView) only when that part differs from the
//     last one sent.
//   - A view is delivered to each registered node whose ID this node
//     knows, from its own goroutine, and applied under the receiver's
//     engine lock (clusterReceiveViewLocked), never while the sender's lock
//     is held: two nodes broadcasting at once cannot deadlock. Views carry
//     a process-wide sequence number; a receiver drops a view older than
//     the last one it applied from that sender, so late goroutines do not
//     undo newer news.
//   - Applying a view follows clusterProcessPacket's rules for the sender
//     (a master that became a replica loses its slots; a replica that
//     became a master is flagged master) and clusterUpdateSlotsConfigWith
//     for its claimed slots: a slot goes to the sender when unassigned or
//     owned by a node of a lower config epoch, never when importing here;
//     a node whose master (or itself, as a master) lost its last slot to
//     the sender becomes the sender's replica (clusterSetMaster). Slots
//     the sender stopped claiming are not unassigned, as in Redis.
//   - The replication offsets are published by clusterCronLocked (Redis
//     gossips them with every ping) and read lock-free by the others for
//     CLUSTER SHARDS and CLUSTER SLOTS.
//
// Locking: peerRegistry.mu guards the entry list and each entry's id; it
// is taken inside an engine lock, never the other way round.

// peerView is what a node tells the others about itself.
type peerView struct {
	seq          uint64
	id           string
	master       string // the master's ID, "" for a master
	configEpoch  uint64
	currentEpoch uint64
	slots        [cluster.Slots / 8]byte // claimed slots, a bitmap
}

// peerEntry is one registered node.
type peerEntry struct {
	s      *Server
	id     string       // registry mu
	offset atomic.Int64 // replication offset, published by the node's cron
	epoch  atomic.Uint64
}

// peerRegistry is the process's list of cluster nodes.
type peerRegistry struct {
	mu      sync.Mutex
	entries []*peerEntry
	seq     atomic.Uint64
}

var clusterPeers peerRegistry

// clusterPeerState is a node's side of the registry (engine lock).
type clusterPeerState struct {
	entry *peerEntry
	sent  *peerView         // the last view broadcast
	seen  map[string]uint64 // sender ID -> seq of the last view applied
}

// register adds s (cluster mode) to the registry.
func (r *peerRegistry) register(s *Server) *peerEntry {
	e := &peerEntry{s: s, id: s.cluster.st.Myself.ID}
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	return e
}

// unregister removes e.
func (r *peerRegistry) unregister(e *peerEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, o := range r.entries {
		if o == e {
			r.entries = append(r.entries[:i], r.entries[i+1:]...)
			return
		}
	}
}

// lookup returns the entry of the node with ID id other than self's, or nil.
func (r *peerRegistry) lookup(id string, self *peerEntry) *peerEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if e != self && e.id == id {
			return e
		}
	}
	return nil
}

// known returns the entries of the nodes st knows, but self.
func (r *peerRegistry) known(st *cluster.State, self *peerEntry) []*peerEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*peerEntry
	for _, e := range r.entries {
		if e != self && st.Lookup(e.id) != nil {
			out = append(out, e)
		}
	}
	return out
}

// clusterPeersStartLocked registers this node (part of clusterInitLocked).
func (s *Server) clusterPeersStartLocked() {
	p := &s.cluster.peers
	p.entry = clusterPeers.register(s)
	p.seen = map[string]uint64{}
	p.entry.offset.Store(s.clusterMyOffsetLocked())
}

// clusterPeersStop unregisters this node (closeCluster).
func (s *Server) clusterPeersStop() {
	if e := s.cluster.peers.entry; e != nil {
		clusterPeers.unregister(e)
	}
}

// clusterMyViewLocked is this node's own part of the cluster state.
func (s *Server) clusterMyViewLocked() *peerView {
	st := s.cluster.st
	me := st.Myself
	v := &peerView{id: me.ID, configEpoch: me.ConfigEpoch, currentEpoch: st.CurrentEpoch}
	if me.IsReplica() && me.Master != nil {
		v.master = me.Master.ID
	}
	if me.IsMaster() {
		for j := 0; j < cluster.Slots; j++ {
			if st.Owner(j) == me {
				v.slots[j/8] |= 1 << (j % 8)
			}
		}
	}
	return v
}

// sameNews reports whether v tells what o told.
func (v *peerView) sameNews(o *peerView) bool {
	return o != nil && v.id == o.id && v.master == o.master && v.configEpoch == o.configEpoch &&
		v.currentEpoch == o.currentEpoch && v.slots == o.slots
}

// clusterBroadcast tells every other node of this process that knows this
// one about this node's role, master, config epoch and slots, when they
// changed since the last broadcast (Redis: clusterBroadcastPong after the
// change, then gossip). Engine lock held; see the contracts above.
func (s *Server) clusterBroadcast() {
	p := &s.cluster.peers
	if p.entry == nil {
		return
	}
	v := s.clusterMyViewLocked()
	clusterPeers.mu.Lock()
	p.entry.id = v.id // a hard reset gives a new ID
	clusterPeers.mu.Unlock()
	p.entry.epoch.Store(v.currentEpoch)
	if v.sameNews(p.sent) {
		return
	}
	v.seq = clusterPeers.seq.Add(1)
	p.sent = v
	for _, e := range clusterPeers.known(s.cluster.st, p.entry) {
		go e.s.clusterReceiveView(v)
	}
}

// clusterReceiveView applies v under the receiver's engine lock.
func (s *Server) clusterReceiveView(v *peerView) {
	l := engineLocker{s}
	l.Lock()
	defer l.Unlock()
	if s.closing.Load() || s.cluster.lock == nil {
		return
	}
	s.clusterReceiveViewLocked(v)
}

// clusterReceiveViewLocked is clusterProcessPacket's handling of the
// sender's own header for v; see the contracts above.
func (s *Server) clusterReceiveViewLocked(v *peerView) {
	cm := &s.cluster
	st := cm.st
	n := st.Lookup(v.id)
	if n == nil || n == st.Myself || v.seq <= cm.peers.seen[v.id] {
		return
	}
	cm.peers.seen[v.id] = v.seq
	changed := false
	if v.currentEpoch > st.CurrentEpoch {
		st.CurrentEpoch = v.currentEpoch
		changed = true
	}
	if v.master == "" {
		if n.IsReplica() {
			st.SetAsMaster(n) // "Node ... is now a master" (a failover)
			changed = true
		}
	} else {
		m := st.Lookup(v.master)
		if n.IsMaster() {
			st.DelNodeSlots(n) // a master turned into a replica
			st.SetReplicaOf(n, m)
			changed = true
		} else if m != nil && n.Master != m {
			st.SetReplicaOf(n, m)
			changed = true
		}
	}
	if n.ConfigEpoch != v.configEpoch && v.master == "" {
		n.ConfigEpoch = v.configEpoch
		changed = true
	}
	if v.master == "" && s.clusterUpdateSlotsConfigWithLocked(n, v) {
		changed = true
	}
	if changed {
		s.clusterChangedLocked()
	}
}

// clusterUpdateSlotsConfigWithLocked is clusterUpdateSlotsConfigWith for
// the slots sender claims in v; it reports whether a slot changed hands.
func (s *Server) clusterUpdateSlotsConfigWithLocked(sender *cluster.Node, v *peerView) bool {
	st := s.cluster.st
	me := st.Myself
	cur := me
	if me.IsReplica() {
		cur = me.Master
	}
	var newMaster *cluster.Node
	changed := false
	var dirty []int
	for j := 0; j < cluster.Slots; j++ {
		if v.slots[j/8]&(1<<(j%8)) == 0 {
			continue
		}
		owner := st.Owner(j)
		if owner == sender || st.ImportingFrom(j) != nil {
			continue
		}
		if owner != nil && owner.ConfigEpoch >= v.configEpoch {
			continue
		}
		if owner == me && s.ks.DB(0).CountKeysInSlot(j) > 0 {
			dirty = append(dirty, j)
		}
		if owner != nil && owner == cur {
			newMaster = sender
		}
		st.DelSlot(j)
		st.AddSlot(sender, j)
		changed = true
	}
	if newMaster != nil && cur != nil && cur.NumSlots() == 0 {
		s.log.Info("Configuration change detected. Reconfiguring myself as a replica of " + sender.ID)
		s.clusterSetMasterLocked(sender)
		return true
	}
	for _, j := range dirty {
		s.clusterDelKeysInSlotLocked(j)
	}
	return changed
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

// clusterMyOffsetLocked is the replication offset this node gossips:
// replicationGetSlaveOffset on a replica, master_repl_offset on a master.
func (s *Server) clusterMyOffsetLocked() int64 {
	if l := s.repl.link; l != nil {
		if l.client != nil {
			return l.offset
		}
		return l.cachedOff
	}
	return s.repl.offset
}

// clusterNodeOffsetLocked is the replication offset known for n
// (n->repl_offset; myself's own).
func (s *Server) clusterNodeOffsetLocked(n *cluster.Node) int64 {
	if n == s.cluster.st.Myself {
		return s.clusterMyOffsetLocked()
	}
	if e := clusterPeers.lookup(n.ID, s.cluster.peers.entry); e != nil {
		return e.offset.Load()
	}
	return 0
}

// clusterCronLocked is clusterCron's part here: a replica without a
// master link connects to its master (as clusterCron's replicationSetMaster
// does), the offset is published, the manual failover advances.
func (s *Server) clusterCronLocked() {
	cm := &s.cluster
	if !cm.on || cm.peers.entry == nil {
		return
	}
	me := cm.st.Myself
	if me.IsReplica() && me.Master != nil && s.repl.link == nil && (me.Master.IP != "" || me.Master.Port != 0) {
		s.replSetMasterLocked(clusterNodeHost(me.Master), me.Master.Port)
	}
	cm.peers.entry.offset.Store(s.clusterMyOffsetLocked())
	s.clusterManualFailoverCronLocked()
}
