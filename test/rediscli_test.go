package test

import (
	"context"
	"errors"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// redis-cli against both servers: the same invocation must print the same
// output. Skipped when redis-cli is not installed (unless CI is set).

func requireRedisCLI(t *testing.T) string {
	t.Helper()
	requireRedis(t)
	path, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not on PATH")
	}
	return path
}

// runCLI runs redis-cli against srv with args and stdin, and returns its
// combined output followed by its exit status when that is not 0.
func runCLI(t *testing.T, cli string, srv *leasedServer, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(srv.port)}, args...)
	cmd := exec.CommandContext(ctx, cli, full...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out) + "(exit status " + strconv.Itoa(exit.ExitCode()) + ")\n"
	case err != nil:
		t.Fatalf("redis-cli %q on %s: %v\n%s", args, srv.name, err, out)
	}
	return string(out)
}

func TestRedisCLI(t *testing.T) {
	cli := requireRedisCLI(t)
	rs, ms := leaseServer(t, redis), leaseServer(t, ours)
	if selfCheck() {
		ms = leaseServer(t, redis)
	}
	same := func(stdin string, args ...string) string {
		t.Helper()
		want := runCLI(t, cli, rs, stdin, args...)
		got := runCLI(t, cli, ms, stdin, args...)
		if want != got {
			t.Errorf("redis-cli %q printed\n--- redis-server:\n%s--- miniwatchd:\n%s", args, want, got)
		}
		return got
	}
	same("", "SET", "k", "hello world")
	same("", "--raw", "GET", "k")
	same("", "--no-raw", "GET", "k")
	same("", "--raw", "MGET", "k", "nosuch", "k")
	same("", "--raw", "INCR", "k")
	same("", "INCR", "k")
	same("", "GET", "nosuch")
	same("", "-3", "GET", "nosuch")
	same("", "-3", "CONFIG", "GET", "maxmemory")
	same("", "-n", "3", "SET", "db3key", "v")
	same("", "-n", "3", "DBSIZE")
	same("", "DBSIZE")
	if out := same("", "-n", "3", "--raw", "GET", "db3key"); out != "v\n" {
		t.Errorf("-n 3 GET db3key printed %q", out)
	}
	// Commands read from stdin, one per line.
	same("SET a 1\nINCR a\nGET a\nPING\n")
	same("MULTI\nSET t 1\nINCR t\nEXEC\n")
}

func TestRedisCLIScan(t *testing.T) {
	cli := requireRedisCLI(t)
	rs, ms := leaseServer(t, redis), leaseServer(t, ours)
	for _, srv := range []*leasedServer{rs, ms} {
		c := srv.dial(t)
		for i := 0; i < 200; i++ {
			mustDo(t, c, "SET", "key:"+strconv.Itoa(i), "v")
		}
		mustDo(t, c, "SET", "other", "v")
	}
	for _, args := range [][]string{
		{"--scan"},
		{"--scan", "--pattern", "key:1*"},
		{"--scan", "--pattern", "other"},
		{"--scan", "--pattern", "key:*5"},
	} {
		want := sortedLines(runCLI(t, cli, rs, "", args...))
		got := sortedLines(runCLI(t, cli, ms, "", args...))
		if want != got {
			t.Errorf("redis-cli %q listed different keys\n--- redis-server:\n%s\n--- miniwatchd:\n%s", args, want, got)
		}
		if want == "" {
			t.Errorf("redis-cli %q listed nothing", args)
		}
	}
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestRedisCLIPipe feeds --pipe a mix of multibulk and inline commands that
// ends with an empty inline line: the server must not reply to that line,
// or redis-cli would count one reply too many.
func TestRedisCLIPipe(t *testing.T) {
	cli := requireRedisCLI(t)
	rs, ms := leaseServer(t, redis), leaseServer(t, ours)
	var in strings.Builder
	for i := 0; i < 1000; i++ {
		in.Write(resptest.Command([]string{"SET", "pipe:" + strconv.Itoa(i), strconv.Itoa(i)}...))
	}
	in.WriteString("INCR pipe:1\r\n")
	in.WriteString("INCR notanumber notanumber\r\n") // an error reply
	in.WriteString("\r\n")
	for _, srv := range []*leasedServer{rs, ms} {
		out := runCLI(t, cli, srv, in.String(), "--pipe")
		if !strings.Contains(out, "errors: 1, replies: 1002\n(exit status 1)") {
			t.Errorf("redis-cli --pipe on %s printed:\n%s", srv.name, out)
		}
		c := srv.dial(t)
		if n := mustDo(t, c, "DBSIZE"); n.Int != 1000 {
			t.Errorf("%s: DBSIZE = %d after --pipe", srv.name, n.Int)
		}
		if n := mustDo(t, c, "GET", "pipe:1"); n.Str != "2" {
			t.Errorf("%s: pipe:1 = %s", srv.name, fmtNode(n))
		}
	}
}
