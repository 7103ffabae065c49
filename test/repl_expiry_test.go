package test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReplReplicaKeepsStaleKeysLikeRedis: a redis-server master (active
// expiry off) has a redis-server replica and a miniwatchd replica. A key
// past its deadline reads as missing on both replicas but stays counted
// until the master's DEL arrives; the replies of both replicas are
// compared at each step, then INFO replication's fields and ROLE.
func TestReplReplicaKeepsStaleKeysLikeRedis(t *testing.T) {
	requireRedis(t)
	red, err := startRedis("--repl-diskless-sync-delay", "0", "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer red.stop()
	m := dialT(t, red.addr)
	mustDo(t, m, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	port := strconv.Itoa(red.port)
	rr, err := startRedis("--replicaof", "127.0.0.1", port, "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.stop()
	ours, err := startOurs("--replicaof", "127.0.0.1", port, "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ours.stop()
	reps := []*respConn{dialT(t, rr.addr), dialT(t, ours.addr)}
	for _, r := range reps {
		waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	}
	mustDo(t, m, "SET", "k", "v", "PX", "200")
	mustDo(t, m, "SET", "keep", "v")
	for _, r := range reps {
		waitSameOffset(t, m, r)
	}
	time.Sleep(400 * time.Millisecond)
	step := func(what string, cmds ...[]string) {
		t.Helper()
		var got [2]string
		for i, r := range reps {
			for _, c := range cmds {
				got[i] += string(mustDo(t, r, c...).Raw)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("%s: redis replica %q, miniwatchd replica %q", what, got[0], got[1])
		}
	}
	probe := [][]string{{"GET", "k"}, {"EXISTS", "k"}, {"DBSIZE"}, {"TTL", "k"}, {"GET", "k"}, {"DBSIZE"}}
	step("stale key before the master's DEL", probe...)
	mustDo(t, m, "GET", "k") // the master expires it: DEL in the stream
	for _, r := range reps {
		waitSameOffset(t, m, r)
	}
	step("after the master's DEL", probe...)

	// INFO replication has the same fields in the same order, and ROLE
	// the same shape, on both replicas.
	var fields [2][]string
	for i, r := range reps {
		for _, l := range strings.Split(mustDo(t, r, "INFO", "replication").Str, "\r\n") {
			if name, _, ok := strings.Cut(l, ":"); ok {
				fields[i] = append(fields[i], name)
			}
		}
	}
	if strings.Join(fields[0], ",") != strings.Join(fields[1], ",") {
		t.Fatalf("INFO replication fields:\n redis: %q\n ours:  %q", fields[0], fields[1])
	}
	var roles [2]string
	for i, r := range reps {
		n := mustDo(t, r, "ROLE")
		roles[i] = fmt.Sprintf("%d %s %s %d %s", len(n.Elems), n.Elems[0].Str, n.Elems[1].Str, n.Elems[2].Int, n.Elems[3].Str)
	}
	if roles[0] != roles[1] {
		t.Fatalf("ROLE: redis %q, ours %q", roles[0], roles[1])
	}
}
