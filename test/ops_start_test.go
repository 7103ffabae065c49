package test

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// How harnesses start redis-server, applied to the miniwatchd binary: Redis's
// test-suite config style (logo on stdout, "PID: <pid>", the ready line), a
// config on standard input with only a Unix socket (port 0), daemonize yes
// with a pidfile, and SHUTDOWN closing the listeners before the caller's
// connection closes.

// startBinary starts bin with args and stdin, and returns the process and
// a channel of its stdout lines.
func startBinary(t *testing.T, bin string, stdin string, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, lines
}

// waitLine reads lines until one matches re, returning all lines read.
func waitLine(t *testing.T, lines <-chan string, re *regexp.Regexp) []string {
	t.Helper()
	var seen []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("output ended before %v:\n%s", re, strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if re.MatchString(l) {
				return seen
			}
		case <-deadline:
			t.Fatalf("no line matching %v within 10s:\n%s", re, strings.Join(seen, "\n"))
		}
	}
}

// pingAt sends PING over conn and requires +PONG.
func pingAt(t *testing.T, network, addr string) {
	t.Helper()
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		t.Fatalf("dial %s %s: %v", network, addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	c.Write([]byte("PING\r\n"))
	buf := make([]byte, 16)
	n, _ := c.Read(buf)
	if string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("PING over %s %s: %q", network, addr, buf[:n])
	}
}

func TestOpsStartRedisTestConfig(t *testing.T) {
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "default.conf")
	// The settings of Redis's tests/assets/default.conf that matter here.
	text := "always-show-logo yes\nnotify-keyspace-events KEA\ndaemonize no\npidfile /var/run/redis.pid\n" +
		"port " + strconv.Itoa(port) + "\ntimeout 0\nbind 127.0.0.1\nloglevel verbose\nlogfile ''\n" +
		"databases 16\nlatency-monitor-threshold 1\nrepl-diskless-sync-delay 0\nsave ''\n" +
		"appendonly no\nappendfsync everysec\nactiverehashing yes\nunixsocket " + filepath.Join(dir, "socket") + "\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// pidfile /var/run may not be writable: the server logs and goes on,
	// as Redis does. Give it a writable one through an option instead.
	pidfile := filepath.Join(dir, "redis.pid")
	cmd, lines := startBinary(t, bin, "", conf, "--pidfile", pidfile)
	seen := waitLine(t, lines, regexp.MustCompile(`Ready to accept connections`))
	all := strings.Join(seen, "\n")
	if !strings.Contains(all, "PID: "+strconv.Itoa(cmd.Process.Pid)) || !strings.Contains(all, "Port: "+strconv.Itoa(port)) {
		t.Fatalf("no PID/Port lines for pid %d port %d:\n%s", cmd.Process.Pid, port, all)
	}
	line := regexp.MustCompile(`^` + strconv.Itoa(cmd.Process.Pid) + `:M \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} [.*#-] Server initialized$`)
	found := false
	for _, l := range seen {
		found = found || line.MatchString(l)
	}
	if !found {
		t.Fatalf("no \"Server initialized\" line in Redis's format:\n%s", all)
	}
	pingAt(t, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	pingAt(t, "unix", filepath.Join(dir, "socket"))
	if b, err := os.ReadFile(pidfile); err != nil || string(b) != strconv.Itoa(cmd.Process.Pid)+"\n" {
		t.Fatalf("pidfile: %q %v", b, err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("SHUTDOWN NOSAVE\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _ := c.Read(make([]byte, 64)); n != 0 {
		t.Fatalf("SHUTDOWN replied %d bytes", n)
	}
	// The connection closed: the listeners are closed too.
	if c2, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		c2.Close()
		t.Fatal("a new connection was accepted after SHUTDOWN closed the caller's")
	}
	waitLine(t, lines, regexp.MustCompile(`# User requested shutdown\.\.\.$`))
	waitLine(t, lines, regexp.MustCompile(`ready to exit, bye bye\.\.\.$`))
	cmd.Wait()
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Fatalf("pidfile left behind: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "socket")); !os.IsNotExist(err) {
		t.Fatalf("unix socket file left behind: %v", err)
	}
}

// TestOpsStartStdinUnixSocket starts both servers with the config on
// standard input, port 0 and a Unix socket only, and compares what a Unix
// socket client sees (CLIENT LIST addr/laddr/flags, MONITOR's source).
func TestOpsStartStdinUnixSocket(t *testing.T) {
	requireRedis(t)
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var views []string
	for _, b := range []string{redisServerPath(), bin} {
		sock := filepath.Join(dir, filepath.Base(b)+".sock")
		_, lines := startBinary(t, b, "port 0\nunixsocket "+sock+"\nunixsocketperm 700\nsave ''\n", "-")
		waitLine(t, lines, regexp.MustCompile(`(?i)ready to accept connections`))
		st, err := os.Stat(sock)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: socket %v perm %v", b, err, st)
		}
		if out, err := exec.Command("redis-cli", "-s", sock, "PING").CombinedOutput(); err != nil || string(out) != "PONG\n" {
			t.Fatalf("%s: redis-cli -s: %q %v", b, out, err)
		}
		mon, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer mon.Close()
		mon.Write([]byte("MONITOR\r\n"))
		rd := bufio.NewReader(mon)
		rd.ReadString('\n')
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("CLIENT INFO\r\n"))
		crd := bufio.NewReader(c)
		crd.ReadString('\n')
		info, _ := crd.ReadString('\n')
		c.Write([]byte("ECHO hi\r\n"))
		mon.SetReadDeadline(time.Now().Add(3 * time.Second))
		feed, _ := rd.ReadString('\n')
		c.Close()
		fields := map[string]string{}
		for _, f := range strings.Fields(info) {
			k, v, _ := strings.Cut(f, "=")
			fields[k] = v
		}
		norm := func(s string) string { return strings.ReplaceAll(s, sock, "SOCK") }
		feed = regexp.MustCompile(`^\+\d+\.\d+ `).ReplaceAllString(feed, "+TS ")
		views = append(views, norm("addr="+fields["addr"]+" laddr="+fields["laddr"]+" flags="+fields["flags"]+" feed="+feed))
		// port 0: nothing listens on TCP (the pid's sockets are Unix only)
	}
	if views[0] != views[1] {
		t.Fatalf("Unix socket client differs:\n  redis-server: %q\n  miniwatchd:   %q", views[0], views[1])
	}
}

// TestOpsStartDaemonize starts the binary with daemonize yes and a pidfile:
// the command returns once the server is ready, the pidfile names the
// server's process, and SHUTDOWN removes it.
func TestOpsStartDaemonize(t *testing.T) {
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "d.pid")
	logfile := filepath.Join(dir, "d.log")
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--daemonize", "yes", "--pidfile", pidfile,
		"--logfile", logfile, "--save", "")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("daemonize: %v %s", err, out.String())
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	proc, _ := os.FindProcess(pid)
	t.Cleanup(func() { proc.Kill() })
	if pid == cmd.Process.Pid || pid <= 0 {
		t.Fatalf("pidfile names %d (parent %d)", pid, cmd.Process.Pid)
	}
	pingAt(t, "tcp", "127.0.0.1:"+strconv.Itoa(port)) // ready when the parent returned
	if o, err := exec.Command("redis-cli", "-p", strconv.Itoa(port), "SHUTDOWN").CombinedOutput(); err != nil && len(o) > 0 {
		t.Logf("SHUTDOWN: %s", o)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(pidfile); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pidfile not removed after SHUTDOWN")
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(logfile)
	for _, want := range []string{"Ready to accept connections tcp", "Removing the pid file.", "bye bye"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestOpsStartSupervisedSystemd starts the binary under a fake systemd: it
// must send READY=1 on NOTIFY_SOCKET once it serves, and STOPPING=1 at exit.
func TestOpsStartSupervisedSystemd(t *testing.T) {
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sockPath := filepath.Join(dir, "notify")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--supervised", "systemd", "--save", "")
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sockPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 256)
	l.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := l.Read(buf)
	if err != nil || string(buf[:n]) != "STATUS=Ready to accept connections\nREADY=1\n" {
		t.Fatalf("notify: %q %v", buf[:n], err)
	}
	pingAt(t, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Process.Signal(os.Interrupt)
	n, err = l.Read(buf)
	if err != nil || string(buf[:n]) != "STOPPING=1\n" {
		t.Fatalf("notify at exit: %q %v", buf[:n], err)
	}
}
