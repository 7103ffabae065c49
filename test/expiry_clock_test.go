package test

import (
	"strconv"
	"testing"
)

// Deterministic expiry tests on miniwatchd's test clock (DEBUG CLOCK ...):
// every WATCH/expiry rule of spec sections 1, 2 and 6 without sleeping.
// Redis has no test clock, so these run on our server only; the same rules
// are checked against redis-server in real time by the scenarios in
// testdata/diff/watch_expiry.txt.

// clockServer leases our server with a frozen clock and active expiry off.
func clockServer(t *testing.T) (*leasedServer, *respConn, *respConn) {
	t.Helper()
	l := leaseServer(t, ours)
	l.taint() // the clock and the expiry switch are server-wide
	a, b := l.dial(t), l.dial(t)
	expectOK(t, a, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	expectOK(t, a, "DEBUG", "CLOCK", "FREEZE")
	return l, a, b
}

func expectOK(t *testing.T, c *respConn, args ...string) {
	t.Helper()
	if n := mustDo(t, c, args...); n.Kind != '+' {
		t.Fatalf("%q: %s", args, render(n))
	}
}

func expectInt(t *testing.T, c *respConn, want int64, args ...string) {
	t.Helper()
	n := mustDo(t, c, args...)
	if n.Kind != ':' || n.Int != want {
		t.Fatalf("%q = %s, want %d", args, render(n), want)
	}
}

func advance(t *testing.T, c *respConn, ms int64) {
	t.Helper()
	expectOK(t, c, "DEBUG", "CLOCK", "ADVANCE", strconv.FormatInt(ms, 10))
}

// execAborted runs MULTI/PING/EXEC on c and reports whether EXEC returned
// the null array of an aborted transaction.
func execAborted(t *testing.T, c *respConn) bool {
	t.Helper()
	expectOK(t, c, "MULTI")
	mustDo(t, c, "PING")
	n := mustDo(t, c, "EXEC")
	switch {
	case n.Null:
		return true
	case n.Kind == '*' && len(n.Elems) == 1:
		return false
	}
	t.Fatalf("EXEC = %s", render(n))
	return false
}

func info(t *testing.T, c *respConn, field string) string {
	t.Helper()
	n := mustDo(t, c, "INFO", "everything")
	for _, line := range splitLines(n.Str) {
		if k, v, ok := cut(line, ':'); ok && k == field {
			return v
		}
	}
	t.Fatalf("INFO has no %s", field)
	return ""
}

func TestClockTTLArithmetic(t *testing.T) {
	_, a, _ := clockServer(t)
	clock := mustDo(t, a, "DEBUG", "CLOCK")
	if len(clock.Elems) != 2 || clock.Elems[1].Str != "frozen" {
		t.Fatalf("DEBUG CLOCK = %s", render(clock))
	}
	now := clock.Elems[0].Int
	expectOK(t, a, "SET", "k", "v", "EX", "100")
	expectInt(t, a, 100, "TTL", "k")
	expectInt(t, a, 100000, "PTTL", "k")
	expectInt(t, a, now+100000, "PEXPIRETIME", "k")
	advance(t, a, 40_000)
	expectInt(t, a, 60, "TTL", "k")
	expectInt(t, a, 60000, "PTTL", "k")
	advance(t, a, 59_999)
	expectInt(t, a, 1, "PTTL", "k")
	advance(t, a, 1)
	expectInt(t, a, 0, "PTTL", "k") // now == deadline: still alive (strict >)
	advance(t, a, 1)
	expectInt(t, a, -2, "PTTL", "k")
	// PXAT and TIME follow the clock too.
	at := now + 100_001 + 5_000 // 100001 ms have passed
	expectOK(t, a, "SET", "p", "v", "PXAT", strconv.FormatInt(at, 10))
	expectInt(t, a, 1, "EXISTS", "p")
	advance(t, a, 5_000)
	expectInt(t, a, 1, "EXISTS", "p")
	advance(t, a, 1)
	expectInt(t, a, 0, "EXISTS", "p")
	tm := mustDo(t, a, "TIME")
	secs, _ := strconv.ParseInt(tm.Elems[0].Str, 10, 64)
	if want := (now + 100_001 + 5_001) / 1000; secs != want {
		t.Fatalf("TIME seconds = %d, want %d", secs, want)
	}
}

func TestClockIdleTime(t *testing.T) {
	_, a, _ := clockServer(t)
	expectOK(t, a, "SET", "k", "v")
	advance(t, a, 10_000)
	expectInt(t, a, 10, "OBJECT", "IDLETIME", "k")
	mustDo(t, a, "GET", "k")
	expectInt(t, a, 0, "OBJECT", "IDLETIME", "k")
}

// E-2 / T-3: a live watched key whose TTL runs out before EXEC aborts it,
// even though nothing deleted the key.
func TestClockExecDeadlineCheck(t *testing.T) {
	_, a, b := clockServer(t)
	expectOK(t, a, "SET", "k", "v", "PX", "600")
	expectOK(t, a, "WATCH", "k")
	advance(t, a, 800)
	expectInt(t, b, 1, "DBSIZE") // still stored: nobody touched it
	if !execAborted(t, a) {
		t.Fatal("EXEC must abort when a watched key expired after WATCH (T-3)")
	}
	// The TTL running out between MULTI and EXEC counts too.
	expectOK(t, a, "SET", "k2", "v", "PX", "600")
	expectOK(t, a, "WATCH", "k2")
	expectOK(t, a, "MULTI")
	mustDo(t, a, "PING")
	advance(t, b, 601) // from B: A's commands are queued now
	if n := mustDo(t, a, "EXEC"); !n.Null {
		t.Fatalf("EXEC = %s, want null", render(n))
	}
}

// T-4 / E-3: a key already stale when watched.
func TestClockStaleAtWatch(t *testing.T) {
	cases := []struct {
		name    string
		between [][]string // run by B after WATCH
		aborted bool
	}{
		{"nothing happens", nil, false},
		{"a read deletes it lazily", [][]string{{"EXISTS", "k"}}, false},
		{"DEL of the stale key", [][]string{{"DEL", "k"}}, false},
		{"FLUSHDB", [][]string{{"FLUSHDB"}}, false},
		{"the active cycle deletes it", [][]string{{"DEBUG", "ACTIVE-EXPIRE-CYCLE"}}, false},
		{"re-created with SET", [][]string{{"SET", "k", "new"}}, true},
		{"re-created after a lazy delete", [][]string{{"GET", "k"}, {"SET", "k", "new"}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, a, b := clockServer(t)
			expectOK(t, a, "SET", "k", "v", "PX", "1")
			advance(t, a, 50)
			expectOK(t, a, "WATCH", "k")
			for _, cmd := range tc.between {
				mustDo(t, b, cmd...)
			}
			if got := execAborted(t, a); got != tc.aborted {
				t.Fatalf("EXEC aborted = %v, want %v", got, tc.aborted)
			}
		})
	}
}

// T-1.4: lazy expiry by anyone's read touches the watchers of a live key.
func TestClockLazyExpiryTouches(t *testing.T) {
	_, a, b := clockServer(t)
	expectOK(t, a, "SET", "k", "v", "PX", "100")
	expectOK(t, a, "WATCH", "k")
	before, _ := strconv.Atoi(info(t, b, "expired_keys"))
	advance(t, a, 101)
	if n := mustDo(t, b, "GET", "k"); !n.Null {
		t.Fatalf("GET of an expired key = %s", render(n))
	}
	after, _ := strconv.Atoi(info(t, b, "expired_keys"))
	if after != before+1 {
		t.Fatalf("expired_keys %d -> %d, want +1", before, after)
	}
	if !execAborted(t, a) {
		t.Fatal("lazy expiry must abort the watcher")
	}
}

// T-1.5: the active cycle, driven by the advanced clock, deletes keys and
// touches their watchers without any client access.
func TestClockActiveExpiryTouches(t *testing.T) {
	_, a, b := clockServer(t)
	for i := 0; i < 200; i++ {
		expectOK(t, b, "SET", "key:"+strconv.Itoa(i), "v", "PX", "100")
	}
	expectOK(t, a, "WATCH", "key:7")
	expectOK(t, b, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	advance(t, b, 200)
	for i := 0; ; i++ {
		n := mustDo(t, b, "DBSIZE")
		if n.Int == 0 {
			break
		}
		if i > 500 {
			t.Fatalf("active expiry left %d keys", n.Int)
		}
		sleepMillis(10)
	}
	if !execAborted(t, a) {
		t.Fatal("active expiry must abort the watcher")
	}
}

// DEBUG ACTIVE-EXPIRE-CYCLE deletes every stale key at once and counts them.
func TestClockExpireCycleCommand(t *testing.T) {
	_, a, _ := clockServer(t)
	for i := 0; i < 50; i++ {
		expectOK(t, a, "SET", "s"+strconv.Itoa(i), "v", "PX", "10")
	}
	expectOK(t, a, "SET", "live", "v", "PX", "100000")
	expectOK(t, a, "SET", "forever", "v")
	advance(t, a, 11)
	expectInt(t, a, 52, "DBSIZE") // stale keys still count
	keys := mustDo(t, a, "KEYS", "*")
	if len(keys.Elems) != 2 {
		t.Fatalf("KEYS returned %d keys, want the 2 live ones", len(keys.Elems))
	}
	expectInt(t, a, 52, "DBSIZE") // KEYS skips stale keys without deleting them
	expectInt(t, a, 50, "DEBUG", "ACTIVE-EXPIRE-CYCLE")
	expectInt(t, a, 2, "DBSIZE")
}

// SCAN deletes the stale keys it meets.
func TestClockScanExpires(t *testing.T) {
	_, a, _ := clockServer(t)
	expectOK(t, a, "SET", "s1", "v", "PX", "10")
	expectOK(t, a, "SET", "s2", "v", "PX", "10")
	expectOK(t, a, "SET", "live", "v")
	advance(t, a, 11)
	n := mustDo(t, a, "SCAN", "0", "COUNT", "100")
	if len(n.Elems) != 2 || len(n.Elems[1].Elems) != 1 || n.Elems[1].Elems[0].Str != "live" {
		t.Fatalf("SCAN = %s", render(n))
	}
	expectInt(t, a, 1, "DBSIZE")
}

// GETEX/EXPIRE with a time already past delete the key and touch it (T-1.2),
// while SET ... PXAT <past> stores an already-stale key.
func TestClockPastDeadlines(t *testing.T) {
	_, a, b := clockServer(t)
	now := mustDo(t, a, "DEBUG", "CLOCK").Elems[0].Int
	past := strconv.FormatInt(now-1, 10)
	expectOK(t, a, "SET", "g", "v")
	expectOK(t, a, "WATCH", "g")
	if n := mustDo(t, b, "GETEX", "g", "PXAT", past); n.Str != "v" {
		t.Fatalf("GETEX = %s", render(n))
	}
	expectInt(t, b, 0, "EXISTS", "g")
	if !execAborted(t, a) {
		t.Fatal("GETEX PXAT <past> must abort the watcher")
	}
	expectOK(t, b, "SET", "s", "v", "PXAT", past)
	expectInt(t, b, 1, "DBSIZE")
	expectInt(t, b, 0, "EXISTS", "s")
	expectOK(t, a, "SET", "e", "v")
	expectOK(t, a, "WATCH", "e")
	expectInt(t, b, 1, "EXPIRE", "e", "-1")
	expectInt(t, b, 0, "EXISTS", "e")
	if !execAborted(t, a) {
		t.Fatal("EXPIRE with a past time must abort the watcher")
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			line := s[start:i]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			out = append(out, line)
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
