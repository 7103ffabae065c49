package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// flatReply parses a RESP2 reply of bulk strings and integers (and one
// level of nested arrays, skipped) into its elements as strings.
func flatReply(t *testing.T, raw string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(raw, "\r\n"), "\r\n")
	if len(lines) == 0 || lines[0][0] != '*' {
		t.Fatalf("not an array: %q", raw)
	}
	var out []string
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		switch l[0] {
		case '$':
			i++
			out = append(out, lines[i])
		case ':':
			out = append(out, l[1:])
		}
	}
	return out
}

// whyOf runs DEBUG WATCH WHY on c and returns its fields.
func whyOf(t *testing.T, c *testConn) map[string]string {
	t.Helper()
	raw := c.do("DEBUG", "WATCH", "WHY")
	if raw == "$-1\r\n" {
		return nil
	}
	f := flatReply(t, raw)
	m := map[string]string{}
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = f[i+1]
	}
	return m
}

func clientID(t *testing.T, c *testConn) string {
	t.Helper()
	r := c.do("CLIENT", "ID")
	return strings.TrimSpace(strings.TrimPrefix(r, ":"))
}

// infoWatchFields returns INFO watch as a map.
func infoWatchFields(t *testing.T, c *testConn) map[string]string {
	t.Helper()
	raw := c.do("INFO", "watch")
	m := map[string]string{}
	for _, l := range strings.Split(raw, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// TestWatchWhyCauses checks, for each cause class, that after an EXEC that
// replied nil DEBUG WATCH WHY names the key, the cause, the breaking client
// (or the server) and the breaking command.
func TestWatchWhyCauses(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	a.do("CLIENT", "SETNAME", "watcher")
	b.do("CLIENT", "SETNAME", "breaker")
	a.do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	aID, bID := clientID(t, a), clientID(t, b)
	type tc struct {
		name   string
		setup  [][]string // by A before WATCH k
		breakA [][]string // by A after WATCH
		breakB [][]string // by B after WATCH
		cause  string
		cmd    string
		by     string // "A", "B" or "server"
		key    string
	}
	set := []string{"SET", "k", "v"}
	pxSoon := []string{"SET", "k", "v", "PX", "1000"}
	advance := []string{"DEBUG", "CLOCK", "ADVANCE", "2000"}
	cases := []tc{
		{name: "write", setup: [][]string{set}, breakB: [][]string{{"SET", "k", "w"}}, cause: "write", cmd: "set", by: "B"},
		{name: "own", setup: [][]string{set}, breakA: [][]string{{"INCR", "n"}, {"APPEND", "k", "x"}}, cause: "own-write", cmd: "append", by: "A"},
		{name: "lazy", setup: [][]string{pxSoon}, breakB: [][]string{advance, {"GET", "k"}}, cause: "expired-lazy", cmd: "get", by: "server"},
		{name: "active", setup: [][]string{pxSoon}, breakB: [][]string{advance, {"DEBUG", "ACTIVE-EXPIRE-CYCLE"}}, cause: "expired-active", by: "server"},
		{name: "at-exec", setup: [][]string{pxSoon}, breakB: [][]string{advance}, cause: "expired-exec", by: "server"},
		{name: "flushdb", setup: [][]string{set}, breakB: [][]string{{"FLUSHDB"}}, cause: "flushdb", cmd: "flushdb", by: "B"},
		{name: "flushall", setup: [][]string{set}, breakB: [][]string{{"FLUSHALL"}}, cause: "flushall", cmd: "flushall", by: "B"},
		{name: "swapdb", setup: [][]string{set}, breakB: [][]string{{"SWAPDB", "0", "1"}}, cause: "swapdb", cmd: "swapdb", by: "B"},
		{name: "move", setup: [][]string{set}, breakB: [][]string{{"MOVE", "k", "2"}}, cause: "move", cmd: "move", by: "B"},
		{name: "copy", setup: [][]string{set, {"SET", "src", "s"}}, breakB: [][]string{{"COPY", "src", "k", "REPLACE"}}, cause: "copy", cmd: "copy", by: "B"},
		{name: "rename", setup: [][]string{set, {"SET", "src", "s"}}, breakB: [][]string{{"RENAME", "src", "k"}}, cause: "rename", cmd: "rename", by: "B"},
		{name: "script", setup: [][]string{set}, breakB: [][]string{{"EVAL", "redis.call('incr','n') return redis.call('set',KEYS[1],'x')", "1", "k"}}, cause: "script", cmd: "set", by: "B"},
		{name: "exec-body", setup: [][]string{set}, breakB: [][]string{{"MULTI"}, {"PING"}, {"DEL", "k"}, {"EXEC"}}, cause: "write", cmd: "del", by: "B"},
		{name: "eviction", setup: [][]string{{"SET", "k", strings.Repeat("x", 1<<20)}},
			breakB: [][]string{{"CONFIG", "SET", "maxmemory-policy", "allkeys-random"}, {"CONFIG", "SET", "maxmemory", "1"}, {"GET", "nothing"}, {"CONFIG", "SET", "maxmemory", "0"}},
			cause:  "evicted", by: "server"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a.do("DEBUG", "CLOCK", "FREEZE")
			a.do("FLUSHALL")
			for _, cmd := range tc.setup {
				a.do(cmd...)
			}
			a.do("WATCH", "k")
			for _, cmd := range tc.breakA {
				a.do(cmd...)
			}
			for _, cmd := range tc.breakB {
				b.do(cmd...)
			}
			a.do("MULTI")
			a.do("PING")
			if r := a.do("EXEC"); r != "*-1\r\n" {
				t.Fatalf("EXEC = %q, want an abort", r)
			}
			w := whyOf(t, a)
			if w == nil {
				t.Fatal("DEBUG WATCH WHY replied null")
			}
			if w["state"] != "aborted" || w["cause"] != tc.cause || w["key"] != "k" || w["db"] != "0" || w["command"] != tc.cmd {
				t.Errorf("why = %v, want cause %s command %q", w, tc.cause, tc.cmd)
			}
			switch tc.by {
			case "server":
				if w["breaker"] != "server" || w["client-id"] != "-1" || w["client-addr"] != "server" {
					t.Errorf("breaker %v, want the server", w)
				}
			case "A", "B":
				id, name := aID, "watcher"
				if tc.by == "B" {
					id, name = bID, "breaker"
				}
				if w["breaker"] != "client" || w["client-id"] != id || w["client-name"] != name || !strings.HasPrefix(w["client-addr"], "127.0.0.1:") {
					t.Errorf("breaker %v, want client %s (%s)", w, id, name)
				}
			}
			if tc.cause == "evicted" && w["policy"] != "allkeys-random" {
				t.Errorf("policy %q", w["policy"])
			}
			a.do("DEBUG", "CLOCK", "RESET")
		})
	}
	// A committed EXEC leaves nothing to explain.
	a.do("WATCH", "k")
	a.do("MULTI")
	a.do("EXEC")
	if w := whyOf(t, a); w != nil {
		t.Errorf("after a committed EXEC: %v", w)
	}
}

// TestWatchWhyTiming checks at-ms and after-watch-ms on the test clock.
func TestWatchWhyTiming(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	a.do("DEBUG", "CLOCK", "SET", "1000000")
	a.do("DEBUG", "CLOCK", "FREEZE")
	a.do("WATCH", "k")
	a.do("DEBUG", "CLOCK", "ADVANCE", "1500")
	b.do("SET", "k", "1")
	w := whyOf(t, a)
	if w["state"] != "dirty" || w["watched-at-ms"] != "1000000" || w["at-ms"] != "1001500" || w["after-watch-ms"] != "1500" {
		t.Errorf("why = %v", w)
	}
	// Only the first touch is recorded.
	b.do("SET", "k", "2")
	b.do("DEL", "k")
	if w2 := whyOf(t, a); w2["at-ms"] != "1001500" || w2["command"] != "set" {
		t.Errorf("second touch replaced the first: %v", w2)
	}
}

// TestInfoWatchCountersAddUp checks that exec calls = committed + aborted +
// EXECABORT, the per-cause counts, the gauges, the disconnect figures and
// CONFIG RESETSTAT, and that default INFO has no watch section.
func TestInfoWatchCountersAddUp(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	for i := 0; i < 5; i++ { // 5 committed
		a.do("WATCH", "k")
		a.do("MULTI")
		a.do("SET", "k", "1")
		a.do("EXEC")
	}
	for i := 0; i < 3; i++ { // 3 aborted by another client's write
		a.do("WATCH", "k")
		b.do("SET", "k", "2")
		a.do("MULTI")
		a.do("EXEC")
	}
	a.do("WATCH", "k") // 1 aborted by its own write
	a.do("SET", "k", "3")
	a.do("MULTI")
	a.do("EXEC")
	a.do("MULTI") // 2 EXECABORT
	a.do("NOSUCH")
	a.do("EXEC")
	a.do("MULTI")
	a.do("SET", "x")
	a.do("EXEC")
	a.do("EXEC") // without MULTI: not counted
	f := infoWatchFields(t, a)
	want := map[string]string{
		"watch_exec_calls": "11", "watch_exec_committed": "5", "watch_exec_aborted": "4",
		"watch_exec_aborted_write": "3", "watch_exec_aborted_own_write": "1", "watch_exec_execabort": "2",
		"watch_calls": "9", "watch_abort_ratio": "0.3636", "watch_compat": "redis-7.0",
	}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("%s = %q, want %q", k, f[k], v)
		}
	}
	// Gauges and the disconnect cost.
	c := dialTest(t, s)
	args := []string{"WATCH"}
	for i := 0; i < 1000; i++ {
		args = append(args, "key:"+strconv.Itoa(i))
	}
	c.do(args...)
	f = infoWatchFields(t, a)
	if f["watch_records"] != "1000" || f["watch_keys"] != "1000" || f["watch_records_peak"] != "1000" {
		t.Errorf("gauges: %v", f)
	}
	if n, _ := strconv.Atoi(f["watch_bookkeeping_bytes"]); n < 1000*80 {
		t.Errorf("bookkeeping bytes %d", n)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for infoWatchFields(t, a)["watch_disconnect_dropped_records"] != "1000" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	f = infoWatchFields(t, a)
	if f["watch_disconnect_dropped_records"] != "1000" || f["watch_records"] != "0" || f["watch_bookkeeping_bytes"] != "0" || f["watch_records_peak"] != "1000" {
		t.Errorf("after disconnect: %v", f)
	}
	if strings.Contains(a.do("INFO"), "watch_") || strings.Contains(a.do("INFO", "all"), "# Watch") {
		t.Error("default INFO or INFO all shows the watch section")
	}
	if !strings.Contains(a.do("INFO", "everything"), "# Watch\r\nwatch_compat:") {
		t.Error("INFO everything lacks the watch section")
	}
	a.do("CONFIG", "RESETSTAT")
	f = infoWatchFields(t, a)
	if f["watch_exec_calls"] != "0" || f["watch_exec_aborted_write"] != "0" || f["watch_records_peak"] != "0" || f["watch_disconnect_dropped_records"] != "0" {
		t.Errorf("after RESETSTAT: %v", f)
	}
}

// TestDebugWatchHotKeys drives a skewed contention workload and reads the
// summary: the hot key comes first with its aborts, breaking command and
// client name.
func TestDebugWatchHotKeys(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	b.do("CLIENT", "SETNAME", "writer")
	abort := func(key string) {
		a.do("WATCH", key)
		b.do("INCR", key)
		a.do("MULTI")
		a.do("EXEC")
	}
	for i := 0; i < 20; i++ {
		abort("hot")
		if i%5 == 0 {
			abort("warm" + strconv.Itoa(i))
		}
	}
	w := dialTest(t, s)
	w.do("WATCH", "hot") // a watcher now
	f := flatReply(t, a.do("DEBUG", "WATCH", "HOTKEYS", "COUNT", "1"))
	got := strings.Join(f, " ")
	if want := "key hot db 0 aborts 20 error 0 watchers 1 commands incr 20 clients writer 20"; got != want {
		t.Errorf("HOTKEYS = %q, want %q", got, want)
	}
	a.do("DEBUG", "WATCH", "RESET")
	if r := a.do("DEBUG", "WATCH", "HOTKEYS"); r != "*0\r\n" {
		t.Errorf("after RESET: %q", r)
	}
	if r := a.do("DEBUG", "WATCH", "NOPE"); !strings.HasPrefix(r, "-ERR unknown subcommand") {
		t.Errorf("bad subcommand: %q", r)
	}
	// RESP3: maps.
	a.do("HELLO", "3")
	abort("hot")
	if r := a.do("DEBUG", "WATCH", "WHY"); !strings.HasPrefix(r, "%13\r\n$5\r\nstate\r\n$7\r\naborted\r\n") {
		t.Errorf("RESP3 WHY = %q", r)
	}
}

// TestWatchAbortEvents: off by default; with watch-abort-events yes each
// aborted EXEC is published on __watch__:aborts with the explanation.
func TestWatchAbortEvents(t *testing.T) {
	s := startTestServer(t)
	a, b, sub := dialTest(t, s), dialTest(t, s), dialTest(t, s)
	sub.do("SUBSCRIBE", "__watch__:aborts")
	abort := func() {
		a.do("WATCH", "my key")
		b.do("SET", "my key", "1")
		a.do("MULTI")
		a.do("EXEC")
	}
	abort()
	if r := sub.read(100 * time.Millisecond); r != "" {
		t.Fatalf("event while off: %q", r)
	}
	b.do("CONFIG", "SET", "watch-abort-events", "yes")
	b.do("CLIENT", "SETNAME", "w")
	abort()
	r := sub.read(2 * time.Second)
	// after-watch-ms is the time between the WATCH and the SET: 0 on an
	// idle machine, a few ms under -race on a busy one.
	event := regexp.MustCompile(`cause=write by=\[id=` + clientID(t, b) + ` name=w addr=127\.0\.0\.1:\d+\] command=set policy= at-ms=\d+ after-watch-ms=(\d+) db=0 key=my key\r\n$`)
	if m := event.FindStringSubmatch(r); m == nil {
		t.Errorf("event = %q", r)
	} else if ms, _ := strconv.Atoi(m[1]); ms > 1000 {
		t.Errorf("after-watch-ms = %d in %q", ms, r)
	}
}

// TestWatchWhyBlockedService: the service of a blocked BLMOVE touches its
// destination on behalf of the blocked client.
func TestWatchWhyBlockedService(t *testing.T) {
	s := startTestServer(t)
	a, b, c := dialTest(t, s), dialTest(t, s), dialTest(t, s)
	c.do("CLIENT", "SETNAME", "mover")
	a.do("WATCH", "dst")
	c.send("BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
	time.Sleep(50 * time.Millisecond)
	b.do("RPUSH", "src", "x")
	if r := c.read(2 * time.Second); r != "$1\r\nx\r\n" {
		t.Fatalf("BLMOVE = %q", r)
	}
	w := whyOf(t, a)
	if w["key"] != "dst" || w["client-name"] != "mover" || w["command"] != "blmove" || w["cause"] != "write" {
		t.Errorf("why = %v", w)
	}
}
