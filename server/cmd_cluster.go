package server

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The CLUSTER command family and READONLY / READWRITE / ASKING (Redis 7.0
// cluster.c clusterCommand). Without cluster mode every one of them
// replies "ERR This instance has cluster support disabled", as Redis does.
// The subcommands that change the slots are in cmd_cluster_slots.go, MEET
// in cmd_cluster_meet.go, REPLICATE and FAILOVER in cmd_cluster_failover.go.
var clusterCommands = append([]commandDef{
	{"cluster|help", clusterOnly(cmdHelp)},
	{"cluster|info", clusterOnly(cmdClusterInfo)},
	{"cluster|myid", clusterOnly(cmdClusterMyID)},
	{"cluster|nodes", clusterOnly(cmdClusterNodes)},
	{"cluster|slots", clusterOnly(cmdClusterSlots)},
	{"cluster|shards", clusterOnly(cmdClusterShards)},
	{"cluster|links", clusterOnly(cmdClusterLinks)},
	{"cluster|keyslot", clusterOnly(cmdClusterKeySlot)},
	{"cluster|countkeysinslot", clusterOnly(cmdClusterCountKeysInSlot)},
	{"cluster|getkeysinslot", clusterOnly(cmdClusterGetKeysInSlot)},
	{"cluster|addslots", clusterOnly(cmdClusterAddDelSlots)},
	{"cluster|delslots", clusterOnly(cmdClusterAddDelSlots)},
	{"cluster|addslotsrange", clusterOnly(cmdClusterAddDelSlotsRange)},
	{"cluster|delslotsrange", clusterOnly(cmdClusterAddDelSlotsRange)},
	{"cluster|flushslots", clusterOnly(cmdClusterFlushSlots)},
	{"cluster|setslot", clusterOnly(cmdClusterSetSlot)},
	{"cluster|reset", clusterOnly(cmdClusterReset)},
	{"cluster|count-failure-reports", clusterOnly(cmdClusterCountFailureReports)},
	{"cluster|forget", clusterOnly(cmdClusterForget)},
	{"cluster|meet", clusterOnly(cmdClusterMeet)},
	{"cluster|replicas", clusterOnly(cmdClusterReplicas)},
	{"cluster|slaves", clusterOnly(cmdClusterReplicas)},
	{"cluster|saveconfig", clusterOnly(cmdClusterSaveConfig)},
	{"cluster|bumpepoch", clusterOnly(cmdClusterBumpEpoch)},
	{"cluster|set-config-epoch", clusterOnly(cmdClusterSetConfigEpoch)},
	{"readonly", clusterOnly(cmdReadonly)},
	{"readwrite", clusterOnly(cmdReadwrite)},
	{"asking", clusterOnly(cmdAsking)},
}, clusterFailoverCommands...)

var (
	errClusterDisabled = protocol.Error("ERR This instance has cluster support disabled")
	errInvalidSlot     = protocol.Error("ERR Invalid or out of range slot")
)

// clusterOnly wraps h with cluster mode's check.
func clusterOnly(h handler) handler {
	return func(c *client, args [][]byte) {
		if !c.srv.cluster.on {
			c.fail(errClusterDisabled)
			return
		}
		c.srv.refreshMyselfLocked()
		h(c, args)
	}
}

// slotArg is getSlotOrReply.
func slotArg(b []byte) (int, bool) {
	v, ok := protocol.ParseInt(b)
	if !ok || v < 0 || v >= cluster.Slots {
		return 0, false
	}
	return int(v), true
}

func cmdClusterInfo(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	h := st.Health()
	state := "fail"
	if st.OK() {
		state = "ok"
	}
	var b strings.Builder
	field(&b, "cluster_state", state)
	field(&b, "cluster_slots_assigned", h.Assigned)
	field(&b, "cluster_slots_ok", h.OK)
	field(&b, "cluster_slots_pfail", h.PFail)
	field(&b, "cluster_slots_fail", h.Fail)
	field(&b, "cluster_known_nodes", h.KnownNodes)
	field(&b, "cluster_size", h.Size)
	field(&b, "cluster_current_epoch", st.CurrentEpoch)
	myEpoch := st.Myself.ConfigEpoch
	if st.Myself.IsReplica() && st.Myself.Master != nil {
		myEpoch = st.Myself.Master.ConfigEpoch
	}
	field(&b, "cluster_my_epoch", myEpoch)
	field(&b, "cluster_stats_messages_sent", 0)
	field(&b, "cluster_stats_messages_received", 0)
	field(&b, "total_cluster_links_buffer_limit_exceeded", 0)
	c.w.Verbatim("txt", b.String())
}

func cmdClusterMyID(c *client, args [][]byte) { c.w.BulkString(c.srv.cluster.st.Myself.ID) }

func cmdClusterNodes(c *client, args [][]byte) {
	c.w.Verbatim("txt", string(c.srv.cluster.st.Description(false)))
}

// writeSlotsNode is addNodeToNodeReply: the preferred endpoint, the port,
// the ID and a map of the other endpoints known.
func (s *Server) writeSlotsNode(c *client, n *cluster.Node) {
	typ := paramOr(&s.cfg, "cluster-preferred-endpoint-type", "ip")
	c.w.Array(4)
	switch typ {
	case "hostname":
		if n.Hostname != "" {
			c.w.BulkString(n.Hostname)
		} else {
			c.w.BulkString("?")
		}
	case "unknown-endpoint":
		c.w.Null()
	default:
		c.w.BulkString(n.IP)
	}
	c.w.Int(int64(n.Port))
	c.w.BulkString(n.ID)
	pairs := 0
	if typ != "ip" {
		pairs++
	}
	if typ != "hostname" && n.Hostname != "" {
		pairs++
	}
	c.w.Map(pairs)
	if typ != "ip" {
		c.w.BulkString("ip")
		c.w.BulkString(n.IP)
	}
	if typ != "hostname" && n.Hostname != "" {
		c.w.BulkString("hostname")
		c.w.BulkString(n.Hostname)
	}
}

// replicasOf returns n's replicas, in the order they became known.
func replicasOf(st *cluster.State, n *cluster.Node) []*cluster.Node {
	var out []*cluster.Node
	for _, r := range st.Nodes() {
		if r.Master == n && r.IsReplica() {
			out = append(out, r)
		}
	}
	return out
}

// cmdClusterSlots is clusterReplyMultiBulkSlots: one entry per run of
// consecutive slots served by the same node, in slot order, with the
// replicas that are not failed.
func cmdClusterSlots(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	type run struct {
		n          *cluster.Node
		start, end int
	}
	var runs []run
	for j := 0; j < cluster.Slots; j++ {
		n := st.Owner(j)
		if n == nil {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].n == n && runs[k].end == j-1 {
			runs[k].end = j
			continue
		}
		runs = append(runs, run{n, j, j})
	}
	c.w.Array(len(runs))
	for _, r := range runs {
		var reps []*cluster.Node
		for _, rep := range replicasOf(st, r.n) {
			// isReplicaAvailable: not failing, and synced once.
			if rep.Flags&cluster.FlagFail == 0 && s.clusterNodeOffsetLocked(rep) != 0 {
				reps = append(reps, rep)
			}
		}
		c.w.Array(3 + len(reps))
		c.w.Int(int64(r.start))
		c.w.Int(int64(r.end))
		s.writeSlotsNode(c, r.n)
		for _, rep := range reps {
			s.writeSlotsNode(c, rep)
		}
	}
}

// cmdClusterShards is clusterReplyShards: one shard per master, with its
// slot ranges as start/end pairs and its nodes (the master, then its
// replicas).
func cmdClusterShards(c *client, args [][]byte) {
	s := c.srv
	st := s.cluster.st
	var masters []*cluster.Node
	for _, n := range st.Nodes() {
		if n.IsMaster() {
			masters = append(masters, n)
		}
	}
	c.w.Array(len(masters))
	for _, m := range masters {
		c.w.Map(2)
		c.w.BulkString("slots")
		ranges := st.Ranges(m)
		c.w.Array(2 * len(ranges))
		for _, r := range ranges {
			c.w.Int(int64(r[0]))
			c.w.Int(int64(r[1]))
		}
		c.w.BulkString("nodes")
		nodes := append([]*cluster.Node{m}, replicasOf(st, m)...)
		c.w.Array(len(nodes))
		for _, n := range nodes {
			s.writeShardNode(c, n)
		}
	}
}

// writeShardNode is addNodeDetailsToShardReply.
func (s *Server) writeShardNode(c *client, n *cluster.Node) {
	fields := 7 // id, port, ip, endpoint, role, replication-offset, health
	if n.Hostname != "" {
		fields++
	}
	c.w.Map(fields)
	c.w.BulkString("id")
	c.w.BulkString(n.ID)
	c.w.BulkString("port")
	c.w.Int(int64(n.Port))
	c.w.BulkString("ip")
	c.w.BulkString(n.IP)
	c.w.BulkString("endpoint")
	c.w.BulkString(s.preferredEndpoint(n))
	if n.Hostname != "" {
		c.w.BulkString("hostname")
		c.w.BulkString(n.Hostname)
	}
	off := s.clusterNodeOffsetLocked(n)
	role, health := "master", "online"
	if n.IsReplica() {
		role = "replica"
		if off == 0 {
			health = "loading"
		}
	}
	if n.Flags&cluster.FlagFail != 0 {
		health = "fail"
	}
	c.w.BulkString("role")
	c.w.BulkString(role)
	c.w.BulkString("replication-offset")
	c.w.Int(off)
	c.w.BulkString("health")
	c.w.BulkString(health)
}

// cmdClusterLinks lists the cluster bus links: there is no bus, so none.
func cmdClusterLinks(c *client, args [][]byte) { c.w.Array(0) }

func cmdClusterKeySlot(c *client, args [][]byte) {
	c.w.Int(int64(cluster.KeyHashSlot(args[2])))
}

func cmdClusterCountKeysInSlot(c *client, args [][]byte) {
	slot, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if slot < 0 || slot >= cluster.Slots {
		c.fail(protocol.Error("ERR Invalid slot"))
		return
	}
	c.w.Int(int64(c.srv.ks.DB(0).CountKeysInSlot(int(slot))))
}

func cmdClusterGetKeysInSlot(c *client, args [][]byte) {
	slot, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	max, ok := protocol.ParseInt(args[3])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if slot < 0 || slot >= cluster.Slots || max < 0 {
		c.fail(protocol.Error("ERR Invalid slot or number of keys"))
		return
	}
	d := c.srv.ks.DB(0)
	n := int64(d.CountKeysInSlot(int(slot)))
	keys := d.KeysInSlot(nil, int(slot), int(min(max, n)))
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func cmdReadonly(c *client, args [][]byte) {
	c.cl.readonly = true
	c.w.OK()
}

func cmdReadwrite(c *client, args [][]byte) {
	c.cl.readonly = false
	c.w.OK()
}

func cmdAsking(c *client, args [][]byte) {
	c.cl.asking = true
	c.w.OK()
}
