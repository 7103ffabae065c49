package cmdmeta

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// redisConn is a test client for a real redis-server.
type redisConn struct {
	t  *testing.T
	nc net.Conn
	w  *bufio.Writer
	r  *resp.Reader
}

// startRedis starts redis-server on a free loopback port for the test and
// returns a RESP2 connection to it. Without a redis-server binary the test
// is skipped, unless the environment variable CI is set (then it fails).
func startRedis(t *testing.T) *redisConn {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("redis-server not installed")
		}
		t.Fatal("redis-server not installed (required when CI is set)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--logfile", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c := &redisConn{t: t, nc: nc, w: bufio.NewWriter(nc), r: resp.NewReader(nc)}
			t.Cleanup(func() { nc.Close() })
			if n, _ := c.do("PING"); n.Str == "PONG" {
				if v := c.version(); v != "7.0.15" {
					t.Fatalf("redis-server is %s, want 7.0.15", v)
				}
				return c
			}
			nc.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dial opens another connection to the same server, in RESP3 if proto is 3.
func (c *redisConn) dial(proto int) *redisConn {
	nc, err := net.Dial("tcp", c.nc.RemoteAddr().String())
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { nc.Close() })
	d := &redisConn{t: c.t, nc: nc, w: bufio.NewWriter(nc), r: resp.NewReader(nc)}
	if proto == 3 {
		d.do("HELLO", "3")
	}
	return d
}

func (c *redisConn) version() string {
	n, _ := c.do("INFO", "server")
	for _, line := range bytes.Split([]byte(n.Str), []byte("\r\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("redis_version:")); ok {
			return string(v)
		}
	}
	return ""
}

// do sends one command and returns the reply and its raw bytes.
func (c *redisConn) do(args ...string) (resp.Node, []byte) {
	c.t.Helper()
	c.w.Write(protocol.AppendCommand(nil, args...))
	if err := c.w.Flush(); err != nil {
		c.t.Fatal(err)
	}
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, raw, err := c.r.Read()
	if err != nil {
		c.t.Fatalf("%v: %v", args, err)
	}
	return n, bytes.Clone(raw)
}

// canonicalReply puts a COMMAND INFO or COMMAND DOCS reply in name order
// (Redis lists commands and subcommands in hash-table order) after
// checking that its raw bytes round-trip through the reader and writer,
// and returns it rendered again in proto.
func canonicalReply(t *testing.T, n *resp.Node, raw []byte, proto int, docs bool) []byte {
	t.Helper()
	w := protocol.Writer{Proto: proto}
	resp.Write(&w, n)
	if !bytes.Equal(w.Buf, raw) {
		t.Fatalf("reply does not round-trip:\n got %q\nwant %q", w.Buf, raw)
	}
	if docs {
		sortPairsByKey(n)
		for i := 1; i < len(n.Elems); i += 2 {
			sortDocsSubs(&n.Elems[i])
		}
	} else {
		for i := range n.Elems {
			sortInfoSubs(&n.Elems[i])
		}
		sort.SliceStable(n.Elems, func(i, j int) bool { return n.Elems[i].Elems[0].Str < n.Elems[j].Elems[0].Str })
	}
	w.Reset()
	resp.Write(&w, n)
	return w.Buf
}

func sortInfoSubs(info *resp.Node) {
	subs := info.Elems[9].Elems
	sort.SliceStable(subs, func(i, j int) bool { return subs[i].Elems[0].Str < subs[j].Elems[0].Str })
}

func sortDocsSubs(d *resp.Node) {
	for i := 0; i+1 < len(d.Elems); i += 2 {
		if d.Elems[i].Str == "subcommands" {
			sortPairsByKey(&d.Elems[i+1])
		}
	}
}

func sortPairsByKey(n *resp.Node) {
	type pair struct{ k, v resp.Node }
	pairs := make([]pair, len(n.Elems)/2)
	for i := range pairs {
		pairs[i] = pair{n.Elems[2*i], n.Elems[2*i+1]}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k.Str < pairs[j].k.Str })
	for i, p := range pairs {
		n.Elems[2*i], n.Elems[2*i+1] = p.k, p.v
	}
}

// representative commands for the byte-for-byte comparisons.
var representative = []string{
	"get", "set", "mset", "mget", "del", "zunionstore", "zinterstore", "zadd", "eval", "evalsha",
	"fcall", "xread", "xreadgroup", "xadd", "client", "config", "command", "object", "script",
	"memory", "sort", "sort_ro", "georadius", "georadiusbymember", "geosearchstore", "lmpop", "blmpop",
	"bzmpop", "migrate", "watch", "multi", "exec", "subscribe", "spublish", "bitfield", "hello",
	"auth", "xinfo", "xgroup", "function", "acl", "cluster", "debug", "lcs", "restore", "select",
	"getex", "blpop", "wait", "pfcount",
}

// notAdded keeps what Redis 7.0.15 itself has.
func notAdded(c *Command) bool { return !c.Added }

func TestInfoAndDocsMatchRedis(t *testing.T) {
	c2 := startRedis(t)
	c3 := c2.dial(3)
	for _, proto := range []int{2, 3} {
		conn := map[int]*redisConn{2: c2, 3: c3}[proto]
		for _, name := range representative {
			cmd := Lookup(name)
			if cmd == nil {
				t.Errorf("%s: not found", name)
				continue
			}
			n, raw := conn.do("COMMAND", "INFO", name)
			want := canonicalReply(t, &n, raw, proto, false)
			w := protocol.Writer{Proto: proto}
			w.Array(1)
			cmd.WriteInfoFiltered(&w, notAdded)
			if !bytes.Equal(w.Buf, want) {
				t.Errorf("RESP%d COMMAND INFO %s:\n got %q\nwant %q", proto, name, w.Buf, want)
			}
			if len(cmd.Subcommands) == 0 && !bytes.Equal(w.Buf, raw) {
				t.Errorf("RESP%d COMMAND INFO %s: raw bytes differ", proto, name)
			}

			n, raw = conn.do("COMMAND", "DOCS", name)
			want = canonicalReply(t, &n, raw, proto, true)
			w.Reset()
			w.Map(1)
			w.BulkString(name)
			cmd.WriteDocsFiltered(&w, notAdded)
			if !bytes.Equal(w.Buf, want) {
				t.Errorf("RESP%d COMMAND DOCS %s:\n got %q\nwant %q", proto, name, w.Buf, want)
			}
			if len(cmd.Subcommands) == 0 && !bytes.Equal(w.Buf, raw) {
				t.Errorf("RESP%d COMMAND DOCS %s: raw bytes differ", proto, name)
			}
		}
	}
}

// TestWholeTableMatchesRedis compares COMMAND and COMMAND DOCS for every
// command at once, which also exercises the filtered writers.
func TestWholeTableMatchesRedis(t *testing.T) {
	c2 := startRedis(t)
	c3 := c2.dial(3)
	for _, proto := range []int{2, 3} {
		conn := map[int]*redisConn{2: c2, 3: c3}[proto]
		n, raw := conn.do("COMMAND")
		want := canonicalReply(t, &n, raw, proto, false)
		w := protocol.Writer{Proto: proto}
		w.Array(len(All()))
		for _, c := range All() {
			c.WriteInfoFiltered(&w, notAdded)
		}
		if !bytes.Equal(w.Buf, want) {
			t.Errorf("RESP%d COMMAND differs (%d vs %d bytes)", proto, len(w.Buf), len(want))
		}

		n, raw = conn.do("COMMAND", "DOCS")
		want = canonicalReply(t, &n, raw, proto, true)
		w.Reset()
		w.Map(len(All()))
		for _, c := range All() {
			w.BulkString(c.Name)
			c.WriteDocsFiltered(&w, notAdded)
		}
		if !bytes.Equal(w.Buf, want) {
			t.Errorf("RESP%d COMMAND DOCS differs (%d vs %d bytes)", proto, len(w.Buf), len(want))
		}

		// Subcommands one by one, as COMMAND INFO container|sub.
		for _, c := range All() {
			for _, s := range c.Subcommands {
				if s.Added {
					continue
				}
				_, raw := conn.do("COMMAND", "INFO", s.FullName)
				w.Reset()
				w.Array(1)
				s.WriteInfo(&w)
				if !bytes.Equal(w.Buf, raw) {
					t.Errorf("RESP%d COMMAND INFO %s:\n got %q\nwant %q", proto, s.FullName, w.Buf, raw)
				}
			}
		}
	}
}

func TestKeyPositionsMatchRedis(t *testing.T) {
	c := startRedis(t)
	for _, tc := range keyCases {
		args := make([]string, 0, len(tc.args)+2)
		args = append(args, "COMMAND", "GETKEYS")
		args = append(args, tc.args...)
		n, _ := c.do(args...)
		got, err := keyPositionsOf(tc.args)
		switch {
		case n.Kind == resp.Error && n.Str == "ERR The command has no key arguments":
			if err == nil {
				t.Errorf("%q: Redis says no key arguments, we found %v", tc.args, got)
			}
		case n.Kind == resp.Error && n.Str == "ERR Invalid arguments specified for command":
			if err != nil || len(got) != 0 || LookupBytes([]byte(tc.args[0])).HasFlag("no_mandatory_keys") {
				t.Errorf("%q: Redis says invalid arguments, we found %v (%v)", tc.args, got, err)
			}
		case n.Kind == resp.Error:
			t.Errorf("%q: unexpected Redis error %q", tc.args, n.Str)
		default:
			var redisKeys, ours []string
			for _, e := range n.Elems {
				redisKeys = append(redisKeys, e.Str)
			}
			for _, p := range got {
				ours = append(ours, tc.args[p])
			}
			if fmt.Sprint(redisKeys) != fmt.Sprint(ours) || err != nil {
				t.Errorf("%q: Redis keys %q, ours %q (%v)", tc.args, redisKeys, ours, err)
			}
		}
		// The expectations in keyCases must agree with Redis too.
		var want []string
		for _, p := range tc.want {
			want = append(want, tc.args[p])
		}
		var redisKeys []string
		if n.Kind != resp.Error {
			for _, e := range n.Elems {
				redisKeys = append(redisKeys, e.Str)
			}
		}
		if fmt.Sprint(redisKeys) != fmt.Sprint(want) {
			t.Errorf("%q: keyCases says %q, Redis %q", tc.args, want, redisKeys)
		}
	}
}
