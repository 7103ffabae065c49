package test

// A small differential-test helper for the hash, set and sorted set
// families: it starts a real redis-server (7.0.15) and an in-process
// miniwatchd per test, sends the same commands to both over TCP and
// compares the raw reply frames (exactly, sorted, or by shape). It is
// self-contained so it can live beside the shared harness; its names all
// start with "tp".

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/server"
)

// tpMode says how two replies are compared.
type tpMode int

const (
	tpExact       tpMode = iota // byte-equal frames
	tpSorted                    // aggregate elements compared as a multiset
	tpSortedPairs               // flat aggregate of pairs compared as a multiset of pairs
	tpShape                     // same types and lengths, recursively
	tpIgnore                    // read both, compare nothing
	tpScan                      // a one-call SCAN reply: cursor exact, elements sorted
	tpScanPairs                 // the same, elements sorted as (key, value) pairs
)

func (m tpMode) String() string {
	return [...]string{"exact", "sorted", "sortedpairs", "shape", "ignore", "scan", "scanpairs"}[m]
}

// tpNode is one parsed reply frame.
type tpNode struct {
	Kind  byte     // the RESP type byte
	Raw   []byte   // the whole frame
	Str   string   // the payload of simple, bulk, error, number frames
	Null  bool     // $-1, *-1 or _
	Elems []tpNode // aggregate elements (map: key, value, key, value...)
}

func (n tpNode) aggregate() bool { return strings.IndexByte("*%~>", n.Kind) >= 0 && !n.Null }

func (n tpNode) String() string { return strconv.Quote(string(n.Raw)) }

// tpRead reads one complete frame.
func tpRead(r *bufio.Reader) (tpNode, error) {
	var raw bytes.Buffer
	n, err := tpReadInto(r, &raw)
	n.Raw = raw.Bytes()
	return n, err
}

func tpReadInto(r *bufio.Reader, raw *bytes.Buffer) (tpNode, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return tpNode{}, err
	}
	raw.Write(line)
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return tpNode{}, fmt.Errorf("bad frame line %q", line)
	}
	n := tpNode{Kind: line[0], Str: string(line[1 : len(line)-2])}
	switch n.Kind {
	case '+', '-', ':', ',', '#', '(':
	case '_':
		n.Null = true
	case '$', '=', '!':
		size, err := strconv.Atoi(n.Str)
		if err != nil {
			return n, err
		}
		if size < 0 {
			n.Null = true
			break
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return n, err
		}
		raw.Write(buf)
		n.Str = string(buf[:size])
	case '*', '%', '~', '>', '|':
		count, err := strconv.Atoi(n.Str)
		if err != nil {
			return n, err
		}
		if count < 0 {
			n.Null = true
			break
		}
		if n.Kind == '%' || n.Kind == '|' {
			count *= 2
		}
		for range count {
			from := raw.Len()
			e, err := tpReadInto(r, raw)
			if err != nil {
				return n, err
			}
			e.Raw = slices.Clone(raw.Bytes()[from:])
			n.Elems = append(n.Elems, e)
		}
	default:
		return n, fmt.Errorf("unknown frame type %q", n.Kind)
	}
	return n, nil
}

// tpCompare reports whether got agrees with want under mode, and why not.
func tpCompare(mode tpMode, want, got tpNode) (bool, string) {
	switch mode {
	case tpIgnore:
		return true, ""
	case tpExact:
		if bytes.Equal(want.Raw, got.Raw) {
			return true, ""
		}
		return false, "replies differ"
	case tpShape:
		if d := tpShapeDiff(want, got, "reply"); d != "" {
			return false, d
		}
		return true, ""
	case tpScan, tpScanPairs:
		if len(want.Elems) != 2 || len(got.Elems) != 2 {
			return tpCompare(tpExact, want, got)
		}
		if ok, why := tpCompare(tpExact, want.Elems[0], got.Elems[0]); !ok {
			return false, "cursor: " + why
		}
		if mode == tpScanPairs {
			return tpCompare(tpSortedPairs, want.Elems[1], got.Elems[1])
		}
		return tpCompare(tpSorted, want.Elems[1], got.Elems[1])
	}
	if !want.aggregate() || !got.aggregate() {
		if bytes.Equal(want.Raw, got.Raw) {
			return true, ""
		}
		return false, "replies differ (not aggregates)"
	}
	if want.Kind != got.Kind || len(want.Elems) != len(got.Elems) {
		return false, "aggregate type or length differs"
	}
	width := 1
	if (mode == tpSortedPairs && len(want.Elems) > 0 && !want.Elems[0].aggregate()) || want.Kind == '%' {
		width = 2 // RESP3 nests pairs in arrays of their own: those sort as they are
	}
	if !slices.Equal(tpGroups(want, width), tpGroups(got, width)) {
		return false, "elements differ (compared sorted)"
	}
	return true, ""
}

func tpGroups(n tpNode, width int) []string {
	var out []string
	for i := 0; i+width <= len(n.Elems); i += width {
		var b []byte
		for _, e := range n.Elems[i : i+width] {
			b = append(b, e.Raw...)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

func tpShapeDiff(want, got tpNode, path string) string {
	if want.Kind != got.Kind {
		return fmt.Sprintf("%s: type %q vs %q", path, want.Kind, got.Kind)
	}
	if want.Null != got.Null {
		return path + ": null vs not null"
	}
	if want.Kind == '-' && want.Str != got.Str {
		return path + ": errors differ"
	}
	if len(want.Elems) != len(got.Elems) {
		return fmt.Sprintf("%s: %d vs %d elements", path, len(want.Elems), len(got.Elems))
	}
	for i := range want.Elems {
		if d := tpShapeDiff(want.Elems[i], got.Elems[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// tpEncode encodes a command as a multibulk request.
func tpEncode(args []string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// tpConn is one raw RESP connection.
type tpConn struct {
	nc net.Conn
	r  *bufio.Reader
}

func tpDial(t testing.TB, addr string) *tpConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &tpConn{nc: nc, r: bufio.NewReaderSize(nc, 1<<16)}
}

func (c *tpConn) do(args ...string) (tpNode, error) {
	c.nc.SetDeadline(time.Now().Add(20 * time.Second))
	defer c.nc.SetDeadline(time.Time{})
	if _, err := c.nc.Write(tpEncode(args)); err != nil {
		return tpNode{}, err
	}
	return tpRead(c.r)
}

// tpRedisPath finds redis-server, or "".
func tpRedisPath() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// tpStartRedis starts a redis-server on a free port for the test and
// returns its address; it is shut down when the test ends.
func tpStartRedis(t testing.TB) string {
	t.Helper()
	path := tpRedisPath()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found")
		}
		t.Skip("redis-server not found")
	}
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		dir := t.TempDir()
		cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir,
			"--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if tpWaitUp(addr) {
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			return addr
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Fatal("could not start redis-server")
	return ""
}

func tpWaitUp(addr string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		nc, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c := &tpConn{nc: nc, r: bufio.NewReader(nc)}
			n, err := c.do("PING")
			nc.Close()
			if err == nil && n.Str == "PONG" {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// tpStartOurs starts an in-process miniwatchd on a free port.
func tpStartOurs(t testing.TB) string {
	t.Helper()
	cfg := server.DefaultConfig()
	cfg.Port = 0
	cfg.Save = nil
	s, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr().String()
}

// tpPair is a redis-server and a miniwatchd driven in lockstep.
type tpPair struct {
	t           testing.TB
	redisAddr   string
	oursAddr    string
	proto       int
	conns       map[string]*tpPairConn
	where       string // prefixes failure messages
	comparisons int
}

type tpPairConn struct {
	p           *tpPair
	name        string
	redis, ours *tpConn
}

// newTPPair starts both servers; connections speak proto (2 or 3).
func newTPPair(t testing.TB, proto int) *tpPair {
	t.Helper()
	return &tpPair{t: t, redisAddr: tpStartRedis(t), oursAddr: tpStartOurs(t), proto: proto, conns: map[string]*tpPairConn{}}
}

// Conn returns the connection called name, opened on both servers on
// first use.
func (p *tpPair) Conn(name string) *tpPairConn {
	if c := p.conns[name]; c != nil {
		return c
	}
	c := &tpPairConn{p: p, name: name, redis: tpDial(p.t, p.redisAddr), ours: tpDial(p.t, p.oursAddr)}
	p.conns[name] = c
	if p.proto == 3 {
		c.DoMode(tpIgnore, "HELLO", "3")
	}
	return c
}

// Do runs a command on the default connection and compares exactly.
func (p *tpPair) Do(args ...string) (want, got tpNode) { return p.Conn("A").DoMode(tpExact, args...) }

// DoMode runs a command on the default connection and compares by mode.
func (p *tpPair) DoMode(mode tpMode, args ...string) (want, got tpNode) {
	return p.Conn("A").DoMode(mode, args...)
}

// DoMode sends a command to both servers and compares the replies.
func (c *tpPairConn) DoMode(mode tpMode, args ...string) (want, got tpNode) {
	t := c.p.t
	t.Helper()
	want, werr := c.redis.do(args...)
	got, gerr := c.ours.do(args...)
	if werr != nil || gerr != nil {
		t.Fatalf("%s%s> %q: redis-server: %v, miniwatchd: %v", c.p.prefix(), c.name, args, werr, gerr)
	}
	c.p.comparisons++
	if ok, why := tpCompare(mode, want, got); !ok {
		t.Fatalf("%s%s> %q [%s, RESP%d]: %s\n  redis-server: %s\n  miniwatchd:   %s",
			c.p.prefix(), c.name, args, mode, c.p.proto, why, want, got)
	}
	return want, got
}

// Ours runs a command on miniwatchd only (for invariant checks).
func (c *tpPairConn) Ours(args ...string) tpNode {
	c.p.t.Helper()
	n, err := c.ours.do(args...)
	if err != nil {
		c.p.t.Fatalf("%s%q: %v", c.p.prefix(), args, err)
	}
	return n
}

// Redis runs a command on redis-server only.
func (c *tpPairConn) Redis(args ...string) tpNode {
	c.p.t.Helper()
	n, err := c.redis.do(args...)
	if err != nil {
		c.p.t.Fatalf("%s%q: %v", c.p.prefix(), args, err)
	}
	return n
}

func (p *tpPair) prefix() string {
	if p.where == "" {
		return ""
	}
	return p.where + ": "
}

// ScanAll runs a SCAN-family command (args hold the key; the cursor goes
// after it, extra after that) to completion on both servers and compares
// the collected elements as sets (pairs when pairs is set).
func (c *tpPairConn) ScanAll(pairs bool, cmd, key string, extra ...string) {
	t := c.p.t
	t.Helper()
	collect := func(do func(args ...string) (tpNode, error)) ([]string, error) {
		seen := map[string]bool{}
		cursor := "0"
		for i := 0; ; i++ {
			args := append([]string{cmd, key, cursor}, extra...)
			n, err := do(args...)
			if err != nil {
				return nil, err
			}
			if n.Kind == '-' {
				return []string{"error: " + n.Str}, nil
			}
			if len(n.Elems) != 2 {
				return nil, fmt.Errorf("bad scan reply %s", n)
			}
			width := 1
			if pairs {
				width = 2
			}
			items := n.Elems[1].Elems
			for j := 0; j+width <= len(items); j += width {
				var b []string
				for _, e := range items[j : j+width] {
					b = append(b, e.Str)
				}
				seen[strings.Join(b, "\x00")] = true
			}
			cursor = n.Elems[0].Str
			if cursor == "0" || i > 100000 {
				break
			}
		}
		out := make([]string, 0, len(seen))
		for k := range seen {
			out = append(out, k)
		}
		slices.Sort(out)
		return out, nil
	}
	want, werr := collect(c.redis.do)
	got, gerr := collect(c.ours.do)
	if werr != nil || gerr != nil {
		t.Fatalf("%s%s %s: %v / %v", c.p.prefix(), cmd, key, werr, gerr)
	}
	c.p.comparisons++
	if !slices.Equal(want, got) {
		t.Fatalf("%s%s %s %q: full iterations differ\n  redis-server: %q\n  miniwatchd:   %q", c.p.prefix(), cmd, key, extra, want, got)
	}
}

// tpStep is one command of a differential case.
type tpStep struct {
	mode tpMode
	args []string
}

// tpCase is a named sequence of commands run on a flushed keyspace.
type tpCase struct {
	name  string
	steps []tpStep
}

// tpEncodingDefaults restores the encoding thresholds before each case.
var tpEncodingDefaults = [][]string{
	{"CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64",
		"set-max-intset-entries", "512", "zset-max-listpack-entries", "128", "zset-max-listpack-value", "64"},
}

// tpRunCases runs cases in both protocols, each on a flushed keyspace with
// the default encoding thresholds, and logs how many commands it compared.
func tpRunCases(t *testing.T, cases []tpCase) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newTPPair(t, proto)
			c := p.Conn("A")
			for _, tc := range cases {
				p.where = tc.name
				c.DoMode(tpIgnore, "FLUSHALL")
				for _, a := range tpEncodingDefaults {
					c.DoMode(tpExact, a...)
				}
				for _, st := range tc.steps {
					c.DoMode(st.mode, st.args...)
				}
			}
			t.Logf("RESP%d: %d cases, %d commands compared", proto, len(cases), p.comparisons)
		})
	}
}

// tpCmds builds steps compared exactly from command lines split on
// spaces; a word in single quotes may hold spaces (no escapes).
func tpCmds(lines ...string) []tpStep {
	steps := make([]tpStep, 0, len(lines))
	for _, l := range lines {
		mode := tpExact
		switch {
		case strings.HasPrefix(l, "~sorted "):
			mode, l = tpSorted, l[len("~sorted "):]
		case strings.HasPrefix(l, "~pairs "):
			mode, l = tpSortedPairs, l[len("~pairs "):]
		case strings.HasPrefix(l, "~shape "):
			mode, l = tpShape, l[len("~shape "):]
		case strings.HasPrefix(l, "~ignore "):
			mode, l = tpIgnore, l[len("~ignore "):]
		case strings.HasPrefix(l, "~scan "):
			mode, l = tpScan, l[len("~scan "):]
		case strings.HasPrefix(l, "~scanpairs "):
			mode, l = tpScanPairs, l[len("~scanpairs "):]
		}
		steps = append(steps, tpStep{mode: mode, args: tpSplit(l)})
	}
	return steps
}

// tpSplit splits a command line on spaces; '...' quotes a word (which may
// be empty or hold spaces), and \xHH inside quotes is a byte.
func tpSplit(l string) []string {
	var out []string
	for i := 0; i < len(l); {
		if l[i] == ' ' {
			i++
			continue
		}
		if l[i] == '\'' {
			var b []byte
			j := i + 1
			for ; j < len(l) && l[j] != '\''; j++ {
				if l[j] == '\\' && j+3 < len(l) && l[j+1] == 'x' {
					v, err := strconv.ParseUint(l[j+2:j+4], 16, 8)
					if err == nil {
						b = append(b, byte(v))
						j += 3
						continue
					}
				}
				b = append(b, l[j])
			}
			out = append(out, string(b))
			i = j + 1
			continue
		}
		j := strings.IndexByte(l[i:], ' ')
		if j < 0 {
			j = len(l) - i
		}
		out = append(out, l[i:i+j])
		i += j
	}
	return out
}
