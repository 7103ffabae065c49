package server

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// In-process tests of pub/sub, keyspace notifications and client-side
// caching: the parts the differential tests cannot drive (the test clock,
// output buffer limits, internal counters) and the data structures.

// startPSServer starts a server on a free port; tweak may change its
// configuration first.
func startPSServer(t testing.TB, tweak func(*Config)) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// psTestConn is the shared RESP test client, failing the test on errors.
type psTestConn struct {
	t *testing.T
	*resptest.Conn
}

func dialPS(t *testing.T, s *Server) *psTestConn {
	t.Helper()
	c, err := resptest.Dial(s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &psTestConn{t: t, Conn: c}
}

func (p *psTestConn) send(args ...string) {
	if _, err := p.NC.Write(resptest.Command(args...)); err != nil {
		p.t.Fatal(err)
	}
}

// read returns the next frame as raw text.
func (p *psTestConn) read() string {
	p.t.Helper()
	p.NC.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := resptest.ReadRaw(p.R)
	if err != nil {
		p.t.Fatalf("read: %v (so far %q)", err, f)
	}
	return string(f)
}

// do sends a command and returns its reply.
func (p *psTestConn) do(args ...string) string {
	p.t.Helper()
	p.send(args...)
	return p.read()
}

// expectNothing checks that nothing arrives within d.
func (p *psTestConn) expectNothing(d time.Duration) {
	p.t.Helper()
	p.NC.SetReadDeadline(time.Now().Add(d))
	if b, err := p.R.ReadByte(); err == nil {
		p.R.UnreadByte()
		rest, _ := p.R.Peek(p.R.Buffered())
		p.t.Fatalf("unexpected data %q", string(b)+string(rest[1:]))
	}
}

func msg(kind, channel, payload string) string {
	return fmt.Sprintf("*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n",
		len(kind), kind, len(channel), channel, len(payload), payload)
}

func pmsg(pattern, channel, payload string) string {
	return fmt.Sprintf("*4\r\n$8\r\npmessage\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n",
		len(pattern), pattern, len(channel), channel, len(payload), payload)
}

func TestOrderedSet(t *testing.T) {
	var o orderedSet[string]
	for _, k := range []string{"a", "b", "c", "a"} {
		o.add(k)
	}
	if got := strings.Join(o.snapshot(), ","); got != "a,b,c" || o.len() != 3 {
		t.Fatalf("after adds: %q len %d", got, o.len())
	}
	if !o.remove("b") || o.remove("b") || o.has("b") {
		t.Fatal("remove must report presence once")
	}
	o.add("b")
	if got := strings.Join(o.snapshot(), ","); got != "a,c,b" {
		t.Fatalf("re-added element must go last: %q", got)
	}
	// Many removals compact without reordering.
	var big orderedSet[int]
	for i := 0; i < 1000; i++ {
		big.add(i)
	}
	for i := 0; i < 1000; i += 3 {
		big.remove(i)
	}
	prev := -1
	n := 0
	big.each(func(k int) bool {
		if k <= prev || k%3 == 0 {
			t.Fatalf("order or content broken at %d after %d", k, prev)
		}
		prev = k
		n++
		return true
	})
	if n != big.len() || len(big.items) > 2*n {
		t.Fatalf("len %d, walked %d, slots %d", big.len(), n, len(big.items))
	}
	for i := 0; i < 1000; i++ {
		big.remove(i)
	}
	if big.len() != 0 || len(big.items) != 0 {
		t.Fatalf("emptied set keeps %d slots", len(big.items))
	}
}

// TestPublishReachesChannelsThenPatterns checks delivery order, counts and
// that the subscription tables are cleaned up when clients go away.
func TestPublishReachesChannelsThenPatterns(t *testing.T) {
	s := startPSServer(t, nil)
	a, b, p := dialPS(t, s), dialPS(t, s), dialPS(t, s)
	a.do("SUBSCRIBE", "news")
	a.do("PSUBSCRIBE", "n*")
	b.do("PSUBSCRIBE", "*s")
	if got := p.do("PUBLISH", "news", "hi"); got != ":3\r\n" {
		t.Fatalf("PUBLISH = %q, want 3 receivers", got)
	}
	if got := a.read(); got != msg("message", "news", "hi") {
		t.Fatalf("first delivery %q, want the channel message", got)
	}
	if got := a.read(); got != pmsg("n*", "news", "hi") {
		t.Fatalf("second delivery %q", got)
	}
	if got := b.read(); got != pmsg("*s", "news", "hi") {
		t.Fatalf("pattern delivery %q", got)
	}
	a.NC.Close()
	waitFor(t, func() bool { return p.do("PUBSUB", "NUMPAT") == ":1\r\n" })
	if got := p.do("PUBSUB", "NUMSUB", "news"); got != "*2\r\n$4\r\nnews\r\n:0\r\n" {
		t.Fatalf("NUMSUB after disconnect = %q", got)
	}
	s.mu.Lock()
	n := len(s.ps.subs[kindChannel])
	s.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d channels left after the only subscriber left", n)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestExpiredEventWhenClockAdvances: with the server clock frozen, a key
// expires (and its "expired" event is published by the active expiry cycle)
// only when the test moves the clock past its deadline.
func TestExpiredEventWhenClockAdvances(t *testing.T) {
	s := startPSServer(t, nil)
	s.Clock().Freeze()
	sub, w := dialPS(t, s), dialPS(t, s)
	w.do("CONFIG", "SET", "notify-keyspace-events", "Ex")
	sub.do("SUBSCRIBE", "__keyevent@0__:expired")
	w.do("SET", "k", "v", "PX", "1000")
	sub.expectNothing(300 * time.Millisecond)
	s.Clock().Set(s.Clock().Now().Add(2 * time.Second))
	if got := sub.read(); got != msg("message", "__keyevent@0__:expired", "k") {
		t.Fatalf("got %q", got)
	}
	if got := w.do("EXISTS", "k"); got != ":0\r\n" {
		t.Fatalf("EXISTS after expiry = %q", got)
	}
}

// TestNotifyClassFilter checks that each class letter selects its events.
func TestNotifyClassFilter(t *testing.T) {
	s := startPSServer(t, nil)
	sub, w := dialPS(t, s), dialPS(t, s)
	sub.do("PSUBSCRIBE", "__key*__:*")
	for _, tc := range []struct {
		flags string
		cmd   []string
		want  []string // keyevent channels expected, in order
	}{
		{"E$", []string{"SET", "k", "1"}, []string{"set"}},
		{"Eg", []string{"SET", "k", "1"}, nil},
		{"Eg", []string{"DEL", "k"}, []string{"del"}},
		{"En", []string{"SET", "k", "1"}, []string{"new"}},
		{"EA", []string{"SET", "k2", "1"}, []string{"set"}},
		{"EAn", []string{"SET", "k3", "1", "EX", "10"}, []string{"new", "set", "expire"}},
		{"Em", []string{"GET", "nokey"}, []string{"keymiss"}},
		{"EA", []string{"GET", "nokey"}, nil},
		{"K", []string{"SET", "k", "2"}, nil},
		{"$", []string{"SET", "k", "2"}, nil},
	} {
		w.do("CONFIG", "SET", "notify-keyspace-events", tc.flags)
		w.do(tc.cmd...)
		for _, ev := range tc.want {
			got := sub.read()
			if !strings.Contains(got, "__keyevent@0__:"+ev+"\r\n") {
				t.Fatalf("%s %v: got %q, want event %s", tc.flags, tc.cmd, got, ev)
			}
		}
		sub.expectNothing(50 * time.Millisecond)
	}
}

// TestOutputBufferHardLimit: a subscriber that does not read is
// disconnected once its pending output reaches the pubsub hard limit; the
// publisher is never blocked.
func TestOutputBufferHardLimit(t *testing.T) {
	s := startPSServer(t, nil)
	w := dialPS(t, s)
	w.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 64kb 0 0")
	slow := dialPS(t, s)
	slow.do("SUBSCRIBE", "ch")
	payload := strings.Repeat("x", 4096)
	start := time.Now()
	dropped := false
	for i := 0; i < 20000 && !dropped; i++ {
		w.send("PUBLISH", "ch", payload)
		if r := w.read(); r == ":0\r\n" {
			dropped = true
		}
	}
	if !dropped {
		t.Fatal("the stalled subscriber was never disconnected")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("publishing took %v", d)
	}
	s.mu.Lock()
	n := s.ps.obufDisconnections
	s.mu.Unlock()
	if n != 1 {
		t.Fatalf("obuf disconnections = %d", n)
	}
}

// TestOutputBufferSoftLimit: above the soft limit a subscriber is dropped
// only after staying there for more than soft-seconds of server clock.
func TestOutputBufferSoftLimit(t *testing.T) {
	s := startPSServer(t, nil)
	s.Clock().Freeze()
	w := dialPS(t, s)
	w.do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 16kb 10")
	slow := dialPS(t, s)
	slow.do("SUBSCRIBE", "ch")
	payload := strings.Repeat("x", 4096)
	// Fill the socket buffers and go above the soft limit.
	publishUntil := func(stop func(r string) bool, max int) bool {
		for i := 0; i < max; i++ {
			if stop(w.do("PUBLISH", "ch", payload)) {
				return true
			}
		}
		return false
	}
	// Well above: the kernel's socket buffers are full and 1 MB waits.
	above := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.clients {
			if c.ps.subscribed() && c.pending() > 1<<20 {
				return c.ps.softLimitSince != 0
			}
		}
		return false
	}
	if !publishUntil(func(string) bool { return above() }, 50000) {
		t.Fatal("never went above the soft limit")
	}
	// Time does not pass: still connected however much we publish.
	if publishUntil(func(r string) bool { return r == ":0\r\n" }, 200) {
		t.Fatal("dropped before soft-seconds elapsed")
	}
	s.Clock().Set(s.Clock().Now().Add(11 * time.Second))
	if !publishUntil(func(r string) bool { return r == ":0\r\n" }, 10) {
		t.Fatal("not dropped after soft-seconds elapsed")
	}
}

// TestSubscriberSurvivesTimeout: pub/sub clients are exempt from the idle
// timeout, as in Redis.
func TestSubscriberSurvivesTimeout(t *testing.T) {
	s := startPSServer(t, func(c *Config) { c.Timeout = 1 })
	sub, idle := dialPS(t, s), dialPS(t, s)
	sub.do("SUBSCRIBE", "ch")
	idle.do("PING")
	time.Sleep(2500 * time.Millisecond)
	idle.NC.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := idle.R.ReadByte(); err == nil {
		t.Fatal("idle normal client got data instead of being closed")
	}
	if got := sub.do("PING"); got != "*2\r\n$4\r\npong\r\n$0\r\n\r\n" {
		t.Fatalf("subscriber PING = %q", got)
	}
}

// TestTrackingBookkeeping checks the table counters, CLIENT LIST fields and
// cleanup on RESET and disconnect.
func TestTrackingBookkeeping(t *testing.T) {
	s := startPSServer(t, nil)
	a, b, w := dialPS(t, s), dialPS(t, s), dialPS(t, s)
	a.do("HELLO", "3")
	a.do("CLIENT", "TRACKING", "ON")
	a.do("MGET", "k1", "k2", "k3")
	b.do("HELLO", "3")
	b.do("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p", "PREFIX", "q")
	b.do("SUBSCRIBE", "x")
	stats := w.do("INFO", "stats")
	for _, want := range []string{"tracking_total_keys:3\r\n", "tracking_total_items:3\r\n",
		"tracking_total_prefixes:2\r\n", "pubsub_channels:1\r\n", "pubsub_patterns:0\r\n"} {
		if !strings.Contains(stats, want) {
			t.Errorf("INFO stats lacks %q", want)
		}
	}
	if got := w.do("INFO", "clients"); !strings.Contains(got, "tracking_clients:2\r\n") {
		t.Errorf("INFO clients: %q", got)
	}
	// CLIENT INFO (CLIENT LIST renders the same line for every client).
	if got := a.do("CLIENT", "INFO"); !strings.Contains(got, " flags=t db=0 sub=0 psub=0 ssub=0 ") ||
		!strings.Contains(got, " redir=0 ") {
		t.Errorf("CLIENT INFO of a tracking client: %q", got)
	}
	b.do("PSUBSCRIBE", "p1", "p2")
	b.read()
	b.do("SSUBSCRIBE", "s")
	if got := b.do("CLIENT", "INFO"); !strings.Contains(got, " flags=PtB db=0 sub=1 psub=2 ssub=1 ") {
		t.Errorf("CLIENT INFO of a subscribed BCAST client: %q", got)
	}
	b.do("PUNSUBSCRIBE")
	b.read()
	b.do("SUNSUBSCRIBE")
	s.mu.Lock()
	kinds := map[string]int{}
	for _, c := range s.clients {
		kinds[c.kind()]++
	}
	s.mu.Unlock()
	if kinds["pubsub"] != 1 || kinds["normal"] != 2 {
		t.Errorf("client kinds %v, want 1 pubsub and 2 normal", kinds)
	}
	w.do("SET", "k2", "v")
	if got := a.read(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nk2\r\n" {
		t.Fatalf("invalidation %q", got)
	}
	if got := w.do("INFO", "stats"); !strings.Contains(got, "tracking_total_keys:2\r\n") {
		t.Errorf("an invalidated key must leave the table")
	}
	b.do("RESET")
	a.NC.Close()
	waitFor(t, func() bool {
		return strings.Contains(w.do("INFO", "clients"), "tracking_clients:0\r\n")
	})
	stats = w.do("INFO", "stats")
	if !strings.Contains(stats, "tracking_total_prefixes:0\r\n") || !strings.Contains(stats, "pubsub_channels:0\r\n") {
		t.Errorf("RESET must drop prefixes and subscriptions: %q", stats)
	}
	// The keys a gone client read stay until invalidated, then go.
	w.do("DEL", "k1", "k3")
	w.do("SET", "k1", "x")
	w.do("SET", "k3", "x")
	if got := w.do("INFO", "stats"); !strings.Contains(got, "tracking_total_keys:0\r\n") ||
		!strings.Contains(got, "tracking_total_items:0\r\n") {
		t.Errorf("stale entries not dropped: %q", got)
	}
}

func TestMergeClientFlags(t *testing.T) {
	for _, tc := range []struct{ base, extra, want string }{
		{"N", "", "N"},
		{"N", "P", "P"},
		{"x", "t", "xt"},
		{"xd", "PtRB", "PxtRBd"},
		{"e", "P", "Pe"},
		{"bT", "t", "btT"},
	} {
		if got := mergeClientFlags(tc.base, tc.extra); got != tc.want {
			t.Errorf("merge(%q, %q) = %q, want %q", tc.base, tc.extra, got, tc.want)
		}
	}
}

// TestTrackingTableMaxKeys: over tracking-table-max-keys, keys are
// invalidated before the next command until the table fits.
func TestTrackingTableMaxKeys(t *testing.T) {
	s := startPSServer(t, nil)
	a, w := dialPS(t, s), dialPS(t, s)
	w.do("CONFIG", "SET", "tracking-table-max-keys", "10")
	a.do("HELLO", "3")
	a.do("CLIENT", "TRACKING", "ON")
	args := []string{"MGET"}
	for i := 0; i < 30; i++ {
		args = append(args, "key"+strconv.Itoa(i))
	}
	a.do(args...)
	w.do("PING")
	s.mu.Lock()
	n := len(s.ps.tracking.table)
	s.mu.Unlock()
	if n != 10 {
		t.Fatalf("table holds %d keys, want 10", n)
	}
	for i := 0; i < 20; i++ {
		if got := a.read(); !strings.HasPrefix(got, ">2\r\n$10\r\ninvalidate\r\n*1\r\n") {
			t.Fatalf("invalidation %d: %q", i, got)
		}
	}
}

// TestPushToExecutingClientKeepsOrder: messages a client publishes to itself
// inside a pipeline land between its replies, in command order.
func TestPushToExecutingClientKeepsOrder(t *testing.T) {
	s := startPSServer(t, nil)
	a := dialPS(t, s)
	a.do("HELLO", "3")
	a.do("SUBSCRIBE", "me")
	a.NC.Write([]byte("*3\r\n$7\r\nPUBLISH\r\n$2\r\nme\r\n$1\r\n1\r\n*1\r\n$4\r\nPING\r\n*3\r\n$7\r\nPUBLISH\r\n$2\r\nme\r\n$1\r\n2\r\n"))
	want := []string{
		">3\r\n$7\r\nmessage\r\n$2\r\nme\r\n$1\r\n1\r\n", ":1\r\n", "+PONG\r\n",
		">3\r\n$7\r\nmessage\r\n$2\r\nme\r\n$1\r\n2\r\n", ":1\r\n",
	}
	for i, w := range want {
		if got := a.read(); got != w {
			t.Fatalf("frame %d = %q, want %q", i, got, w)
		}
	}
}
