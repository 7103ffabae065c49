package server

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
)

// In-process tests of busy scripts: clients without connections drive
// processCommand from their own goroutines, as connection goroutines do,
// so the race detector sees the engine lock being handed over while a
// script runs.

func newScriptTestServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testClient registers a client without a connection.
func testClient(s *Server) *client {
	c := &client{srv: s, id: s.nextID.Add(1), db: s.ks.DB(0), createdAt: time.Now(), authenticated: true}
	c.w.Proto = 2
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	return c
}

// run executes one command line as c under the engine lock and returns
// the reply.
func (c *client) run(args ...string) string {
	s := c.srv
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c.w.Reset()
	s.processCommand(c, b)
	return string(c.w.Buf)
}

// waitBusy waits until the running script has timed out.
func waitBusy(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.mu.Lock()
		busy := s.scriptBusyLocked()
		s.mu.Unlock()
		if busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the script never became busy")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBusyScriptKilled(t *testing.T) {
	s := newScriptTestServer(t)
	a, b, c := testClient(s), testClient(s), testClient(s)
	if r := b.run("CONFIG", "SET", "busy-reply-threshold", "50"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	b.run("SET", "k", "1")
	c.run("WATCH", "k")

	// Background work waits for the script (engineLocker).
	var bgDone sync.WaitGroup
	scriptEnded := make(chan struct{})
	reply := make(chan string, 1)
	go func() {
		reply <- a.run("EVAL", "local i=0 while true do i=i+1 end", "0")
		close(scriptEnded)
	}()
	waitBusy(t, s)
	bgDone.Add(1)
	go func() {
		defer bgDone.Done()
		l := engineLocker{s}
		l.Lock()
		defer l.Unlock()
		select {
		case <-scriptEnded:
		default:
			if s.scripting.run != nil {
				t.Error("engineLocker took the lock while a script ran")
			}
		}
	}()

	const busy = "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"
	for _, tc := range []struct {
		cl   *client
		args []string
		want string
	}{
		{b, []string{"GET", "k"}, busy},
		{b, []string{"FUNCTION", "KILL"}, busy},
		{b, []string{"FUNCTION", "STATS"}, busy},
		{b, []string{"SHUTDOWN"}, busy},
		{c, []string{"MULTI"}, "+OK\r\n"},
		{c, []string{"INCR", "k"}, busy},
		{c, []string{"EXEC"}, "-EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"},
		{b, []string{"SCRIPT", "KILL"}, "+OK\r\n"},
	} {
		if got := tc.cl.run(tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
	got := <-reply
	if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL... script: 653db1ceb7ef061910af88dc7ebf80737358169d, on @user_script:1.") {
		t.Errorf("killed script replied %q", got)
	}
	bgDone.Wait()
	if got := b.run("GET", "k"); got != "$1\r\n1\r\n" {
		t.Errorf("GET after the kill: %q", got)
	}
	if got := b.run("SCRIPT", "KILL"); got != "-NOTBUSY No scripts in execution right now.\r\n" {
		t.Errorf("SCRIPT KILL with nothing running: %q", got)
	}
}

func TestBusyScriptUnkillableAndFunctionKill(t *testing.T) {
	s := newScriptTestServer(t)
	a, b := testClient(s), testClient(s)
	b.run("CONFIG", "SET", "busy-reply-threshold", "50")
	b.run("FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('spin', function() while true do end end)\n"+
		"redis.register_function('wspin', function() redis.call('set', 'x', '1') while true do end end)")

	reply := make(chan string, 1)
	go func() { reply <- a.run("FCALL", "wspin", "0") }()
	waitBusy(t, s)
	const unkillable = "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"
	const fbusy = "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"FUNCTION", "KILL"}, unkillable},
		{[]string{"GET", "x"}, fbusy},
	} {
		if got := b.run(tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
	// Stop it the hard way (Redis: SHUTDOWN NOSAVE); the test kills it.
	s.mu.Lock()
	s.scripting.run.killed = true
	s.mu.Unlock()
	<-reply

	go func() { reply <- a.run("FCALL", "spin", "0") }()
	waitBusy(t, s)
	if got := b.run("SCRIPT", "KILL"); got != fbusy {
		t.Errorf("SCRIPT KILL of a function: %q", got)
	}
	stats := b.run("FUNCTION", "STATS")
	if !strings.Contains(stats, "$4\r\nspin\r\n") || !strings.Contains(stats, "$5\r\nFCALL\r\n") {
		t.Errorf("FUNCTION STATS: %q", stats)
	}
	if got := b.run("FUNCTION", "KILL"); got != "+OK\r\n" {
		t.Errorf("FUNCTION KILL: %q", got)
	}
	if got := <-reply; !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.") {
		t.Errorf("killed function replied %q", got)
	}
}

// TestScriptTimeSnapshot: a script sees the time it started at, even
// across the busy yields that let other clients set the time (spec L-12).
func TestScriptTimeSnapshot(t *testing.T) {
	s := newScriptTestServer(t)
	a, b := testClient(s), testClient(s)
	s.Clock().Freeze()
	b.run("CONFIG", "SET", "busy-reply-threshold", "50")
	b.run("SET", "t", "v", "PX", "100")
	reply := make(chan string, 1)
	go func() {
		reply <- a.run("EVAL", "while redis.call('get', 'stop') == false do end return redis.call('exists', 't')", "0")
	}()
	waitBusy(t, s)
	s.Clock().Advance(time.Second)
	if got := b.run("PING"); !strings.HasPrefix(got, "-BUSY") { // runs during a yield, sets the keyspace time
		t.Errorf("PING during the script: %q", got)
	}
	// Let the script end (no client may write while it is busy).
	s.mu.Lock()
	s.ks.DB(0).SetString([]byte("stop"), []byte("1"), db.TTLClear, 0, db.EvSet)
	s.mu.Unlock()
	if got := <-reply; got != ":1\r\n" {
		t.Errorf("the script saw the key expire: %q", got)
	}
	if got := a.run("EVAL", "return redis.call('exists', 't')", "0"); got != ":0\r\n" {
		t.Errorf("key past its TTL after the script: %q", got)
	}
}

// Commands let in while a script is busy do not take over the current
// client: the script's reads after them are still tracked for its caller.
func TestBusyScriptKeepsCurrentClient(t *testing.T) {
	s := newScriptTestServer(t)
	a, b := testClient(s), testClient(s)
	a.w.Proto = 3
	if r := b.run("CONFIG", "SET", "busy-reply-threshold", "50"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	if r := a.run("CLIENT", "TRACKING", "ON"); r != "+OK\r\n" {
		t.Fatal(r)
	}
	s.mu.Lock()
	a.executing = true
	s.mu.Unlock()
	reply := make(chan string, 1)
	go func() {
		reply <- a.run("EVAL", `local t0 = redis.call('time')
repeat local t = redis.call('time') until (t[1]-t0[1])*1000000 + (t[2]-t0[2]) > 2000000
return redis.call('get', KEYS[1])`, "1", "k")
	}()
	waitBusy(t, s)
	if got := b.run("PING"); !strings.HasPrefix(got, "-BUSY") {
		t.Fatalf("PING while busy: %q", got)
	}
	select {
	case got := <-reply:
		t.Fatalf("the script ended before PING was answered: %q", got)
	default:
	}
	if got := <-reply; got != "_\r\n" {
		t.Fatalf("script reply %q", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ps.tracking.table["k"][a.id]; !ok {
		t.Error("the script's GET was not tracked for its caller")
	}
}

// The command lookup cache of scripts never answers a subcommand for its
// container.
func TestScriptCommandCacheSubcommands(t *testing.T) {
	s := newScriptTestServer(t)
	c := testClient(s)
	for _, tc := range []struct{ script, want string }{
		{"return redis.call('incr', 'k')", ":1\r\n"},
		{"return redis.call('object', 'encoding', 'k')", "$3\r\nint\r\n"},
		{"return redis.pcall('object', 'nosub')", "-ERR Unknown Redis command called from script\r\n"},
		{"return redis.pcall('object')", "-ERR Wrong number of args calling Redis command from script\r\n"},
		{"return redis.call('INCR', 'k')", ":2\r\n"},
		{"return redis.pcall('incr')", "-ERR Wrong number of args calling Redis command from script\r\n"},
	} {
		if got := c.run("EVAL", tc.script, "0"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.script, got, tc.want)
		}
	}
}
