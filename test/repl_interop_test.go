package test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Interop of replication with redis-server 7.0.15, both ways: a
// redis-server replica of miniwatchd, and a miniwatchd replica of
// redis-server, each compared key by key with its master after a mixed
// workload of every type, and across a restart of the replica's link
// (a partial resynchronization, +CONTINUE).

// replInfo returns one field of INFO section.
func replInfo(t *testing.T, c *respConn, section, name string) string {
	t.Helper()
	for _, l := range strings.Split(mustDo(t, c, "INFO", section).Str, "\r\n") {
		if v, ok := strings.CutPrefix(l, name+":"); ok {
			return v
		}
	}
	return ""
}

// waitInfo waits until INFO section's field name is want.
func waitInfo(t *testing.T, c *respConn, section, name, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if replInfo(t, c, section, name) == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: INFO %s %s is %q, not %q after %v", c.Addr, section, name, replInfo(t, c, section, name), want, limit)
}

// waitSameOffset waits until the replica applied everything the master
// produced.
func waitSameOffset(t *testing.T, master, replica *respConn) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m := replInfo(t, master, "replication", "master_repl_offset")
		r := replInfo(t, replica, "replication", "slave_repl_offset")
		if m == r && m != "" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("offsets differ: master %s, replica %s\n%s", replInfo(t, master, "replication", "master_repl_offset"),
		replInfo(t, replica, "replication", "slave_repl_offset"), mustDo(t, replica, "INFO", "replication").Str+mustDo(t, replica, "CLIENT", "LIST").Str)
}

// keyDigest renders a key's type, value and whether it has a TTL, in an
// order-free form, with commands both servers answer alike.
func keyDigest(t *testing.T, c *respConn, key string) string {
	t.Helper()
	typ := mustDo(t, c, "TYPE", key).Str
	ttl := mustDo(t, c, "PTTL", key).Int
	var b strings.Builder
	fmt.Fprintf(&b, "%s ttl=%v ", typ, ttl >= 0)
	flat := func(n node) []string {
		var out []string
		for _, e := range n.Elems {
			out = append(out, e.Str)
		}
		return out
	}
	sorted := func(s []string) []string { sort.Strings(s); return s }
	pairs := func(s []string) []string {
		var out []string
		for i := 0; i+1 < len(s); i += 2 {
			out = append(out, s[i]+"="+s[i+1])
		}
		return sorted(out)
	}
	switch typ {
	case "string":
		b.WriteString(strconv.Quote(mustDo(t, c, "GET", key).Str))
	case "list":
		fmt.Fprintf(&b, "%q", flat(mustDo(t, c, "LRANGE", key, "0", "-1")))
	case "set":
		fmt.Fprintf(&b, "%q", sorted(flat(mustDo(t, c, "SMEMBERS", key))))
	case "zset":
		fmt.Fprintf(&b, "%q", flat(mustDo(t, c, "ZRANGE", key, "0", "-1", "WITHSCORES")))
	case "hash":
		fmt.Fprintf(&b, "%q", pairs(flat(mustDo(t, c, "HGETALL", key))))
	case "stream":
		// Everything a stream holds: entries, counters, groups with their
		// PELs (delivery times and counts) and consumers.
		// The groups' entries-read go after entriesReadSep, compared by
		// sameReplicaDigest.
		var read []string
		renderStreamInfo(&b, mustDo(t, c, "XINFO", "STREAM", key, "FULL", "COUNT", "0"), "", &read)
		b.WriteString(entriesReadSep + strings.Join(read, " "))
	default:
		t.Fatalf("key %q of type %q", key, typ)
	}
	return b.String()
}

// entriesReadSep separates a stream's digest from its groups' entries-read.
const entriesReadSep = "\nentries-read: "

// renderStreamInfo writes an XINFO STREAM FULL reply (RESP2) with the
// consumers' seen-time masked: a replica sets it to its own clock when it
// applies a propagated XCLAIM (only a snapshot carries the master's). The
// groups' entries-read are masked too and appended to read instead. field
// is the name n is the value of.
func renderStreamInfo(b *strings.Builder, n node, field string, read *[]string) {
	switch {
	case field == "seen-time":
		b.WriteString("<seen-time>")
	case field == "entries-read":
		b.WriteString("<entries-read>")
		*read = append(*read, strconv.Quote(string(n.Raw)))
	case n.Kind == '*' && !n.Null:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(' ')
			}
			name := ""
			if i%2 == 1 && n.Elems[i-1].Kind == '$' {
				name = n.Elems[i-1].Str
			}
			renderStreamInfo(b, e, name, read)
		}
		b.WriteByte(']')
	default:
		b.WriteString(strconv.Quote(string(n.Raw)))
	}
}

// sameReplicaDigest says whether a replica's digest of a key matches its
// master's: equal, or a stream equal but for groups whose entries-read the
// replica does not know. Redis 7.0.15 propagates an XREADGROUP without
// NOACK as XCLAIM ... LASTID, which moves the group's last-delivered-id on
// a replica but leaves its entries-read unset (nil in XINFO), where the
// master counted it; a redis-server replica of redis-server shows the same.
// A snapshot carries the master's count.
// It also returns how many groups differed that way.
func sameReplicaDigest(master, replica string) (same bool, unread int) {
	if master == replica {
		return true, 0
	}
	m, mRead, ok1 := strings.Cut(master, entriesReadSep)
	r, rRead, ok2 := strings.Cut(replica, entriesReadSep)
	if !ok1 || !ok2 || m != r {
		return false, 0
	}
	mf, rf := strings.Fields(mRead), strings.Fields(rRead)
	if len(mf) != len(rf) {
		return false, 0
	}
	for i := range mf {
		if mf[i] != rf[i] {
			if rf[i] != strconv.Quote("$-1\r\n") {
				return false, 0
			}
			unread++
		}
	}
	return true, unread
}

// compareDatasets compares every database of a master and its replica key
// by key (sameReplicaDigest) and returns how many keys it compared and how
// many stream groups had entries-read nil on the replica only.
func compareDatasets(t *testing.T, a, b *respConn) (keys, unread int) {
	t.Helper()
	n, streams := 0, 0
	for db := 0; db < 16; db++ {
		mustDo(t, a, "SELECT", strconv.Itoa(db))
		mustDo(t, b, "SELECT", strconv.Itoa(db))
		ka, kb := flatKeys(t, a), flatKeys(t, b)
		if strings.Join(ka, ",") != strings.Join(kb, ",") {
			t.Fatalf("db %d: keys differ (%d vs %d):\n only on %s: %q\n only on %s: %q", db, len(ka), len(kb),
				a.Addr, keysMinus(ka, kb), b.Addr, keysMinus(kb, ka))
		}
		for _, k := range ka {
			da, db2 := keyDigest(t, a, k), keyDigest(t, b, k)
			same, u := sameReplicaDigest(da, db2)
			if !same {
				t.Fatalf("db %d key %q differs:\n %s: %s\n %s: %s", db, k, a.Addr, da, b.Addr, db2)
			}
			if strings.Contains(da, entriesReadSep) {
				streams++
			}
			unread += u
			n++
		}
	}
	mustDo(t, a, "SELECT", "0")
	mustDo(t, b, "SELECT", "0")
	if fa, fb := mustDo(t, a, "FUNCTION", "DUMP").Str, mustDo(t, b, "FUNCTION", "DUMP").Str; (fa == "") != (fb == "") {
		t.Fatalf("functions differ: %q vs %q", fa, fb)
	}
	t.Logf("compared %d keys, %d of them streams (%d groups with entries-read nil on the replica only)", n, streams, unread)
	return n, unread
}

// compareSnapshot compares a replica that has only its full resync's
// snapshot with its master: the snapshot carries every stream group's
// entries-read, so none may be missing.
func compareSnapshot(t *testing.T, master, replica *respConn) {
	t.Helper()
	keys, unread := compareDatasets(t, master, replica)
	if unread != 0 {
		t.Fatalf("after the full resync %d stream groups lack their entries-read on the replica", unread)
	}
	t.Logf("after the full resync (snapshot only): %d keys equal", keys)
}

func flatKeys(t *testing.T, c *respConn) []string {
	var out []string
	for _, e := range mustDo(t, c, "KEYS", "*").Elems {
		out = append(out, e.Str)
	}
	sort.Strings(out)
	return out
}

func dialT(t *testing.T, addr string) *respConn {
	t.Helper()
	c, err := dialRESP(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReplRedisReplicaOfOurs: redis-server replicates from miniwatchd
// (full resync with a diskless snapshot, the stream, WAIT), stays equal
// key by key, then is shut down (saving its replication state), misses
// writes, restarts and continues with a partial resync.
func TestReplRedisReplicaOfOurs(t *testing.T) {
	requireRedis(t)
	ours, err := startOurs("--repl-diskless-sync-delay", "0", "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ours.stop()
	m := dialT(t, ours.addr)
	m2 := dialT(t, ours.addr)
	// Data before the replica attaches goes through the snapshot.
	replWorkload{seed: 1, ops: 500, keys: 2000}.run(t, m, m2)
	mustDo(t, m, "SET", "big", strings.Repeat("x", 100000))

	dir := t.TempDir()
	replicaArgs := []string{"--replicaof", "127.0.0.1", strconv.Itoa(ours.port), "--dir", dir, "--save", "3600 1"}
	red, err := startRedis(replicaArgs...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { red.stop() }()
	r := dialT(t, red.addr)
	waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	waitSameOffset(t, m, r)
	compareSnapshot(t, m, r)
	// Data after goes through the stream; WAIT sees the replica's ack.
	replWorkload{seed: 2, ops: 1500, keys: 2000}.run(t, m, m2)
	if n := mustDo(t, m, "WAIT", "1", "5000"); n.Int != 1 {
		t.Fatalf("WAIT 1 5000 = %v", n.Raw)
	}
	waitSameOffset(t, m, r)
	keys, _ := compareDatasets(t, m, r)
	role := mustDo(t, m, "ROLE")
	if len(role.Elems) != 3 || len(role.Elems[2].Elems) != 1 || role.Elems[2].Elems[0].Elems[1].Str != strconv.Itoa(red.port) {
		t.Fatalf("ROLE %q", role.Raw)
	}
	t.Logf("after full resync and stream: %d keys equal", keys)

	// The replica saves its replication ID and offset, misses writes,
	// restarts and asks for a partial resync.
	partialBefore := replInfo(t, m, "stats", "sync_partial_ok")
	r.Do("SHUTDOWN", "SAVE")
	<-red.exited
	replWorkload{seed: 3, ops: 300, keys: 500}.run(t, m, m2)
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("the replica saved no snapshot: %v", err)
	}
	red2, err := launch("redis-server", redisServerPath(), "", red.port, replicaArgs)
	if err != nil {
		t.Fatal(err)
	}
	defer red2.stop()
	r = dialT(t, red2.addr)
	waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	waitSameOffset(t, m, r)
	if got := replInfo(t, m, "stats", "sync_partial_ok"); got == partialBefore {
		t.Fatalf("the restarted replica did not resync partially (sync_partial_ok %s)\n%s", got, red2.logTail())
	}
	keys, _ = compareDatasets(t, m, r)
	t.Logf("after the replica's restart (partial resync): %d keys equal", keys)
}

// TestReplOursReplicaOfRedis: miniwatchd replicates from redis-server
// (REPLICAOF, full resync, the stream applied through the command path),
// refuses writes as a read-only replica, aborts a WATCH on a key the master
// changes, and continues with +CONTINUE after its link is killed.
func TestReplOursReplicaOfRedis(t *testing.T) {
	requireRedis(t)
	red, err := startRedis("--repl-diskless-sync-delay", "0", "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer red.stop()
	m := dialT(t, red.addr)
	m2 := dialT(t, red.addr)
	replWorkload{seed: 4, ops: 500, keys: 2000}.run(t, m, m2)

	ourDir := t.TempDir()
	ours, err := startOurs("--dir", ourDir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ours.stop() }()
	r := dialT(t, ours.addr)
	if n := mustDo(t, r, "REPLICAOF", "127.0.0.1", strconv.Itoa(red.port)); n.Str != "OK" {
		t.Fatalf("REPLICAOF: %q", n.Raw)
	}
	waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	waitSameOffset(t, m, r)
	compareSnapshot(t, m, r)
	if n := mustDo(t, r, "SET", "x", "1"); n.Str != "READONLY You can't write against a read only replica." {
		t.Fatalf("write on the replica: %q", n.Raw)
	}
	// A WATCH on the replica aborts when the master changes the key.
	w := dialT(t, ours.addr)
	mustDo(t, w, "WATCH", "watched")
	mustDo(t, w, "MULTI")
	mustDo(t, w, "GET", "watched")
	mustDo(t, m, "SET", "watched", "by-master")
	waitSameOffset(t, m, r)
	if n := mustDo(t, w, "EXEC"); !n.Null {
		t.Fatalf("EXEC after the master changed the watched key: %q", n.Raw)
	}
	replWorkload{seed: 5, ops: 1500, keys: 2000}.run(t, m, m2)
	waitSameOffset(t, m, r)
	keys, _ := compareDatasets(t, m, r)
	role := mustDo(t, r, "ROLE")
	if len(role.Elems) != 5 || role.Elems[0].Str != "slave" || role.Elems[3].Str != "connected" {
		t.Fatalf("ROLE on the replica: %q", role.Raw)
	}
	t.Logf("after full resync and stream: %d keys equal", keys)

	// The link drops; the replica reconnects with PSYNC and continues.
	// The stream last selected database 5: after the resync its
	// commands go on in database 5 without a SELECT.
	partialBefore := replInfo(t, m, "stats", "sync_partial_ok")
	mustDo(t, m, "SELECT", "5")
	mustDo(t, m, "SET", "x5", "1")
	mustDo(t, m, "CLIENT", "KILL", "TYPE", "replica")
	mustDo(t, m, "SET", "y5", "1")
	mustDo(t, m, "SELECT", "0")
	replWorkload{seed: 6, ops: 300, keys: 500}.run(t, m, m2)
	waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	waitSameOffset(t, m, r)
	if got := replInfo(t, m, "stats", "sync_partial_ok"); got == partialBefore {
		t.Fatalf("the replica did not resync partially (sync_partial_ok %s)", got)
	}
	keys, _ = compareDatasets(t, m, r)
	t.Logf("after the link's restart (partial resync): %d keys equal", keys)

	// Restarted with replicaof, from the snapshot it saved (with the
	// replication ID and offset), it resyncs partially too.
	// Its streams go through that snapshot too.
	partialBefore = replInfo(t, m, "stats", "sync_partial_ok")
	r.Do("SHUTDOWN", "SAVE")
	<-ours.exited
	mustDo(t, m, "SELECT", "2")
	mustDo(t, m, "SET", "x2", "1")
	replWorkload{seed: 7, ops: 200, keys: 300}.run(t, m, m2)
	mustDo(t, m, "SELECT", "0")
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	ours, err = launch("miniwatchd", bin, "", ours.port, []string{"--dir", ourDir, "--replicaof", "127.0.0.1", strconv.Itoa(red.port)})
	if err != nil {
		t.Fatal(err)
	}
	defer ours.stop()
	r = dialT(t, ours.addr)
	waitInfo(t, r, "replication", "master_link_status", "up", 20*time.Second)
	waitSameOffset(t, m, r)
	if got := replInfo(t, m, "stats", "sync_partial_ok"); got == partialBefore {
		t.Fatalf("the restarted replica did not resync partially (sync_partial_ok %s)\n%s", got, ours.logTail())
	}
	keys, _ = compareDatasets(t, m, r)
	t.Logf("after the replica's restart (partial resync): %d keys equal", keys)

	// Promoted, it takes writes again.
	mustDo(t, r, "REPLICAOF", "NO", "ONE")
	if n := mustDo(t, r, "SET", "x", "1"); n.Str != "OK" {
		t.Fatalf("write after REPLICAOF NO ONE: %q", n.Raw)
	}
}

// keysMinus returns the keys of a not in b (at most 20).
func keysMinus(a, b []string) []string {
	in := map[string]bool{}
	for _, k := range b {
		in[k] = true
	}
	var out []string
	for _, k := range a {
		if !in[k] && len(out) < 20 {
			out = append(out, k)
		}
	}
	return out
}
