package test

// A transcript runner for the pub/sub, keyspace notification and
// client-side caching tests: it runs a script of commands over several
// named connections against redis-server 7.0.15 and the miniwatchd binary
// (servers from the harness's pool), and records everything each
// connection receives, pushes included, step by step. Scenario files read
// one reply per line; here the number of frames a step produces (events,
// messages, invalidations on other connections) is itself under test.
//
// After each step every connection is "synced": it sends a command whose
// reply it can recognise (CLIENT GETNAME, the name being set when the
// connection opens, or PING <token> for a RESP2 connection in pub/sub
// mode, where CLIENT is refused) and reads until that reply. All frames
// before it are the step's output for that connection: replies, messages,
// keyspace events and invalidations produced while the step ran. CLIENT
// GETNAME is chosen because, being a CLIENT subcommand, it does not end a
// CLIENT CACHING window, and it changes no other state.

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// psServer is a server a test talks to.
type psServer struct {
	name string
	addr string
}

// psRedisServer leases a redis-server 7.0.15 from the harness's pool (it
// skips the test when redis-server is missing, unless CI is set). The
// server is tainted: these tests change its configuration.
func psRedisServer(t *testing.T) *psServer {
	t.Helper()
	l := leaseServer(t, redis)
	l.taint()
	return &psServer{name: l.name, addr: l.addr}
}

// psOurServer starts miniwatchd with extra options (a pooled one, tainted,
// when there are none), or a second redis-server under DIFF_SELF_CHECK=1.
func psOurServer(t *testing.T, extra ...string) *psServer {
	t.Helper()
	if len(extra) == 0 {
		kind := ours
		if selfCheck() {
			kind = redis
		}
		l := leaseServer(t, kind)
		l.taint()
		return &psServer{name: l.name, addr: l.addr}
	}
	p, err := startOurs(extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return &psServer{name: p.name, addr: p.addr}
}

// psConn is a raw RESP connection that reads whole frames.
type psConn struct {
	name string
	c    net.Conn
	r    *bufio.Reader
	id   int64

	proto      int
	normalSubs int64 // channels + patterns, from the last confirmation
	shardSubs  int64
	inMulti    bool
	closed     bool
	syncToken  int
	out        []byte // queued commands
}

func psDial(t *testing.T, addr, name string) *psConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	pc := &psConn{name: name, c: c, r: bufio.NewReader(c), proto: 2}
	t.Cleanup(func() { c.Close() })
	pc.send("CLIENT", "ID")
	f, err := pc.readFrame(5 * time.Second)
	if err != nil || len(f) < 4 || f[0] != ':' {
		t.Fatalf("CLIENT ID on %s: %q %v", name, f, err)
	}
	pc.id, _ = strconv.ParseInt(string(f[1:len(f)-2]), 10, 64)
	pc.setName(t)
	return pc
}

// setName gives the connection the name its sync marker reads back.
func (pc *psConn) setName(t *testing.T) {
	t.Helper()
	pc.send("CLIENT", "SETNAME", "psync_"+pc.name)
	if f, err := pc.readFrame(5 * time.Second); err != nil || string(f) != "+OK\r\n" {
		t.Fatalf("CLIENT SETNAME on %s: %q %v", pc.name, f, err)
	}
}

// send writes args as a multibulk command, after any queued ones.
func (pc *psConn) send(args ...string) {
	pc.queue(args...)
	pc.c.Write(pc.out)
	pc.out = pc.out[:0]
}

// queue adds a command to be written by the next send, so that a step's
// command and its sync marker reach the server in one write (and are run
// in one batch, as a pipelining client's would).
func (pc *psConn) queue(args ...string) {
	pc.out = resptest.AppendCommand(pc.out, args...)
}

// readFrame reads one complete RESP2/RESP3 frame as raw bytes.
func (pc *psConn) readFrame(within time.Duration) ([]byte, error) {
	pc.c.SetReadDeadline(time.Now().Add(within))
	return resptest.ReadRaw(pc.r)
}

// psParse splits a frame into a tree of strings (enough to recognise
// subscription confirmations); nil for non-aggregate frames.
func psParse(f []byte) []any {
	n, err := resptest.ReadFrame(bufio.NewReader(bytes.NewReader(f)))
	if err != nil {
		return nil
	}
	if a, ok := psValue(n).([]any); ok {
		return a
	}
	return nil
}

// psValue is a frame as psParse gives it: bulk and verbatim strings and
// every other scalar as its text, integers as int64, aggregates (maps as
// keys and values in turn) as []any, null bulks and arrays as nil.
func psValue(n node) any {
	switch n.Kind {
	case '$', '=', '*', '~', '>', '%':
		if n.Null {
			return nil
		}
	case ':':
		return n.Int
	case '#':
		return n.Text()
	}
	if !n.IsAggregate() {
		return n.Str
	}
	out := make([]any, 0, len(n.Elems))
	for _, e := range n.Elems {
		out = append(out, psValue(e))
	}
	return out
}

// observe updates what the connection knows of its own state from a frame
// it received (subscription counts, nested in EXEC replies too).
func (pc *psConn) observe(v []any) {
	if len(v) == 3 {
		if kind, ok := v[0].(string); ok {
			if n, ok := v[2].(int64); ok {
				switch kind {
				case "subscribe", "unsubscribe", "psubscribe", "punsubscribe":
					pc.normalSubs = n
					return
				case "ssubscribe", "sunsubscribe":
					pc.shardSubs = n
					return
				}
			}
		}
	}
	for _, e := range v {
		if a, ok := e.([]any); ok {
			pc.observe(a)
		}
	}
}

// sync reads everything the connection received before a marker reply.
func (pc *psConn) sync(t *testing.T) [][]byte {
	t.Helper()
	if pc.closed {
		return nil
	}
	var want, want2 []byte
	pc.syncToken++
	if pc.proto == 2 && pc.normalSubs+pc.shardSubs > 0 {
		// The step may have left pub/sub mode: either form of the reply.
		tok := "sync-" + strconv.Itoa(pc.syncToken)
		pc.send("PING", tok)
		want = []byte(fmt.Sprintf("*2\r\n$4\r\npong\r\n$%d\r\n%s\r\n", len(tok), tok))
		want2 = []byte(fmt.Sprintf("$%d\r\n%s\r\n", len(tok), tok))
	} else {
		pc.send("CLIENT", "GETNAME")
		want = []byte(fmt.Sprintf("$%d\r\npsync_%s\r\n", len(pc.name)+6, pc.name))
	}
	// A connection that entered RESP2 pub/sub mode during the step refuses
	// CLIENT GETNAME with this error, which marks the end just as well.
	refused := []byte("-ERR Can't execute 'client|getname': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n")
	var frames [][]byte
	for {
		f, err := pc.readFrame(10 * time.Second)
		if err != nil {
			t.Fatalf("%s: sync: %v (after %q)", pc.name, err, frames)
		}
		if bytes.Equal(f, want) || bytes.Equal(f, want2) || bytes.Equal(f, refused) {
			return frames
		}
		if v := psParse(f); v != nil {
			pc.observe(v)
		}
		frames = append(frames, f)
	}
}

// psStep is one line of a script: "A: COMMAND args...", "sleep <ms>", or a
// command followed by " :: sorted" (compare each connection's frames of the
// step as a multiset, where Redis's order is unspecified).
type psStep struct {
	conn   string
	args   []string
	sleep  time.Duration
	sorted bool
	raw    string
}

// psScript parses a script; '#' starts a comment line.
func psScript(t *testing.T, text string) []psStep {
	t.Helper()
	var steps []psStep
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if ms, ok := strings.CutPrefix(line, "sleep "); ok {
			n, err := strconv.Atoi(ms)
			if err != nil {
				t.Fatalf("bad sleep %q", line)
			}
			steps = append(steps, psStep{sleep: time.Duration(n) * time.Millisecond, raw: line})
			continue
		}
		st := psStep{raw: line}
		if body, ok := strings.CutSuffix(line, ":: sorted"); ok {
			st.sorted = true
			line = strings.TrimSpace(body)
		}
		name, cmd, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad step %q", line)
		}
		st.conn = strings.TrimSpace(name)
		st.args = psSplit(t, strings.TrimSpace(cmd))
		steps = append(steps, st)
	}
	return steps
}

// psSplit splits like redis-cli: spaces separate, "double quotes" group
// (with \r \n \t \\ \" escapes).
func psSplit(t *testing.T, s string) []string {
	var out []string
	var cur []byte
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'r':
				cur = append(cur, '\r')
			case 'n':
				cur = append(cur, '\n')
			case 't':
				cur = append(cur, '\t')
			default:
				cur = append(cur, s[i])
			}
		case ch == '"':
			quoted = !quoted
			in = true
		case ch == ' ' && !quoted:
			if in {
				out = append(out, string(cur))
				cur, in = cur[:0], false
			}
		default:
			cur = append(cur, ch)
			in = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", s)
	}
	if in {
		out = append(out, string(cur))
	}
	return out
}

// psRun runs steps against the server at addr and returns the transcript:
// per step, the command and then every frame each connection received
// (the commanding connection first, the others in order of first use).
// "$X" in a command is replaced by connection X's client ID, and every
// client ID in the output by "ID(X)".
func psRun(t *testing.T, addr string, steps []psStep) []string {
	t.Helper()
	conns := map[string]*psConn{}
	var order []*psConn
	get := func(name string) *psConn {
		if c := conns[name]; c != nil {
			return c
		}
		c := psDial(t, addr, name)
		conns[name] = c
		order = append(order, c)
		return c
	}
	// Open every connection first so that IDs are assigned in the same
	// order on both servers.
	for _, st := range steps {
		if st.conn != "" {
			get(st.conn)
		}
	}
	var out []string
	for _, st := range steps {
		if st.sleep > 0 {
			time.Sleep(st.sleep)
			continue
		}
		c := get(st.conn)
		args := make([]string, len(st.args))
		for i, a := range st.args {
			if len(a) > 1 && a[0] == '$' && conns[a[1:]] != nil {
				a = strconv.FormatInt(conns[a[1:]].id, 10)
			}
			args[i] = a
		}
		out = append(out, st.raw)
		upper := strings.ToUpper(args[0])
		var frames [][]byte
		if upper == "RESET" || upper == "QUIT" || upper == "MULTI" || c.inMulti {
			c.send(args...)
		} else {
			c.queue(args...)
		}
		switch {
		case upper == "RESET":
			f, err := c.readFrame(5 * time.Second)
			if err != nil {
				t.Fatalf("%s: %v", st.raw, err)
			}
			frames = [][]byte{f}
			c.setName(t)
		case upper == "QUIT":
			f, _ := c.readFrame(5 * time.Second)
			frames = [][]byte{f}
			c.closed = true
		case upper == "MULTI" || (c.inMulti && upper != "EXEC" && upper != "DISCARD" && upper != "RESET"):
			f, err := c.readFrame(5 * time.Second)
			if err != nil {
				t.Fatalf("%s: %v", st.raw, err)
			}
			frames = [][]byte{f}
		default:
			frames = c.sync(t)
		}
		psAfterCommand(c, upper, args, frames)
		idReply := upper == "CLIENT" && len(args) > 1 &&
			(strings.EqualFold(args[1], "id") || strings.EqualFold(args[1], "getredir"))
		out = append(out, psRender(c, frames, st.sorted, idReply, order)...)
		for _, o := range order {
			if o == c || o.inMulti {
				continue
			}
			out = append(out, psRender(o, o.sync(t), st.sorted, false, order)...)
		}
	}
	return out
}

// psAfterCommand updates the connection state a command changed.
func psAfterCommand(c *psConn, upper string, args []string, frames [][]byte) {
	ok := len(frames) > 0 && frames[0][0] != '-'
	switch upper {
	case "MULTI":
		if ok {
			c.inMulti = true
		}
	case "EXEC", "DISCARD":
		c.inMulti = false
	case "RESET":
		c.inMulti, c.proto, c.normalSubs, c.shardSubs = false, 2, 0, 0
	case "HELLO":
		if ok && len(args) > 1 {
			if p, err := strconv.Atoi(args[1]); err == nil {
				c.proto = p
			}
		}
	}
	for _, f := range frames {
		if v := psParse(f); v != nil {
			c.observe(v)
		}
	}
}

var (
	psIDReply = regexp.MustCompile(`^:(-?\d+)\r\n$`)
	// the values of HELLO's id, TRACKINGINFO's redirect and a
	// tracking-redir-broken push
	psIDField = regexp.MustCompile(`(\$2\r\nid\r\n|\$8\r\nredirect\r\n|\$21\r\ntracking-redir-broken\r\n):(-?\d+)\r\n`)
)

// psRender turns frames into transcript lines, with client IDs masked in
// the replies that carry one (idReply: CLIENT ID, CLIENT GETREDIR) and in
// frames naming a redirect or a connection id.
func psRender(c *psConn, frames [][]byte, sorted, idReply bool, all []*psConn) []string {
	lines := make([]string, 0, len(frames))
	for _, f := range frames {
		s := string(f)
		name := func(id string) string {
			for _, o := range all {
				if strconv.FormatInt(o.id, 10) == id {
					return "ID(" + o.name + ")"
				}
			}
			return "ID(?)"
		}
		if idReply {
			if m := psIDReply.FindStringSubmatch(s); m != nil {
				s = ":" + name(m[1]) + "\r\n"
			}
		}
		s = psIDField.ReplaceAllStringFunc(s, func(m string) string {
			sub := psIDField.FindStringSubmatch(m)
			return sub[1] + ":" + name(sub[2]) + "\r\n"
		})
		lines = append(lines, fmt.Sprintf("   %s <- %q", c.name, s))
	}
	if sorted {
		for i, f := range frames {
			if sf := psSortElements(f); sf != nil {
				lines[i] = fmt.Sprintf("   %s <- %q (elements sorted)", c.name, sf)
			}
		}
		sort.Strings(lines)
	}
	return lines
}

// psSortElements returns an array or set frame with its elements sorted
// (byte order of their encodings), or nil for other frames.
func psSortElements(f []byte) []byte {
	if len(f) == 0 || (f[0] != '*' && f[0] != '~') {
		return nil
	}
	r := bufio.NewReader(bytes.NewReader(f))
	head, err := r.ReadSlice('\n')
	if err != nil {
		return nil
	}
	out := append([]byte(nil), head...)
	n, _ := strconv.Atoi(string(head[1 : len(head)-2]))
	elems := make([]string, 0, n)
	for i := 0; i < n; i++ {
		e, err := resptest.ReadRaw(r)
		if err != nil {
			return nil
		}
		elems = append(elems, string(e))
	}
	sort.Strings(elems)
	for _, e := range elems {
		out = append(out, e...)
	}
	return out
}

// psDiff runs the script on both servers and reports where the transcripts
// differ.
func psDiff(t *testing.T, redis, ours *psServer, script string) {
	t.Helper()
	steps := psScript(t, script)
	want := psRun(t, redis.addr, steps)
	got := psRun(t, ours.addr, steps)
	if len(want) == 0 {
		t.Fatal("empty transcript")
	}
	same := strings.Join(want, "\n") == strings.Join(got, "\n")
	if dir := os.Getenv("PS_DUMP"); dir != "" && (!same || os.Getenv("PS_DUMP_ALL") != "") {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
		os.WriteFile(filepath.Join(dir, name+".redis"), []byte(strings.Join(want, "\n")+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, name+".ours"), []byte(strings.Join(got, "\n")+"\n"), 0o644)
	}
	if same {
		return
	}
	n := max(len(want), len(got))
	shown := 0
	for i := 0; i < n && shown < 12; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			ctx := ""
			for j := i; j >= 0; j-- {
				if j < len(want) && !strings.HasPrefix(want[j], "   ") {
					ctx = want[j]
					break
				}
			}
			t.Errorf("step %q:\n  redis:      %s\n  miniwatchd: %s", ctx, w, g)
			shown++
		}
	}
}

// psFlush empties both servers and resets their notification config
// between scripts that share servers.
func psReset(t *testing.T, servers ...*psServer) {
	t.Helper()
	for _, s := range servers {
		c := psDial(t, s.addr, "reset")
		for _, cmd := range [][]string{
			{"FLUSHALL"},
			{"CONFIG", "SET", "notify-keyspace-events", ""},
			{"DEBUG", "SET-ACTIVE-EXPIRE", "1"},
		} {
			c.send(cmd...)
			if f, err := c.readFrame(5 * time.Second); err != nil || f[0] == '-' {
				t.Fatalf("%s: %v %q %v", s.name, cmd, f, err)
			}
		}
		c.c.Close()
	}
}
