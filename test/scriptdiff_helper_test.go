package test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// A small differential helper for the scripting tests: a redis-server
// 7.0.15 and a miniwatchd child process, raw RESP frames read from both and
// compared byte for byte. (Names start with "sd" so they do
// not collide with the shared harness.)

// sdPair is one redis-server and one miniwatchd.
type sdPair struct {
	t     *testing.T
	redis string // address
	ours  string
}

// sdNewPair starts both servers; the test is skipped when redis-server is
// not installed (and fails when CI is set).
func sdNewPair(t *testing.T) *sdPair {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found")
		}
		t.Skip("redis-server not found")
	}
	port := sdFreePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--enable-debug-command", "yes", "--daemonize", "no", "--logfile", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &sdPair{t: t, redis: addr, ours: sdStartOurs(t)}
}

var (
	sdBuildOnce sync.Once
	sdBinary    string
	sdBuildErr  error
)

// sdStartOurs starts the miniwatchd binary (built once per test run, out
// of process as the shared harness runs it) on a free port.
func sdStartOurs(t *testing.T) string {
	t.Helper()
	sdBuildOnce.Do(func() {
		// One binary per user, replaced atomically by each run.
		sdBinary = filepath.Join(os.TempDir(), fmt.Sprintf("miniwatchd-scriptdiff-%d", os.Getuid()))
		tmp := fmt.Sprintf("%s.%d", sdBinary, os.Getpid())
		out, err := exec.Command("go", "build", "-o", tmp, "github.com/miniwatchd/miniwatchd/cmd/miniwatchd").CombinedOutput()
		if err != nil {
			sdBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		sdBuildErr = os.Rename(tmp, sdBinary)
	})
	if sdBuildErr != nil {
		t.Fatal(sdBuildErr)
	}
	port := sdFreePort(t)
	cmd := exec.Command(sdBinary, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("miniwatchd did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sdFreePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// hasCommand reports whether miniwatchd implements the command name
// (an unknown command fails before the arity check).
func (p *sdPair) hasCommand(name string) bool {
	c, err := net.Dial("tcp", p.ours)
	if err != nil {
		p.t.Fatal(err)
	}
	defer c.Close()
	c.Write(resptest.Command(name, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"))
	reply, err := resptest.ReadRaw(bufio.NewReader(c))
	if err != nil {
		p.t.Fatal(err)
	}
	return !bytes.HasPrefix(reply, []byte("-ERR unknown command"))
}

// sdConn is one connection to each server.
type sdConn struct {
	p      *sdPair
	rc, oc net.Conn
	rr, or *bufio.Reader
}

// conn opens a connection pair speaking proto (2 or 3).
func (p *sdPair) conn(proto int) *sdConn {
	p.t.Helper()
	c := &sdConn{p: p}
	var err error
	if c.rc, err = net.Dial("tcp", p.redis); err != nil {
		p.t.Fatal(err)
	}
	if c.oc, err = net.Dial("tcp", p.ours); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.rc.Close(); c.oc.Close() })
	c.rr, c.or = bufio.NewReader(c.rc), bufio.NewReader(c.oc)
	if proto == 3 {
		c.do("HELLO", "3")
	}
	return c
}

// do sends args to both servers and returns the two raw replies.
func (c *sdConn) do(args ...string) (redis, ours []byte) {
	c.p.t.Helper()
	req := resptest.Command(args...)
	if _, err := c.rc.Write(req); err != nil {
		c.p.t.Fatal(err)
	}
	if _, err := c.oc.Write(req); err != nil {
		c.p.t.Fatal(err)
	}
	return c.read()
}

// send sends args to both servers without reading.
func (c *sdConn) send(args ...string) {
	req := resptest.Command(args...)
	c.rc.Write(req)
	c.oc.Write(req)
}

// read reads one reply from each server.
func (c *sdConn) read() (redis, ours []byte) {
	c.p.t.Helper()
	c.rc.SetReadDeadline(time.Now().Add(20 * time.Second))
	c.oc.SetReadDeadline(time.Now().Add(20 * time.Second))
	redis, err := resptest.ReadRaw(c.rr)
	if err != nil {
		c.p.t.Fatalf("redis-server: %v", err)
	}
	ours, err = resptest.ReadRaw(c.or)
	if err != nil {
		c.p.t.Fatalf("miniwatchd: %v", err)
	}
	return redis, ours
}

// sdMode is how two replies are compared.
type sdMode int

const (
	sdExact   sdMode = iota
	sdErrCode        // both errors with the same first word
	sdSorted         // the elements of the top-level aggregate as a multiset
	sdIgnore
)

// sdSame compares two replies under mode.
func sdSame(redis, ours []byte, mode sdMode) bool {
	switch mode {
	case sdErrCode:
		if len(redis) == 0 || len(ours) == 0 || redis[0] != '-' || ours[0] != '-' {
			return bytes.Equal(redis, ours)
		}
		return strings.Fields(string(redis[1:]))[0] == strings.Fields(string(ours[1:]))[0]
	case sdSorted:
		return sdSortedElems(redis) == sdSortedElems(ours)
	case sdIgnore:
		return true
	}
	return bytes.Equal(redis, ours)
}

// sdSortedElems renders the header and the sorted element frames of an
// aggregate reply (maps pair keys with values first).
func sdSortedElems(b []byte) string {
	n, err := resptest.ReadFrame(bufio.NewReader(bytes.NewReader(b)))
	if err != nil || !n.IsAggregate() {
		return string(b)
	}
	head := n.Raw[:bytes.IndexByte(n.Raw, '\n')+1]
	step := 1
	if n.Kind == '%' {
		step = 2
	}
	var elems []string
	for i := 0; i+step <= len(n.Elems); i += step {
		var e []byte
		for _, x := range n.Elems[i : i+step] {
			e = append(e, x.Raw...)
		}
		elems = append(elems, string(e))
	}
	sort.Strings(elems)
	return string(head) + strings.Join(elems, "")
}

// check sends args and compares the replies under mode.
func (c *sdConn) check(mode sdMode, args ...string) {
	c.p.t.Helper()
	r, o := c.do(args...)
	if !sdSame(r, o, mode) {
		c.p.t.Errorf("%q\n redis-server: %s\n miniwatchd:   %s", args, sdShow(r), sdShow(o))
	}
}

func sdShow(b []byte) string {
	s := strconv.Quote(string(b))
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}
