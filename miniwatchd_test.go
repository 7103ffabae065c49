package miniwatchd_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
)

func client(t *testing.T, s *miniwatchd.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestRunServesClients(t *testing.T) {
	s := miniwatchd.Run(t)
	if s.Host() != "127.0.0.1" || s.Port() == 0 || s.Addr() != fmt.Sprintf("127.0.0.1:%d", s.Port()) {
		t.Fatalf("address %q host %q port %d", s.Addr(), s.Host(), s.Port())
	}
	ctx := context.Background()
	rdb := client(t, s)
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s.CheckGet(t, "k", "v")
	if err := s.Set("k2", "w"); err != nil {
		t.Fatal(err)
	}
	if got := rdb.Get(ctx, "k2").Val(); got != "w" {
		t.Fatalf("GET k2 from the client = %q", got)
	}
	if _, err := s.Get("nope"); !errors.Is(err, miniwatchd.ErrKeyNotFound) {
		t.Fatalf("Get of a missing key: %v", err)
	}
}

// TestTypedWritesBreakWatch: a typed Set goes through the dispatch and the
// choke point, so it aborts the EXEC of a client watching the key.
func TestTypedWritesBreakWatch(t *testing.T) {
	s := miniwatchd.Run(t)
	ctx := context.Background()
	rdb := client(t, s)
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		if err := s.Set("w", "from the test"); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "w", "from the client", 0)
			return nil
		})
		return err
	}, "w")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("EXEC after a typed Set of the watched key: %v, want redis.TxFailedErr", err)
	}
	s.CheckGet(t, "w", "from the test")
}

func TestTypedAccess(t *testing.T) {
	s := miniwatchd.Run(t)
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.HSet("h", "f1", "a", "f2", "b"))
	must(s.LPush("l", "b", "a"))
	must(s.RPush("l", "c"))
	must(s.SAdd("s", "y", "x"))
	must(s.ZAdd("z", 2, "two"))
	must(s.ZAdd("z", 1, "one"))
	must(s.XAdd("x", "1-1", "f", "v"))
	if v, _ := s.HGet("h", "f2"); v != "b" {
		t.Errorf("HGet = %q", v)
	}
	if m, _ := s.HGetAll("h"); len(m) != 2 || m["f1"] != "a" {
		t.Errorf("HGetAll = %v", m)
	}
	s.CheckList(t, "l", "a", "b", "c")
	s.CheckSet(t, "s", "x", "y")
	if z, _ := s.ZMembers("z"); !slices.Equal(z, []string{"one", "two"}) {
		t.Errorf("ZMembers = %q", z)
	}
	if f, _ := s.ZScore("z", "two"); f != 2 {
		t.Errorf("ZScore = %v", f)
	}
	if e, _ := s.XRange("x", "-", "+"); len(e) != 1 || e[0].ID != "1-1" || !slices.Equal(e[0].Fields, []string{"f", "v"}) {
		t.Errorf("XRange = %v", e)
	}
	if s.Type("h") != "hash" || s.Type("none") != "none" || !s.Exists("z") {
		t.Errorf("Type/Exists")
	}
	if _, err := s.Get("h"); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Errorf("Get of a hash: %v", err)
	}
	s.CheckKeys(t, "h", "l", "s", "x", "z")
	if n := s.Del("h", "l", "missing"); n != 2 {
		t.Errorf("Del = %d", n)
	}
	if err := s.Select(3); err != nil {
		t.Fatal(err)
	}
	s.Set("in3", "v")
	s.CheckKeys(t, "in3")
	s.FlushAll()
	s.CheckKeys(t)
	if err := s.Select(99); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Errorf("Select(99): %v", err)
	}
}

// recorder is a testing.TB that records what the Check helpers report.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestCheckMessages(t *testing.T) {
	s := miniwatchd.Run(t)
	s.Set("k", "v")
	s.RPush("l", "a", "b")
	s.SAdd("s", "a")
	s.Engine().Clock().Freeze()
	s.Set("t", "v")
	s.SetTTL("t", 10*time.Second)
	r := &recorder{TB: t}
	ok := []bool{
		s.CheckGet(r, "k", "w"),
		s.CheckGet(r, "missing", "w"),
		s.CheckList(r, "l", "b", "a"),
		s.CheckSet(r, "s", "a", "b"),
		s.CheckTTL(r, "k", 5*time.Second),
		s.CheckTTL(r, "t", 9*time.Second),
		s.CheckKeys(r, "k"),
		s.CheckGet(r, "k", "v"),
	}
	want := []string{
		`GET "k" = "v", want "w"`,
		`GET "missing": miniwatchd: key not found, want "w"`,
		`list "l" = ["a" "b"], want ["b" "a"]`,
		`set "s" = ["a"], want ["a" "b"]`,
		`TTL "k" = 0s, want 5s`,
		`TTL "t" = 10s, want 9s`,
		`keys = ["k" "l" "s" "t"], want ["k"]`,
	}
	if !slices.Equal(r.msgs, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(r.msgs, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(ok, []bool{false, false, false, false, false, false, false, true}) {
		t.Errorf("results %v", ok)
	}
	s.CheckTTL(t, "t", 10*time.Second)
}

// TestFastForwardExpires: FastForward moves the DEBUG CLOCK clock and
// expires through the expiry path, so subscribers get "expired".
func TestFastForwardExpires(t *testing.T) {
	s := miniwatchd.Run(t, miniwatchd.Config("notify-keyspace-events", "Ex"))
	ctx := context.Background()
	rdb := client(t, s)
	sub := rdb.Subscribe(ctx, "__keyevent@0__:expired")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	rdb.Set(ctx, "session", "x", time.Hour)
	s.FastForward(59 * time.Minute)
	s.CheckTTL(t, "session", time.Minute)
	s.FastForward(time.Minute + time.Millisecond) // expired once past its deadline
	select {
	case m := <-sub.Channel():
		if m.Payload != "session" {
			t.Fatalf("expired event for %q", m.Payload)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no expired event")
	}
	s.CheckKeys(t)
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s.SetTime(at)
	tm, err := rdb.Time(ctx).Result()
	if err != nil || tm.Sub(at) < 0 || tm.Sub(at) > time.Minute {
		t.Fatalf("TIME after SetTime: %v %v", tm, err)
	}
	if v, _ := s.Do("DEBUG", "CLOCK"); v.([]any)[0].(int64) < at.UnixMilli() {
		t.Fatalf("DEBUG CLOCK after SetTime: %v", v)
	}
}

func TestRestartKeepsData(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []miniwatchd.Option
	}{{"rdb", nil}, {"aof", []miniwatchd.Option{miniwatchd.AppendOnly()}}} {
		t.Run(tc.name, func(t *testing.T) {
			s := miniwatchd.Run(t, tc.opts...)
			port := s.Port()
			rdb := client(t, s)
			ctx := context.Background()
			rdb.Set(ctx, "a", "1", 0)
			rdb.RPush(ctx, "l", "x", "y")
			rdb.Set(ctx, "ttl", "v", time.Hour)
			s.Engine().Clock().Freeze()
			s.FastForward(30 * time.Minute)
			s.Restart()
			if s.Port() != port {
				t.Fatalf("port %d after Restart, was %d", s.Port(), port)
			}
			if !s.Engine().Clock().Frozen() {
				t.Fatal("clock not frozen after Restart")
			}
			s.CheckGet(t, "a", "1")
			s.CheckList(t, "l", "x", "y")
			s.CheckTTL(t, "ttl", 30*time.Minute)
			if got := rdb.Get(ctx, "a").Val(); got != "1" { // the client reconnects
				t.Fatalf("GET after Restart = %q", got)
			}
			if tc.name == "aof" {
				v, _ := s.Do("CONFIG", "GET", "appendonly")
				if v.([]any)[1] != "yes" {
					t.Fatalf("appendonly %v", v)
				}
			}
		})
	}
}

func TestDialAndAuth(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  miniwatchd.Option
		who  string
	}{
		{"password", miniwatchd.Password("secret"), "default"},
		{"user", miniwatchd.User("app", "pw"), "app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := miniwatchd.Run(t, tc.opt)
			conn := s.Dial()
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprint(conn, "ACL WHOAMI\r\n")
			r := bufio.NewReader(conn)
			line, _ := r.ReadString('\n')
			if line != "+"+tc.who+"\r\n" && line != fmt.Sprintf("$%d\r\n", len(tc.who)) {
				t.Fatalf("ACL WHOAMI over Dial: %q", line)
			}
			if tc.name != "password" {
				return
			}
			// Over TCP without AUTH: refused.
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			fmt.Fprint(nc, "GET k\r\n")
			line, _ = bufio.NewReader(nc).ReadString('\n')
			if !strings.HasPrefix(line, "-NOAUTH") {
				t.Fatalf("unauthenticated GET: %q", line)
			}
			if err := s.Set("k", "typed access needs no AUTH"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDump(t *testing.T) {
	s := miniwatchd.Run(t)
	s.Engine().Clock().Freeze()
	s.Set("greeting", "hello")
	s.RPush("queue", "a", "b")
	s.SetTTL("queue", 10*time.Second)
	s.HSet("h", "f", "v")
	s.Select(1)
	s.ZAdd("z", 1.5, "m")
	s.Select(0)
	got := s.Dump()
	want := "db0 \"greeting\" string \"hello\"\n" +
		"db0 \"h\" hash {\"f\":\"v\"}\n" +
		"db0 \"queue\" list [\"a\" \"b\"] ttl=10s\n" +
		"db1 \"z\" zset [\"m\":1.5]\n"
	if got != want {
		t.Fatalf("Dump:\n%s\nwant:\n%s", got, want)
	}
	s.CheckKeys(t, "greeting", "h", "queue") // Dump left Select alone
}

func TestLoadFixture(t *testing.T) {
	s := miniwatchd.Run(t)
	path := t.TempDir() + "/data.txt"
	if err := os.WriteFile(path, []byte("SET greeting \"hello world\"\n2 RPUSH jobs a\nHSET h f v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := s.LoadFixture(path); n != 4 || err != nil {
		t.Fatalf("LoadFixture: %d %v", n, err)
	}
	s.CheckGet(t, "greeting", "hello world")
	s.CheckList(t, "jobs", "a", "a")
	os.WriteFile(path, []byte("SET a 1\nLPUSH a x\n"), 0o644)
	if _, err := s.LoadFixture(path); err == nil || !strings.Contains(err.Error(), "line 2: WRONGTYPE") {
		t.Fatalf("failing fixture: %v", err)
	}
	// At start, as --load does: the load parameter.
	os.WriteFile(path, []byte("SELECT 1\nSET started yes\n"), 0o644)
	s2 := miniwatchd.Run(t, miniwatchd.Config("load", path), miniwatchd.Databases(2))
	s2.Select(1)
	s2.CheckGet(t, "started", "yes")
	if err := s2.Select(2); err == nil {
		t.Fatal("SELECT 2 with Databases(2)")
	}
}
