package cluster

import (
	"crypto/rand"
	"encoding/hex"
)

// NodeFlags are a node's flags (Redis's CLUSTER_NODE_*).
type NodeFlags uint16

const (
	FlagMyself NodeFlags = 1 << iota
	FlagMaster
	FlagSlave
	FlagPFail
	FlagFail
	FlagHandshake
	FlagNoAddr
	FlagNoFailover
)

// flagWords are the flags' words in the order CLUSTER NODES prints them
// (Redis's redisNodeFlagsTable).
var flagWords = []struct {
	f    NodeFlags
	word string
}{
	{FlagMyself, "myself"}, {FlagMaster, "master"}, {FlagSlave, "slave"},
	{FlagPFail, "fail?"}, {FlagFail, "fail"}, {FlagHandshake, "handshake"},
	{FlagNoAddr, "noaddr"}, {FlagNoFailover, "nofailover"},
}

// Node is one node of the cluster as this node knows it (clusterNode).
type Node struct {
	ID       string // 40 hex characters
	IP       string // "" until known (a fresh Redis node does not know its own)
	Port     int    // client port
	CPort    int    // cluster bus port
	Hostname string // cluster-announce-hostname, "" for none
	Flags    NodeFlags
	Master   *Node // the master of a replica, else nil

	PingSent     int64 // unix ms, 0 for none
	PongReceived int64 // unix ms, 0 for none
	ConfigEpoch  uint64
	// Linked says the link to the node is up ("connected"); myself is
	// always connected.
	Linked bool
	// ReplOffset is the replication offset the node last told (Redis's
	// repl_offset, carried by every cluster bus message); myself's is
	// not kept here.
	ReplOffset int64

	numSlots int
}

// IsMaster reports whether n is a master.
func (n *Node) IsMaster() bool { return n.Flags&FlagMaster != 0 }

// IsReplica reports whether n is a replica.
func (n *Node) IsReplica() bool { return n.Flags&FlagSlave != 0 }

// NumSlots returns how many slots n serves.
func (n *Node) NumSlots() int { return n.numSlots }

// State is one node's view of the cluster (Redis's clusterState): the known
// nodes, which node owns each slot, and the slots being migrated or
// imported. Its zero value is not usable; create it with NewState or
// ParseConfig. Not safe for concurrent use: the server guards it with its
// engine lock.
type State struct {
	Myself        *Node
	CurrentEpoch  uint64
	LastVoteEpoch uint64

	nodes     map[string]*Node
	order     []*Node // the nodes in the order they became known
	slots     [Slots]*Node
	migrating [Slots]*Node // MIGRATING target, only for slots Myself owns
	importing [Slots]*Node // IMPORTING source

	ok bool // cluster_state:ok (see UpdateState)
}

// NewNodeID returns a random node ID: 40 hex characters, as Redis's
// getRandomHexChars.
func NewNodeID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewState returns the state of a node that knows only itself: a master
// with the given ID and ports, serving no slot.
func NewState(id string, port, cport int) *State {
	st := &State{nodes: map[string]*Node{}}
	st.Myself = &Node{ID: id, Port: port, CPort: cport, Flags: FlagMyself | FlagMaster, Linked: true}
	st.AddNode(st.Myself)
	return st
}

// AddNode adds n to the known nodes (clusterAddNode); a node with the
// same ID is replaced.
func (st *State) AddNode(n *Node) {
	if old := st.nodes[n.ID]; old != nil {
		for i, o := range st.order {
			if o == old {
				st.order = append(st.order[:i], st.order[i+1:]...)
				break
			}
		}
	}
	st.nodes[n.ID] = n
	st.order = append(st.order, n)
}

// Lookup returns the node with ID id, or nil (clusterLookupNode).
func (st *State) Lookup(id string) *Node { return st.nodes[id] }

// Nodes returns every known node, in the order they became known.
func (st *State) Nodes() []*Node { return st.order }

// Forget removes node n and the slots it served (clusterDelNode).
func (st *State) Forget(n *Node) {
	for j := range st.slots {
		if st.importing[j] == n {
			st.importing[j] = nil
		}
		if st.migrating[j] == n {
			st.migrating[j] = nil
		}
		if st.slots[j] == n {
			st.DelSlot(j)
		}
	}
	for _, o := range st.order {
		if o.Master == n {
			o.Master = nil
		}
	}
	delete(st.nodes, n.ID)
	for i, o := range st.order {
		if o == n {
			st.order = append(st.order[:i], st.order[i+1:]...)
			break
		}
	}
}

// Owner returns the node serving slot, or nil when it is unassigned.
func (st *State) Owner(slot int) *Node { return st.slots[slot] }

// MigratingTo returns the node slot is being migrated to, or nil.
func (st *State) MigratingTo(slot int) *Node { return st.migrating[slot] }

// ImportingFrom returns the node slot is being imported from, or nil.
func (st *State) ImportingFrom(slot int) *Node { return st.importing[slot] }

// SetMigrating marks slot as migrating to n (nil: not migrating).
func (st *State) SetMigrating(slot int, n *Node) { st.migrating[slot] = n }

// SetImporting marks slot as imported from n (nil: not importing).
func (st *State) SetImporting(slot int, n *Node) { st.importing[slot] = n }

// AddSlot gives slot to n (clusterAddSlot); it reports false when the
// slot already has an owner.
func (st *State) AddSlot(n *Node, slot int) bool {
	if st.slots[slot] != nil {
		return false
	}
	st.slots[slot] = n
	n.numSlots++
	return true
}

// DelSlot unassigns slot (clusterDelSlot); it reports false when the slot
// had no owner.
func (st *State) DelSlot(slot int) bool {
	n := st.slots[slot]
	if n == nil {
		return false
	}
	st.slots[slot] = nil
	n.numSlots--
	return true
}

// DelNodeSlots unassigns every slot n serves (clusterDelNodeSlots) and
// returns how many there were.
func (st *State) DelNodeSlots(n *Node) int {
	deleted := 0
	for j := range st.slots {
		if st.slots[j] == n {
			st.DelSlot(j)
			deleted++
		}
	}
	return deleted
}

// Ranges returns the slots n serves as [start, end] ranges, in order.
func (st *State) Ranges(n *Node) [][2]int {
	var out [][2]int
	start := -1
	for j := 0; j <= Slots; j++ {
		if j < Slots && st.slots[j] == n {
			if start < 0 {
				start = j
			}
			continue
		}
		if start >= 0 {
			out = append(out, [2]int{start, j - 1})
			start = -1
		}
	}
	return out
}

// Reset is CLUSTER RESET (clusterReset): myself becomes a master serving
// no slot, migrations are closed and every other node is forgotten. A hard
// reset also zeroes the epochs and gives myself the new ID newID.
func (st *State) Reset(hard bool, newID string) {
	me := st.Myself
	me.Flags = me.Flags&^FlagSlave | FlagMaster
	me.Master = nil
	st.migrating = [Slots]*Node{}
	st.importing = [Slots]*Node{}
	for j := range st.slots {
		st.DelSlot(j)
	}
	for _, n := range append([]*Node(nil), st.order...) {
		if n != me {
			st.Forget(n)
		}
	}
	if hard {
		st.CurrentEpoch, st.LastVoteEpoch, me.ConfigEpoch = 0, 0, 0
		delete(st.nodes, me.ID)
		me.ID = newID
		st.nodes[me.ID] = me
	}
}

// BumpEpoch gives myself a new config epoch unless it already has the
// greatest one and no other node shares it (clusterBumpConfigEpochWithoutConsensus).
// It reports whether the epoch changed.
func (st *State) BumpEpoch() bool {
	max := st.maxEpoch()
	me := st.Myself
	if me.ConfigEpoch == 0 || me.ConfigEpoch != max {
		st.CurrentEpoch++
		me.ConfigEpoch = st.CurrentEpoch
		return true
	}
	return false
}

// maxEpoch is clusterGetMaxEpoch.
func (st *State) maxEpoch() uint64 {
	var max uint64
	for _, n := range st.order {
		if n.ConfigEpoch > max {
			max = n.ConfigEpoch
		}
	}
	if max < st.CurrentEpoch {
		max = st.CurrentEpoch
	}
	return max
}

// Health are the counts CLUSTER INFO reports.
type Health struct {
	Assigned, OK, PFail, Fail int // slots
	KnownNodes                int
	Size                      int // masters serving at least one slot
}

// Health counts the slots and nodes as CLUSTER INFO reports them.
func (st *State) Health() Health {
	var h Health
	for _, n := range st.slots {
		if n == nil {
			continue
		}
		h.Assigned++
		switch {
		case n.Flags&FlagFail != 0:
			h.Fail++
		case n.Flags&FlagPFail != 0:
			h.PFail++
		default:
			h.OK++
		}
	}
	h.KnownNodes = len(st.order)
	for _, n := range st.order {
		if n.IsMaster() && n.numSlots > 0 {
			h.Size++
		}
	}
	return h
}

// UpdateState recomputes cluster_state (clusterUpdateState) without the
// delays Redis adds after a start or a partition: the cluster is ok unless
// requireFullCoverage and a slot is unassigned or served by a failed node,
// or the masters this node reaches are not a majority of the cluster's.
func (st *State) UpdateState(requireFullCoverage bool) {
	ok := true
	if requireFullCoverage {
		for _, n := range st.slots {
			if n == nil || n.Flags&FlagFail != 0 {
				ok = false
				break
			}
		}
	}
	size, reachable := 0, 0
	for _, n := range st.order {
		if n.IsMaster() && n.numSlots > 0 {
			size++
			if n.Flags&(FlagFail|FlagPFail) == 0 {
				reachable++
			}
		}
	}
	if reachable < size/2+1 {
		ok = false
	}
	st.ok = ok
}

// OK reports cluster_state:ok as of the last UpdateState.
func (st *State) OK() bool { return st.ok }

// SetReplicaOf makes n a replica of master (the flag and slaveof parts of
// clusterSetMaster and of a gossiped role change); n's slots are left to
// the caller.
func (st *State) SetReplicaOf(n, master *Node) {
	n.Flags = n.Flags&^FlagMaster | FlagSlave
	n.Master = master
}

// SetAsMaster makes n a master (clusterSetNodeAsMaster).
func (st *State) SetAsMaster(n *Node) {
	n.Flags = n.Flags&^FlagSlave | FlagMaster
	n.Master = nil
}

// CloseSlots ends every migration and import (clusterCloseAllSlots).
func (st *State) CloseSlots() {
	st.migrating = [Slots]*Node{}
	st.importing = [Slots]*Node{}
}

// MaxEpoch is the greatest config epoch known, or the current epoch when
// greater (clusterGetMaxEpoch).
func (st *State) MaxEpoch() uint64 { return st.maxEpoch() }
