package server

import (
	"net"
	"sync"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The in-process cluster bus: the cluster nodes of one process (an
// emulated cluster, or servers a test starts) gossip to each other as
// Redis's cluster bus would (cluster.c clusterProcessPacket), by passing
// messages instead of packets. There is no bus with nodes in other
// processes.
//
// Every cluster-enabled server registers under its cluster bus address
// (cluster-port, or port+10000, on its bind addresses) once it has a
// port (clusterCronLocked). A node sends:
//
//   - MEET after CLUSTER MEET to an address of the bus; the receiver learns
//     the sender and answers PONG, which completes the sender's handshake
//     (the node added under a random ID is renamed, loses "handshake").
//   - PING from clusterBroadcast, to every other known node, after a change
//     of what it claims (its slots, config epoch and role) or of the nodes
//     it knows, and once a second to one random node (clusterCron's ping);
//     every PING is answered with a PONG.
//   - UPDATE to a node that claims slots whose owner has a greater config
//     epoch (clusterSendUpdate).
//   - MFSTART from a replica to its master for CLUSTER FAILOVER
//     (cmd_cluster_failover.go); the master answers with a PING whose
//     PAUSED flag says it paused writes, its offset the one to reach.
//
// Every message carries the sender's claims (slots, epochs, role and
// master), its replication offset (what CLUSTER SLOTS and SHARDS report
// for it), whether it is a master paused for a manual failover, and its
// list of known nodes (the gossip section). A node whose replication
// offset moved since its last broadcast broadcasts again from its cron, as
// Redis's pings carry the offset to every node. The receiver applies Redis's rules: the current
// epoch and the sender's config epoch only grow, claimed slots go to the
// sender when it has a greater config epoch than their owner
// (clusterUpdateSlotsConfigWith), two masters with the same config epoch
// are told apart by clusterHandleConfigEpochCollision, and nodes of the
// gossip section that are not known, not blacklisted by CLUSTER FORGET
// (for 60 seconds) and gossiped by a known node are added. A MEET to an
// address with no node of the bus leaves the node in the handshake state
// until cluster-node-timeout (at least a second) passes, as Redis drops a
// handshake that never completes.
//
// This file holds the registry, the messages and their delivery;
// cluster_gossip.go the receiver's rules; cluster_handshake.go MEET's
// handshakes, FORGET's blacklist and the bus's cron.
//
// Locking: a message is a snapshot taken under the sender's engine lock;
// delivery appends it to the receiver's inbox (its own small mutex), and
// the receiver's bus goroutine applies it under the receiver's engine lock
// alone. No goroutine holds two servers' engine locks at once. Lock order:
// engine lock, then peerBus.mu or an inbox's mu (both leaves).

// peerBus is the process's registry of cluster nodes, by bus port.
var peerBus = struct {
	mu    sync.Mutex
	nodes map[int][]busEntry
}{nodes: map[int][]busEntry{}}

// busEntry is a registered node: its server and bind addresses.
type busEntry struct {
	s     *Server
	binds []string
}

// clusterBus is a server's part of the bus. The fields are guarded by the
// engine lock, except inbox (its own mutex).
type clusterBus struct {
	port      int                          // the bus port registered, 0 for none
	started   bool                         // the bus goroutine runs
	inbox     busInbox                     // its own mutex
	shakes    map[*cluster.Node]*handshake // nodes in the handshake state
	blacklist map[string]int64             // FORGET: node ID -> end, unix seconds
	nextPing  time.Time                    // clusterCron's ping of a random node
	offSent   int64                        // the replication offset of the last broadcast
	dirty     bool                         // a received message changed the state (busApplyBatchLocked)
}

// busInbox is a node's queue of received messages, applied in order.
type busInbox struct {
	mu   sync.Mutex
	q    []*busMessage
	wake chan struct{} // one token: the queue is not empty
}

type busKind uint8

const (
	busMeet busKind = iota
	busPing
	busPong
	busUpdate
	busMFStart
)

// busNode is a node as a message describes it (a gossip entry).
type busNode struct {
	ID       string
	IP       string
	Port     int
	CPort    int
	Hostname string
	Flags    cluster.NodeFlags
}

// busMessage is one message (clusterMsg): the sender's claims and gossip.
type busMessage struct {
	kind busKind
	src  *Server // where replies go (never locked by the receiver)
	from busNode // the sender's myself
	// ip is the sender's address as the receiver records it: its announced
	// IP, or the IP it reached the receiver at (a node of this process).
	ip           string
	masterID     string // the sender's master, "" for a master
	currentEpoch uint64
	configEpoch  uint64 // of the sender, or of its master for a replica
	slots        slotBitmap
	offset       int64 // the sender's replication offset (clusterMsg.offset)
	paused       bool  // CLUSTERMSG_FLAG0_PAUSED: a master paused for a manual failover
	gossip       []busNode
	meetIP       string // MEET: the receiver's address the sender used
	shakeID      string // MEET and its PONG: the sender's handshake node
	pinged       string // PING and its PONG: the ID the pinger knows the receiver by
	// UPDATE: the node whose claims these are.
	updateID    string
	updateEpoch uint64
}

// slotBitmap is a set of slots (clusterMsg's myslots).
type slotBitmap [cluster.Slots / 64]uint64

func (b *slotBitmap) set(j int)      { b[j/64] |= 1 << (j % 64) }
func (b *slotBitmap) has(j int) bool { return b[j/64]&(1<<(j%64)) != 0 }

// slotsOf returns the slots st says n serves.
func slotsOf(st *cluster.State, n *cluster.Node) slotBitmap {
	var b slotBitmap
	for _, r := range st.Ranges(n) {
		for j := r[0]; j <= r[1]; j++ {
			b.set(j)
		}
	}
	return b
}

// busPortLocked is the port this node's bus would listen on, 0 while the
// server has no port.
func (s *Server) busPortLocked() int {
	if p := s.clusterIntParam("cluster-port"); p != 0 {
		return p
	}
	if me := s.cluster.st.Myself; me.Port != 0 {
		return me.Port + 10000
	}
	return 0
}

// busRegisterLocked registers the server under its bus port (again when
// the port changed) and starts its bus goroutine.
func (s *Server) busRegisterLocked() {
	b := &s.cluster.bus
	port := s.busPortLocked()
	if port == b.port || s.closing.Load() {
		return
	}
	peerBus.mu.Lock()
	busRemove(s, b.port)
	if port != 0 {
		peerBus.nodes[port] = append(peerBus.nodes[port], busEntry{s: s, binds: bindAddrs(s.cfg.Bind)})
	}
	peerBus.mu.Unlock()
	b.port = port
	if !b.started {
		b.started = true
		b.inbox.wake = make(chan struct{}, 1)
		go s.busLoop()
	}
}

// busRemove drops s from the registry's entries of port (peerBus.mu held).
func busRemove(s *Server, port int) {
	es := peerBus.nodes[port]
	for i, e := range es {
		if e.s == s {
			es = append(es[:i:i], es[i+1:]...)
			break
		}
	}
	if len(es) == 0 {
		delete(peerBus.nodes, port)
	} else {
		peerBus.nodes[port] = es
	}
}

// closeClusterBus leaves the bus (close hook). It takes the engine lock,
// so a message being applied is done first; the bus goroutine applies no
// other once the server is closing.
func (s *Server) closeClusterBus() {
	if !s.cluster.on {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	peerBus.mu.Lock()
	busRemove(s, s.cluster.bus.port)
	peerBus.mu.Unlock()
	s.cluster.bus.port = 0
}

// busLookup returns the node of this process whose bus listens on ip:port,
// or nil.
func busLookup(ip string, port int) *Server {
	peerBus.mu.Lock()
	defer peerBus.mu.Unlock()
	for _, e := range peerBus.nodes[port] {
		if bindMatches(e.binds, ip) {
			return e.s
		}
	}
	return nil
}

// bindMatches reports whether a listener on binds accepts connections to
// ip: "*" takes every IPv4 address, "::*" every address, a loopback
// address every loopback one.
func bindMatches(binds []string, ip string) bool {
	addr := net.ParseIP(ip)
	if addr == nil {
		return false
	}
	for _, b := range binds {
		if len(b) > 0 && b[0] == '-' {
			b = b[1:]
		}
		switch b {
		case "*", "0.0.0.0":
			if addr.To4() != nil {
				return true
			}
			continue
		case "::*", "::":
			return true
		}
		if a := net.ParseIP(b); a != nil && (a.Equal(addr) || (a.IsLoopback() && addr.IsLoopback())) {
			return true
		}
	}
	return false
}

// busSend queues m to to's inbox.
func busSend(to *Server, m *busMessage) {
	in := &to.cluster.bus.inbox
	in.mu.Lock()
	if in.wake == nil { // to has not registered yet: it cannot be reached
		in.mu.Unlock()
		return
	}
	in.q = append(in.q, m)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// busLoop applies the messages of s's inbox, in order, each under s's
// engine lock, until the server closes.
func (s *Server) busLoop() {
	in := &s.cluster.bus.inbox
	for {
		select {
		case <-s.done:
			return
		case <-in.wake:
		}
		for {
			engineLocker{s}.Lock()
			if s.closing.Load() {
				s.mu.Unlock()
				return
			}
			n := s.busApplyBatchLocked()
			s.mu.Unlock()
			if n == 0 {
				break
			}
		}
	}
}

// busBatch is how many messages one hold of the engine lock applies.
const busBatch = 64

// busApplyBatchLocked applies up to busBatch queued messages, then makes
// their changes take effect once (the state, nodes.conf, blocked clients),
// as Redis's clusterBeforeSleep does for the packets of one event loop
// round. It returns how many it applied.
func (s *Server) busApplyBatchLocked() int {
	in := &s.cluster.bus.inbox
	n := 0
	for ; n < busBatch; n++ {
		in.mu.Lock()
		if len(in.q) == 0 {
			in.q = nil
			in.mu.Unlock()
			break
		}
		m := in.q[0]
		in.q = in.q[1:]
		in.mu.Unlock()
		s.busReceiveLocked(m)
	}
	if s.cluster.bus.dirty {
		s.cluster.bus.dirty = false
		s.clusterChangedLocked()
	}
	return n
}

// busMessageLocked is a snapshot of this node's claims and known nodes
// (clusterBuildMessageHdr and the gossip section), to send as kind.
func (s *Server) busMessageLocked(kind busKind) *busMessage {
	st := s.cluster.st
	me := st.Myself
	m := &busMessage{kind: kind, src: s, from: busNodeOf(me), ip: me.IP, currentEpoch: st.CurrentEpoch, configEpoch: me.ConfigEpoch,
		offset: s.clusterMyOffsetLocked(), paused: me.IsMaster() && !s.cluster.mf.end.IsZero()}
	claims := me
	if me.IsReplica() && me.Master != nil {
		m.masterID = me.Master.ID
		m.configEpoch = me.Master.ConfigEpoch
		claims = me.Master
	}
	m.slots = slotsOf(st, claims)
	for _, n := range st.Nodes() {
		if n != me && n.Flags&(cluster.FlagHandshake|cluster.FlagNoAddr) == 0 {
			m.gossip = append(m.gossip, busNodeOf(n))
		}
	}
	return m
}

func busNodeOf(n *cluster.Node) busNode {
	return busNode{ID: n.ID, IP: n.IP, Port: n.Port, CPort: n.CPort, Hostname: n.Hostname, Flags: n.Flags}
}

// clusterBroadcast tells every other known node of this process what this
// node claims: call it, with the engine lock held, after any change of
// this node's own slots, config epoch or role (and of the nodes it
// knows), and from the cron when its replication offset moved. It takes
// a snapshot now and sends it as a PING to each peer's
// inbox; each peer applies it later under its own engine lock and answers
// with a PONG (so this node learns the peers' views too). Nodes in the
// handshake state and nodes outside this process are skipped.
func (s *Server) clusterBroadcast() {
	if !s.cluster.on {
		return
	}
	s.busRegisterLocked()
	st := s.cluster.st
	s.cluster.bus.offSent = s.clusterMyOffsetLocked()
	var m *busMessage
	for _, n := range st.Nodes() {
		if n == st.Myself || n.Flags&cluster.FlagHandshake != 0 {
			continue
		}
		if to := busLookup(n.IP, n.CPort); to != nil && to != s {
			if m == nil {
				m = s.busMessageLocked(busPing)
			}
			one := *m // the snapshot is shared; only the addressee differs
			one.pinged = n.ID
			busSend(to, &one)
		}
	}
}

// busPingLocked sends a PING to node n, if it is of this process.
func (s *Server) busPingLocked(n *cluster.Node) { s.busSendToLocked(n, busPing) }

// busSendToLocked sends a message of kind to node n, if it is of this
// process, and reports whether it could.
func (s *Server) busSendToLocked(n *cluster.Node, kind busKind) bool {
	to := busLookup(n.IP, n.CPort)
	if to == nil || to == s {
		return false
	}
	m := s.busMessageLocked(kind)
	m.pinged = n.ID
	busSend(to, m)
	return true
}

// clusterMyOffsetLocked is the replication offset this node's messages
// carry: replicationGetSlaveOffset on a replica, master_repl_offset on a
// master.
func (s *Server) clusterMyOffsetLocked() int64 {
	if l := s.repl.link; l != nil {
		if l.client != nil {
			return l.offset
		}
		return l.cachedOff
	}
	return s.repl.offset
}

// clusterNodeOffsetLocked is the replication offset known for n: myself's
// own, another node's as its last message told.
func (s *Server) clusterNodeOffsetLocked(n *cluster.Node) int64 {
	if n == s.cluster.st.Myself {
		return s.clusterMyOffsetLocked()
	}
	return n.ReplOffset
}
