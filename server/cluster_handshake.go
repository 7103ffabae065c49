package server

import (
	"math/rand"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The handshake side of the in-process cluster bus (cluster_peers.go):
// CLUSTER MEET's handshake nodes, their MEET and their end after the node
// timeout, FORGET's blacklist, and the bus's part of clusterCron. All under
// the engine lock.

// handshake is a node met with CLUSTER MEET (createClusterNode with
// CLUSTER_NODE_HANDSHAKE|CLUSTER_NODE_MEET).
type handshake struct {
	ctime int64 // unix ms
	met   bool  // MEET delivered to a node of the bus
}

// be added back by gossip.
const blacklistTTL = 60

// blacklistAddLocked is clusterBlacklistAddNode.
func (s *Server) blacklistAddLocked(id string) {
	b := &s.cluster.bus
	if b.blacklist == nil {
		b.blacklist = map[string]int64{}
	}
	b.blacklist[id] = time.Now().Unix() + blacklistTTL
}

// blacklistedLocked is clusterBlacklistExists.
func (s *Server) blacklistedLocked(id string) bool {
	end, ok := s.cluster.bus.blacklist[id]
	if ok && end < time.Now().Unix() {
		delete(s.cluster.bus.blacklist, id)
		return false
	}
	return ok
}

// clusterCronLocked is clusterCron (cron hook): the registration, the
// MEET of handshake nodes whose address has a node of this process, the
// end of handshakes older than the node timeout (at least a second),
// expired blacklist entries, once a second a PING to a random known node,
// a broadcast when the replication offset moved, and the replica's part
// (clusterReplicaCronLocked: the master link, the manual failover).
func (s *Server) clusterCronLocked() {
	if !s.cluster.on {
		return
	}
	s.refreshMyselfLocked()
	s.busRegisterLocked()
	b := &s.cluster.bus
	st := s.cluster.st
	now := time.Now()
	timeout := int64(s.clusterIntParam("cluster-node-timeout"))
	if timeout < 1000 {
		timeout = 1000
	}
	dropped := false
	for n, h := range b.shakes {
		if now.UnixMilli()-h.ctime > timeout {
			delete(b.shakes, n)
			st.Forget(n)
			dropped = true
			continue
		}
		if !h.met {
			s.busMeetLocked(n, h)
		}
	}
	if dropped {
		s.clusterChangedLocked()
	}
	for id := range b.blacklist {
		s.blacklistedLocked(id)
	}
	if now.After(b.nextPing) {
		b.nextPing = now.Add(time.Second)
		var peers []*cluster.Node
		for _, n := range st.Nodes() {
			if n != st.Myself && n.Flags&cluster.FlagHandshake == 0 {
				peers = append(peers, n)
			}
		}
		if len(peers) > 0 {
			n := peers[rand.Intn(len(peers))]
			s.busPingLocked(n)
		}
	}
	if s.clusterMyOffsetLocked() != b.offSent {
		s.clusterBroadcast()
	}
	s.clusterReplicaCronLocked()
}

// busMeetLocked sends MEET to the address of handshake node n when a node
// of this process listens there.
func (s *Server) busMeetLocked(n *cluster.Node, h *handshake) {
	to := busLookup(n.IP, n.CPort)
	if to == nil {
		return
	}
	h.met = true
	m := s.busMessageLocked(busMeet)
	m.meetIP, m.shakeID = n.IP, n.ID
	if m.ip == "" {
		m.ip = n.IP // the same host: the address the receiver was reached at
	}
	busSend(to, m)
}

// startHandshakeLocked is clusterStartHandshake for a normalized address:
// a node in the handshake state under a random ID, unless a handshake
// with the same address is in progress.
func (s *Server) startHandshakeLocked(ip string, port, cport int) {
	st := s.cluster.st
	for _, n := range st.Nodes() {
		if n.Flags&cluster.FlagHandshake != 0 && n.IP == ip && n.Port == port && n.CPort == cport {
			return
		}
	}
	b := &s.cluster.bus
	if b.shakes == nil {
		b.shakes = map[*cluster.Node]*handshake{}
	}
	n := &cluster.Node{ID: cluster.NewNodeID(), IP: ip, Port: port, CPort: cport, Flags: cluster.FlagHandshake}
	st.AddNode(n)
	h := &handshake{ctime: time.Now().UnixMilli()}
	b.shakes[n] = h
	s.busRegisterLocked()
	s.busMeetLocked(n, h)
}
