package test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Busy scripts end to end (spec L-14, E-14), on redis-server and
// miniwatchd side by side: a script in an endless loop makes other clients
// get BUSY once busy-reply-threshold has passed, transactions cannot EXEC,
// SCRIPT KILL / FUNCTION KILL stop what they may stop, and the server
// serves everyone again afterwards.

// sdBusyWait is how long the tests wait for a script to pass the
// threshold (100 ms), with room for a loaded machine.
const sdBusyWait = 600 * time.Millisecond

func TestScriptBusyEvalKilled(t *testing.T) {
	p := sdNewPair(t)
	b := p.conn(2)
	c := p.conn(2)
	a := p.conn(2)
	sdRun(b, cmd("CONFIG", "SET", "busy-reply-threshold", "100"), cmd("SET", "k", "1"))
	sdRun(c, cmd("WATCH", "k"))
	a.send("EVAL", "local i=0 while true do i=i+1 end", "0")
	time.Sleep(sdBusyWait)
	sdRun(b,
		cmd("GET", "k"),
		cmd("PING"),
		cmd("FUNCTION", "STATS"),
		cmd("FUNCTION", "KILL"),
		cmd("SHUTDOWN"),
	)
	sdRun(c, cmd("MULTI"), cmd("INCR", "k"), cmd("EXEC"))
	sdRun(b, cmd("SCRIPT", "KILL"))
	r, o := a.read()
	if !sdSame(r, o, sdExact) {
		t.Errorf("killed script's reply:\n redis-server: %s\n miniwatchd:   %s", sdShow(r), sdShow(o))
	}
	if !strings.HasPrefix(string(o), "-ERR Script killed by user with SCRIPT KILL... script: ") {
		t.Errorf("killed script's reply: %s", sdShow(o))
	}
	sdRun(b, cmd("GET", "k"), cmd("SCRIPT", "KILL"))
	sdRun(a, cmd("PING"))
	sdRun(b, cmd("CONFIG", "SET", "busy-reply-threshold", "5000"))
}

func TestScriptBusyPcallCannotCatchKill(t *testing.T) {
	p := sdNewPair(t)
	a := p.conn(3)
	b := p.conn(3)
	sdRun(b, cmd("CONFIG", "SET", "busy-reply-threshold", "100"))
	a.send("EVAL", "while true do pcall(function() local i = 0 while true do i = i + 1 end end) end", "0")
	time.Sleep(sdBusyWait)
	sdRun(b, cmd("SCRIPT", "KILL"))
	r, o := a.read()
	if !sdSame(r, o, sdExact) {
		t.Errorf("killed script's reply:\n redis-server: %s\n miniwatchd:   %s", sdShow(r), sdShow(o))
	}
	sdRun(b, cmd("PING"), cmd("CONFIG", "SET", "busy-reply-threshold", "5000"))
}

func TestScriptBusyFunctionKilled(t *testing.T) {
	p := sdNewPair(t)
	a := p.conn(2)
	b := p.conn(2)
	sdRun(b,
		cmd("CONFIG", "SET", "busy-reply-threshold", "100"),
		cmd("FUNCTION", "LOAD", "#!lua name=busy\nredis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)"),
	)
	a.send("FCALL", "spin", "0")
	time.Sleep(sdBusyWait)
	sdRun(b,
		cmd("GET", "k"),
		cmd("SCRIPT", "KILL"),
	)
	// FUNCTION STATS names the running function and its command.
	r, o := b.do("FUNCTION", "STATS")
	for _, reply := range [][]byte{r, o} {
		if !strings.Contains(string(reply), "$4\r\nspin\r\n") || !strings.Contains(string(reply), "$5\r\nFCALL\r\n") {
			t.Errorf("FUNCTION STATS during FCALL: %s", sdShow(reply))
		}
	}
	sdRun(b, cmd("FUNCTION", "KILL"))
	r, o = a.read()
	if !sdSame(r, o, sdExact) {
		t.Errorf("killed function's reply:\n redis-server: %s\n miniwatchd:   %s", sdShow(r), sdShow(o))
	}
	sdRun(b, cmd("FUNCTION", "STATS"), cmd("CONFIG", "SET", "busy-reply-threshold", "5000"))
}

// TestScriptBusyUnkillable: a script that wrote cannot be killed; SHUTDOWN
// needs NOSAVE, which stops the server (miniwatchd only: the server goes).
func TestScriptBusyUnkillable(t *testing.T) {
	p := sdNewPair(t)
	ours, err := net.Dial("tcp", p.ours)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	a := bufio.NewReader(ours)
	other, err := net.Dial("tcp", p.ours)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b := bufio.NewReader(other)
	do := func(conn net.Conn, r *bufio.Reader, args ...string) string {
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		conn.Write(resptest.Command(args...))
		reply, err := resptest.ReadRaw(r)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(reply)
	}
	do(other, b, "CONFIG", "SET", "busy-reply-threshold", "100")
	ours.Write(resptest.Command("EVAL", "redis.call('set','w','1') while true do end", "0"))
	time.Sleep(sdBusyWait)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SCRIPT", "KILL"}, "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"},
		{[]string{"SHUTDOWN"}, "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"},
		{[]string{"GET", "w"}, "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"},
	} {
		if got := do(other, b, tc.args...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.args, got, tc.want)
		}
	}
	other.Write(resptest.Command("SHUTDOWN", "NOSAVE"))
	other.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := b.ReadByte(); err == nil {
		t.Errorf("SHUTDOWN NOSAVE answered instead of closing the connection")
	}
	ours.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		if _, err := a.ReadByte(); err != nil {
			break // the script's connection goes with the server
		}
	}
	if c, err := net.DialTimeout("tcp", p.ours, time.Second); err == nil {
		c.Close()
		t.Errorf("server still accepting connections after SHUTDOWN NOSAVE")
	}
}
