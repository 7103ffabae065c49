package server

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Test helpers of the AOF tests: servers on a directory, a small RESP
// client, a dump of a aofDataset to compare, and redis-server processes.

// aofTestConfig returns a configuration with the AOF on in dir, its base
// written as commands (aof-use-rdb-preamble no), which most tests read;
// aofRDBConfig is the default RDB base.
func aofTestConfig(dir string, fsync string) Config {
	cfg := aofRDBConfig(dir, fsync)
	cfg.Params = maps.Clone(cfg.Params)
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["aof-use-rdb-preamble"] = "no"
	return cfg
}

func aofRDBConfig(dir string, fsync string) Config {
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = dir
	cfg.AppendOnly = true
	cfg.AppendFsync = fsync
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	return cfg
}

// startAOFServer starts an in-process server for cfg; it is closed when the
// test ends. prepare, if given, sets test seams before the AOF opens.
func startAOFServer(t *testing.T, cfg Config, prepare ...func(s *Server)) *Server {
	t.Helper()
	var p func(s *Server)
	if len(prepare) > 0 {
		p = prepare[0]
	}
	s, err := start(cfg, p)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// aofConn is a minimal RESP2 client.
type aofConn struct {
	t  testing.TB
	c  net.Conn
	br *bufio.Reader
}

func dialAOFAddr(t testing.TB, addr string) *aofConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	tc := &aofConn{t: t, c: c, br: bufio.NewReader(c)}
	t.Cleanup(func() { c.Close() })
	return tc
}

func dialAOF(t testing.TB, s *Server) *aofConn { return dialAOFAddr(t, s.Addr().String()) }

// do sends a command and returns the reply: string (status, bulk; "<nil>"
// for null), int64, error, or []any.
func (tc *aofConn) do(args ...string) any {
	tc.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := tc.c.Write(aof.AppendCommandStrings(nil, args...)); err != nil {
		return err
	}
	return aofReadReply(tc.br)
}

// must is do, failing the test on an error reply.
func (tc *aofConn) must(args ...string) any {
	tc.t.Helper()
	r := tc.do(args...)
	if err, ok := r.(error); ok {
		tc.t.Fatalf("%q: %v", args, err)
	}
	return r
}

// aofReadReply reads one reply with the shared RESP test client's reader:
// string (status, bulk; "<nil>" for null), int64, error, or []any.
func aofReadReply(br *bufio.Reader) any {
	n, err := resptest.ReadFrame(br)
	if err != nil {
		return err
	}
	return n.Value()
}

// aofDataset dumps every string key of databases 0..15 as "db:key=value
// ttl-class" lines, sorted: the TTL is reported as "ttl" (has one) or
// "none", plus the deadline in seconds to compare across servers.
func aofDataset(t testing.TB, tc *aofConn) string {
	t.Helper()
	var lines []string
	for db := 0; db < 16; db++ {
		tc.must("SELECT", strconv.Itoa(db))
		keys, _ := tc.must("KEYS", "*").([]any)
		for _, k := range keys {
			key := k.(string)
			v := aofKeyValue(tc, key)
			at := tc.must("PEXPIRETIME", key).(int64)
			ttl := "none"
			if at >= 0 {
				ttl = "at=" + strconv.FormatInt(at, 10)
			}
			lines = append(lines, fmt.Sprintf("%d:%q=%v %s", db, key, v, ttl))
		}
	}
	tc.must("SELECT", "0")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// aofKeyValue renders the value of key whatever its type, with members of
// unordered types sorted.
func aofKeyValue(tc *aofConn, key string) string {
	flat := func(r any) []string {
		var out []string
		for _, x := range r.([]any) {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	switch typ := tc.must("TYPE", key); typ {
	case "string":
		return fmt.Sprint(tc.must("GET", key))
	case "set":
		m := flat(tc.must("SMEMBERS", key))
		sort.Strings(m)
		return "set" + fmt.Sprint(m)
	case "hash":
		m := flat(tc.must("HGETALL", key))
		var pairs []string
		for i := 0; i+1 < len(m); i += 2 {
			pairs = append(pairs, m[i]+"="+m[i+1])
		}
		sort.Strings(pairs)
		return "hash" + fmt.Sprint(pairs)
	case "zset":
		return "zset" + fmt.Sprint(flat(tc.must("ZRANGE", key, "0", "-1", "WITHSCORES")))
	case "list":
		return "list" + fmt.Sprint(flat(tc.must("LRANGE", key, "0", "-1")))
	default:
		return fmt.Sprint(typ)
	}
}

// aofDirFiles returns the manifest text and the names of the files of the AOF
// directory in dir.
func aofDirFiles(t testing.TB, dir string) (string, []string) {
	t.Helper()
	m, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	ents, _ := os.ReadDir(filepath.Join(dir, "appendonlydir"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return string(m), names
}

// aofIncrText returns the commands of the last incremental file, one per
// line, arguments separated by spaces, absolute times replaced by <T>.
func aofIncrText(t testing.TB, dir string) string {
	t.Helper()
	m, err := aof.LoadManifest(filepath.Join(dir, "appendonlydir"), "appendonly.aof")
	if err != nil || m == nil || len(m.Incr) == 0 {
		t.Fatalf("manifest: %v %v", m, err)
	}
	return aofFileCommands(t, filepath.Join(dir, "appendonlydir", m.Incr[len(m.Incr)-1].Name))
}

// aofFileCommands renders the commands of an AOF file as aofIncrText does.
func aofFileCommands(t testing.TB, path string) string {
	t.Helper()
	var lines []string
	_, err := aof.ScanFile(path, func(args [][]byte, start, end int64) error {
		var parts []string
		for _, a := range args {
			s := string(a)
			if len(s) == 13 && s[0] == '1' {
				if _, err := strconv.ParseInt(s, 10, 64); err == nil {
					s = "<T>"
				}
			}
			parts = append(parts, s)
		}
		lines = append(lines, strings.Join(parts, " "))
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return strings.Join(lines, "\n")
}

// aofWaitFor polls cond every 10ms for up to d.
func aofWaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// aofInfoField returns one field of INFO persistence.
func aofInfoField(t testing.TB, tc *aofConn, name string) string {
	t.Helper()
	info := tc.must("INFO", "persistence").(string)
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// aofNeedRedis returns the path of redis-server, or skips the test when it is
// missing and the CI environment variable is unset.
func aofNeedRedis(t testing.TB) string {
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

// aofRedisProc is a redis-server process started by a test.
type aofRedisProc struct {
	cmd  *exec.Cmd
	addr string
	done chan struct{}
}

// startAOFRedis starts redis-server in dir with the AOF settings of args and
// waits for it to accept commands; it is stopped when the test ends.
func startAOFRedis(t testing.TB, dir string, args ...string) *aofRedisProc {
	t.Helper()
	bin := aofNeedRedis(t)
	port := aofFreePort(t)
	all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--dir", dir, "--daemonize", "no", "--enable-debug-command", "yes",
		"--logfile", filepath.Join(dir, "redis.log")}, args...)
	cmd := exec.Command(bin, all...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &aofRedisProc{cmd: cmd, addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan struct{})}
	go func() { cmd.Wait(); close(r.done) }()
	t.Cleanup(func() { r.stop("NOSAVE") })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", r.addr); err == nil {
			c.Write(aof.AppendCommandStrings(nil, "PING"))
			c.SetReadDeadline(time.Now().Add(time.Second))
			rep := aofReadReply(bufio.NewReader(c))
			c.Close()
			if rep == "PONG" { // not -LOADING
				return r
			}
		}
		select {
		case <-r.done:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server exited:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SHUTDOWN with mode and waits for the process.
func (r *aofRedisProc) stop(mode string) {
	select {
	case <-r.done:
		return
	default:
	}
	if c, err := net.DialTimeout("tcp", r.addr, time.Second); err == nil {
		c.Write(aof.AppendCommandStrings(nil, "SHUTDOWN", mode))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		io.Copy(io.Discard, c)
		c.Close()
	}
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
}

func aofFreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
