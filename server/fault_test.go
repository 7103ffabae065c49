package server

import (
	"strings"
	"testing"
	"time"
)

// Faults (fault.go) over RESP: DEBUG FAULT ADD/LIST/DEL/CLEAR, each action,
// the matching conditions, and that unmatched commands are untouched.

func TestFaultErrorMatchesOnlyItsCalls(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	c.do("SET", "user:1", "alice")
	c.do("SET", "other", "x")
	if got := c.do("DEBUG", "FAULT", "ADD", "CMD", "get", "KEY", "user:*", "TIMES", "2", "ERROR", "LOADING Redis is loading the dataset in memory"); got != ":1\r\n" {
		t.Fatalf("ADD: %q", got)
	}
	for i, want := range []string{
		"-LOADING Redis is loading the dataset in memory\r\n",
		"$1\r\nx\r\n", // GET other: no match
		"-LOADING Redis is loading the dataset in memory\r\n",
		"$5\r\nalice\r\n", // TIMES 2 used up
	} {
		key := "user:1"
		if i == 1 {
			key = "other"
		}
		if got := c.do("GET", key); got != want {
			t.Fatalf("GET %s #%d: %q, want %q", key, i, got, want)
		}
	}
	if got := c.do("MGET", "other"); got != "*1\r\n$1\r\nx\r\n" {
		t.Fatalf("MGET (another command): %q", got)
	}
	list := c.do("DEBUG", "FAULT", "LIST")
	want := `id=1 matched=3 fired=2 spent=1 spec=CMD "get" KEY "user:*" TIMES 2 ERROR "LOADING Redis is loading the dataset in memory"`
	if !strings.Contains(list, want) {
		t.Fatalf("LIST: %q, want it to hold %q", list, want)
	}
	info := c.do("INFO", "faults")
	for _, f := range []string{"# Faults\r\n", "faults:1\r\n", "faults_fired:2\r\n", "fault_1:action=error,matched=3,fired=2,spent=1\r\n"} {
		if !strings.Contains(info, f) {
			t.Fatalf("INFO faults lacks %q:\n%s", f, info)
		}
	}
	if got := c.do("INFO", "commandstats"); !strings.Contains(got, "cmdstat_get:calls=2,") || !strings.Contains(got, "rejected_calls=2") {
		t.Fatalf("commandstats: %s", got)
	}
}

func TestFaultErrorInsideMulti(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	c.do("DEBUG", "FAULT", "ADD", "CMD", "set", "TIMES", "1", "ERROR", "OOM command not allowed when used memory > 'maxmemory'.")
	c.do("MULTI")
	if got := c.do("SET", "k", "v"); !strings.HasPrefix(got, "-OOM") {
		t.Fatalf("queued SET: %q", got)
	}
	if got := c.do("EXEC"); got != "-EXECABORT Transaction discarded because of previous errors.\r\n" {
		t.Fatalf("EXEC: %q", got)
	}
	// A cluster redirection on EXEC discards the transaction and replies
	// the error itself, as Redis 7.0's processCommand does.
	c.do("DEBUG", "FAULT", "ADD", "CMD", "exec", "TIMES", "1", "ERROR", "MOVED 3999 127.0.0.1:6381")
	c.do("MULTI")
	c.do("SET", "k", "v")
	if got := c.do("EXEC"); got != "-MOVED 3999 127.0.0.1:6381\r\n" {
		t.Fatalf("EXEC with MOVED: %q", got)
	}
	if got := c.do("EXEC"); got != "-ERR EXEC without MULTI\r\n" {
		t.Fatalf("EXEC after the discarded transaction: %q", got)
	}
	c.do("DEBUG", "FAULT", "ADD", "CMD", "exec", "TIMES", "1", "ERROR", "READONLY You can't write against a read only replica.")
	c.do("MULTI")
	c.do("SET", "k", "v")
	if got := c.do("EXEC"); got != "-EXECABORT Transaction discarded because of: READONLY You can't write against a read only replica.\r\n" {
		t.Fatalf("EXEC with READONLY: %q", got)
	}
	if got := c.do("EXISTS", "k"); got != ":0\r\n" {
		t.Fatalf("k written: %q", got)
	}
}

func TestFaultDelayHoldsOnlyItsClient(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	a.do("CLIENT", "SETNAME", "slow")
	a.do("SET", "k", "v")
	b.do("DEBUG", "FAULT", "ADD", "CMD", "get", "CLIENT", "slow", "DELAY", "400")
	start := time.Now()
	a.send("GET", "k")
	a.send("PING")                                     // pipelined behind the delayed reply
	if got := b.do("GET", "k"); got != "$1\r\nv\r\n" { // another client: no delay
		t.Fatalf("GET from b: %q", got)
	}
	if d := time.Since(start); d > 300*time.Millisecond {
		t.Fatalf("b waited %v behind a's delayed reply", d)
	}
	if got := a.read(5 * time.Second); got != "$1\r\nv\r\n" {
		t.Fatalf("delayed GET: %q", got)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("GET answered after %v, want >= 400ms", d)
	}
	if got := a.read(5 * time.Second); got != "+PONG\r\n" {
		t.Fatalf("PING after the delayed GET: %q", got)
	}
}

func TestFaultConnectionActions(t *testing.T) {
	s := startTestServer(t)
	ctl := dialTest(t, s)
	ctl.do("SET", "big", strings.Repeat("x", 100))

	ctl.do("DEBUG", "FAULT", "ADD", "CMD", "set", "KEY", "before", "CLOSE-BEFORE")
	ctl.do("DEBUG", "FAULT", "ADD", "CMD", "set", "KEY", "after", "CLOSE-AFTER")
	ctl.do("DEBUG", "FAULT", "ADD", "CMD", "get", "KEY", "big", "TRUNCATE", "10")
	ctl.do("DEBUG", "FAULT", "ADD", "CMD", "set", "KEY", "lost", "DROP-REPLY")

	c := dialTest(t, s)
	c.send("PING")
	c.send("SET", "before", "1")
	if got, closed := c.ReadAllUntilClose(5 * time.Second); string(got) != "+PONG\r\n" || !closed {
		t.Fatalf("CLOSE-BEFORE: %q closed=%v", got, closed)
	}
	c = dialTest(t, s)
	c.send("SET", "after", "1")
	if got, closed := c.ReadAllUntilClose(5 * time.Second); len(got) != 0 || !closed {
		t.Fatalf("CLOSE-AFTER: %q closed=%v", got, closed)
	}
	c = dialTest(t, s)
	c.send("GET", "big")
	if got, closed := c.ReadAllUntilClose(5 * time.Second); string(got) != "$100\r\nxxxx" || !closed {
		t.Fatalf("TRUNCATE: %q closed=%v", got, closed)
	}
	c = dialTest(t, s)
	c.send("SET", "lost", "1")
	if got := c.do("GET", "lost"); got != "$1\r\n1\r\n" { // the SET's reply never came
		t.Fatalf("after DROP-REPLY: %q", got)
	}
	if got := ctl.do("MGET", "before", "after"); got != "*2\r\n$-1\r\n$1\r\n1\r\n" {
		t.Fatalf("CLOSE-BEFORE ran the command or CLOSE-AFTER did not: %q", got)
	}
}

func TestFaultForcedWatchConflicts(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	tx := func() string {
		c.do("WATCH", "counter")
		c.do("MULTI")
		c.do("INCR", "counter")
		return c.do("EXEC")
	}
	// Just after the 2nd WATCH of counter, a conflicting write.
	c.do("DEBUG", "FAULT", "ADD", "CMD", "watch", "KEY", "counter", "NTH", "2", "RUN-AFTER", "INCRBY", "counter", "100")
	for i, want := range []string{"*1\r\n:1\r\n", "*-1\r\n", "*1\r\n:102\r\n"} {
		if got := tx(); got != want {
			t.Fatalf("transaction %d: %q, want %q", i, got, want)
		}
	}
	c.do("DEBUG", "FAULT", "CLEAR")
	// Just before each EXEC, twice.
	c.do("DEBUG", "FAULT", "ADD", "CMD", "exec", "TIMES", "2", "RUN-BEFORE", "SET", "counter", "0")
	for i, want := range []string{"*-1\r\n", "*-1\r\n", "*1\r\n:1\r\n"} {
		if got := tx(); got != want {
			t.Fatalf("transaction %d with RUN-BEFORE: %q, want %q", i, got, want)
		}
	}
	c.do("DEBUG", "FAULT", "CLEAR")
	// ABORT-EXEC for clients watching user:*; others go through.
	c.do("DEBUG", "FAULT", "ADD", "KEY", "user:*", "TIMES", "1", "ABORT-EXEC")
	if got := tx(); got != "*1\r\n:2\r\n" {
		t.Fatalf("EXEC watching counter: %q", got)
	}
	c.do("WATCH", "user:1")
	c.do("MULTI")
	c.do("SET", "user:1", "x")
	if got := c.do("EXEC"); got != "*-1\r\n" {
		t.Fatalf("EXEC watching user:1: %q", got)
	}
	if got := c.do("EXISTS", "user:1"); got != ":0\r\n" {
		t.Fatalf("aborted EXEC wrote: %q", got)
	}
}

func TestFaultLifecycle(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	c.do("DEBUG", "FAULT", "ADD", "CMD", "ping", "EVERY", "2", "ERROR", "BUSY Redis is busy running a script.")
	c.do("DEBUG", "FAULT", "ADD", "CMD", "echo", "DB", "1", "ERROR", "TRYAGAIN Multiple keys request during rehashing of slot")
	var got []string
	for range 4 {
		got = append(got, c.do("PING"))
	}
	if strings.Join(got, "") != "+PONG\r\n-BUSY Redis is busy running a script.\r\n+PONG\r\n-BUSY Redis is busy running a script.\r\n" {
		t.Fatalf("EVERY 2: %q", got)
	}
	if r := c.do("ECHO", "x"); r != "$1\r\nx\r\n" {
		t.Fatalf("ECHO in db 0: %q", r)
	}
	c.do("SELECT", "1")
	if r := c.do("ECHO", "x"); !strings.HasPrefix(r, "-TRYAGAIN") {
		t.Fatalf("ECHO in db 1: %q", r)
	}
	c.do("FLUSHALL")
	if r := c.do("DEBUG", "FAULT", "LIST"); !strings.HasPrefix(r, "*2\r\n") {
		t.Fatalf("faults after FLUSHALL: %q", r)
	}
	if r := c.do("DEBUG", "FAULT", "DEL", "1", "7"); r != ":1\r\n" {
		t.Fatalf("DEL: %q", r)
	}
	if r := c.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING after DEL: %q", r)
	}
	if r := c.do("DEBUG", "FAULT", "CLEAR"); r != ":1\r\n" {
		t.Fatalf("CLEAR: %q", r)
	}
	if r := c.do("ECHO", "x"); r != "$1\r\nx\r\n" {
		t.Fatalf("ECHO after CLEAR: %q", r)
	}
	for _, bad := range [][]string{
		{"DEBUG", "FAULT", "ADD"},
		{"DEBUG", "FAULT", "ADD", "CMD", "get"},
		{"DEBUG", "FAULT", "ADD", "ERROR", "x", "CMD", "get"},
		{"DEBUG", "FAULT", "ADD", "NTH", "x", "DROP-REPLY"},
		{"DEBUG", "FAULT", "ADD", "PROB", "2", "DROP-REPLY"},
		{"DEBUG", "FAULT", "ADD", "BOGUS"},
		{"DEBUG", "FAULT", "ADD", "RUN-AFTER"},
		{"DEBUG", "FAULT", "LIST", "x"},
		{"DEBUG", "FAULT"},
	} {
		if r := c.do(bad...); r[0] != '-' {
			t.Errorf("%q: %q, want an error", bad, r)
		}
	}
}

// TestFaultProbabilityIsSeeded: the same seed fires on the same calls.
func TestFaultProbabilityIsSeeded(t *testing.T) {
	run := func() string {
		s := startTestServer(t)
		c := dialTest(t, s)
		c.do("DEBUG", "FAULT", "ADD", "CMD", "ping", "PROB", "0.5", "SEED", "42", "ERROR", "ERR injected")
		var b strings.Builder
		for range 40 {
			if c.do("PING")[0] == '-' {
				b.WriteByte('x')
			} else {
				b.WriteByte('.')
			}
		}
		return b.String()
	}
	a, b := run(), run()
	if a != b || !strings.Contains(a, "x") || !strings.Contains(a, ".") {
		t.Fatalf("seeded runs differ or are one-sided: %s / %s", a, b)
	}
}

// TestFaultSparesLocalClients: the Go API's faults never touch a
// LocalClient (typed access), while its writes still break WATCH.
func TestFaultSparesLocalClients(t *testing.T) {
	s := startTestServer(t)
	id, err := s.AddFault(Fault{Command: "set", Action: FaultError("ERR injected")})
	if err != nil || id != 1 {
		t.Fatalf("AddFault: %d %v", id, err)
	}
	l := s.NewLocalClient("test")
	defer l.Close()
	if got := string(l.Do([]byte("SET"), []byte("k"), []byte("v"))); got != "+OK\r\n" {
		t.Fatalf("local SET: %q", got)
	}
	c := dialTest(t, s)
	if got := c.do("SET", "k", "w"); got != "-ERR injected\r\n" {
		t.Fatalf("client SET: %q", got)
	}
	if fs := s.Faults(); len(fs) != 1 || fs[0].Fired != 1 || fs[0].Spec != `CMD "set" ERROR "ERR injected"` {
		t.Fatalf("Faults: %+v", fs)
	}
	if !s.DelFault(1) || s.DelFault(1) || s.ClearFaults() != 0 {
		t.Fatal("DelFault/ClearFaults")
	}
	if _, err := s.AddFault(Fault{}); err == nil {
		t.Fatal("AddFault without an action")
	}
}

// TestFaultsLeaveOtherCommandsAlone: with faults installed that match none
// of a script's calls (other commands, keys, clients, databases, spent
// ones), every reply byte equals the reply of a server without faults.
func TestFaultsLeaveOtherCommandsAlone(t *testing.T) {
	script := [][]string{
		{"SET", "k", "v"}, {"GET", "k"}, {"INCR", "n"}, {"RPUSH", "l", "a", "b"}, {"LRANGE", "l", "0", "-1"},
		{"WATCH", "k"}, {"MULTI"}, {"SET", "k", "w"}, {"GET", "k"}, {"EXEC"},
		{"HSET", "h", "f", "v"}, {"HGETALL", "h"}, {"GET", "nosuch"}, {"LPUSH", "k", "x"},
		{"XADD", "s", "1-1", "f", "v"}, {"XRANGE", "s", "-", "+"}, {"DEL", "k", "l"}, {"PING"},
		{"MULTI"}, {"INCR", "n"}, {"EXEC"}, {"SELECT", "0"}, {"DBSIZE"},
	}
	run := func(faults [][]string) []string {
		s := startTestServer(t)
		ctl := dialTest(t, s)
		for _, f := range faults {
			if r := ctl.do(append([]string{"DEBUG", "FAULT", "ADD"}, f...)...); r[0] != ':' {
				t.Fatalf("ADD %q: %q", f, r)
			}
		}
		c := dialTest(t, s)
		var out []string
		for _, cmd := range script {
			out = append(out, c.do(cmd...))
		}
		return out
	}
	want := run(nil)
	got := run([][]string{
		{"CMD", "get", "KEY", "other:*", "ERROR", "ERR injected"},
		{"CMD", "sadd", "CLOSE-BEFORE"},
		{"CLIENT", "someone-else", "DROP-REPLY"},
		{"DB", "5", "ERROR", "ERR injected"},
		{"CMD", "exec", "KEY", "unwatched", "ABORT-EXEC"},
		{"CMD", "incr", "NTH", "1000", "RUN-AFTER", "SET", "n", "0"},
		{"CMD", "ping", "PROB", "0.000001", "SEED", "3", "DELAY", "1000"},
	})
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%q: %q with faults, %q without", script[i], got[i], want[i])
		}
	}
}

func FuzzParseFault(f *testing.F) {
	f.Add("CMD get KEY user:* TIMES 2 ERROR x")
	f.Add("PROB 0.5 SEED 7 EVERY 3 RUN-AFTER SET k v")
	f.Add("DB 1 NTH 2 DELAY 10")
	f.Fuzz(func(t *testing.T, line string) {
		var args [][]byte
		for _, w := range strings.Fields(line) {
			args = append(args, []byte(w))
		}
		ft, err := parseFault(args)
		if err != "" {
			return
		}
		if ft.Action.kind == faultNone {
			t.Fatalf("%q parsed without an action", line)
		}
		if ft.validate() == nil {
			_ = ft.spec()
		}
	})
}
