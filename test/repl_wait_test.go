package test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReplWaitAndMinReplicasMatchRedis runs the same WAIT and
// min-replicas-to-write sequence on a redis-server master and on a
// miniwatchd master, each with one redis-server replica that is stopped
// halfway, and compares every reply, INFO replication's field names and
// WAIT's timeout.
func TestReplWaitAndMinReplicasMatchRedis(t *testing.T) {
	requireRedis(t)
	results := map[string][]string{}
	for _, name := range []string{"redis-server", "miniwatchd"} {
		start := startRedis
		if name == "miniwatchd" {
			start = startOurs
		}
		master, err := start("--repl-diskless-sync-delay", "0", "--dir", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer master.stop()
		m := dialT(t, master.addr)
		var out []string
		rec := func(args ...string) {
			out = append(out, string(mustDo(t, m, args...).Raw))
		}
		rec("WAIT", "1", "50") // no replica: 0 after the timeout
		replica, err := startRedis("--replicaof", "127.0.0.1", strconv.Itoa(master.port), "--dir", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r := dialT(t, replica.addr)
		waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
		rec("SET", "k", "v")
		rec("WAIT", "1", "2000")
		t0 := time.Now()
		rec("WAIT", "2", "300") // one of two: 1 after the timeout
		if d := time.Since(t0); d < 290*time.Millisecond || d > 1500*time.Millisecond {
			t.Fatalf("%s: WAIT 2 300 took %v", name, d)
		}
		rec("CONFIG", "SET", "min-replicas-to-write", "1")
		rec("CONFIG", "SET", "min-replicas-max-lag", "10")
		rec("SET", "k", "w")
		rec("MULTI")
		rec("INCR", "n")
		rec("EXEC")
		out = append(out, "good="+replInfo(t, m, "replication", "min_slaves_good_slaves"))
		var names []string
		for _, l := range strings.Split(mustDo(t, m, "INFO", "replication").Str, "\r\n") {
			if name, _, ok := strings.Cut(l, ":"); ok {
				names = append(names, name)
			}
		}
		out = append(out, "info-fields="+strings.Join(names, ","))
		role := mustDo(t, m, "ROLE")
		out = append(out, "role-replicas="+strconv.Itoa(len(role.Elems[2].Elems)))
		replica.stop()
		waitInfo(t, m, "replication", "connected_slaves", "0", 10*time.Second)
		rec("SET", "k", "x")
		rec("GET", "k")
		rec("MULTI")
		rec("SET", "k", "y")
		rec("EXEC")
		rec("CONFIG", "SET", "min-replicas-to-write", "0")
		rec("SET", "k", "z")
		rec("WAIT", "1", "100")
		results[name] = out
	}
	a, b := results["redis-server"], results["miniwatchd"]
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			t.Fatalf("reply %d differs:\n redis: %q\n ours:  %q", i, a, b)
		}
	}
	t.Logf("%d replies equal", len(a))
}
