package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Cluster mode (Redis 7.0 cluster.c, without the cluster bus): with
// cluster-enabled yes the server answers as a Redis Cluster node. Its view
// of the cluster (package cluster's State) lives in nodes.conf
// (cluster-config-file, in Redis's format, locked with flock as Redis
// does); the redirection rules of getNodeByQuery run in processCommand and
// in redis.call (cluster_redirect.go); the CLUSTER command family is
// cmd_cluster.go.
//
// One difference from Redis, on purpose: a node started without a
// nodes.conf owns all 16384 slots at once (cluster_state:ok from the first
// command), so a test double needs no CLUSTER ADDSLOTSRANGE and no wait.
// A node whose nodes.conf exists reads its slots from there, and CLUSTER
// RESET leaves it owning none, as in Redis. The cluster bus reaches only
// the cluster nodes of this process (cluster_peers.go): they gossip and
// MEET each other; a node in another process is known only from
// nodes.conf. REPLICATE and FAILOVER (cmd_cluster_failover.go) use the
// bus between a replica and its master, so both must be of this process.
//
// Locking: every field is guarded by the engine lock; on is set once, in
// New, and read without it by processCommand's one guarded branch.

// clusterMode is the server's cluster state.
type clusterMode struct {
	on   bool           // cluster-enabled yes
	st   *cluster.State // nil unless on
	path string         // the resolved cluster-config-file
	lock *os.File       // nodes.conf, open and flocked while the server runs
	// query is getNodeByQuery's scratch state (cluster_redirect.go).
	query nodeQuery
	// bus is the in-process cluster bus (cluster_peers.go).
	bus clusterBus
	mf  manualFailover // CLUSTER FAILOVER (cmd_cluster_failover.go)
}

// clientCluster is a client's cluster state (Redis's CLIENT_ASKING,
// CLIENT_READONLY and c->slot).
type clientCluster struct {
	asking   bool // ASKING: the next command may use an importing slot
	readonly bool // READONLY: reads may be served by a replica
	// slot is the slot of the keys of the command being run, -1 when it
	// has none: a script may only touch keys of that slot (scriptVerifyClusterState).
	slot int
}

// clusterInitLocked is the load hook of cluster mode (Redis's clusterInit,
// which runs before the data is loaded): the slot index, then nodes.conf,
// read or created.
func (s *Server) clusterInitLocked() error {
	if paramOr(&s.cfg, "cluster-enabled", "no") != "yes" {
		return nil
	}
	cm := &s.cluster
	cm.on = true
	s.ks.EnableSlotIndex()
	cm.path = s.cfg.Resolve(paramOr(&s.cfg, "cluster-config-file", "nodes.conf"))
	f, err := os.OpenFile(cm.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		msg := fmt.Sprintf("Can't open %s in order to acquire a lock: %s", cm.path, strerror(err))
		s.log.Warn(msg)
		return errors.New(msg)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		msg := fmt.Sprintf("Impossible to lock %s: %s", cm.path, strerror(err))
		if errors.Is(err, syscall.EWOULDBLOCK) {
			msg = fmt.Sprintf("Sorry, the cluster configuration file %s is already used by a different Redis Cluster node. Please make sure that different nodes use different cluster configuration files.", cm.path)
		}
		s.log.Warn(msg)
		return errors.New(msg)
	}
	cm.lock = f
	text, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if len(text) == 0 {
		cm.st = cluster.NewState(cluster.NewNodeID(), 0, 0)
		for j := 0; j < cluster.Slots; j++ {
			cm.st.AddSlot(cm.st.Myself, j)
		}
		s.log.Info("No cluster configuration found, I'm " + cm.st.Myself.ID)
	} else {
		st, skipped, err := cluster.ParseConfig(string(text))
		if err != nil {
			s.log.Warn(err.Error())
			return err
		}
		for _, v := range skipped {
			s.log.Warn("Skipping unknown cluster config variable '" + v + "'")
		}
		cm.st = st
		s.log.Info("Node configuration loaded, I'm " + st.Myself.ID[:40])
		if s.clusterIntParam("cluster-emulate") > 0 {
			// The other nodes run in this process: they are reachable.
			for _, n := range st.Nodes() {
				n.Linked = true
			}
		}
	}
	s.refreshMyselfLocked()
	s.cluster.mf.masterOffset = -1
	s.clusterChangedLocked()
	// Port sanity check II: the bus port is port+10000 unless cluster-port
	// is set (Redis exits with status 1 here, after nodes.conf is saved).
	port := s.cfg.Port
	if paramOr(&s.cfg, "tls-cluster", "no") == "yes" {
		port = s.clusterIntParam("tls-port")
	}
	if s.clusterIntParam("cluster-port") == 0 && port > 65535-10000 {
		msg := "Redis port number too high. Cluster communication port is 10,000 port numbers higher than your Redis port. Your Redis port number must be 55535 or less."
		s.log.Warn(msg)
		return errors.New(msg)
	}
	// Redis's clusterCron applies a new coverage rule within 100ms; here
	// at once.
	s.params.onApply(func(s *Server) error { s.clusterChangedLocked(); return nil },
		"cluster-require-full-coverage")
	return nil
}

// clusterVerifyDataLocked is verifyClusterConfigWithData, after the data
// is loaded: keys outside db 0 fail the start; a slot holding keys that
// this node neither serves nor imports is taken (unassigned) or set
// importing from its owner.
func (s *Server) clusterVerifyDataLocked() error {
	cm := &s.cluster
	if !cm.on || cm.st.Myself.IsReplica() {
		return nil
	}
	for j := 1; j < s.ks.Len(); j++ {
		if s.ks.DB(j).Size() != 0 {
			msg := "You can't have keys in a DB different than DB 0 when in Cluster mode. Exiting."
			s.log.Warn(msg)
			return errors.New(msg)
		}
	}
	st, d, changed := cm.st, s.ks.DB(0), false
	for j := 0; j < cluster.Slots && d.Size() > 0; j++ {
		if d.CountKeysInSlot(j) == 0 || st.Owner(j) == st.Myself || st.ImportingFrom(j) != nil {
			continue
		}
		changed = true
		if st.Owner(j) == nil {
			s.log.Warn(fmt.Sprintf("I have keys for unassigned slot %d. Taking responsibility for it.", j))
			st.AddSlot(st.Myself, j)
		} else {
			s.log.Warn(fmt.Sprintf("I have keys for slot %d, but the slot is assigned to another node. Setting it to importing state.", j))
			st.SetImporting(j, st.Owner(j))
		}
	}
	if changed {
		s.clusterChangedLocked()
	}
	return nil
}

// closeCluster releases nodes.conf (close hook, after closeClusterBus:
// no bus message is applied any more).
func (s *Server) closeCluster() {
	if s.cluster.lock != nil {
		s.cluster.lock.Close()
		s.cluster.lock = nil
	}
}

// refreshMyselfLocked sets myself's announced address from the
// configuration and the listener, as Redis's clusterCron does
// (deriveAnnouncedPorts, clusterUpdateMyselfAnnouncedIp and the hostname).
// The IP stays as nodes.conf had it ("" for a new node, as a Redis node
// that met nobody) unless cluster-announce-ip is set.
func (s *Server) refreshMyselfLocked() {
	me := s.cluster.st.Myself
	port := s.cfg.Port
	if port == 0 {
		if a, ok := s.Addr().(*net.TCPAddr); ok {
			port = a.Port
		}
	}
	me.Port = port
	if p := s.clusterIntParam("cluster-announce-port"); p != 0 {
		me.Port = p
	}
	me.CPort = port + 10000
	if p := s.clusterIntParam("cluster-port"); p != 0 {
		me.CPort = p
	}
	if p := s.clusterIntParam("cluster-announce-bus-port"); p != 0 {
		me.CPort = p
	}
	if ip := paramOr(&s.cfg, "cluster-announce-ip", ""); ip != "" {
		me.IP = ip
	}
	me.Hostname = paramOr(&s.cfg, "cluster-announce-hostname", "")
}

func (s *Server) clusterIntParam(name string) int {
	v, _ := strconv.Atoi(paramOr(&s.cfg, name, "0"))
	return v
}

// clusterChangedLocked is what Redis's clusterBeforeSleep does after a
// change of the topology (CLUSTER_TODO_UPDATE_STATE|SAVE_CONFIG): the
// state is recomputed and nodes.conf rewritten. A failed write is logged
// and, as Redis's clusterSaveConfigOrDie, ends the server.
func (s *Server) clusterChangedLocked() {
	cm := &s.cluster
	cm.st.UpdateState(paramOr(&s.cfg, "cluster-require-full-coverage", "yes") == "yes")
	if err := s.clusterSaveConfigLocked(); err != nil {
		s.log.Warn("Fatal: can't update cluster config file.")
	}
	s.clusterRedirectBlockedLocked()
}

// clusterRedirectBlockedLocked is clusterRedirectBlockedClientIfNeeded for
// every client blocked on keys (Redis runs it from clientsCron, so within
// about a second of the change; here right after it): while the cluster is
// down the client gets CLUSTERDOWN, and when its keys' slot is no longer
// served here nor imported, CLUSTERDOWN Hash slot not served or MOVED; it
// is then unblocked.
func (s *Server) clusterRedirectBlockedLocked() {
	if s.blk.blocked == 0 {
		return
	}
	st := s.cluster.st
	me := st.Myself
	for _, c := range s.clients {
		b := c.blocked
		if b == nil || (b.kind != blockList && b.kind != blockZSet && b.kind != blockStream) {
			continue
		}
		var err protocol.Error
		if !st.OK() {
			err = errClusterDown
		} else if len(b.waits) > 0 {
			slot := cluster.KeyHashSlot(b.waits[0].list.key) // all keys share one slot
			n := st.Owner(slot)
			if c.cl.readonly && me.IsReplica() && me.Master == n {
				if cmd := s.table.lookupName(c.lastCmd); cmd != nil && !cmd.has(flagWrite) {
					n = me
				}
			}
			if n != me && st.ImportingFrom(slot) == nil {
				if n == nil {
					err = errUnbound
				} else {
					err = s.clusterRedirectError(n, slot, redirMoved)
				}
			}
		}
		if err == "" {
			continue
		}
		s.unblockClientLocked(c)
		c.fail(err)
		s.wakeLocked(c)
	}
}

// clusterSaveConfigLocked writes nodes.conf in place, as clusterSaveConfig
// does (one write, then a truncation to the new length), and fsyncs it.
func (s *Server) clusterSaveConfigLocked() error {
	cm := &s.cluster
	if cm.lock == nil {
		return errors.New("nodes.conf is not open")
	}
	s.refreshMyselfLocked()
	b := cm.st.Config()
	if _, err := cm.lock.WriteAt(b, 0); err != nil {
		return err
	}
	if err := cm.lock.Truncate(int64(len(b))); err != nil {
		return err
	}
	return cm.lock.Sync() // Redis fsyncs after the changes that matter; these are rare
}

// clusterBeforeCommandLocked ends ASKING's life (Redis's resetClient: the
// flag holds for one command, or for a whole MULTI ... EXEC) and forgets
// the slot of the previous command. Called for every command in cluster
// mode, before the lookup, while c.lastCmd still names the previous one.
func (c *client) clusterBeforeCommand() {
	if c.cl.asking && !c.multi.Active() && c.lastCmd != "asking" {
		c.cl.asking = false
	}
	c.cl.slot = -1
}

// clusterReset is RESET's part (clearClientConnectionState): ASKING and
// READONLY end.
func clusterReset(s *Server, c *client) { c.cl.asking, c.cl.readonly = false, false }

// infoCluster is INFO cluster.
func (s *Server) infoCluster(b *strings.Builder) {
	if s.cluster.on {
		b.WriteString("cluster_enabled:1\r\n")
		return
	}
	b.WriteString("cluster_enabled:0\r\n")
}

// redisMode is INFO server's redis_mode.
func (s *Server) redisMode() string {
	if s.cluster.on {
		return "cluster"
	}
	return "standalone"
}

// servesLocked reports whether myself serves slot, as its owner or a
// replica of the owner (clusterGetNodesServingMySlots holds myself).
func (s *Server) servesLocked(slot int) bool {
	me, n := s.cluster.st.Myself, s.cluster.st.Owner(slot)
	return n != nil && (n == me || (me.IsReplica() && me.Master == n))
}

// removeShardChannelsLocked is removeChannelsInSlot for every slot gone
// says this node no longer serves: each subscriber of a shard channel of
// such a slot is unsubscribed and told so ("sunsubscribe"), channels in
// byte order within a slot (Redis's slots_to_channels rax), subscribers
// in subscription order.
func (s *Server) removeShardChannelsLocked(gone func(slot int) bool) {
	m := s.ps.subs[kindShard]
	if len(m) == 0 {
		return
	}
	var names []string
	for name := range m {
		if gone(cluster.KeyHashSlot(name)) {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		si, sj := cluster.KeyHashSlot(names[i]), cluster.KeyHashSlot(names[j])
		if si != sj {
			return si < sj
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		set := m[name]
		if set == nil {
			continue
		}
		var subs []*client
		set.each(func(c *client) bool { subs = append(subs, c); return true })
		for _, c := range subs {
			s.unsubscribeLocked(c, kindShard, name, false)
			w := protocol.Writer{Proto: c.w.Proto}
			w.Push(3)
			w.BulkString("sunsubscribe")
			w.BulkString(name)
			w.Int(int64(c.ps.count(kindShard)))
			s.deliverLocked(c, w.Buf)
		}
	}
}
