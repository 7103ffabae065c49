package aof

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
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

// respConn is a minimal RESP2 client.
type respConn struct {
	c  net.Conn
	br *bufio.Reader
}

func dialResp(addr string) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{c: c, br: bufio.NewReader(c)}, nil
}

func (r *respConn) close() { r.c.Close() }

// do sends a command and returns its reply: string for status and bulk
// replies ("<nil>" for null), int64, error, or []any.
func (r *respConn) do(args ...string) any {
	var b []byte
	b = AppendCommandStrings(b, args...)
	r.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := r.c.Write(b); err != nil {
		return err
	}
	return r.read()
}

// doBytes is do with binary arguments.
func (r *respConn) doBytes(args [][]byte) any {
	r.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := r.c.Write(AppendCommand(nil, args...)); err != nil {
		return err
	}
	return r.read()
}

func (r *respConn) read() any {
	line, err := r.br.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+':
		return line[1:]
	case '-':
		return fmt.Errorf("%s", line[1:])
	case ':':
		n, _ := strconv.ParseInt(line[1:], 10, 64)
		return n
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "<nil>"
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(r.br, buf); err != nil {
			return err
		}
		return string(buf[:n])
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "<nil>"
		}
		out := make([]any, n)
		for i := range out {
			out[i] = r.read()
		}
		return out
	}
	return fmt.Errorf("bad reply %q", line)
}

func ioReadFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := br.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
