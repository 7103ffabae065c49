package test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// diffPair runs the same commands against redis-server and miniwatchd, in
// lockstep, and compares every reply. Use it from Go tests:
//
//	p := newDiffPair(t)
//	p.Conn("A").Do("SET", "k", "v")          // byte-equal replies
//	p.Conn("A").DoMode(cmpSorted, "KEYS", "*")
//
// Named connections are opened on first use on both servers; in RESP3 mode
// each sends HELLO 3 first. A mismatch fails the test at once, printing
// the command and both replies.
type diffPair struct {
	t     testing.TB
	redis *leasedServer
	ours  *leasedServer
	proto int
	conns map[string]*diffConn
	// where prefixes failure messages (the scenario runner puts the file
	// and line there).
	where string
}

// diffConn is one named connection, open on both servers.
type diffConn struct {
	p     *diffPair
	name  string
	redis *respConn
	ours  *respConn
}

// newDiffPair leases one server of each kind; connections speak RESP2.
func newDiffPair(t testing.TB) *diffPair { return newDiffPairProto(t, 2) }

// newDiffPairProto is newDiffPair with connections that speak proto (2 or 3).
func newDiffPairProto(t testing.TB, proto int) *diffPair {
	t.Helper()
	requireRedis(t)
	other := ours
	if selfCheck() {
		other = redis
	}
	return &diffPair{
		t: t, redis: leaseServer(t, redis), ours: leaseServer(t, other),
		proto: proto, conns: map[string]*diffConn{},
	}
}

// selfCheck reports whether the environment asks to check the differential
// tests themselves: with DIFF_SELF_CHECK=1 the "miniwatchd" side of every
// pair is a second redis-server, so a scenario that is not deterministic
// (or compares what it should not) fails, and scenarios whose commands
// miniwatchd lacks run too.
func selfCheck() bool { return os.Getenv("DIFF_SELF_CHECK") == "1" }

// taint stops both servers after the test instead of reusing them.
func (p *diffPair) taint() {
	p.redis.taint()
	p.ours.taint()
}

// Conn returns the connection called name, opening it if needed.
func (p *diffPair) Conn(name string) *diffConn {
	p.t.Helper()
	if c := p.conns[name]; c != nil {
		return c
	}
	c := &diffConn{p: p, name: name, redis: p.redis.dial(p.t), ours: p.ours.dial(p.t)}
	p.conns[name] = c
	if p.proto == 3 {
		c.DoMode(cmpIgnore, "HELLO", "3")
	}
	return c
}

// Do sends a command to both servers and requires byte-equal replies.
func (c *diffConn) Do(args ...string) (want, got node) {
	c.p.t.Helper()
	return c.DoMode(cmpExact, args...)
}

// DoMode sends a command to both servers and compares the replies by mode.
func (c *diffConn) DoMode(mode cmpMode, args ...string) (want, got node) {
	c.p.t.Helper()
	c.Send(args...)
	return c.read(mode, formatCommand(args), replyTimeout)
}

// DoRaw sends raw bytes to both servers and compares one reply by mode.
func (c *diffConn) DoRaw(mode cmpMode, b []byte) (want, got node) {
	c.p.t.Helper()
	c.SendRaw(b)
	return c.read(mode, "raw "+strconv.Quote(string(b)), replyTimeout)
}

// Send sends a command to both servers without reading the replies (for
// blocking commands); Read collects them later.
func (c *diffConn) Send(args ...string) {
	c.p.t.Helper()
	c.SendRaw(resptest.Command(args...))
}

// SendRaw sends raw bytes to both servers without reading.
func (c *diffConn) SendRaw(b []byte) {
	c.p.t.Helper()
	if err := c.redis.SendRaw(b); err != nil {
		c.p.t.Fatalf("%ssend to redis-server on %s: %v", c.p.prefix(), c.name, err)
	}
	if err := c.ours.SendRaw(b); err != nil {
		c.p.t.Fatalf("%ssend to miniwatchd on %s: %v", c.p.prefix(), c.name, err)
	}
}

// Read reads one pending reply from each server and compares them.
func (c *diffConn) Read(mode cmpMode) (want, got node) {
	c.p.t.Helper()
	return c.read(mode, "(pending reply)", replyTimeout)
}

// ExpectNoReply requires that neither server sends anything on this
// connection within d (a client still blocked).
func (c *diffConn) ExpectNoReply(d time.Duration) {
	c.p.t.Helper()
	c.expectState(connOpen, d)
}

// ExpectClosed requires that both servers close this connection within d,
// sending nothing more.
func (c *diffConn) ExpectClosed(d time.Duration) {
	c.p.t.Helper()
	c.expectState(connClosed, d)
}

func (c *diffConn) expectState(want connState, d time.Duration) {
	c.p.t.Helper()
	type res struct {
		state connState
		data  []byte
	}
	ch := make(chan res, 1)
	go func() {
		s, b := c.redis.Watch(d)
		ch <- res{s, b}
	}()
	ostate, ob := c.ours.Watch(d)
	r := <-ch
	if r.state != want || ostate != want {
		c.p.t.Fatalf("%s%s: expected the connection %s after %v\n  redis-server: %s %q\n  miniwatchd:   %s %q",
			c.p.prefix(), c.name, want, d, r.state, r.data, ostate, ob)
	}
}

func (c *diffConn) read(mode cmpMode, what string, timeout time.Duration) (want, got node) {
	c.p.t.Helper()
	type res struct {
		n   node
		err error
	}
	ch := make(chan res, 1)
	go func() {
		n, err := c.redis.Read(timeout)
		ch <- res{n, err}
	}()
	got, gerr := c.ours.Read(timeout)
	r := <-ch
	want = r.n
	if r.err != nil || gerr != nil {
		c.p.t.Fatalf("%s%s> %s\n  redis-server: %v\n  miniwatchd:   %v\n  (replies: %s / %s)",
			c.p.prefix(), c.name, what, errText(r.err), errText(gerr), quoteRaw(want.Raw, 200), quoteRaw(got.Raw, 200))
	}
	if ok, why := compareReplies(mode, want, got); !ok {
		c.p.t.Fatalf("%s%s> %s   [compare: %s, RESP%d]\n%s\n--- redis-server:\n%s\n    raw %s\n--- miniwatchd:\n%s\n    raw %s",
			c.p.prefix(), c.name, what, mode, c.p.proto, why,
			indentLines(render(want), "    "), quoteRaw(want.Raw, 2000),
			indentLines(render(got), "    "), quoteRaw(got.Raw, 2000))
	}
	return want, got
}

func (p *diffPair) prefix() string {
	if p.where == "" {
		return ""
	}
	return p.where + "\n  "
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// formatCommand shows a command as it would be typed, quoting arguments
// that need it.
func formatCommand(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if q := strconv.Quote(a); a == "" || q[1:len(q)-1] != a || strings.ContainsAny(a, " '") {
			parts[i] = q
		} else {
			parts[i] = a
		}
	}
	return strings.Join(parts, " ")
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// fmtNode is render with the raw bytes, for messages.
func fmtNode(n node) string {
	return fmt.Sprintf("%s   (raw %s)", render(n), quoteRaw(n.Raw, 300))
}
