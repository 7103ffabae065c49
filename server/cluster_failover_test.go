package server

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// startEmulatedReplicas starts an emulated cluster of masters masters
// with r replicas each, full resyncs without delay; the nodes are closed
// at the end of the test.
func startEmulatedReplicas(t *testing.T, masters, r int) []*Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Params = map[string]string{"cluster-emulate-replicas": fmt.Sprint(r), "repl-diskless-sync-delay": "0"}
	nodes, err := StartEmulatedCluster(cfg, masters)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, s := range nodes {
			s.Close()
		}
	})
	return nodes
}

// waitUntil polls cond for up to 10 seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for " + what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// slotKey returns a key of a slot in [lo, hi].
func slotKey(lo, hi int) string {
	for i := 0; ; i++ {
		k := fmt.Sprintf("k%d", i)
		if s := cluster.KeyHashSlot(k); s >= lo && s <= hi {
			return k
		}
	}
}

// nodesLine returns the CLUSTER NODES line of the node with the given port.
func nodesLine(text string, port int) []string {
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && strings.Contains(f[1], fmt.Sprintf(":%d@", port)) {
			return f
		}
	}
	return nil
}

// An emulated cluster with replicas: every node sees the replicas of
// each master in CLUSTER NODES; a replica redirects writes and reads
// (but READONLY reads) to its master and serves replicated data.
func TestEmulatedClusterReplicas(t *testing.T) {
	nodes := startEmulatedReplicas(t, 3, 1)
	if len(nodes) != 6 {
		t.Fatalf("%d nodes", len(nodes))
	}
	port := func(i int) int { return nodes[i].cfg.Port }
	ids := make([]string, 6)
	for i, s := range nodes {
		ids[i] = dialAOF(t, s).must("CLUSTER", "MYID").(string)
	}
	for i, s := range nodes {
		text := dialAOF(t, s).must("CLUSTER", "NODES").(string)
		for j := 0; j < 6; j++ {
			f := nodesLine(text, port(j))
			if f == nil {
				t.Fatalf("node %d does not know node %d:\n%s", i, j, text)
			}
			role, master := "master", "-"
			if j >= 3 {
				role, master = "slave", ids[j-3]
			}
			if i == j {
				role = "myself," + role
			}
			if f[2] != role || f[3] != master || f[7] != "connected" {
				t.Fatalf("node %d's line for node %d: %q", i, j, f)
			}
			if j >= 3 && len(f) != 8 {
				t.Fatalf("a replica with slots: %q", f)
			}
		}
	}
	m := dialAOF(t, nodes[2])
	m.must("SET", "foo", "bar") // slot 12182, the third master's
	r := dialAOF(t, nodes[5])
	if got := r.do("GET", "foo"); fmt.Sprint(got) != fmt.Sprintf("MOVED 12182 127.0.0.1:%d", port(2)) {
		t.Fatalf("GET on the replica: %v", got)
	}
	if got := r.do("SET", "foo", "x"); fmt.Sprint(got) != fmt.Sprintf("MOVED 12182 127.0.0.1:%d", port(2)) {
		t.Fatalf("SET on the replica: %v", got)
	}
	r.must("READONLY")
	waitUntil(t, "the replica to see foo", func() bool { return r.do("GET", "foo") == "bar" })
	if got := r.do("SET", "foo", "x"); fmt.Sprint(got) != fmt.Sprintf("MOVED 12182 127.0.0.1:%d", port(2)) {
		t.Fatalf("READONLY SET on the replica: %v", got)
	}
	if got := r.do("FLUSHALL"); fmt.Sprint(got) != "READONLY You can't write against a read only replica." {
		t.Fatalf("FLUSHALL on the replica: %v", got)
	}
	if got := r.do("REPLICAOF", "NO", "ONE"); fmt.Sprint(got) != "ERR REPLICAOF not allowed in cluster mode." {
		t.Fatalf("REPLICAOF: %v", got)
	}
	// GET on another master's slot from a READONLY replica: MOVED there.
	if got := r.do("GET", "b"); fmt.Sprint(got) != fmt.Sprintf("MOVED 3300 127.0.0.1:%d", port(0)) {
		t.Fatalf("GET b on a READONLY replica of another master: %v", got)
	}
	// CLUSTER SLOTS lists each replica once its offset is not 0 (Redis's
	// isReplicaAvailable): after a write on its master.
	dialAOF(t, nodes[0]).must("SET", "b", "1")
	dialAOF(t, nodes[1]).must("SET", slotKey(5461, 10922), "1")
	waitUntil(t, "the replicas in CLUSTER SLOTS", func() bool {
		slots, _ := dialAOF(t, nodes[0]).do("CLUSTER", "SLOTS").([]any)
		for _, e := range slots {
			if len(e.([]any)) != 4 {
				return false
			}
		}
		return len(slots) == 3
	})
}

// CLUSTER REPLICATE's refusals, and a master without slots becoming a
// replica of another.
func TestClusterReplicate(t *testing.T) {
	nodes := startEmulatedReplicas(t, 3, 1)
	ids := make([]string, len(nodes))
	for i, s := range nodes {
		ids[i] = dialAOF(t, s).must("CLUSTER", "MYID").(string)
	}
	c := dialAOF(t, nodes[0])
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"CLUSTER", "REPLICATE", "abc"}, "ERR Unknown node abc"},
		{[]string{"CLUSTER", "REPLICATE", ids[0]}, "ERR Can't replicate myself"},
		{[]string{"CLUSTER", "REPLICATE", ids[3]}, "ERR I can only replicate a master, not a replica."},
		{[]string{"CLUSTER", "REPLICATE", ids[1]}, "ERR To set a master the node must be empty and without assigned slots."},
		{[]string{"CLUSTER", "FAILOVER"}, "ERR You should send CLUSTER FAILOVER to a replica"},
		{[]string{"CLUSTER", "FAILOVER", "foo"}, "ERR syntax error"},
		{[]string{"CLUSTER", "FAILOVER", "force", "takeover"}, "ERR unknown subcommand or wrong number of arguments for 'FAILOVER'. Try CLUSTER HELP."},
	} {
		if got := fmt.Sprint(c.do(tc.args...)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
	// The replica of the first master moves to the second.
	r := dialAOF(t, nodes[3])
	r.must("CLUSTER", "REPLICATE", ids[1])
	for _, s := range nodes {
		waitUntil(t, "the new master everywhere", func() bool {
			f := nodesLine(dialAOF(t, s).must("CLUSTER", "NODES").(string), nodes[3].cfg.Port)
			return f != nil && f[3] == ids[1]
		})
	}
	k := slotKey(5461, 10922)
	dialAOF(t, nodes[1]).must("SET", k, "1")
	r.must("READONLY")
	waitUntil(t, "replication from the new master", func() bool { return r.do("GET", k) == "1" })
	// CLUSTER RESET on a replica: a master again, its data emptied.
	r.must("CLUSTER", "RESET")
	if role := r.must("ROLE").([]any); role[0] != "master" {
		t.Fatalf("ROLE after CLUSTER RESET: %v", role)
	}
	if n := r.must("DBSIZE"); n != int64(0) {
		t.Fatalf("DBSIZE after CLUSTER RESET: %v", n)
	}
	if f := strings.Fields(r.must("CLUSTER", "NODES").(string)); len(f) != 8 || f[2] != "myself,master" {
		t.Fatalf("CLUSTER NODES after CLUSTER RESET: %q", f)
	}
}

// CLUSTER FAILOVER, TAKEOVER and FORCE: the replica becomes the master of
// the slots with a greater config epoch, the old master its replica, and
// no acknowledged write is lost.
func TestClusterFailover(t *testing.T) {
	for _, mode := range []string{"", "FORCE", "TAKEOVER"} {
		t.Run("mode="+mode, func(t *testing.T) {
			nodes := startEmulatedReplicas(t, 3, 1)
			ids := make([]string, len(nodes))
			for i, s := range nodes {
				ids[i] = dialAOF(t, s).must("CLUSTER", "MYID").(string)
			}
			m := dialAOF(t, nodes[2])
			for i := 0; i < 100; i++ {
				m.must("SET", "foo", fmt.Sprint(i))
			}
			r := dialAOF(t, nodes[5])
			waitUntil(t, "the replica to sync", func() bool {
				return strings.Contains(r.must("INFO", "replication").(string), "master_link_status:up")
			})
			args := []string{"CLUSTER", "FAILOVER"}
			if mode != "" {
				args = append(args, mode)
			}
			r.must(args...)
			for i, s := range nodes {
				waitUntil(t, fmt.Sprintf("node %d to see the failover", i), func() bool {
					text := dialAOF(t, s).must("CLUSTER", "NODES").(string)
					nf, of := nodesLine(text, nodes[5].cfg.Port), nodesLine(text, nodes[2].cfg.Port)
					return strings.HasSuffix(nf[2], "master") && len(nf) == 9 && nf[8] == "10923-16383" &&
						strings.HasSuffix(of[2], "slave") && of[3] == ids[5]
				})
			}
			if got := r.do("GET", "foo"); got != "99" {
				t.Fatalf("GET on the new master: %v", got)
			}
			if got := fmt.Sprint(m.do("GET", "foo")); got != fmt.Sprintf("MOVED 12182 127.0.0.1:%d", nodes[5].cfg.Port) {
				t.Fatalf("GET on the old master: %v", got)
			}
			r.must("SET", "foo", "after")
			m.must("READONLY")
			waitUntil(t, "the old master to replicate the new", func() bool { return m.do("GET", "foo") == "after" })
			info := r.must("CLUSTER", "INFO").(string)
			if !strings.Contains(info, "cluster_my_epoch:7") || !strings.Contains(info, "cluster_current_epoch:7") {
				t.Fatalf("CLUSTER INFO after the failover:\n%s", info)
			}
		})
	}
}

// The cluster bus converges slot ownership as gossip does: a slot a node
// gives up stays its owner elsewhere, until another node claims it with a
// greater config epoch.
func TestClusterPeersSlotClaims(t *testing.T) {
	nodes := startEmulatedReplicas(t, 3, 0)
	c0, c1 := dialAOF(t, nodes[0]), dialAOF(t, nodes[1])
	id1 := c1.must("CLUSTER", "MYID").(string)
	owner := func(s *Server, slot int) string {
		for _, l := range strings.Split(dialAOF(t, s).must("CLUSTER", "NODES").(string), "\n") {
			f := strings.Fields(l)
			if len(f) > 8 && slotIn(f[8:], slot) {
				return f[0]
			}
		}
		return ""
	}
	c0.must("CLUSTER", "DELSLOTS", "0")
	time.Sleep(100 * time.Millisecond)
	if o := owner(nodes[2], 0); o != c0.must("CLUSTER", "MYID").(string) {
		t.Fatalf("slot 0 after DELSLOTS on its owner: owned by %q on the third node", o)
	}
	// The second node (config epoch 2, the first's is 1) takes the slot.
	c1.must("CLUSTER", "SETSLOT", "0", "NODE", id1)
	for i, s := range nodes {
		waitUntil(t, fmt.Sprintf("node %d to give slot 0 to the second node", i), func() bool { return owner(s, 0) == id1 })
	}
	// A claim with a smaller epoch does not win: the first node (epoch
	// 1) takes a slot of the third's (epoch 3); the others keep the third
	// as its owner and tell the first with an UPDATE, which gives the
	// slot back (clusterSendUpdate).
	id2 := dialAOF(t, nodes[2]).must("CLUSTER", "MYID").(string)
	c0.must("CLUSTER", "SETSLOT", "10923", "NODE", c0.must("CLUSTER", "MYID").(string))
	for i, s := range nodes {
		waitUntil(t, fmt.Sprintf("node %d to keep slot 10923 on the third node", i), func() bool { return owner(s, 10923) == id2 })
	}
}

func slotIn(fields []string, slot int) bool {
	for _, f := range fields {
		lo, hi, isRange := strings.Cut(f, "-")
		if !isRange {
			hi = lo
		}
		var a, b int
		if _, err := fmt.Sscan(lo, &a); err != nil {
			continue
		}
		if _, err := fmt.Sscan(hi, &b); err != nil {
			continue
		}
		if slot >= a && slot <= b {
			return true
		}
	}
	return false
}
