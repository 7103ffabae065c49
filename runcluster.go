package miniwatchd

import (
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/expire"
	"github.com/miniwatchd/miniwatchd/server"
)

// EmulatedCluster is a Redis Cluster of several miniwatchd nodes in the
// test's process (server.StartEmulatedCluster, the Go side of
// --cluster-emulate), owned by one test. RunCluster starts it.
//
// Every node has its own keyspace on 127.0.0.1, on consecutive ports: the
// masters first, then the replicas the Replicas option asks for. The 16384
// slots are split between the masters as redis-cli --cluster create
// splits them (node 0 from slot 0 up). The nodes know each other from the
// start (their nodes-<port>.conf files in the test's t.TempDir()) and
// gossip over the in-process cluster bus, so a slot change sent to one
// node (CLUSTER SETSLOT ... NODE, ADDSLOTS) reaches the others by Redis's
// rules (the greater config epoch wins). Keys move between nodes with
// MIGRATE, which the nodes serve as Redis does (ASK during a migration,
// MOVED after it).
//
// The nodes share one clock: FastForward, SetTime, and DEBUG CLOCK sent
// to any node move the time of all of them. An EmulatedCluster is safe for
// concurrent use by the test's goroutines.
type EmulatedCluster struct {
	t     testing.TB
	nodes []*Server
	clock *expire.Clock
}

// Replicas gives each master of RunCluster's cluster r replicas
// (cluster-emulate-replicas r), on the n*r ports after the masters': the
// replica Node(n+k) replicates master Node(k mod n), as redis-cli
// --cluster create --cluster-replicas r pairs the nodes of one host. Each
// replica replicates from its master over TCP (with Password, it
// authenticates as masterauth), serves reads to a READONLY client, and
// takes over its master's slots on CLUSTER FAILOVER. A replica's first
// full resync waits repl-diskless-sync-delay (5 seconds by default, as in
// Redis); Config("repl-diskless-sync-delay", "0") has them sync at once.
func Replicas(r int) Option { return Config("cluster-emulate-replicas", strconv.Itoa(r)) }

// RunCluster starts an emulated cluster of n master nodes (n >= 1) on a
// run of free consecutive loopback ports, with their files in
// t.TempDir(), and closes it with t.Cleanup. The options apply to every
// node as they do to Run's server (Password and User: every node asks for
// and knows the same credentials); Cluster is implied, do not pass it. A
// cluster client connects with Addrs as its seeds:
//
//	c := miniwatchd.RunCluster(t, 3)
//	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
func RunCluster(t testing.TB, n int, opts ...Option) *EmulatedCluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("miniwatchd.RunCluster: %d nodes, want at least 1", n)
	}
	// 127.0.0.1 announced, as by the Cluster option.
	o, err := runOptions(t, append([]Option{Config("cluster-announce-ip", "127.0.0.1")}, opts...))
	if err != nil {
		t.Fatalf("miniwatchd.RunCluster: %v", err)
	}
	if o.cfg.RequirePass != "" && o.cfg.ParamOr("masterauth", "") == "" {
		Config("masterauth", o.cfg.RequirePass)(&o) // replicas authenticate to their masters
	}
	c := &EmulatedCluster{t: t, clock: expire.NewClock()}
	o.cfg.Clock = c.clock
	srvs, err := server.StartEmulatedCluster(o.cfg, n)
	if err != nil {
		t.Fatalf("miniwatchd.RunCluster: %v", err)
	}
	t.Cleanup(c.Close)
	// The configuration of each node, for its Restart: the one
	// StartEmulatedCluster gave it, read back from the nodes' files.
	base := o.cfg.Clone()
	base.Port = srvs[0].Addr().(*net.TCPAddr).Port
	base.Params["cluster-emulate"] = strconv.Itoa(n)
	cfgs, err := server.EmulatedClusterConfigs(base)
	if err == nil && len(cfgs) != len(srvs) {
		err = fmt.Errorf("%d node configurations for %d nodes", len(cfgs), len(srvs))
	}
	for i, srv := range srvs {
		s := &Server{t: t, user: o.user}
		if err == nil {
			s.cfg = cfgs[i]
			s.mu.Lock()
			err = s.attachLocked(srv)
			s.mu.Unlock()
		}
		if err != nil {
			srv.Close()
			continue
		}
		c.nodes = append(c.nodes, s)
	}
	if err != nil {
		t.Fatalf("miniwatchd.RunCluster: %v", err)
	}
	return c
}

// Addrs returns the address of every node, "127.0.0.1:port", in node
// order: the seed addresses of a cluster client (go-redis's
// ClusterOptions.Addrs, rueidis's ClientOption.InitAddress).
func (c *EmulatedCluster) Addrs() []string {
	addrs := make([]string, len(c.nodes))
	for i, s := range c.nodes {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Nodes returns every node, in port order: the masters, then the
// replicas (Replicas). The slice is the caller's.
func (c *EmulatedCluster) Nodes() []*Server { return append([]*Server(nil), c.nodes...) }

// Node returns node i (0 <= i < len(Nodes())), the node on the i-th port
// of the run; a bad index fails the test. A node is a Server as Run's is:
// Do and the typed methods run on it alone, so a key of a slot it does not
// serve gets MOVED (use NodeFor); Dial, AddFault, Check helpers and
// Restart (keeping its ID, slots and data) work as they do on Run's.
func (c *EmulatedCluster) Node(i int) *Server {
	c.t.Helper()
	if i < 0 || i >= len(c.nodes) {
		c.t.Fatalf("miniwatchd: Node(%d) of a cluster of %d nodes", i, len(c.nodes))
	}
	return c.nodes[i]
}

// NodeFor returns the node that serves key's slot (CLUSTER KEYSLOT), as
// the nodes themselves claim it (CLUSTER SLOTS): after a resharding, the
// node that took the slot over. It fails the test when no node claims it.
func (c *EmulatedCluster) NodeFor(key string) *Server {
	c.t.Helper()
	slot := int64(cluster.KeyHashSlot(key))
	for _, s := range c.nodes {
		ranges, _ := s.mustDo("CLUSTER", "SLOTS").([]any)
		port := strconv.Itoa(s.Port())
		for _, r := range ranges {
			e, _ := r.([]any)
			if len(e) < 3 {
				continue
			}
			lo, _ := e[0].(int64)
			hi, _ := e[1].(int64)
			master, _ := e[2].([]any)
			if slot < lo || slot > hi || len(master) < 2 {
				continue
			}
			if p, _ := master[1].(int64); strconv.FormatInt(p, 10) == port {
				return s
			}
		}
	}
	c.t.Fatalf("miniwatchd: no node serves slot %d (key %q)", slot, key)
	return nil
}

// FastForward moves the cluster's clock forward by d (whole milliseconds)
// and then runs every node's expiry as Server.FastForward does, so each
// node deletes its keys whose deadline has passed.
func (c *EmulatedCluster) FastForward(d time.Duration) {
	c.t.Helper()
	c.nodes[0].mustDo("DEBUG", "CLOCK", "ADVANCE", strconv.FormatInt(d.Milliseconds(), 10))
	c.expireAll()
}

// SetTime moves the cluster's clock to tm (DEBUG CLOCK SET on the shared
// clock); keys past their deadline at tm expire on every node, as with
// FastForward.
func (c *EmulatedCluster) SetTime(tm time.Time) {
	c.t.Helper()
	c.nodes[0].mustDo("DEBUG", "CLOCK", "SET", strconv.FormatInt(tm.UnixMilli(), 10))
	c.expireAll()
}

// expireAll runs one active expiry cycle on every node.
func (c *EmulatedCluster) expireAll() {
	c.t.Helper()
	for _, s := range c.nodes {
		s.mustDo("DEBUG", "ACTIVE-EXPIRE-CYCLE")
	}
}

// Close stops every node. RunCluster's cleanup calls it; calling it again
// does nothing.
func (c *EmulatedCluster) Close() {
	for _, s := range c.nodes {
		s.Close()
	}
}
