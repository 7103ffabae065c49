package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// In-process tests of the blocking machinery: timeouts driven by the server
// clock, and the bookkeeping left after service, timeout, CLIENT UNBLOCK
// and disconnect. The replies themselves are compared with redis-server in
// test/ (cmd_listblock.txt, goredis_blocking_test.go).

// testConn is the shared RESP test client, failing the test on errors.
type testConn struct {
	t *testing.T
	*resptest.Conn
}

func startTestServer(t *testing.T) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Port = 0
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dialTest(t *testing.T, s *Server) *testConn {
	t.Helper()
	conn, err := resptest.Dial(s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &testConn{t: t, Conn: conn}
}

func (c *testConn) send(args ...string) {
	c.t.Helper()
	if _, err := c.NC.Write(resptest.Command(args...)); err != nil {
		c.t.Fatal(err)
	}
}

// read returns one reply, raw, waiting at most d; "" on timeout.
func (c *testConn) read(d time.Duration) string {
	c.t.Helper()
	c.NC.SetReadDeadline(time.Now().Add(d))
	if _, err := c.R.Peek(1); err != nil && resptest.IsTimeout(err) {
		return ""
	}
	f, err := resptest.ReadRaw(c.R)
	if err != nil {
		c.t.Fatalf("reading a reply: %v (got %q)", err, f)
	}
	return string(f)
}

func (c *testConn) do(args ...string) string {
	c.t.Helper()
	c.send(args...)
	r := c.read(10 * time.Second)
	if r == "" {
		c.t.Fatalf("%v: no reply", args)
	}
	return r
}

// blockingSnapshot is the bookkeeping that must be empty when nobody waits.
type blockingSnapshot struct {
	blocked, timeouts, waitLists, ready int
}

func (s *Server) blockingSnapshot() blockingSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := blockingSnapshot{blocked: s.blk.blocked, timeouts: s.blk.timeout.Len(), ready: len(s.blk.ready)}
	for _, b := range s.blk.dbs {
		snap.waitLists += len(b.keys) + len(b.ready)
	}
	sum := 0
	for _, n := range s.blk.byKind {
		sum += n
	}
	if sum != s.blk.blocked {
		snap.blocked = -1 // the per-kind counts disagree with the total
	}
	return snap
}

// waitSnapshot polls until the bookkeeping equals want.
func waitSnapshot(t *testing.T, s *Server, want blockingSnapshot) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.blockingSnapshot()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocking state %+v, want %+v", got, want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestBlockTimeoutFollowsServerClock: with the clock frozen, a timeout
// fires only when the clock is moved past the deadline (not at it, as in
// Redis), however long the wall clock waits.
func TestBlockTimeoutFollowsServerClock(t *testing.T) {
	s := startTestServer(t)
	s.Clock().Freeze()
	c := dialTest(t, s)
	admin := dialTest(t, s)
	c.send("BLPOP", "q", "100")
	c.send("PING")
	waitSnapshot(t, s, blockingSnapshot{blocked: 1, timeouts: 1, waitLists: 1})
	s.Clock().Advance(99 * time.Second)
	if r := c.read(150 * time.Millisecond); r != "" {
		t.Fatalf("timed out 1 s early: %q", r)
	}
	s.Clock().Advance(time.Second)
	if r := c.read(150 * time.Millisecond); r != "" {
		t.Fatalf("timed out at the deadline itself: %q", r)
	}
	if got := admin.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") ||
		!strings.Contains(got, "clients_in_timeout_table:1\r\n") {
		t.Fatalf("INFO clients while blocked: %q", got)
	}
	s.Clock().Advance(time.Millisecond)
	if r := c.read(5 * time.Second); r != "*-1\r\n" {
		t.Fatalf("timeout reply %q, want a null array", r)
	}
	if r := c.read(5 * time.Second); r != "+PONG\r\n" {
		t.Fatalf("the pipelined PING after the timeout replied %q", r)
	}
	waitSnapshot(t, s, blockingSnapshot{})
}

// TestBlockingBookkeepingIsCleaned checks that service, timeout, CLIENT
// UNBLOCK and disconnecting each leave no trace in the blocking structures.
func TestBlockingBookkeepingIsCleaned(t *testing.T) {
	s := startTestServer(t)
	admin := dialTest(t, s)
	cases := []struct {
		name string
		end  func(c *testConn, id string)
	}{
		{"served", func(c *testConn, id string) {
			admin.do("RPUSH", "k2", "x")
			if r := c.read(5 * time.Second); r != "*2\r\n$2\r\nk2\r\n$1\r\nx\r\n" {
				t.Errorf("served %q", r)
			}
		}},
		{"unblocked", func(c *testConn, id string) {
			if r := admin.do("CLIENT", "UNBLOCK", id, "ERROR"); r != ":1\r\n" {
				t.Errorf("CLIENT UNBLOCK: %q", r)
			}
			if r := c.read(5 * time.Second); r != "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" {
				t.Errorf("unblocked client got %q", r)
			}
		}},
		{"disconnected", func(c *testConn, id string) { c.NC.Close() }},
		{"killed", func(c *testConn, id string) { admin.do("CLIENT", "KILL", "ID", id) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialTest(t, s)
			other := dialTest(t, s)
			id := strings.TrimRight(strings.TrimPrefix(c.do("CLIENT", "ID"), ":"), "\r\n")
			c.send("BLPOP", "k1", "k2", "k1", "50")
			other.send("BRPOPLPUSH", "k1", "dst", "0")
			waitSnapshot(t, s, blockingSnapshot{blocked: 2, timeouts: 1, waitLists: 2})
			if got := admin.do("CLIENT", "LIST", "ID", id); !strings.Contains(got, " flags=b ") {
				t.Errorf("CLIENT LIST of a blocked client: %q", got)
			}
			tc.end(c, id)
			waitSnapshot(t, s, blockingSnapshot{blocked: 1, waitLists: 1})
			other.NC.Close()
			waitSnapshot(t, s, blockingSnapshot{})
			admin.do("FLUSHALL")
		})
	}
}

// TestServeSkipsOtherKindsInOrder serves a key holding a list while
// clients of both kinds wait on it: only list clients are served, first
// blocked first, and the others keep their place.
func TestServeSkipsOtherKindsInOrder(t *testing.T) {
	s := startTestServer(t)
	admin := dialTest(t, s)
	var conns []*testConn
	for i, cmd := range [][]string{
		{"BZPOPMIN", "k", "0"}, {"BLPOP", "k", "0"}, {"BZPOPMAX", "k", "0"}, {"BRPOP", "k", "0"},
	} {
		c := dialTest(t, s)
		c.send(cmd...)
		waitSnapshot(t, s, blockingSnapshot{blocked: i + 1, waitLists: 1})
		conns = append(conns, c)
	}
	admin.do("RPUSH", "k", "a", "b", "c")
	if r := conns[1].read(5 * time.Second); r != "*2\r\n$1\r\nk\r\n$1\r\na\r\n" {
		t.Errorf("first list client got %q", r)
	}
	if r := conns[3].read(5 * time.Second); r != "*2\r\n$1\r\nk\r\n$1\r\nc\r\n" {
		t.Errorf("second list client got %q", r)
	}
	s.mu.Lock()
	var order []string
	for w := s.blk.dbs[0].keys["k"].head; w != nil; w = w.next {
		order = append(order, w.c.lastCmd)
	}
	s.mu.Unlock()
	if strings.Join(order, " ") != "bzpopmin bzpopmax" {
		t.Errorf("waiting after service: %v", order)
	}
	if r := admin.do("LRANGE", "k", "0", "-1"); r != "*1\r\n$1\r\nb\r\n" {
		t.Errorf("left in k: %q", r)
	}
}

func TestWaitListOrder(t *testing.T) {
	var l waitList
	ws := make([]*waiter, 4)
	for i := range ws {
		ws[i] = &waiter{c: &client{id: int64(i)}}
		l.pushBack(ws[i])
	}
	l.remove(ws[0])
	l.remove(ws[2])
	l.pushBack(ws[0])
	var got []int64
	for w := l.head; w != nil; w = w.next {
		got = append(got, w.c.id)
	}
	if fmt.Sprint(got) != "[1 3 0]" || l.n != 3 || l.tail != ws[0] {
		t.Fatalf("order %v, n %d", got, l.n)
	}
	var back []int64
	for w := l.tail; w != nil; w = w.prev {
		back = append(back, w.c.id)
	}
	if fmt.Sprint(back) != "[0 3 1]" {
		t.Fatalf("backward order %v", back)
	}
	l.remove(ws[1])
	l.remove(ws[3])
	l.remove(ws[0])
	if l.head != nil || l.tail != nil || l.n != 0 {
		t.Fatalf("list not empty: %+v", l)
	}
}

// TestBlockOnManyKeysCountsEachOnce: duplicates in a long key list (the
// map path) and in a short one (the scan path) block once per key.
func TestBlockOnManyKeysCountsEachOnce(t *testing.T) {
	s := startTestServer(t)
	for _, n := range []int{5, 40} {
		c := dialTest(t, s)
		args := []string{"BLPOP"}
		for i := 0; i < n; i++ {
			args = append(args, "k"+strconv.Itoa(i%(n/2+1)))
		}
		c.send(append(args, "0")...)
		waitSnapshot(t, s, blockingSnapshot{blocked: 1, waitLists: n/2 + 1})
		s.mu.Lock()
		waits := len(s.blk.dbs[0].keys["k0"].head.c.blocked.waits)
		s.mu.Unlock()
		if waits != n/2+1 {
			t.Errorf("%d keys: client waits on %d keys, want %d", n, waits, n/2+1)
		}
		c.NC.Close()
		waitSnapshot(t, s, blockingSnapshot{})
	}
}
