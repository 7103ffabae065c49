package server

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// replTestServer starts an in-process server with no persistence and the
// snapshot delay off.
func replTestServer(t *testing.T) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	tc.must("CONFIG", "SET", "repl-diskless-sync-delay", "0")
	return s
}

// replWaitOffset waits until a replica applied what its master produced.
func replWaitOffset(t *testing.T, master, replica *aofConn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		m, r := replInfoField(master, "master_repl_offset"), replInfoField(replica, "slave_repl_offset")
		if m != "" && m == r {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("offsets: master %s, replica %s", replInfoField(master, "master_repl_offset"), replInfoField(replica, "slave_repl_offset"))
}

func replInfoField(tc *aofConn, name string) string {
	text, _ := tc.must("INFO", "replication").(string)
	for _, l := range splitLines(text) {
		if len(l) > len(name) && l[:len(name)+1] == name+":" {
			return l[len(name)+1:]
		}
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\r' && s[i+1] == '\n' {
			out = append(out, s[start:i])
			start = i + 2
		}
	}
	return out
}

func replPort(s *Server) string { return strconv.Itoa(s.Addr().(*net.TCPAddr).Port) }

// TestReplChain runs a chain of in-process servers (master, replica,
// replica of the replica), checks every dataset equal after writes in
// several databases, MULTI, a WATCH aborted on the last replica, and a
// dropped link, then promotes the middle one: its replica continues with
// a partial resync and gets its writes.
func TestReplChain(t *testing.T) {
	m, r1, r2 := replTestServer(t), replTestServer(t), replTestServer(t)
	mc, c1, c2 := dialAOF(t, m), dialAOF(t, r1), dialAOF(t, r2)
	for i := 0; i < 200; i++ {
		mc.must("SET", "pre"+strconv.Itoa(i), strconv.Itoa(i))
	}
	c1.must("REPLICAOF", "127.0.0.1", replPort(m))
	c2.must("REPLICAOF", "127.0.0.1", replPort(r1))
	w := dialAOF(t, r2)
	w.must("SELECT", "3")
	w.must("WATCH", "db3key")
	w.must("MULTI")
	w.must("GET", "db3key")
	for round := 0; round < 3; round++ {
		for i := 0; i < 100; i++ {
			k := fmt.Sprintf("k%d:%d", round, i)
			mc.must("SELECT", strconv.Itoa(i%4))
			mc.must("RPUSH", k, "a", "b")
			mc.must("HSET", "h"+k, "f", k)
			if i%10 == 0 {
				mc.must("MULTI")
				mc.must("INCR", "n")
				mc.must("ZADD", "z", strconv.Itoa(i), k)
				mc.must("EXEC")
			}
		}
		mc.must("SELECT", "3")
		mc.must("SET", "db3key", strconv.Itoa(round))
		mc.must("SELECT", "0")
		if round == 1 {
			mc.must("CLIENT", "KILL", "TYPE", "replica") // both links of the master drop
		}
		replWaitOffset(t, mc, c1)
		replWaitOffset(t, c1, c2)
	}
	if got := w.do("EXEC"); got != "<nil>" {
		t.Fatalf("EXEC on the last replica after the master changed the watched key: %v", got)
	}
	want := aofDataset(t, mc)
	for _, c := range []*aofConn{c1, c2} {
		if got := aofDataset(t, c); got != want {
			t.Fatalf("datasets differ:\n%.300s\n%.300s", got, want)
		}
	}
	if replInfoField(mc, "master_repl_offset") != replInfoField(c2, "master_repl_offset") {
		t.Fatalf("the chain's offsets differ: %s vs %s", replInfoField(mc, "master_repl_offset"), replInfoField(c2, "master_repl_offset"))
	}

	// Promotion: r1 becomes a master with the old history as replid2; r2,
	// told so by the new link, continues without a snapshot.
	stat := func(c *aofConn, name string) string {
		st, _ := c.must("INFO", "stats").(string)
		for _, l := range splitLines(st) {
			if v, ok := strings.CutPrefix(l, name+":"); ok {
				return v
			}
		}
		return ""
	}
	full, partial := stat(c1, "sync_full"), stat(c1, "sync_partial_ok")
	c1.must("REPLICAOF", "NO", "ONE")
	c1.must("SET", "after", "promotion")
	replWaitOffset(t, c1, c2)
	if v := c2.must("GET", "after"); v != "promotion" {
		t.Fatalf("GET after on the last replica: %v", v)
	}
	if stat(c1, "sync_full") != full || stat(c1, "sync_partial_ok") == partial {
		t.Fatalf("the replica of the promoted server did not resync partially: sync_full %s -> %s, sync_partial_ok %s -> %s",
			full, stat(c1, "sync_full"), partial, stat(c1, "sync_partial_ok"))
	}
	if r := c1.must("ROLE").([]any); r[0] != "master" || len(r[2].([]any)) != 1 {
		t.Fatalf("ROLE of the promoted server: %v", r)
	}
}
