package test

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
	goredis "github.com/redis/go-redis/v9"
)

// Replicas in a cluster: --cluster-emulate N --cluster-emulate-replicas R
// against a redis-server cluster made by redis-cli --cluster create
// --cluster-replicas R. Shapes of CLUSTER NODES / SLOTS / SHARDS, the
// errors of CLUSTER REPLICATE and FAILOVER, go-redis reading from
// replicas and following a manual failover, redis-cli --cluster check.

// replicaCluster is a started cluster: masters first, then replicas,
// replica i of the list replicating master masterOf[i].
type replicaCluster struct {
	addrs   []string
	masters int
}

// startEmulatedReplicas starts miniwatchd with --cluster-emulate masters
// --cluster-emulate-replicas r (full resyncs without delay).
func startEmulatedReplicas(t *testing.T, masters, r int) replicaCluster {
	t.Helper()
	addrs := launchEmulated(t, masters, r, "--repl-diskless-sync-delay", "0")
	rc := replicaCluster{addrs: addrs, masters: masters}
	rc.waitLinks(t)
	return rc
}

// startRedisReplicas starts masters*(1+r) redis-server nodes and joins
// them with redis-cli --cluster create --cluster-replicas r.
func startRedisReplicas(t *testing.T, cli string, masters, r int) replicaCluster {
	t.Helper()
	n := masters * (1 + r)
	var addrs []string
	for i := 0; i < n; i++ {
		addrs = append(addrs, startClusterNode(t, redis, "", "--repl-diskless-sync-delay", "0").addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(r), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("--cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range addrs {
		waitClusterOK(t, a)
		for !strings.Contains(clusterDo(t, a, "CLUSTER", "INFO").Str, fmt.Sprintf("cluster_known_nodes:%d", n)) {
			if time.Now().After(deadline) {
				t.Fatal("the nodes did not meet")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	rc := replicaCluster{addrs: addrs, masters: masters}
	rc.waitLinks(t)
	return rc
}

// waitLinks waits until every replica's link to its master is up and
// every node's view lists the replicas.
func (rc replicaCluster) waitLinks(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range rc.addrs[rc.masters:] {
		for !strings.Contains(clusterDo(t, a, "INFO", "replication").Str, "master_link_status:up") {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the link to the master is not up", a)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, a := range rc.addrs {
		for strings.Count(clusterDo(t, a, "CLUSTER", "NODES").Str, " slave ")+strings.Count(clusterDo(t, a, "CLUSTER", "NODES").Str, "myself,slave ") != len(rc.addrs)-rc.masters {
			if time.Now().After(deadline) {
				t.Fatalf("%s does not see the replicas", a)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// names maps each node ID to a name that does not depend on IDs or ports:
// masters "M<k>" by their first slot, replicas "R<k>.<j>" after their
// master, j by port order among its replicas.
func (rc replicaCluster) names(t *testing.T) map[string]string {
	t.Helper()
	lines := nodesLines(clusterDo(t, rc.addrs[0], "CLUSTER", "NODES").Str)
	type m struct {
		id    string
		first int
	}
	var masters []m
	for _, f := range lines {
		if strings.Contains(f[2], "master") && len(f) > 8 {
			first, _ := strconv.Atoi(strings.SplitN(f[8], "-", 2)[0])
			masters = append(masters, m{f[0], first})
		}
	}
	sort.Slice(masters, func(i, j int) bool { return masters[i].first < masters[j].first })
	names := map[string]string{}
	for k, mm := range masters {
		names[mm.id] = fmt.Sprintf("M%d", k)
	}
	var reps [][]string
	for _, f := range lines {
		if strings.Contains(f[2], "slave") {
			reps = append(reps, f)
		}
	}
	sort.Slice(reps, func(i, j int) bool { return addrPort(reps[i][1]) < addrPort(reps[j][1]) })
	count := map[string]int{}
	for _, f := range reps {
		names[f[0]] = fmt.Sprintf("R%s.%d", names[f[3]][1:], count[f[3]])
		count[f[3]]++
	}
	return names
}

func addrPort(field string) int {
	a, _, _ := strings.Cut(field, "@")
	p, _ := strconv.Atoi(a[strings.LastIndexByte(a, ':')+1:])
	return p
}

func nodesLines(text string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(strings.TrimPrefix(text, "txt:")), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// nodesShape is CLUSTER NODES of addr with IDs as names, the address as
// its form, the ping/pong times as their presence and the epoch as whose
// it is: one sorted line per node.
func (rc replicaCluster) nodesShape(t *testing.T, names map[string]string, addr string, args ...string) []string {
	t.Helper()
	if len(args) == 0 {
		args = []string{"CLUSTER", "NODES"}
	}
	reply := clusterDo(t, addr, args...)
	text := reply.Str
	for _, e := range reply.Elems { // CLUSTER REPLICAS: one bulk string per line
		text += e.Str + "\n"
	}
	lines := nodesLines(text)
	epochs := map[string]string{}
	for _, f := range nodesLines(clusterDo(t, addr, "CLUSTER", "NODES").Str) {
		epochs[f[0]] = f[6]
	}
	var out []string
	for _, f := range lines {
		master := f[3]
		if master != "-" {
			master = names[master]
		}
		epoch := "own"
		if f[3] != "-" && f[6] == epochs[f[3]] {
			epoch = "master's"
		}
		addrForm := "ip:port@cport"
		if !strings.HasPrefix(f[1], "127.0.0.1:") || !strings.Contains(f[1], "@") {
			addrForm = f[1]
		}
		out = append(out, fmt.Sprintf("%s %s %s %s %s %s %s fields=%d", names[f[0]], addrForm, f[2], master, epoch, f[7], strings.Join(f[8:], " "), len(f)))
	}
	sort.Strings(out)
	return out
}

// forBothReplicaClusters runs fn against the emulated cluster and a
// redis-server one, 3 masters with one replica each.
func forBothReplicaClusters(t *testing.T, fn func(t *testing.T, rc replicaCluster)) {
	t.Run("miniwatchd", func(t *testing.T) { fn(t, startEmulatedReplicas(t, 3, 1)) })
	t.Run("redis-server", func(t *testing.T) {
		fn(t, startRedisReplicas(t, requireRedisCLI(t), 3, 1))
	})
}

// waitReplicasListed waits until every node lists every replica in
// CLUSTER SLOTS and CLUSTER SHARDS says none is loading: Redis lists a
// replica once its replication offset, gossiped with the pings, is not 0
// (isReplicaAvailable), so each master must have written something.
func (rc replicaCluster) waitReplicasListed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, a := range rc.addrs {
		for {
			slots := clusterDo(t, a, "CLUSTER", "SLOTS")
			ok := len(slots.Elems) == rc.masters
			for _, e := range slots.Elems {
				ok = ok && len(e.Elems) == 3+(len(rc.addrs)/rc.masters-1)
			}
			if ok && shardsSettled(clusterDo(t, a, "CLUSTER", "SHARDS")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: replicas not listed: %v", a, slots)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// shardsSettled reports whether a CLUSTER SHARDS reply lists no node as
// loading and every node with a positive replication offset: a node learns
// the other nodes' offsets from their pings, so right after the writes a
// redis-server node may still show another master's offset as 0.
func shardsSettled(shards node) bool {
	if strings.Contains(fmt.Sprint(shards), "loading") {
		return false
	}
	for _, sh := range shards.Elems {
		if len(sh.Elems) < 4 {
			return false
		}
		for _, n := range sh.Elems[3].Elems {
			for i := 0; i+1 < len(n.Elems); i += 2 {
				if n.Elems[i].Str == "replication-offset" && n.Elems[i+1].Int <= 0 {
					return false
				}
			}
		}
	}
	return true
}

// TestDiffClusterReplicasShape compares CLUSTER NODES, REPLICAS, SLOTS and
// SHARDS as a master and as a replica see them, and the errors of CLUSTER
// REPLICATE and CLUSTER FAILOVER, between miniwatchd and redis-server.
func TestDiffClusterReplicasShape(t *testing.T) {
	got := map[string][]string{}
	var mu sync.Mutex
	forBothReplicaClusters(t, func(t *testing.T, rc replicaCluster) {
		names := rc.names(t)
		ids := map[string]string{}
		for id, n := range names {
			ids[n] = id
		}
		var out []string
		// A key on every master, replicated, so every replica has an
		// offset (CLUSTER SLOTS lists replicas with one).
		rdb := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: rc.addrs})
		defer rdb.Close()
		ctx := context.Background()
		for i := 0; i < 30; i++ {
			if err := rdb.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range rc.addrs[:rc.masters] {
			clusterDo(t, a, "WAIT", "1", "5000")
		}
		rc.waitReplicasListed(t)
		for _, view := range []string{"M0", "R0.0"} {
			addr := ""
			for _, a := range rc.addrs {
				if names[clusterDo(t, a, "CLUSTER", "MYID").Str] == view {
					addr = a
				}
			}
			out = append(out, "== NODES as "+view)
			out = append(out, rc.nodesShape(t, names, addr)...)
			out = append(out, "== REPLICAS M1 as "+view)
			out = append(out, rc.nodesShape(t, names, addr, "CLUSTER", "REPLICAS", ids["M1"])...)
			out = append(out, "== SLOTS as "+view)
			for _, e := range clusterDo(t, addr, "CLUSTER", "SLOTS").Elems {
				line := fmt.Sprintf("%d-%d", e.Elems[0].Int, e.Elems[1].Int)
				for _, n := range e.Elems[2:] {
					line += fmt.Sprintf(" [%s %s %d %s %c%d]", n.Elems[0].Str, map[bool]string{true: "port", false: "?"}[n.Elems[1].Int > 0],
						len(n.Elems), names[n.Elems[2].Str], n.Elems[3].Kind, len(n.Elems[3].Elems))
				}
				out = append(out, line)
			}
			out = append(out, "== SHARDS as "+view)
			var shards []string
			for _, sh := range clusterDo(t, addr, "CLUSTER", "SHARDS").Elems {
				line := fmt.Sprintf("keys=%s,%s slots=%d", sh.Elems[0].Str, sh.Elems[2].Str, len(sh.Elems[1].Elems))
				for _, n := range sh.Elems[3].Elems {
					line += " ["
					for i := 0; i+1 < len(n.Elems); i += 2 {
						k, v := n.Elems[i].Str, n.Elems[i+1]
						switch k {
						case "id":
							line += k + "=" + names[v.Str] + " "
						case "port":
							line += k + "=" + string(v.Kind) + " "
						case "replication-offset":
							line += fmt.Sprintf("%s=%c,positive=%v ", k, v.Kind, v.Int > 0)
						default:
							line += k + "=" + v.Str + " "
						}
					}
					line += "]"
				}
				shards = append(shards, line)
			}
			sort.Strings(shards)
			out = append(out, shards...)
		}
		// Errors, from a master and from a replica.
		out = append(out, "== errors")
		for _, tc := range []struct {
			node string
			args []string
		}{
			{"M0", []string{"CLUSTER", "REPLICATE", "abc"}},
			{"M0", []string{"CLUSTER", "REPLICATE", "M0"}},
			{"M0", []string{"CLUSTER", "REPLICATE", "R1.0"}},
			{"M0", []string{"CLUSTER", "REPLICATE", "M1"}},
			{"M0", []string{"CLUSTER", "REPLICATE"}},
			{"M0", []string{"CLUSTER", "REPLICATE", "M1", "x"}},
			{"M0", []string{"CLUSTER", "FAILOVER"}},
			{"M0", []string{"CLUSTER", "FAILOVER", "FORCE"}},
			{"M0", []string{"CLUSTER", "FAILOVER", "TAKEOVER"}},
			{"R0.0", []string{"CLUSTER", "FAILOVER", "foo"}},
			{"R0.0", []string{"CLUSTER", "FAILOVER", "force", "takeover"}},
			{"R0.0", []string{"CLUSTER", "REPLICATE", "R0.0"}},
			{"R0.0", []string{"REPLICAOF", "NO", "ONE"}},
			{"R0.0", []string{"REPLICAOF", "127.0.0.1", "1"}},
			{"R0.0", []string{"FLUSHALL"}},
			{"R0.0", []string{"SET", "k1", "x"}},
		} {
			addr := ""
			for _, a := range rc.addrs {
				if names[clusterDo(t, a, "CLUSTER", "MYID").Str] == tc.node {
					addr = a
				}
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				if id, ok := ids[a]; ok {
					a = id
				}
				args[i] = a
			}
			c, err := dialRESP(addr)
			if err != nil {
				t.Fatal(err)
			}
			n, err := c.Do(args...)
			c.Close()
			if err != nil {
				t.Fatal(err)
			}
			reply := n.Str
			for id, name := range names {
				reply = strings.ReplaceAll(reply, id, name)
			}
			if strings.HasPrefix(reply, "MOVED ") {
				reply = reply[:strings.LastIndexByte(reply, ' ')] + " <addr>"
			}
			out = append(out, fmt.Sprintf("%s %q -> %c %s", tc.node, tc.args, n.Kind, reply))
		}
		mu.Lock()
		got[strings.TrimPrefix(t.Name(), "TestDiffClusterReplicasShape/")] = out
		mu.Unlock()
	})
	ours, theirs := got["miniwatchd"], got["redis-server"]
	if theirs == nil || ours == nil {
		return
	}
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Fatalf("shapes differ\n--- miniwatchd\n%s\n--- redis-server\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	}
}

// TestClusterReplicasGoRedis: go-redis's ClusterClient with ReadOnly
// (RouteByLatency and RouteRandomly off) writes to the masters and reads
// replicated data from the replicas; after CLUSTER FAILOVER on a replica
// it follows the MOVED, refreshes its topology and keeps working with no
// acknowledged write lost; a transaction WATCHing a key of the failed-over
// slot, queued on the old master, gets MOVED at EXEC and is not applied.
func TestClusterReplicasGoRedis(t *testing.T) {
	forBothReplicaClusters(t, func(t *testing.T, rc replicaCluster) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		writer := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: rc.addrs[:1]})
		defer writer.Close()
		const keys = 200
		for i := 0; i < keys; i++ {
			if err := writer.Set(ctx, fmt.Sprintf("key:%d", i), i, 0).Err(); err != nil {
				t.Fatalf("SET key:%d: %v", i, err)
			}
		}
		for _, a := range rc.addrs[:rc.masters] {
			if n := clusterDo(t, a, "WAIT", "1", "5000").Int; n != 1 {
				t.Fatalf("WAIT on %s: %d replicas", a, n)
			}
		}
		// go-redis takes the replicas from CLUSTER SLOTS when it loads the
		// topology (then every minute, or after a MOVED).
		rc.waitReplicasListed(t)
		rdb := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: rc.addrs[:1], ReadOnly: true, MaxRedirects: 16})
		defer rdb.Close()
		// The writes went to the masters; the replicas hold copies.
		for i, a := range rc.addrs {
			if n := clusterDo(t, a, "DBSIZE").Int; n == 0 {
				t.Fatalf("node %d (%s) holds no key", i, a)
			}
		}
		getsOn := func(a string) int {
			info := clusterDo(t, a, "INFO", "commandstats").Str
			_, rest, ok := strings.Cut(info, "cmdstat_get:calls=")
			if !ok {
				return 0
			}
			n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			return n
		}
		// go-redis refreshes the topology in the background: wait until
		// its reads reach the replicas.
		deadline := time.Now().Add(20 * time.Second)
		for {
			for i := 0; i < keys; i++ {
				if v, err := rdb.Get(ctx, fmt.Sprintf("key:%d", i)).Int(); err != nil || v != i {
					t.Fatalf("GET key:%d = %d, %v", i, v, err)
				}
			}
			reads := 0
			for _, a := range rc.addrs[rc.masters:] {
				reads += getsOn(a)
			}
			masterReads := 0
			for _, a := range rc.addrs[:rc.masters] {
				masterReads += getsOn(a)
			}
			// go-redis picks a replica when it knows one that is not
			// failing or loading, else the master (with redis-server as
			// with miniwatchd, a share of the reads still goes to masters).
			if reads > 0 {
				t.Logf("GETs: %d on replicas, %d on masters", reads, masterReads)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GETs: %d on replicas, %d on masters", reads, masterReads)
			}
			time.Sleep(200 * time.Millisecond)
		}

		// The replica of the master of foo's slot fails over while a
		// writer increments counters; a WATCH transaction on that master
		// is open meanwhile.
		slot := cluster.KeyHashSlot("foo")
		masterAddr, replicaAddr := "", ""
		for _, a := range rc.addrs {
			for _, f := range nodesLines(clusterDo(t, a, "CLUSTER", "NODES").Str) {
				if strings.Contains(f[2], "myself") && strings.Contains(f[2], "master") && len(f) > 8 && slotIn(f[8:], slot) {
					masterAddr = a
				}
			}
		}
		masterID := clusterDo(t, masterAddr, "CLUSTER", "MYID").Str
		for _, a := range rc.addrs {
			for _, f := range nodesLines(clusterDo(t, a, "CLUSTER", "NODES").Str) {
				if strings.Contains(f[2], "myself") && f[3] == masterID {
					replicaAddr = a
				}
			}
		}
		if err := rdb.Set(ctx, "foo", "before", 0).Err(); err != nil {
			t.Fatal(err)
		}
		wc, err := dialRESP(masterAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer wc.Close()
		for _, cmd := range [][]string{{"WATCH", "foo"}, {"MULTI"}, {"SET", "foo", "in-tx"}} {
			if n, err := wc.Do(cmd...); err != nil || n.Kind == '-' {
				t.Fatalf("%q: %v %v", cmd, n, err)
			}
		}
		const counters = 50
		var acked [counters]atomic.Int64
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var writeErr atomic.Value
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := i % counters
				if err := rdb.Incr(ctx, fmt.Sprintf("{foo}c:%d", k)).Err(); err != nil {
					writeErr.Store(err.Error())
					continue
				}
				acked[k].Add(1)
			}
		}()
		time.Sleep(200 * time.Millisecond)
		clusterDo(t, replicaAddr, "CLUSTER", "FAILOVER")
		deadline = time.Now().Add(20 * time.Second)
		for !strings.Contains(fmt.Sprint(clusterDo(t, masterAddr, "ROLE")), "slave") {
			if time.Now().After(deadline) {
				t.Fatal("the master did not become a replica")
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		close(stop)
		wg.Wait()
		if e := writeErr.Load(); e != nil {
			t.Logf("a write failed during the failover: %v", e)
		}
		n, err := wc.Do("EXEC")
		if err != nil {
			t.Fatal(err)
		}
		if n.Kind != '-' || !strings.HasPrefix(n.Str, "MOVED "+strconv.Itoa(slot)+" ") {
			t.Fatalf("EXEC after the failover: %c %q", n.Kind, n.Str)
		}
		if v, err := rdb.Get(ctx, "foo").Result(); err != nil || v != "before" {
			t.Fatalf("foo after the failed-over transaction: %q, %v", v, err)
		}
		for k := 0; k < counters; k++ {
			key := fmt.Sprintf("{foo}c:%d", k)
			v, err := goredis.NewClient(&goredis.Options{Addr: replicaAddr}).Get(ctx, key).Int64()
			if err != nil && err != goredis.Nil {
				t.Fatal(err)
			}
			// Every acknowledged increment is there; with no failed
			// write, none was applied twice either.
			if v < acked[k].Load() || (writeErr.Load() == nil && v != acked[k].Load()) {
				t.Fatalf("%s = %d on the new master, %d increments acknowledged", key, v, acked[k].Load())
			}
		}
		// The client keeps working: writes land on the new master.
		for i := 0; i < keys; i++ {
			if err := rdb.Set(ctx, fmt.Sprintf("key:%d", i), -i, 0).Err(); err != nil {
				t.Fatalf("SET after the failover: %v", err)
			}
		}
		if v, err := goredis.NewClient(&goredis.Options{Addr: replicaAddr}).Get(ctx, "foo").Result(); err != nil || v != "before" {
			t.Fatalf("foo on the new master: %q, %v", v, err)
		}
	})
}

// slotIn reports whether slot is in one of the CLUSTER NODES slot fields.
func slotIn(fields []string, slot int) bool {
	for _, f := range fields {
		lo, hi, isRange := strings.Cut(f, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 == nil && err2 == nil && slot >= a && slot <= b {
			return true
		}
	}
	return false
}

// redis-cli --cluster check accepts the emulated cluster with replicas.
func TestClusterEmulateReplicasRedisCLI(t *testing.T) {
	cli := requireRedisCLI(t)
	rc := startEmulatedReplicas(t, 3, 1)
	out, err := exec.Command(cli, "--cluster", "check", rc.addrs[0]).CombinedOutput()
	if err != nil {
		t.Fatalf("--cluster check: %v\n%s", err, out)
	}
	for _, want := range []string{"[OK] All nodes agree about slots configuration.", "[OK] All 16384 slots covered.", "1 additional replica(s)", "slots: (0 slots) slave"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("--cluster check lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(string(out), "1 additional replica(s)") != 3 {
		t.Fatalf("--cluster check:\n%s", out)
	}
}
