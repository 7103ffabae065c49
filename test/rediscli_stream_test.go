package test

import "testing"

// redis-cli with streams on both servers: replies of XADD, XRANGE, XREAD
// (RESP2 and -3), XINFO, and a blocking XREAD that times out.

func TestRedisCLIStream(t *testing.T) {
	cli := requireRedisCLI(t)
	rs, ms := leaseServer(t, redis), leaseServer(t, ours)
	if selfCheck() {
		ms = leaseServer(t, redis)
	}
	same := func(stdin string, args ...string) {
		t.Helper()
		want := runCLI(t, cli, rs, stdin, args...)
		got := runCLI(t, cli, ms, stdin, args...)
		if want != got {
			t.Errorf("redis-cli %q printed\n--- redis-server:\n%s--- miniwatchd:\n%s", args, want, got)
		}
	}
	same("", "DEL", "cli:s")
	same("", "XADD", "cli:s", "1-1", "name", "ada", "lang", "go")
	same("XADD cli:s 2-1 name bob\nXADD cli:s 3-1 name cy\n")
	same("", "XRANGE", "cli:s", "-", "+")
	same("", "--raw", "XREVRANGE", "cli:s", "+", "-", "COUNT", "2")
	same("", "XREAD", "COUNT", "2", "STREAMS", "cli:s", "0")
	same("", "-3", "XREAD", "STREAMS", "cli:s", "1-1")
	same("", "XGROUP", "CREATE", "cli:s", "g", "0")
	same("", "XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "cli:s", ">")
	same("", "XINFO", "STREAM", "cli:s")
	same("", "-3", "XINFO", "GROUPS", "cli:s")
	same("", "XREAD", "BLOCK", "100", "STREAMS", "cli:s", "$")
	same("", "XADD", "cli:s", "1-0", "x", "y")
	same("", "DEL", "cli:s")
}
