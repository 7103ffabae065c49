package test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
	"github.com/miniwatchd/miniwatchd/server"
	goredis "github.com/redis/go-redis/v9"
)

// --cluster-emulate N: N cluster nodes in one miniwatchd process on
// consecutive ports, slots split as redis-cli --cluster create splits
// them, each node with its own keyspace.

// startEmulated starts miniwatchd with --cluster-emulate n and returns the
// nodes' addresses.
func startEmulated(t *testing.T, n int) []string {
	t.Helper()
	return launchEmulated(t, n, 0)
}

// launchEmulated starts miniwatchd with --cluster-emulate masters,
// --cluster-emulate-replicas r and the extra arguments, and returns the
// addresses of its masters*(1+r) nodes once each says cluster_state:ok.
func launchEmulated(t *testing.T, masters, r int, extra ...string) []string {
	t.Helper()
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	n := masters * (1 + r)
	dir := t.TempDir()
	args := append([]string{"--cluster-emulate", strconv.Itoa(masters), "--dir", dir}, extra...)
	if r > 0 {
		args = append(args, "--cluster-emulate-replicas", strconv.Itoa(r))
	}
	for attempt := 0; attempt < 20; attempt++ {
		base, ok := portRun(n)
		if !ok {
			continue
		}
		p, err := launch(ours, bin, "", base, args)
		if err != nil {
			t.Logf("attempt %d: %v", attempt, err)
			continue
		}
		t.Cleanup(p.stop)
		addrs := make([]string, n)
		for i := range addrs {
			addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i))
			waitClusterOK(t, addrs[i])
		}
		return addrs
	}
	t.Fatal("no run of free ports for the emulated cluster")
	return nil
}

// portRun picks n consecutive ports free now, as the Go side of an
// emulated cluster does (server.FreePortRun).
func portRun(n int) (int, bool) {
	base, err := server.FreePortRun(n)
	return base, err == nil
}

// portsFree reports whether the n ports from first can be bound now.
func portsFree(first, n int) bool {
	for p := first; p < first+n; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}

func TestClusterEmulateTopology(t *testing.T) {
	addrs := startEmulated(t, 3)
	// Every node knows all three, with redis-cli's split of the slots.
	var views []string
	for _, a := range addrs {
		nodes := clusterDo(t, a, "CLUSTER", "NODES").Str
		lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(nodes, "txt:")), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s knows %d nodes:\n%s", a, len(lines), nodes)
		}
		var slots []string
		for _, l := range lines {
			f := strings.Fields(l)
			if f[7] != "connected" {
				t.Fatalf("%s: peer not connected: %s", a, l)
			}
			slots = append(slots, f[1]+" "+strings.Join(f[8:], " "))
		}
		views = append(views, strings.Join(sortedCopy(slots), "|"))
	}
	for _, v := range views[1:] {
		if v != views[0] {
			t.Fatalf("nodes disagree:\n%s\n%s", views[0], v)
		}
	}
	if !strings.Contains(views[0], ":"+addrs[0][strings.LastIndexByte(addrs[0], ':')+1:]+"@") || !strings.Contains(views[0], " 0-5460") ||
		!strings.Contains(views[0], " 5461-10922") || !strings.Contains(views[0], " 10923-16383") {
		t.Fatalf("slots not split as redis-cli --cluster create splits them: %s", views[0])
	}
	// A key of another node's slot is MOVED there.
	c, err := dialRESP(addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, _ := c.Do("GET", "foo")
	if want := "MOVED 12182 " + addrs[2]; n.Str != want {
		t.Fatalf("GET foo on the first node: %q, want %q", n.Str, want)
	}
}

// go-redis's ClusterClient spreads keys over the three nodes, follows ASK
// while a slot migrates and MOVED once it moved, with the migration driven
// by CLUSTER SETSLOT as redis-cli --cluster reshard drives it (the slot
// holds no key, so no MIGRATE is needed).
func TestClusterEmulateGoRedis(t *testing.T) {
	addrs := startEmulated(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rdb := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: addrs[:1]})
	defer rdb.Close()
	for i := 0; i < 300; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("key:%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET key:%d: %v", i, err)
		}
	}
	total := int64(0)
	for _, a := range addrs {
		n := clusterDo(t, a, "DBSIZE").Int
		if n == 0 {
			t.Fatalf("node %s holds no key of 300", a)
		}
		total += n
	}
	if total != 300 {
		t.Fatalf("the nodes hold %d keys, want 300", total)
	}
	for i := 0; i < 300; i += 7 {
		if v, err := rdb.Get(ctx, fmt.Sprintf("key:%d", i)).Int(); err != nil || v != i {
			t.Fatalf("GET key:%d = %d, %v", i, v, err)
		}
	}

	// Move the slot of "{m}" from its owner to another node.
	slot := cluster.KeyHashSlot("{m}")
	src := slot * 3 / cluster.Slots
	dst := (src + 1) % 3
	srcID := clusterDo(t, addrs[src], "CLUSTER", "MYID").Str
	dstID := clusterDo(t, addrs[dst], "CLUSTER", "MYID").Str
	if clusterDo(t, addrs[src], "CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(slot)).Int != 0 {
		t.Fatal("the slot of {m} holds keys")
	}
	s := strconv.Itoa(slot)
	clusterDo(t, addrs[dst], "CLUSTER", "SETSLOT", s, "IMPORTING", srcID)
	clusterDo(t, addrs[src], "CLUSTER", "SETSLOT", s, "MIGRATING", dstID)
	c, err := dialRESP(addrs[src])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, _ := c.Do("GET", "{m}a"); n.Str != "ASK "+s+" "+addrs[dst] {
		t.Fatalf("GET of a missing key of a migrating slot: %q", n.Str)
	}
	// go-redis follows the ASK: the new key lands on the importing node.
	if err := rdb.Set(ctx, "{m}a", "during", 0).Err(); err != nil {
		t.Fatalf("SET during the migration: %v", err)
	}
	if clusterDo(t, addrs[dst], "CLUSTER", "COUNTKEYSINSLOT", s).Int != 1 {
		t.Fatal("the key written during the migration is not on the importing node")
	}
	for _, a := range addrs {
		clusterDo(t, a, "CLUSTER", "SETSLOT", s, "NODE", dstID)
	}
	if n, _ := c.Do("GET", "{m}a"); n.Str != "MOVED "+s+" "+addrs[dst] {
		t.Fatalf("GET after the migration: %q", n.Str)
	}
	if v, err := rdb.Get(ctx, "{m}a").Result(); err != nil || v != "during" {
		t.Fatalf("go-redis GET after the migration: %q, %v", v, err)
	}
}

// redis-cli --cluster check and info accept the emulated cluster, and
// --cluster reshard of empty slots moves them.
func TestClusterEmulateRedisCLI(t *testing.T) {
	cli := requireRedisCLI(t)
	addrs := startEmulated(t, 3)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := run("--cluster", "check", addrs[0])
	for _, want := range []string{"[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered."} {
		if !strings.Contains(out, want) {
			t.Fatalf("--cluster check lacks %q:\n%s", want, out)
		}
	}
	if out := run("--cluster", "info", addrs[1]); !strings.Contains(out, "[OK] 0 keys in 3 masters.") {
		t.Fatalf("--cluster info:\n%s", out)
	}
	from := clusterDo(t, addrs[2], "CLUSTER", "MYID").Str
	to := clusterDo(t, addrs[0], "CLUSTER", "MYID").Str
	run("--cluster", "reshard", addrs[0], "--cluster-from", from, "--cluster-to", to, "--cluster-slots", "10", "--cluster-yes")
	out = run("--cluster", "check", addrs[1])
	if !strings.Contains(out, "slots:[0-5460],[10923-10932] (5471 slots) master") || !strings.Contains(out, "[OK] All nodes agree about slots configuration.") {
		t.Fatalf("after reshard:\n%s", out)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// A reshard under load (issue 24's "done when"): go-redis clients INCR
// counters spread over all slots while redis-cli --cluster reshard moves
// 2000 slots with their keys from the third node to the first (SETSLOT
// IMPORTING/MIGRATING, GETKEYSINSLOT + MIGRATE, SETSLOT NODE). Every
// acknowledged INCR must be in the final counts, and a WATCH on a key that
// migrated must abort its EXEC. MIGRATE is implemented on another branch:
// until it is merged the test reports the missing command and skips.
//
// The same test runs against a real three-node Redis Cluster (redis-cli
// --cluster create), to prove it.
func TestClusterEmulateReshardUnderLoad(t *testing.T) {
	cli := requireRedisCLI(t)
	t.Run("miniwatchd", func(t *testing.T) {
		addrs := startEmulated(t, 3)
		if info := clusterDo(t, addrs[0], "COMMAND", "INFO", "MIGRATE"); len(info.Elems) != 1 || info.Elems[0].Null {
			t.Skip("MIGRATE is not implemented yet: the reshard cannot move keys")
		}
		reshardUnderLoad(t, cli, addrs)
	})
	t.Run("redis-server", func(t *testing.T) {
		reshardUnderLoad(t, cli, startRedisCluster(t, cli, 3))
	})
}

// startRedisCluster starts n redis-server nodes, joins them with redis-cli
// --cluster create and returns their addresses once every node is
// cluster_state:ok and knows the others.
func startRedisCluster(t *testing.T, cli string, n int) []string {
	t.Helper()
	var addrs []string
	for i := 0; i < n; i++ {
		addrs = append(addrs, startClusterNode(t, redis, "").addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	if out, err := exec.Command(cli, append(args, "--cluster-yes")...).CombinedOutput(); err != nil {
		t.Fatalf("--cluster create: %v\n%s", err, out)
	}
	for _, a := range addrs {
		waitClusterOK(t, a)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, a := range addrs {
		for !strings.Contains(clusterDo(t, a, "CLUSTER", "INFO").Str, fmt.Sprintf("cluster_known_nodes:%d", n)) {
			if time.Now().After(deadline) {
				t.Fatal("the nodes did not meet")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return addrs
}

// reshardUnderLoad is TestClusterEmulateReshardUnderLoad on the cluster of
// addrs (the third node's first 2000 slots move to the first).
func reshardUnderLoad(t *testing.T, cli string, addrs []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rdb := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: addrs, MaxRedirects: 16})
	defer rdb.Close()
	const counters = 500
	for i := 0; i < counters; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("c:%d", i), 0, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// A key of a slot that moves (the third node's first slot), watched
	// from a connection to the source node.
	watched := ""
	for i := 0; ; i++ {
		k := fmt.Sprintf("w:%d", i)
		if s := cluster.KeyHashSlot(k); s >= 10923 && s < 10923+2000 { // redis-cli moves the source's lowest slots
			watched = k
			break
		}
	}
	src := goredis.NewClient(&goredis.Options{Addr: addrs[2]})
	defer src.Close()
	if err := src.Set(ctx, watched, "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	wc, err := dialRESP(addrs[2])
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	if n := mustDo(t, wc, "WATCH", watched); n.Str != "OK" {
		t.Fatalf("WATCH: %s", n.Str)
	}

	acked := make([]atomic.Int64, counters)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failures atomic.Int64
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := w; ; n += 8 {
				select {
				case <-stop:
					return
				default:
				}
				i := n % counters
				if err := rdb.Incr(ctx, fmt.Sprintf("c:%d", i)).Err(); err != nil {
					failures.Add(1)
					continue
				}
				acked[i].Add(1)
			}
		}(w)
	}
	from := clusterDo(t, addrs[2], "CLUSTER", "MYID").Str
	to := clusterDo(t, addrs[0], "CLUSTER", "MYID").Str
	out, err := exec.Command(cli, "--cluster", "reshard", addrs[0], "--cluster-from", from, "--cluster-to", to,
		"--cluster-slots", "2000", "--cluster-yes").CombinedOutput()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("reshard: %v\n%s", err, out)
	}
	for i := 0; i < counters; i++ {
		v, err := rdb.Get(ctx, fmt.Sprintf("c:%d", i)).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if v != acked[i].Load() {
			t.Fatalf("c:%d = %d, but %d INCRs were acknowledged (%d failed)", i, v, acked[i].Load(), failures.Load())
		}
	}
	// The watched key moved away: the source's EXEC aborts.
	mustDo(t, wc, "MULTI")
	mustDo(t, wc, "PING")
	if n := mustDo(t, wc, "EXEC"); !n.Null {
		t.Fatalf("EXEC after the watched key migrated: %s, want an abort (null)", render(n))
	}
}
