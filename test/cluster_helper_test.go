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

// Cluster-mode servers for the cluster tests: redis-server and miniwatchd
// started with cluster-enabled yes, each with its own nodes.conf and its
// own cluster bus port (picked free, since Redis's default port+10000 may
// not exist for an ephemeral port).

// clusterNode is one started cluster-mode server.
type clusterNode struct {
	*serverProc
	cport int
}

// startClusterNode starts kind (ours or redis) in cluster mode. nodesConf,
// when not "", is written to the node's cluster-config-file first, with
// "{port}" and "{cport}" replaced by the node's ports.
func startClusterNode(t testing.TB, kind, nodesConf string, extra ...string) *clusterNode {
	t.Helper()
	if kind == redis {
		requireRedis(t)
	}
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		cport, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		conf := filepath.Join(dir, fmt.Sprintf("nodes-%d.conf", port))
		if nodesConf != "" {
			text := strings.NewReplacer("{port}", strconv.Itoa(port), "{cport}", strconv.Itoa(cport)).Replace(nodesConf)
			if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := append([]string{"--cluster-enabled", "yes", "--cluster-config-file", conf,
			"--cluster-port", strconv.Itoa(cport), "--dir", dir}, extra...)
		bin := redisServerPath()
		if kind == ours {
			if bin, err = ourBinary(); err != nil {
				t.Fatal(err)
			}
		}
		p, err := launch(kind, bin, "", port, args)
		if err != nil {
			if attempt < 3 {
				continue
			}
			t.Fatalf("starting %s in cluster mode: %v", kind, err)
		}
		t.Cleanup(p.stop)
		return &clusterNode{serverProc: p, cport: cport}
	}
}

// waitClusterOK polls CLUSTER INFO until cluster_state:ok (a Redis node
// waits a while after its slots are assigned).
func waitClusterOK(t testing.TB, addr string) {
	t.Helper()
	c, err := dialRESP(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := c.Do("CLUSTER", "INFO")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n.Str, "cluster_state:ok") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: cluster_state is not ok after 20s", addr)
}

// clusterDo runs a command on addr and fails t on an error reply.
func clusterDo(t testing.TB, addr string, args ...string) node {
	t.Helper()
	c, err := dialRESP(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.Do(args...)
	if err != nil {
		t.Fatal(err)
	}
	if n.IsError() {
		t.Fatalf("%s: %q: %s", addr, args, n.Str)
	}
	return n
}

// clusterPair is a diffPair over a redis-server and a miniwatchd in
// cluster mode. With nodesConf "" both start fresh, and redis-server is
// given every slot with CLUSTER ADDSLOTSRANGE 0 16383 (miniwatchd owns them
// from the start); otherwise both load nodesConf. Both are ready
// (cluster_state:ok) when it returns.
type clusterPair struct {
	*diffPair
	rn, on *clusterNode
}

func newClusterPair(t *testing.T, proto int, nodesConf string, extra ...string) *clusterPair {
	t.Helper()
	rn := startClusterNode(t, redis, nodesConf, extra...)
	other := ours
	if selfCheck() {
		other = redis
	}
	on := startClusterNode(t, other, nodesConf, extra...)
	if nodesConf == "" {
		clusterDo(t, rn.addr, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")
		if other == redis {
			clusterDo(t, on.addr, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")
		}
	}
	waitClusterOK(t, rn.addr)
	waitClusterOK(t, on.addr)
	p := &diffPair{
		t: t, redis: &leasedServer{serverProc: rn.serverProc, tainted: true},
		ours:  &leasedServer{serverProc: on.serverProc, tainted: true},
		proto: proto, conns: map[string]*diffConn{},
	}
	return &clusterPair{diffPair: p, rn: rn, on: on}
}

// normalized renders n with the node's own ports and (when id is not "")
// ID replaced by placeholders, so two nodes' topology replies compare.
func normalized(n node, port, cport int, id string) string {
	r := []string{strconv.Itoa(port), "{port}", strconv.Itoa(cport), "{cport}"}
	if id != "" {
		r = append(r, id, "{id}")
	}
	rep := strings.NewReplacer(r...)
	var b strings.Builder
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		fmt.Fprintf(&b, "%s%c", strings.Repeat(" ", depth), n.Kind)
		switch {
		case n.Null:
			b.WriteString("null")
		case n.Kind == ':':
			if n.Int == int64(port) {
				b.WriteString("{port}")
			} else {
				fmt.Fprint(&b, n.Int)
			}
		case n.IsAggregate():
			fmt.Fprintf(&b, "%d", len(n.Elems))
		default:
			b.WriteString(strconv.Quote(rep.Replace(n.Str)))
		}
		b.WriteByte('\n')
		for _, e := range n.Elems {
			walk(e, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// DoClusterInfo compares CLUSTER INFO without the cluster bus's message
// counters (a Redis node pings the nodes of its nodes.conf; miniwatchd has
// no bus).
func (p *clusterPair) DoClusterInfo(conn string) {
	p.t.Helper()
	want, got := p.Conn(conn).DoMode(cmpIgnore, "CLUSTER", "INFO")
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\r\n") {
			if !strings.HasPrefix(l, "cluster_stats_messages_") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\r\n")
	}
	if w, g := strip(want.Str), strip(got.Str); w != g || want.Kind != got.Kind {
		p.t.Fatalf("CLUSTER INFO differs (bus counters left out)\nredis-server:\n%s\nminiwatchd:\n%s", w, g)
	}
}

// DoNormalizedSorted is DoNormalized for a reply whose top-level elements
// come in an unspecified order (Redis lists nodes in its hash table's order).
func (p *clusterPair) DoNormalizedSorted(conn string, redisID, ourID string, args ...string) {
	p.t.Helper()
	want, got := p.Conn(conn).DoMode(cmpIgnore, args...)
	sorted := func(n node, port, cport int, id string) string {
		var elems []string
		for _, e := range n.Elems {
			elems = append(elems, normalized(e, port, cport, id))
		}
		sort.Strings(elems)
		return fmt.Sprintf("%c%d\n%s", n.Kind, len(n.Elems), strings.Join(elems, ""))
	}
	w := sorted(want, p.rn.port, p.rn.cport, redisID)
	g := sorted(got, p.on.port, p.on.cport, ourID)
	if w != g {
		p.t.Fatalf("%q: replies differ after normalizing\nredis-server:\n%s\nminiwatchd:\n%s", args, w, g)
	}
}

// DoNormalizedEach is DoNormalized for a command whose arguments differ
// between the two servers (their own node IDs): redisArgs go to
// redis-server, ourArgs to miniwatchd.
func (p *clusterPair) DoNormalizedEach(conn string, redisID, ourID string, redisArgs, ourArgs []string) {
	p.t.Helper()
	c := p.Conn(conn)
	if err := c.redis.Send(redisArgs...); err != nil {
		p.t.Fatal(err)
	}
	if err := c.ours.Send(ourArgs...); err != nil {
		p.t.Fatal(err)
	}
	want, got := c.read(cmpIgnore, formatCommand(redisArgs), replyTimeout)
	w := normalized(want, p.rn.port, p.rn.cport, redisID)
	g := normalized(got, p.on.port, p.on.cport, ourID)
	if w != g {
		p.t.Fatalf("%q: replies differ after normalizing\nredis-server:\n%s\nminiwatchd:\n%s", redisArgs, w, g)
	}
}

// DoNormalized sends args to both servers and compares the replies with
// each node's ports and ID replaced (see normalized); ids are the two
// nodes' IDs ("" to keep IDs as they are).
func (p *clusterPair) DoNormalized(conn string, redisID, ourID string, args ...string) {
	p.t.Helper()
	want, got := p.Conn(conn).DoMode(cmpIgnore, args...)
	w := normalized(want, p.rn.port, p.rn.cport, redisID)
	g := normalized(got, p.on.port, p.on.cport, ourID)
	if w != g {
		p.t.Fatalf("%q: replies differ after normalizing\nredis-server:\n%s\nminiwatchd:\n%s", args, w, g)
	}
}
