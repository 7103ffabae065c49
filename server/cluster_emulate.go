package server

import (
	"errors"
	"fmt"
	mathrand "math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// An emulated cluster (cluster-emulate N, our own parameter): N cluster
// nodes in one process, each a Server with its own keyspace, listening on
// the configured port and the N-1 ports after it. Their nodes.conf files
// (nodes-<port>.conf) are written once, as redis-cli --cluster create would
// leave them: every node knows every other, the slots are split evenly in
// port order, each master has its own config epoch. From then on each node
// reads its own file, so slot changes survive a restart. The nodes gossip
// over the in-process cluster bus (cluster_peers.go): a change sent to one
// node reaches the others as Redis's gossip would bring it. Each node has
// its own RDB and AOF files too (dump-<port>.rdb, appendonly-<port>.aof in
// the shared dir, as utils/create-cluster names them). Keys move
// between nodes with MIGRATE, which talks to the target node over TCP like
// any client (RESTORE-ASKING on the importing side).
//
// With cluster-emulate-replicas R each of the N masters gets R replicas,
// on the N*R ports after the masters': the replica on port base+N+k
// replicates the master k mod N, which is how redis-cli --cluster create
// --cluster-replicas R pairs nodes of one IP (its anti-affinity pass has
// nothing to improve there). A replica is a replica in every node's
// nodes.conf and connects to its master's port as REPLICAOF would
// (clusterCronLocked); its full resync writes its own dump-<port>.rdb.

// EmulatedClusterConfigs returns the configurations of the nodes cfg's
// cluster-emulate asks for, writing their nodes.conf files when none
// exists yet. With cluster-emulate 0 it returns cfg alone.
func EmulatedClusterConfigs(cfg Config) ([]Config, error) {
	masters, _ := strconv.Atoi(cfg.ParamOr("cluster-emulate", "0"))
	if masters <= 0 {
		return []Config{cfg}, nil
	}
	replicas, _ := strconv.Atoi(cfg.ParamOr("cluster-emulate-replicas", "0"))
	n := masters * (1 + max(replicas, 0))
	if cfg.Port == 0 {
		return nil, errors.New("cluster-emulate needs a port (the first node's)")
	}
	if cfg.Port+n-1 > 65535 {
		return nil, fmt.Errorf("cluster-emulate %d: ports %d-%d do not exist", n, cfg.Port, cfg.Port+n-1)
	}
	cfgs := make([]Config, n)
	paths := make([]string, n)
	existing := 0
	for i := range cfgs {
		c := cfg.Clone()
		if c.Params == nil {
			c.Params = map[string]string{}
		}
		c.Port = cfg.Port + i
		c.Params["cluster-enabled"] = "yes"
		c.Params["cluster-config-file"] = "nodes-" + strconv.Itoa(c.Port) + ".conf"
		// Each node its own RDB and AOF files, as utils/create-cluster
		// names them (dump-<port>.rdb, appendonly-<port>.aof).
		c.Params["dbfilename"] = withPort(cfg.ParamOr("dbfilename", "dump.rdb"), c.Port)
		c.AppendFilename = withPort(cfg.AppendFilename, c.Port)
		paths[i] = c.Resolve(c.Params["cluster-config-file"])
		if fi, err := os.Stat(paths[i]); err == nil && fi.Size() > 0 {
			existing++
		}
		cfgs[i] = c
	}
	switch existing {
	case n:
		return cfgs, nil
	case 0:
	default:
		return nil, fmt.Errorf("cluster-emulate %d: only %d of the nodes' files (%s ...) exist; remove them to start afresh", n, existing, paths[0])
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = cluster.NewNodeID()
	}
	for i := range cfgs {
		st := emulatedState(ids, masters, cfg.Port, i)
		if err := os.WriteFile(paths[i], st.Config(), 0o644); err != nil {
			return nil, err
		}
	}
	return cfgs, nil
}

// withPort inserts "-<port>" before the extension of a file name:
// dump.rdb becomes dump-7000.rdb.
func withPort(name string, port int) string {
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(port) + ext
}

// emulatedState is node me's view of an emulated cluster of len(ids)
// nodes on consecutive ports from port, the first masters of them masters
// with redis-cli --cluster create's split of the slots
// (clusterManagerCommandCreate), the others their replicas: node i
// replicates master (i-masters) mod masters. Every node has its own config
// epoch (redis-cli's CLUSTER SET-CONFIG-EPOCH 1, 2, ...).
func emulatedState(ids []string, masters, port, me int) *cluster.State {
	st := cluster.NewState(ids[me], port+me, port+me+10000)
	nodes := make([]*cluster.Node, len(ids))
	for i, id := range ids {
		if i == me {
			nodes[i] = st.Myself
		} else {
			nodes[i] = &cluster.Node{ID: id, Port: port + i, CPort: port + i + 10000, Flags: cluster.FlagMaster, Linked: true}
			st.AddNode(nodes[i])
		}
		nodes[i].IP = "127.0.0.1"
		nodes[i].ConfigEpoch = uint64(i + 1)
	}
	for i := masters; i < len(nodes); i++ {
		st.SetReplicaOf(nodes[i], nodes[(i-masters)%masters])
	}
	st.CurrentEpoch = uint64(len(ids))
	per := float64(cluster.Slots) / float64(masters)
	first, cursor := 0, 0.0
	for i, n := range nodes[:masters] {
		last := int(cursor + per - 1 + 0.5)
		if last > cluster.Slots-1 || i == masters-1 {
			last = cluster.Slots - 1
		}
		if last < first {
			last = first
		}
		for j := first; j <= last; j++ {
			st.AddSlot(n, j)
		}
		first = last + 1
		cursor += per
	}
	return st
}

// StartEmulatedCluster starts the nodes of an emulated cluster of n
// masters (the Go side of --cluster-emulate) and the replicas cfg's
// cluster-emulate-replicas asks for: on cfg.Port and the ports after it,
// or, with cfg.Port 0, on the first run of free consecutive ports found.
// The masters come first in the result. Each node serves in the
// background; Close each to stop. The nodes' nodes.conf files go to cfg's
// dir.
func StartEmulatedCluster(cfg Config, n int) ([]*Server, error) {
	if n <= 0 {
		return nil, errors.New("an emulated cluster needs at least one node")
	}
	cfg = cfg.Clone()
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["cluster-emulate"] = strconv.Itoa(n)
	r, _ := strconv.Atoi(cfg.ParamOr("cluster-emulate-replicas", "0"))
	if cfg.Port == 0 {
		base, err := FreePortRun(n * (1 + max(r, 0)))
		if err != nil {
			return nil, err
		}
		cfg.Port = base
	}
	cfgs, err := EmulatedClusterConfigs(cfg)
	if err != nil {
		return nil, err
	}
	var nodes []*Server
	for _, c := range cfgs {
		s, err := New(c)
		if err == nil {
			if err = s.Listen(); err != nil {
				s.Close()
			}
		}
		if err != nil {
			for _, o := range nodes {
				o.Close()
			}
			return nil, fmt.Errorf("emulated cluster node on port %d: %v", c.Port, err)
		}
		go s.Serve()
		nodes = append(nodes, s)
	}
	return nodes, nil
}

// FreePortRun finds n consecutive ports of 127.0.0.1 free now, below
// Linux's ephemeral range (32768 up: there the ports after one the kernel
// hands out are often taken by outgoing connections), so the last is at
// most 55535 too (a cluster node's bus port is its port+10000).
func FreePortRun(n int) (int, error) {
	if n > 12000 {
		return 0, errors.New("too many nodes for an emulated cluster")
	}
	for attempt := 0; attempt < 100; attempt++ {
		base := 20000 + mathrand.Intn(12001-n)
		ok := true
		for p := base; ok && p < base+n; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, errors.New("no run of free ports for an emulated cluster")
}
