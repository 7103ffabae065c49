package test

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// MONITOR against redis-server: the lines a monitor receives for a mix of
// commands (transactions, scripts, redacted passwords, SELECT, refused and
// admin commands that are not shown), compared line by line after
// normalising the timestamps and the client ports, in RESP2 and RESP3.

var (
	monitorTS   = regexp.MustCompile(`^\+\d{10}\.\d{6} `)
	monitorAddr = regexp.MustCompile(`\[(\d+) 127\.0\.0\.1:\d+\]`)
)

// normMonitorLine replaces a monitor line's timestamp and client port.
func normMonitorLine(raw []byte) string {
	s := monitorTS.ReplaceAllString(string(raw), "+TS ")
	return monitorAddr.ReplaceAllString(s, "[$1 ADDR]")
}

// readMonitorLines reads n lines from monitor m on both servers and
// compares them normalised.
func readMonitorLines(t *testing.T, m *diffConn, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		want, got := m.Read(cmpIgnore)
		if w, g := normMonitorLine(want.Raw), normMonitorLine(got.Raw); w != g {
			t.Fatalf("monitor line %d:\n  redis-server: %q\n  miniwatchd:   %q", i+1, w, g)
		}
	}
}

func TestOpsMonitorLines(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			a := p.Conn("A") // opened first: its HELLO 3 is not fed
			m := p.Conn("M")
			m.Do("MONITOR")
			steps := []struct {
				args  []string
				lines int
				mode  cmpMode
			}{
				{[]string{"SET", "k", "v a\n\x01\"\\"}, 1, cmpExact},
				{[]string{"GET", "k"}, 1, cmpExact},
				{[]string{"AUTH", "secret"}, 1, cmpExact},
				{[]string{"AUTH", "user", "secret"}, 1, cmpExact},
				{[]string{"AUTH", "a", "b", "c"}, 1, cmpExact},
				{[]string{"HELLO", strconv.Itoa(proto), "AUTH", "default", "pw", "SETNAME", "me"}, 1, cmpIgnore},
				{[]string{"NOSUCHCMD", "x"}, 0, cmpExact},
				{[]string{"GET"}, 0, cmpExact},
				{[]string{"CONFIG", "GET", "maxmemory"}, 0, cmpExact},
				{[]string{"CLIENT", "SETNAME", "named"}, 1, cmpExact},
				{[]string{"SELECT", "3"}, 1, cmpExact},
				{[]string{"SET", "n", "1"}, 1, cmpExact},
				{[]string{"SELECT", "0"}, 1, cmpExact},
				{[]string{"MULTI"}, 1, cmpExact},
				{[]string{"SET", "x", "1"}, 0, cmpExact},
				{[]string{"INCR", "x"}, 0, cmpExact},
				{[]string{"EXEC"}, 3, cmpExact},
				{[]string{"MULTI"}, 1, cmpExact},
				{[]string{"INCR"}, 0, cmpExact},
				{[]string{"EXEC"}, 1, cmpExact},
				{[]string{"MULTI"}, 1, cmpExact},
				{[]string{"DISCARD"}, 1, cmpExact},
				{[]string{"EVAL", "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])", "1", "sk", "sv"}, 3, cmpExact},
				{[]string{"EVALSHA", "0123456789012345678901234567890123456789", "0"}, 1, cmpExact},
				{[]string{"EVALSHA", "short", "0"}, 1, cmpExact},
				{[]string{"SET", "k", "v", "bad"}, 1, cmpExact},
				{[]string{"BLPOP", "nolist", "0.05"}, 1, cmpExact},
				{[]string{"SLOWLOG", "LEN"}, 0, cmpIgnore},
				{[]string{"PING"}, 1, cmpExact},
			}
			for _, st := range steps {
				a.DoMode(st.mode, st.args...)
				readMonitorLines(t, m, st.lines)
			}
			m.ExpectNoReply(100e6)
			// A monitor's own commands: its reply, then its line; keyspace
			// commands refused; a second MONITOR answers nothing.
			m.Do("PING")
			readMonitorLines(t, m, 1)
			m.Do("GET", "k")
			m.Send("MONITOR")
			m.Do("ECHO", "e")
			readMonitorLines(t, m, 1)
			m.Do("RESET")
			a.Do("SET", "after", "reset")
			m.ExpectNoReply(100e6)
			// MONITOR inside MULTI is refused at EXEC (deny blocking).
			a.Do("MULTI")
			a.Do("MONITOR")
			a.Do("EXEC")
		})
	}
}
