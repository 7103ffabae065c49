package aof

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Helpers for tests that run a real redis-server 7.0: they are skipped when
// redis-server is missing, unless the CI environment variable is set.

// needRedis returns the path of redis-server or skips the test.
func needRedis(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found and CI is set")
		}
		t.Skip("redis-server not found")
	}
	return p
}

// redisProc is a redis-server started by a test.
type redisProc struct {
	cmd  *exec.Cmd
	addr string
}

// startRedis starts redis-server in dir with extra arguments and waits
// until it answers; it is stopped when the test ends.
func startRedis(t *testing.T, dir string, extra ...string) *redisProc {
	t.Helper()
	bin := needRedis(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--daemonize", "no", "--enable-debug-command", "yes"}, extra...)
	cmd := exec.Command(bin, args...)
	logf, err := os.Create(dir + "/redis.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &redisProc{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	t.Cleanup(func() { r.stop(); logf.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := dialResp(r.addr); err == nil {
			c.close()
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start; see %s/redis.log", dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop shuts the server down without saving and waits for it.
func (r *redisProc) stop() {
	if r.cmd.Process == nil || r.cmd.ProcessState != nil {
		return
	}
	if c, err := dialResp(r.addr); err == nil {
		c.do("SHUTDOWN", "NOSAVE")
		c.close()
	}
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
}

// respConn is the shared RESP test client.
type respConn struct{ *resptest.Conn }

func dialResp(addr string) (*respConn, error) {
	c, err := resptest.Dial(addr)
	if err != nil {
		return nil, err
	}
	return &respConn{c}, nil
}

func (r *respConn) close() { r.Close() }

// do sends a command and returns its reply: string for status and bulk
// replies (resptest.Nil, "<nil>", for null), int64, error, or []any.
func (r *respConn) do(args ...string) any { return r.DoValue(args...) }

// doBytes is do with binary arguments.
func (r *respConn) doBytes(args [][]byte) any { return r.DoArgsValue(args) }
