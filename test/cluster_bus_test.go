package test

import (
	"context"
	"math/rand"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The in-process cluster bus of an emulated cluster: CLUSTER MEET and
// gossip let redis-cli --cluster create and add-node join emulated nodes;
// a MEET of an address nobody listens on shows the handshake as Redis
// does; Redis's refusal of a port above 55535 without cluster-port.

// busCLI runs redis-cli and fails t unless it exits 0.
func busCLI(t *testing.T, cli string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func requireAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// redis-cli --cluster create over three emulated nodes reset to fresh
// nodes (CLUSTER RESET HARD): ADDSLOTS, SET-CONFIG-EPOCH and MEET on each,
// then the nodes join by gossip.
func TestClusterBusCreate(t *testing.T) {
	cli := requireRedisCLI(t)
	addrs := startEmulated(t, 3)
	for _, a := range addrs {
		clusterDo(t, a, "CLUSTER", "RESET", "HARD")
	}
	out := busCLI(t, cli, append(append([]string{"--cluster", "create"}, addrs...), "--cluster-yes")...)
	requireAll(t, "--cluster create", out, "[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered.")
	for _, a := range addrs {
		waitClusterOK(t, a)
	}
	out = busCLI(t, cli, "--cluster", "check", addrs[2])
	requireAll(t, "--cluster check", out, "[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered.")
	if out := busCLI(t, cli, "--cluster", "info", addrs[1]); !strings.Contains(out, "[OK] 0 keys in 3 masters.") {
		t.Fatalf("--cluster info:\n%s", out)
	}
}

// redis-cli --cluster add-node: the fourth emulated node, reset to a
// fresh node and forgotten by the others, joins the three again as an
// empty master; check, info and fix (with nothing to fix) accept the four.
// (rebalance --cluster-use-empty-masters works too, but moves 4096 slots
// one by one: too slow for a test.)
func TestClusterBusAddNode(t *testing.T) {
	cli := requireRedisCLI(t)
	addrs := startEmulated(t, 4)
	old := clusterDo(t, addrs[3], "CLUSTER", "MYID").Str
	clusterDo(t, addrs[3], "CLUSTER", "RESET", "HARD")
	for _, a := range addrs[:3] {
		clusterDo(t, a, "CLUSTER", "FORGET", old)
	}
	clusterDo(t, addrs[0], "CLUSTER", "ADDSLOTSRANGE", "12288", "16383") // gossiped to the other two
	for _, a := range addrs[:3] {
		waitClusterOK(t, a)
	}
	out := busCLI(t, cli, "--cluster", "add-node", addrs[3], addrs[1])
	requireAll(t, "--cluster add-node", out, "[OK] New node added correctly.")
	out = busCLI(t, cli, "--cluster", "check", addrs[3])
	requireAll(t, "--cluster check", out, "[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered.",
		"slots:[0-4095],[12288-16383] (8192 slots) master", "slots: (0 slots) master")
	if out := busCLI(t, cli, "--cluster", "info", addrs[0]); !strings.Contains(out, "[OK] 0 keys in 4 masters.") {
		t.Fatalf("--cluster info:\n%s", out)
	}
	out = busCLI(t, cli, "--cluster", "fix", addrs[2]) // nothing to fix
	requireAll(t, "--cluster fix", out, "[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered.")
	new := clusterDo(t, addrs[3], "CLUSTER", "MYID").Str
	for _, a := range addrs {
		nodes := clusterDo(t, a, "CLUSTER", "NODES").Str
		if strings.Count(nodes, "\n") != 4 || !strings.Contains(nodes, new+" "+addrs[3]+"@") || strings.Contains(nodes, old) {
			t.Fatalf("%s:\n%s", a, nodes)
		}
	}
}

// CLUSTER MEET of addresses nobody listens on: the same replies, and the
// same CLUSTER NODES lines (random IDs aside) while the handshakes last.
// Every address is a loopback one, where a connect is refused at once: an
// outside address (say ::ffff:1.2.3.4) is refused at once where the
// machine has no route to it but stays in progress, which redis-server
// shows as "connected", where its packets go unanswered.
func TestDiffClusterMeetHandshake(t *testing.T) {
	p := newClusterPair(t, 2, "")
	dead, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(dead)
	for _, args := range [][]string{
		{"127.0.0.1", port}, {"127.0.0.1", port}, {"::1", port, "1"}, {"127.0.0.1", "1"},
		{"127.0.0.1", "x"}, {"127.0.0.1", "1", "y"}, {"foo", "1"}, {"127.000.0.1", "1"},
		{"127.0.0.1", "55536"}, {"127.0.0.1", "0"}, {"127.0.0.1", "-1"}, {"127.0.0.1", "1", "65536"},
		{"1.2.3.4.5", "1"}, {"::ffff:127.0.0.1", "1"}, {"127.0.0.1", "1", "2", "3"}, {"127.0.0.1"},
	} {
		p.Conn("c").Do(append([]string{"CLUSTER", "MEET"}, args...)...)
	}
	hs := regexp.MustCompile(`^[0-9a-f]{40} `)
	lines := func(addr string) string {
		var out []string
		for _, l := range strings.Split(clusterDo(t, addr, "CLUSTER", "NODES").Str, "\n") {
			if strings.Contains(l, "handshake") {
				out = append(out, hs.ReplaceAllString(l, "{id} "))
			}
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	if w, g := lines(p.rn.addr), lines(p.on.addr); w != g || w == "" {
		t.Fatalf("handshake nodes differ\nredis-server:\n%s\nminiwatchd:\n%s", w, g)
	} else {
		t.Logf("%s", w)
	}
	p.DoClusterInfo("c")
}

// Redis refuses to start in cluster mode on a port above 55535 unless
// cluster-port is set: the same log line and exit status 1.
func TestDiffClusterPortTooHigh(t *testing.T) {
	requireRedis(t)
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	const line = "Redis port number too high. Cluster communication port is 10,000 port numbers higher than your Redis port. Your Redis port number must be 55535 or less."
	port := 0
	for p := 55536 + rand.Intn(9000); port == 0; p = 55536 + rand.Intn(9000) {
		// Redis listens on its port before the check: the port must be free.
		if portsFree(p, 1) {
			port = p
		}
	}
	for _, b := range []string{redisServerPath(), bin} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, b, "--port", strconv.Itoa(port), "--cluster-enabled", "yes", "--dir", t.TempDir(), "--save", "").CombinedOutput()
		cancel()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "# "+line) {
			t.Fatalf("%s: %v\n%s", b, err, out)
		}
	}
	// With cluster-port set, a port above 55535 is fine.
	for attempt := 0; ; attempt++ {
		port := 55536 + rand.Intn(9000)
		cport, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if !portsFree(port, 1) {
			continue
		}
		p, err := launch(ours, bin, "", port, []string{"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(cport), "--dir", t.TempDir()})
		if err != nil {
			if attempt < 10 {
				continue
			}
			t.Fatal(err)
		}
		t.Cleanup(p.stop)
		waitClusterOK(t, p.addr)
		return
	}
}
