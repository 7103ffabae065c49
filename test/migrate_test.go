package test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MIGRATE differentially: redis-server 7.0.15 and miniwatchd as sources,
// side by side, each migrating into its own database of the same target,
// which is a redis-server and then a miniwatchd. Replies must be equal
// (OK, NOKEY, the target's errors, IOERR, option errors), the source keys
// gone unless COPY, and the target databases equal key by key.

func TestMigrateDiff(t *testing.T) {
	requireRedis(t)
	for _, targetOurs := range []bool{false, true} {
		name := "to-redis-server"
		if targetOurs {
			name = "to-miniwatchd"
		}
		t.Run(name, func(t *testing.T) {
			target := startRDBServer(t, targetOurs, t.TempDir())
			srcRedis := startRDBServer(t, false, t.TempDir())
			srcOurs := startRDBServer(t, true, t.TempDir())
			_, port, _ := net.SplitHostPort(target.p.addr)
			closed := freeClosedPort(t)
			// {db} is the source's own destination database.
			script := [][]string{
				{"SET", "a", "1"}, {"RPUSH", "l", "x", "y", "1"}, {"HSET", "h", "f", "v"}, {"SADD", "s", "1", "2", "a"},
				{"ZADD", "z", "1.5", "m"}, {"XADD", "st", "1-1", "f", "v"}, {"XGROUP", "CREATE", "st", "g", "0"},
				{"SET", "ttlk", "v", "PX", "100000000"},
				{"MIGRATE", "127.0.0.1", port, "a", "{db}", "5000"},
				{"EXISTS", "a"},
				{"MIGRATE", "127.0.0.1", port, "nosuch", "{db}", "5000"},
				{"MIGRATE", "127.0.0.1", port, "", "{db}", "5000", "KEYS", "l", "nosuch", "h", "s", "z", "st", "ttlk"},
				{"EXISTS", "l", "h", "s", "z", "st", "ttlk"},
				{"SET", "a", "2"},
				{"MIGRATE", "127.0.0.1", port, "a", "{db}", "5000"},
				{"GET", "a"},
				{"MIGRATE", "127.0.0.1", port, "a", "{db}", "5000", "REPLACE"},
				{"SET", "c", "3"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "COPY"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "COPY"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "COPY", "REPLACE"},
				{"EXISTS", "c"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "KEYS", "c"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "x"},
				{"MIGRATE", "127.0.0.1", port, "c", "x", "5000"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "BOGUS"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "AUTH"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "AUTH2", "u"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "REPLACE", "AUTH", "pw"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "REPLACE", "AUTH2", "default", "pw"},
				{"MIGRATE", "127.0.0.1", port, "c", "99", "5000", "REPLACE"},
				{"MIGRATE", "127.0.0.1", port, "c", "{db}", "5000", "REPLACE"},
				{"MIGRATE", "127.0.0.1", closed, "c", "{db}", "300"},
				{"MIGRATE", "127.0.0.1", closed, "nosuch", "{db}", "300"},
			}
			for _, cmd := range script {
				w := srcRedis.do(t, subst(cmd, "1")...)
				g := srcOurs.do(t, subst(cmd, "2")...)
				if string(w.Raw) != string(g.Raw) {
					t.Errorf("%q:\n redis %q\n ours  %q", cmd, w.Raw, g.Raw)
				}
			}
			want, got := targetDB(t, target, "1"), targetDB(t, target, "2")
			if len(want) != 8 {
				t.Errorf("target db 1 has %d keys: %q", len(want), want)
			}
			compareDumps(t, want, got)
		})
	}
}

func subst(cmd []string, db string) []string {
	out := make([]string, len(cmd))
	for i, a := range cmd {
		out[i] = strings.ReplaceAll(a, "{db}", db)
	}
	return out
}

// targetDB renders database db of s key by key (streams without their
// group, whose times come from the source).
func targetDB(t *testing.T, s *rdbServer, db string) []string {
	t.Helper()
	s.do(t, "SELECT", db)
	defer s.do(t, "SELECT", "0")
	var out []string
	for _, k := range []string{"a", "c", "l", "h", "s", "z", "st", "ttlk"} {
		// A stream's entries and groups; XINFO STREAM FULL would show the
		// consumers' times, which come from the source.
		line, ok := rdbKeyLine(t, s, k, "XRANGE", k, "-", "+")
		if ok && s.do(t, "TYPE", k).Str == "stream" {
			line += " " + fmtNode(s.do(t, "XINFO", "GROUPS", k))
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// freeClosedPort returns a port nothing listens on.
func freeClosedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	return port
}

// TestMigrateTimeoutAndCache: a target that accepts and never answers gets
// Redis's IOERR after the timeout, on both servers, and miniwatchd answers
// other clients again right after; the cached connection to a real target
// is reused (one connection on the target for two MIGRATEs) and closed
// after 10 idle seconds, as redis-server's.
func TestMigrateTimeoutAndCache(t *testing.T) {
	requireRedis(t)
	srcRedis := startRDBServer(t, false, t.TempDir())
	srcOurs := startRDBServer(t, true, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // read and never reply
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	_, mute, _ := net.SplitHostPort(ln.Addr().String())
	var replies []string
	for _, s := range []*rdbServer{srcRedis, srcOurs} {
		s.do(t, "SET", "k", "v")
		start := time.Now()
		n := s.do(t, "MIGRATE", "127.0.0.1", mute, "k", "0", "400")
		took := time.Since(start)
		if took < 350*time.Millisecond || took > 3*time.Second {
			t.Errorf("%s: MIGRATE to a mute target took %v with timeout 400 ms", s.p.name, took)
		}
		replies = append(replies, string(n.Raw))
		if s.do(t, "EXISTS", "k").Int != 1 {
			t.Errorf("%s: the key is gone after a failed MIGRATE", s.p.name)
		}
	}
	if replies[0] != replies[1] || !strings.HasPrefix(replies[0], "-IOERR") {
		t.Errorf("mute target: redis %q, ours %q", replies[0], replies[1])
	}

	target := startRDBServer(t, false, t.TempDir())
	_, port, _ := net.SplitHostPort(target.p.addr)
	conns := func() int { return strings.Count(target.do(t, "CLIENT", "LIST").Str, "\n") }
	base := conns()
	for i, s := range []*rdbServer{srcRedis, srcOurs} {
		db := strconv.Itoa(i + 1)
		for j := 0; j < 2; j++ {
			s.do(t, "SET", "m", "v")
			if n := s.do(t, "MIGRATE", "127.0.0.1", port, "m", db, "5000", "REPLACE"); n.Str != "OK" {
				t.Fatalf("%s: %s", s.p.name, fmtNode(n))
			}
		}
	}
	if got := conns() - base; got != 2 {
		t.Errorf("target has %d MIGRATE connections for two sources, want 2 (cached)", got)
	}
	deadline := time.Now().Add(15 * time.Second)
	for conns()-base > 0 && time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
	}
	if got := conns() - base; got != 0 {
		t.Errorf("%d MIGRATE connections left after 15 s idle", got)
	}
}
