package test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// CLIENT checks that text scenarios cannot express: CLIENT LIST's field
// names, the transaction fields of W-13, and the 7.2 subcommands
// miniwatchd adds (SETINFO, NO-TOUCH), which redis-server 7.0.15 lacks.

// clientFields splits a CLIENT INFO / LIST line into ordered names and
// values.
func clientFields(line string) (names []string, values map[string]string) {
	values = map[string]string{}
	for _, f := range strings.Fields(line) {
		name, value, _ := strings.Cut(f, "=")
		names = append(names, name)
		values[name] = value
	}
	return names, values
}

// ourExtraClientFields are CLIENT LIST fields miniwatchd adds on purpose,
// after Redis 7.0.15's last field (resp=) and in this order: lib-name= and
// lib-ver= where Redis 7.2 puts them (with CLIENT SETINFO), then 7.4's
// watch= last, so parsers of 7.0's line keep working.
var ourExtraClientFields = []string{"lib-name", "lib-ver", "watch"}

func TestClientListFieldNames(t *testing.T) {
	p := newDiffPair(t)
	want, got := p.Conn("A").DoMode(cmpShape, "CLIENT", "INFO")
	wn, _ := clientFields(want.Text())
	gn, _ := clientFields(got.Text())
	wantNames := strings.Join(append(wn, ourExtraClientFields...), " ")
	if strings.Join(gn, " ") != wantNames {
		t.Errorf("CLIENT INFO fields differ\n  redis-server + ours: %s\n  miniwatchd:          %s", wantNames, strings.Join(gn, " "))
	}
}

// TestClientListQueryBuffer checks qbuf=: while a command runs, the query
// buffer still holds every byte of the batch it came in (Redis trims it
// after the batch), so a bare CLIENT INFO reports its own 26 bytes and one
// pipelined behind a PING reports both commands'.
func TestClientListQueryBuffer(t *testing.T) {
	p := newDiffPair(t)
	a := p.Conn("A")
	for _, batch := range []string{
		"*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n",
		"*1\r\n$4\r\nPING\r\n*2\r\n$6\r\nCLIENT\r\n$4\r\nINFO\r\n",
		"PING\r\nCLIENT INFO\r\n",
	} {
		a.SendRaw([]byte(batch))
		if strings.HasPrefix(batch, "*1") || strings.HasPrefix(batch, "PING") {
			a.Read(cmpExact)
		}
		want, got := a.Read(cmpShape)
		_, wv := clientFields(want.Text())
		_, gv := clientFields(got.Text())
		if wv["qbuf"] != gv["qbuf"] {
			t.Errorf("batch %q: qbuf=%s on miniwatchd, %s on redis-server", batch, gv["qbuf"], wv["qbuf"])
		}
	}
	// Another client's line shows what is left after its last batch.
	b := p.Conn("B")
	b.SendRaw([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n")) // half a command
	time.Sleep(100 * time.Millisecond)
	want, got := a.DoMode(cmpShape, "CLIENT", "LIST", "TYPE", "normal")
	wq, gq := qbufOfOther(want.Text()), qbufOfOther(got.Text())
	if wq != gq {
		t.Errorf("a client holding half a command: qbuf=%s on miniwatchd, %s on redis-server", gq, wq)
	}
}

// qbufOfOther returns the qbuf= of the CLIENT LIST line whose cmd= is not
// client|list (the other client's).
func qbufOfOther(list string) string {
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		_, v := clientFields(line)
		if v["cmd"] != "client|list" {
			return v["qbuf"]
		}
	}
	return ""
}

// TestClientTransactionFields follows spec W-13: flags= shows x in MULTI
// and d when dirty; multi= counts the stored queued commands (0 for a
// dirty client, which stores nothing), -1 outside MULTI.
func TestClientTransactionFields(t *testing.T) {
	p := newDiffPair(t)
	a, b := p.Conn("A"), p.Conn("B")
	wid, gid := a.DoMode(cmpShape, "CLIENT", "ID")
	check := func(step string) {
		t.Helper()
		w := mustDo(t, b.redis, "CLIENT", "LIST", "ID", strconv.FormatInt(wid.Int, 10))
		g := mustDo(t, b.ours, "CLIENT", "LIST", "ID", strconv.FormatInt(gid.Int, 10))
		_, wv := clientFields(w.Text())
		_, gv := clientFields(g.Text())
		for _, f := range []string{"flags", "multi", "db", "cmd"} {
			if wv[f] != gv[f] {
				t.Errorf("after %s: %s=%s on miniwatchd, %s on redis-server", step, f, gv[f], wv[f])
			}
		}
	}
	check("connecting")
	a.Do("MULTI")
	check("MULTI")
	a.Do("SET", "a", "1")
	a.Do("GET", "a")
	check("two queued commands")
	a.Do("EXEC")
	check("EXEC")
	a.Do("WATCH", "k")
	check("WATCH")
	b.Do("SET", "k", "1")
	check("a touch")
	a.Do("MULTI")
	a.Do("SET", "a", "1")
	a.Do("INCR", "a")
	check("queueing while dirty")
	a.Do("EXEC")
	a.Do("SELECT", "2")
	check("SELECT 2")
	a.Do("MULTI")
	a.Do("NOSUCH")
	a.Do("PING")
	check("queueing while poisoned")
	a.Do("DISCARD")
	check("DISCARD")
}

// TestClientSetInfo checks CLIENT SETINFO (Redis 7.2) on miniwatchd.
func TestClientSetInfo(t *testing.T) {
	c := leaseServer(t, ours).dial(t)
	for _, tc := range []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"CLIENT", "SETINFO", "lib-name", "go-redis(miniwatchd-test)"}, false},
		{[]string{"CLIENT", "SETINFO", "LIB-VER", "9.23.0"}, false},
		{[]string{"CLIENT", "SETINFO", "lib-name", "has space"}, true},
		{[]string{"CLIENT", "SETINFO", "lib-ver", "new\nline"}, true},
		{[]string{"CLIENT", "SETINFO", "bogus", "x"}, true},
		{[]string{"CLIENT", "SETINFO", "lib-name"}, true},
		{[]string{"CLIENT", "SETINFO", "lib-name", "a", "b"}, true},
	} {
		n := mustDo(t, c, tc.args...)
		if tc.wantErr != n.IsError() || (!tc.wantErr && n.Str != "OK") {
			t.Errorf("%q replied %s", tc.args, fmtNode(n))
		}
		if n.IsError() && !strings.HasPrefix(n.Str, "ERR ") {
			t.Errorf("%q: error without the ERR code: %s", tc.args, n.Str)
		}
	}
	_, v := clientFields(mustDo(t, c, "CLIENT", "INFO").Text())
	if v["lib-name"] != "go-redis(miniwatchd-test)" || v["lib-ver"] != "9.23.0" {
		t.Errorf("CLIENT INFO shows lib-name=%q lib-ver=%q", v["lib-name"], v["lib-ver"])
	}
	mustDo(t, c, "RESET")
	_, v = clientFields(mustDo(t, c, "CLIENT", "INFO").Text())
	if v["lib-name"] != "go-redis(miniwatchd-test)" {
		t.Errorf("RESET cleared lib-name (Redis keeps it): %q", v["lib-name"])
	}
}

// TestClientNoTouch checks CLIENT NO-TOUCH (Redis 7.2) on miniwatchd: the
// T flag, and that a NO-TOUCH client's reads leave OBJECT IDLETIME alone.
func TestClientNoTouch(t *testing.T) {
	srv := leaseServer(t, ours)
	c := srv.dial(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"CLIENT", "NO-TOUCH", "on"}, "OK"},
		{[]string{"CLIENT", "NO-TOUCH", "OFF"}, "OK"},
		{[]string{"CLIENT", "NO-TOUCH", "maybe"}, "ERR syntax error"},
		{[]string{"CLIENT", "NO-TOUCH"}, "ERR wrong number of arguments for 'client|no-touch' command"},
	} {
		if n := mustDo(t, c, tc.args...); n.Str != tc.want {
			t.Errorf("%q replied %s, want %q", tc.args, fmtNode(n), tc.want)
		}
	}
	mustDo(t, c, "CLIENT", "NO-TOUCH", "ON")
	_, v := clientFields(mustDo(t, c, "CLIENT", "INFO").Text())
	if !strings.Contains(v["flags"], "T") {
		t.Errorf("flags=%s after NO-TOUCH ON", v["flags"])
	}
	mustDo(t, c, "CLIENT", "NO-TOUCH", "OFF")
	_, v = clientFields(mustDo(t, c, "CLIENT", "INFO").Text())
	if strings.Contains(v["flags"], "T") {
		t.Errorf("flags=%s after NO-TOUCH OFF", v["flags"])
	}
}

// TestClientKillByAddrAndID kills real connections by address (old and new
// form), by id and by local address, on both servers.
func TestClientKillByAddrAndID(t *testing.T) {
	p := newDiffPair(t)
	p.taint()
	a := p.Conn("A")
	fieldOf := func(c *diffConn, name string) (string, string) {
		want, got := c.DoMode(cmpShape, "CLIENT", "INFO")
		_, wv := clientFields(want.Text())
		_, gv := clientFields(got.Text())
		return wv[name], gv[name]
	}
	// each runs a kill whose argument differs per server.
	each := func(args func(v string) []string, wantV, gotV string) (node, node) {
		t.Helper()
		w := mustDo(t, a.redis, args(wantV)...)
		g := mustDo(t, a.ours, args(gotV)...)
		if string(w.Raw) != string(g.Raw) {
			t.Errorf("%q: miniwatchd replied %s, redis-server %s", args("<x>"), fmtNode(g), fmtNode(w))
		}
		return w, g
	}
	b := p.Conn("B")
	wAddr, gAddr := fieldOf(b, "addr")
	each(func(v string) []string { return []string{"CLIENT", "KILL", v} }, wAddr, gAddr)
	b.ExpectClosed(2 * time.Second)
	each(func(v string) []string { return []string{"CLIENT", "KILL", v} }, wAddr, gAddr) // gone now

	c := p.Conn("C")
	wAddr, gAddr = fieldOf(c, "addr")
	each(func(v string) []string { return []string{"CLIENT", "KILL", "ADDR", v} }, wAddr, gAddr)
	c.ExpectClosed(2 * time.Second)

	d := p.Conn("D")
	wID, gID := fieldOf(d, "id")
	each(func(v string) []string { return []string{"CLIENT", "KILL", "ID", v, "SKIPME", "yes"} }, wID, gID)
	d.ExpectClosed(2 * time.Second)

	e := p.Conn("E")
	e.Do("PING")
	wL, gL := fieldOf(a, "laddr")
	each(func(v string) []string { return []string{"CLIENT", "KILL", "LADDR", v} }, wL, gL)
	e.ExpectClosed(2 * time.Second)
	a.Do("PING")
}
