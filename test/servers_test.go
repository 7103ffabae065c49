package test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serverProc is one running server process (miniwatchd or redis-server)
// listening on 127.0.0.1:port.
type serverProc struct {
	name    string // "miniwatchd" or "redis-server"
	port    int
	addr    string
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{} // closed when the process has exited
}

var (
	procsMu sync.Mutex
	procs   = map[*serverProc]bool{} // every process not stopped yet
)

// commonServerArgs are the options both servers start with: the same
// persistence and debug settings, so replies can be compared.
func commonServerArgs(port int) []string {
	return []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
	}
}

// redisServerPath returns the redis-server on PATH, or "".
func redisServerPath() string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return ""
	}
	return p
}

// requireRedis skips t when redis-server is not installed, unless the
// environment variable CI is set: in CI a missing redis-server fails.
func requireRedis(t testing.TB) {
	t.Helper()
	if redisServerPath() != "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("redis-server is not on PATH and CI is set: differential tests cannot run")
	}
	t.Skip("redis-server is not on PATH (set CI to make this a failure)")
}

// startOurs starts the miniwatchd binary (built on first use).
func startOurs(extra ...string) (*serverProc, error) {
	bin, err := ourBinary()
	if err != nil {
		return nil, err
	}
	return startProc("miniwatchd", bin, extra)
}

// startRedis starts redis-server from PATH.
func startRedis(extra ...string) (*serverProc, error) {
	path := redisServerPath()
	if path == "" {
		return nil, errors.New("redis-server is not on PATH")
	}
	return startProc("redis-server", path, extra)
}

// startProc starts binary on a free port and waits until it answers PING.
// A port taken between choosing and binding is retried on another port.
func startProc(name, binary string, extra []string) (*serverProc, error) {
	return startProcConf(name, binary, "", extra)
}

// startProcConf is startProc with a config file as the first argument
// ("" for none), as redis-server requires it there.
func startProcConf(name, binary, conf string, extra []string) (*serverProc, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p, err := launch(name, binary, conf, port, extra)
		if err == nil {
			return p, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func launch(name, binary, conf string, port int, extra []string) (*serverProc, error) {
	logf, err := os.CreateTemp("", name+"-*.log")
	if err != nil {
		return nil, err
	}
	args := append(commonServerArgs(port), extra...)
	if conf != "" {
		args = append([]string{conf}, args...)
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %v", name, err)
	}
	p := &serverProc{
		name: name, port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		cmd: cmd, logPath: logf.Name(), exited: make(chan struct{}),
	}
	go func() {
		cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	procsMu.Lock()
	procs[p] = true
	procsMu.Unlock()
	if err := p.waitReady(20 * time.Second); err != nil {
		p.stop()
		return nil, fmt.Errorf("%s on port %d: %v\n%s", name, port, err, p.logTail())
	}
	return p, nil
}

// waitReady polls until the server answers PING with +PONG.
func (p *serverProc) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return errors.New("exited before it was ready")
		default:
		}
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(2 * time.Second))
			c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if err == nil && line == "+PONG\r\n" {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("not ready in time")
}

// stop ends the process (SIGTERM, then SIGKILL after 10s) and waits for it.
func (p *serverProc) stop() {
	procsMu.Lock()
	delete(procs, p)
	procsMu.Unlock()
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	os.Remove(p.logPath)
}

// alive reports whether the process is still running.
func (p *serverProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// logTail returns the last lines the process printed.
func (p *serverProc) logTail() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// stopAllServers stops every process still running (TestMain).
func stopAllServers() {
	procsMu.Lock()
	list := make([]*serverProc, 0, len(procs))
	for p := range procs {
		list = append(list, p)
	}
	procsMu.Unlock()
	var wg sync.WaitGroup
	for _, p := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop()
		}()
	}
	wg.Wait()
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
