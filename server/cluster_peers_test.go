package server

import (
	"fmt"
	"github.com/miniwatchd/miniwatchd/cluster"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The in-process cluster bus: changes made on one node of an emulated
// cluster reach the others by gossip, with Redis's rules.

func startBusCluster(t *testing.T, n int) []*Server {
	t.Helper()
	return startEmulatedReplicas(t, n, 0)
}

// busView is a node's CLUSTER NODES without its own "myself" flag, the
// ping/pong times and the link state, sorted: equal views mean the nodes
// agree on the IDs, addresses, roles, epochs and slots.
func busView(t *testing.T, s *Server) string {
	t.Helper()
	text := dialAOF(t, s).must("CLUSTER", "NODES").(string)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		f[2] = strings.TrimPrefix(f[2], "myself,")
		lines = append(lines, strings.Join(append(f[:4:4], append([]string{f[6]}, f[8:]...)...), " "))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// busWait polls until cond holds for every node's view, for up to 10s.
func busWait(t *testing.T, what string, nodes []*Server, cond func(i int, view string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok := true
		var views []string
		for i, s := range nodes {
			v := busView(t, s)
			views = append(views, v)
			if !cond(i, v) {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s; views:\n%s", what, strings.Join(views, "\n--\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// busAgree waits until every node has the same view and returns it.
func busAgree(t *testing.T, what string, nodes []*Server, cond func(view string) bool) string {
	t.Helper()
	var first string
	busWait(t, what, nodes, func(i int, v string) bool {
		if i == 0 {
			first = v
		}
		return v == first && cond(v)
	})
	return first
}

func busID(t *testing.T, s *Server) string {
	t.Helper()
	return dialAOF(t, s).must("CLUSTER", "MYID").(string)
}

func busPort(s *Server) int { return s.Addr().(*net.TCPAddr).Port }

// ownerLine returns the line of view for node id.
func ownerLine(view, id string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, id+" ") {
			return l
		}
	}
	return ""
}

// A slot one node adds reaches every node: DELSLOTS is not gossiped (the
// third node keeps the old owner), ADDSLOTS by a node with a greater
// config epoch than the old owner's wins everywhere.
func TestClusterBusAddSlots(t *testing.T) {
	nodes := startBusCluster(t, 3)
	a, b := busID(t, nodes[0]), busID(t, nodes[1])
	dialAOF(t, nodes[0]).must("CLUSTER", "DELSLOTS", "100")
	dialAOF(t, nodes[1]).must("CLUSTER", "DELSLOTS", "100") // the third still has it on the first
	dialAOF(t, nodes[1]).must("CLUSTER", "ADDSLOTS", "100")
	v := busAgree(t, "slot 100 on the second node", nodes, func(v string) bool {
		return strings.HasSuffix(ownerLine(v, b), " 100 5461-10922")
	})
	if l := ownerLine(v, a); !strings.HasSuffix(l, " 0-99 101-5460") {
		t.Fatalf("first node: %s", l)
	}
}

// SETSLOT NODE sent to the two nodes of a migration only: the importing
// node bumps its epoch and the third node learns the new owner by gossip.
func TestClusterBusSetSlotNode(t *testing.T) {
	nodes := startBusCluster(t, 3)
	a, b := busID(t, nodes[0]), busID(t, nodes[1])
	dialAOF(t, nodes[1]).must("CLUSTER", "SETSLOT", "200", "IMPORTING", a)
	dialAOF(t, nodes[0]).must("CLUSTER", "SETSLOT", "200", "MIGRATING", b)
	dialAOF(t, nodes[0]).must("CLUSTER", "SETSLOT", "200", "NODE", b)
	dialAOF(t, nodes[1]).must("CLUSTER", "SETSLOT", "200", "NODE", b)
	busAgree(t, "slot 200 moved", nodes, func(v string) bool {
		return ownerLine(v, b) == b+" 127.0.0.1:"+strconv.Itoa(busPort(nodes[1]))+"@"+
			strconv.Itoa(busPort(nodes[1])+10000)+" master - 4 200 5461-10922" &&
			strings.HasSuffix(ownerLine(v, a), " 1 0-199 201-5460")
	})
	for _, s := range nodes {
		if got := dialAOF(t, s).must("CLUSTER", "INFO").(string); !strings.Contains(got, "cluster_current_epoch:4\r\n") {
			t.Fatalf("CLUSTER INFO: %s", got)
		}
	}
}

// BUMPEPOCH: the node with the greatest epoch keeps it; another one takes
// a new epoch, which every node learns, with the current epoch.
func TestClusterBusBumpEpoch(t *testing.T) {
	nodes := startBusCluster(t, 3)
	if got := dialAOF(t, nodes[2]).must("CLUSTER", "BUMPEPOCH"); got != "STILL 3" {
		t.Fatalf("BUMPEPOCH on the third node: %v", got)
	}
	if got := dialAOF(t, nodes[0]).must("CLUSTER", "BUMPEPOCH"); got != "BUMPED 4" {
		t.Fatalf("BUMPEPOCH on the first node: %v", got)
	}
	a := busID(t, nodes[0])
	busAgree(t, "epoch 4", nodes, func(v string) bool { return strings.HasSuffix(ownerLine(v, a), " 4 0-5460") })
	busWait(t, "current epoch 4", nodes, func(i int, v string) bool {
		return strings.Contains(dialAOF(t, nodes[i]).must("CLUSTER", "INFO").(string), "cluster_current_epoch:4\r\n")
	})
}

// Two masters with the same config epoch: the one with the smaller ID
// takes a new one (clusterHandleConfigEpochCollision).
func TestClusterBusEpochCollision(t *testing.T) {
	nodes := startBusCluster(t, 2)
	for _, s := range nodes {
		s.mu.Lock()
		s.cluster.st.Myself.ConfigEpoch = 2
		for _, n := range s.cluster.st.Nodes() {
			n.ConfigEpoch = 2
		}
		s.mu.Unlock()
	}
	nodes[1].mu.Lock()
	nodes[1].clusterBroadcast()
	nodes[1].mu.Unlock()
	ids := []string{busID(t, nodes[0]), busID(t, nodes[1])}
	lo, hi := ids[0], ids[1]
	if hi < lo {
		lo, hi = hi, lo
	}
	busAgree(t, "the smaller ID bumped", nodes, func(v string) bool {
		return strings.Contains(ownerLine(v, lo), " master - 3 ") && strings.Contains(ownerLine(v, hi), " master - 2 ")
	})
}

// FORGET: gossip does not bring a forgotten node back for 60 seconds.
func TestClusterBusForgetBlacklist(t *testing.T) {
	nodes := startBusCluster(t, 3)
	c := busID(t, nodes[2])
	dialAOF(t, nodes[0]).must("CLUSTER", "FORGET", c)
	dialAOF(t, nodes[1]).must("CLUSTER", "BUMPEPOCH") // gossips the third node to the first
	b := busID(t, nodes[1])
	busWait(t, "the bump seen", nodes[:1], func(i int, v string) bool { return strings.Contains(ownerLine(v, b), " 4 ") })
	if v := busView(t, nodes[0]); strings.Contains(v, c) {
		t.Fatalf("the forgotten node is back:\n%s", v)
	}
	nodes[0].mu.Lock()
	nodes[0].cluster.bus.blacklist[c] = time.Now().Unix() - 1 // the minute is over
	nodes[0].mu.Unlock()
	dialAOF(t, nodes[1]).must("CLUSTER", "BUMPEPOCH")
	busWait(t, "the third node known again", nodes[:1], func(i int, v string) bool {
		return strings.HasSuffix(ownerLine(v, c), " 3 10923-16383")
	})
}

// MEET of a node of this process: both learn each other, the new node
// learns the others by gossip and every node agrees.
func TestClusterBusMeet(t *testing.T) {
	nodes := startBusCluster(t, 3)
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Params = map[string]string{"cluster-enabled": "yes"}
	d, err := start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	dc := dialAOF(t, d)
	dc.must("CLUSTER", "FLUSHSLOTS") // a fresh miniwatchd node owns every slot
	port := strconv.Itoa(busPort(nodes[0]))
	if got := dc.must("CLUSTER", "MEET", "127.0.0.1", port); got != "OK" {
		t.Fatalf("MEET: %v", got)
	}
	all := append(nodes[:3:3], d)
	did := busID(t, d)
	v := busAgree(t, "four nodes", all, func(v string) bool { return strings.Count(v, "\n") == 3 })
	dport := strconv.Itoa(busPort(d))
	if l := ownerLine(v, did); l != did+" 127.0.0.1:"+dport+"@"+strconv.Itoa(busPort(d)+10000)+" master - 0" {
		t.Fatalf("the new node: %q", l)
	}
	if strings.Contains(v, "handshake") {
		t.Fatal(v)
	}
	info := dc.must("CLUSTER", "INFO").(string)
	if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:4") {
		t.Fatal(info)
	}
}

// MEET of an address with no node: the node stays in the handshake state
// ("handshake", no role) until the node timeout, then it is dropped.
func TestClusterBusMeetNobody(t *testing.T) {
	nodes := startBusCluster(t, 1)
	c := dialAOF(t, nodes[0])
	c.must("CONFIG", "SET", "cluster-node-timeout", "1000")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"127.0.0.1", "1"}, "OK"},
		{[]string{"127.0.0.1", "1"}, "OK"}, // in progress: still one node
		{[]string{"::1", "2", "3"}, "OK"},
		{[]string{"127.0.0.1", "x"}, "ERR Invalid TCP base port specified: x"},
		{[]string{"127.0.0.1", "1", "y"}, "ERR Invalid TCP bus port specified: y"},
		{[]string{"foo", "1"}, "ERR Invalid node address specified: foo:1"},
		{[]string{"127.000.0.1", "1"}, "ERR Invalid node address specified: 127.000.0.1:1"},
		{[]string{"127.0.0.1", "55536"}, "ERR Invalid node address specified: 127.0.0.1:55536"},
		{[]string{"127.0.0.1", "0"}, "ERR Invalid node address specified: 127.0.0.1:0"},
		{[]string{"127.0.0.1", "1", "2", "3"}, "ERR unknown subcommand or wrong number of arguments for 'MEET'. Try CLUSTER HELP."},
	} {
		got := c.do(append([]string{"CLUSTER", "MEET"}, tc.args...)...)
		if fmt.Sprint(got) != tc.want {
			t.Fatalf("MEET %q: %v, want %s", tc.args, got, tc.want)
		}
	}
	text := c.must("CLUSTER", "NODES").(string)
	for _, want := range []string{" 127.0.0.1:1@10001 handshake - 0 0 0 disconnected\n", " ::1:2@3 handshake - 0 0 0 disconnected\n"} {
		if !strings.Contains(text, want) {
			t.Fatalf("CLUSTER NODES lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "\n"); n != 3 {
		t.Fatalf("CLUSTER NODES:\n%s", text)
	}
	busWait(t, "handshakes dropped", nodes, func(i int, v string) bool { return !strings.Contains(v, "handshake") })
}

// A node that answers with another ID at a known node's address (CLUSTER
// RESET HARD): the known node loses its address ("noaddr", ":0@0").
func TestClusterBusResetHardNoAddr(t *testing.T) {
	nodes := startBusCluster(t, 2)
	old := busID(t, nodes[1])
	dialAOF(t, nodes[1]).must("CLUSTER", "RESET", "HARD")
	dialAOF(t, nodes[0]).must("CLUSTER", "BUMPEPOCH") // pings the reset node
	busWait(t, "noaddr", nodes[:1], func(i int, v string) bool {
		return strings.HasPrefix(ownerLine(v, old), old+" :0@0 master,noaddr - 2 ")
	})
}

// Fresh masters that meet all have config epoch 0: the collisions leave
// every one with its own epoch.
func TestClusterBusFreshEpochs(t *testing.T) {
	var nodes []*Server
	for i := 0; i < 3; i++ {
		cfg := DefaultConfig()
		cfg.Port = 0
		cfg.Dir = t.TempDir()
		cfg.Params = map[string]string{"cluster-enabled": "yes"}
		s, err := start(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		dialAOF(t, s).must("CLUSTER", "FLUSHSLOTS")
		nodes = append(nodes, s)
	}
	for _, s := range nodes[1:] {
		dialAOF(t, s).must("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(busPort(nodes[0])))
	}
	busAgree(t, "unique epochs", nodes, func(v string) bool {
		seen := map[string]bool{}
		for _, l := range strings.Split(v, "\n") {
			seen[strings.Fields(l)[4]] = true
		}
		return strings.Count(v, "\n") == 2 && len(seen) == 3
	})
}

// A master that gives its last slot away follows the node that took it as
// a replica (cluster-allow-replica-migration); the others learn its new
// role by gossip and forget the slots it served.
func TestClusterBusRole(t *testing.T) {
	nodes := startBusCluster(t, 3)
	a, c := busID(t, nodes[0]), busID(t, nodes[2])
	nodes[2].mu.Lock()
	st := nodes[2].cluster.st
	st.DelNodeSlots(st.Myself)
	st.AddSlot(st.Myself, 16383)
	nodes[2].mu.Unlock()
	dialAOF(t, nodes[2]).must("CLUSTER", "SETSLOT", "16383", "NODE", a)
	busWait(t, "a replica", nodes, func(i int, v string) bool {
		l := ownerLine(v, c)
		return strings.Contains(l, " slave "+a+" 1") && !strings.Contains(l, "-")
	})
}

// A slot a node loses through gossip takes its keys with it, through the
// db's write choke point: a WATCH of such a key on the losing node aborts
// the transaction (write-breaks-WATCH for clusterUpdateSlotsConfigWith's
// delKeysInSlot).
func TestClusterBusLostSlotBreaksWatch(t *testing.T) {
	nodes := startBusCluster(t, 3)
	a, b := busID(t, nodes[0]), busID(t, nodes[1])
	key := ""
	for i := 0; key == ""; i++ {
		if k := "k" + strconv.Itoa(i); cluster.KeyHashSlot(k) == 200 {
			key = k
		}
	}
	ca := dialAOF(t, nodes[0])
	ca.must("SET", key, "v")
	ca.must("WATCH", key)
	cb := dialAOF(t, nodes[1])
	cb.must("CLUSTER", "SETSLOT", "200", "IMPORTING", a)
	cb.must("CLUSTER", "SETSLOT", "200", "NODE", b) // bumps b's epoch: gossip moves the slot
	busWait(t, "slot 200 left the first node", nodes[:1], func(int, string) bool {
		return dialAOF(t, nodes[0]).must("CLUSTER", "COUNTKEYSINSLOT", "200") == int64(0)
	})
	ca.must("MULTI")
	ca.must("PING")
	if got := ca.do("EXEC"); got != "<nil>" {
		t.Fatalf("EXEC after the watched key's slot moved away = %v, want a null reply", got)
	}
}
