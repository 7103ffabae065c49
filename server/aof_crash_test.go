package server

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
)

// The crash test: a miniwatchd process with appendonly yes is killed with
// SIGKILL at random moments while clients write concurrently (and while
// rewrites run); after each restart on the same directory every write
// that was acknowledged before the kill must be there, and no transaction
// may be half applied. AOF_CRASH_ROUNDS sets the number of kills (default
// 6 per policy); -short skips it.

// aofCrashWorld is what the writers were told (acknowledgements) and what
// they attempted, across rounds.
type aofCrashWorld struct {
	mu       sync.Mutex
	acked    map[string]string // key -> value of an acknowledged SET
	ctrAck   map[string]int64  // counter -> highest acknowledged INCR reply
	ctrTries map[string]int64  // counter -> INCRs sent
	txAcked  map[string]bool   // transaction id -> acknowledged
	txTried  []string          // transaction ids sent
	idAcked  int64             // highest acknowledged id of the WATCH/MULTI generator
	checked  int64             // acknowledged writes verified, over all rounds
	acks     int64             // acknowledged writes, over all rounds
}

func TestAOFCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	bin := aofBuildBinary(t)
	rounds := 6
	if v, err := strconv.Atoi(os.Getenv("AOF_CRASH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			n := rounds
			if policy != "always" {
				n = max(rounds/2, 2)
			}
			aofRunCrashTest(t, bin, policy, n)
		})
	}
}

// aofBuildBinary compiles cmd/miniwatchd into a temporary directory of
// the test (the Go build cache makes the second build cheap).
func aofBuildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "miniwatchd")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "build", "-o", bin, "../cmd/miniwatchd").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func aofRunCrashTest(t *testing.T, bin, policy string, rounds int) {
	dir := t.TempDir()
	w := &aofCrashWorld{acked: map[string]string{}, ctrAck: map[string]int64{}, ctrTries: map[string]int64{}, txAcked: map[string]bool{}}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := 0; round < rounds; round++ {
		proc, addr := aofStartProc(t, bin, dir, policy)
		if round > 0 {
			aofVerifyCrash(t, w, addr, round)
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for id := 0; id < 8; id++ {
			wg.Add(1)
			go func(id int) {
				defer wg.Done()
				aofCrashWriter(w, addr, round, id, stop)
			}(id)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			aofRewriter(addr, stop)
		}()
		time.Sleep(time.Duration(150+rng.IntN(700)) * time.Millisecond)
		proc.Process.Signal(syscall.SIGKILL)
		proc.Wait()
		close(stop)
		wg.Wait()
	}
	proc, addr := aofStartProc(t, bin, dir, policy)
	aofVerifyCrash(t, w, addr, rounds)
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	started := strings.Count(string(log), "Background append only file rewriting started")
	finished := strings.Count(string(log), "Background AOF rewrite finished successfully")
	t.Logf("appendfsync %s: %d runs, %d SIGKILLs, %d acknowledged writes, %d acknowledgement checks (every acknowledged write re-checked after each later kill), %d transactions sent, %d rewrites started, %d completed",
		policy, rounds+1, rounds, w.acks, w.checked, len(w.txTried), started, finished)
}

// aofStartProc starts the binary on dir and waits for it to answer.
func aofStartProc(t *testing.T, bin, dir, policy string) (*exec.Cmd, string) {
	t.Helper()
	port := aofFreePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--appendonly", "yes", "--appendfsync", policy, "--auto-aof-rewrite-min-size", "1mb")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Write(aof.AppendCommandStrings(nil, "PING"))
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			rep := aofReadReply(bufio.NewReader(c))
			c.Close()
			if rep == "PONG" {
				return cmd, addr
			}
		}
		if cmd.ProcessState != nil || time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("miniwatchd did not start:\n%s", log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// aofCrashConn is a raw client that reports I/O errors instead of failing.
type aofCrashConn struct {
	c  net.Conn
	br *bufio.Reader
}

func (cc *aofCrashConn) do(args ...string) (any, error) {
	if _, err := cc.c.Write(aof.AppendCommandStrings(nil, args...)); err != nil {
		return nil, err
	}
	r := aofReadReply(cc.br)
	if err, ok := r.(error); ok && aofIsIOError(err) {
		return nil, err
	}
	return r, nil
}

// aofIsIOError tells a dead connection from an error reply.
func aofIsIOError(err error) bool {
	_, isNet := err.(net.Error)
	return isNet || err.Error() == "EOF" || err.Error() == "unexpected EOF" || err.Error() == "empty reply line"
}

// aofCrashWriter writes until its connection dies, recording what the server
// acknowledged.
func aofCrashWriter(w *aofCrashWorld, addr string, round, id int, stop chan struct{}) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	cc := &aofCrashConn{c: c, br: bufio.NewReader(c)}
	rng := rand.New(rand.NewPCG(uint64(round), uint64(id)))
	ctr := "ctr:" + strconv.Itoa(id)
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		tag := fmt.Sprintf("%d:%d:%d", round, id, seq)
		switch rng.IntN(4) {
		case 0:
			key, val := "uk:"+tag, strconv.Itoa(seq)
			if r, err := cc.do("SET", key, val); err != nil {
				return
			} else if r == "OK" {
				w.mu.Lock()
				w.acked[key] = val
				w.acks++
				w.mu.Unlock()
			}
		case 1:
			w.mu.Lock()
			w.ctrTries[ctr]++
			w.mu.Unlock()
			r, err := cc.do("INCR", ctr)
			if err != nil {
				return
			}
			if n, ok := r.(int64); ok {
				w.mu.Lock()
				w.ctrAck[ctr] = max(w.ctrAck[ctr], n)
				w.acks++
				w.mu.Unlock()
			}
		case 2:
			w.mu.Lock()
			w.txTried = append(w.txTried, tag)
			w.mu.Unlock()
			for _, args := range [][]string{{"MULTI"}, {"SET", "tx:" + tag + ":a", "1"}, {"SET", "tx:" + tag + ":b", "1"}, {"INCR", "txn:" + strconv.Itoa(id)}} {
				if _, err := cc.do(args...); err != nil {
					return
				}
			}
			r, err := cc.do("EXEC")
			if err != nil {
				return
			}
			if _, ok := r.([]any); ok {
				w.mu.Lock()
				w.txAcked[tag] = true
				w.acks++
				w.mu.Unlock()
			}
		case 3:
			// The seed design's compare-and-set: current only grows.
			if _, err := cc.do("WATCH", "idgen"); err != nil {
				return
			}
			r, err := cc.do("GET", "idgen")
			if err != nil {
				return
			}
			cur, _ := strconv.ParseInt(fmt.Sprint(r), 10, 64)
			next := cur + 1 + int64(rng.IntN(3))
			for _, args := range [][]string{{"MULTI"}, {"SET", "idgen", strconv.FormatInt(next, 10)}} {
				if _, err := cc.do(args...); err != nil {
					return
				}
			}
			r, err = cc.do("EXEC")
			if err != nil {
				return
			}
			if _, ok := r.([]any); ok {
				w.mu.Lock()
				w.idAcked = max(w.idAcked, next)
				w.acks++
				w.mu.Unlock()
			}
		}
	}
}

// aofRewriter issues BGREWRITEAOF now and then, so kills also land during
// rewrites.
func aofRewriter(addr string, stop chan struct{}) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	cc := &aofCrashConn{c: c, br: bufio.NewReader(c)}
	for {
		select {
		case <-stop:
			return
		case <-time.After(120 * time.Millisecond):
		}
		if _, err := cc.do("BGREWRITEAOF"); err != nil {
			return
		}
	}
}

// aofVerifyCrash checks every acknowledgement against the restarted
// server.
func aofVerifyCrash(t *testing.T, w *aofCrashWorld, addr string, round int) {
	t.Helper()
	tc := dialAOFAddr(t, addr)
	w.mu.Lock()
	defer w.mu.Unlock()
	keys := make([]string, 0, len(w.acked))
	for k := range w.acked {
		keys = append(keys, k)
	}
	vals := aofMGet(t, tc, keys)
	for i, k := range keys {
		if vals[i] != w.acked[k] {
			t.Fatalf("round %d: acknowledged SET %s=%s lost (found %v)", round, k, w.acked[k], vals[i])
		}
		w.checked++
	}
	for ctr, ack := range w.ctrAck {
		n, _ := strconv.ParseInt(fmt.Sprint(tc.must("GET", ctr)), 10, 64)
		if n < ack || n > w.ctrTries[ctr] {
			t.Fatalf("round %d: %s = %d, acknowledged %d, sent %d", round, ctr, n, ack, w.ctrTries[ctr])
		}
		w.checked++
	}
	var txKeys []string
	for _, tag := range w.txTried {
		txKeys = append(txKeys, "tx:"+tag+":a", "tx:"+tag+":b")
	}
	txVals := aofMGet(t, tc, txKeys)
	present := map[string]int64{}
	for i, tag := range w.txTried {
		a, b := txVals[2*i] != "<nil>", txVals[2*i+1] != "<nil>"
		if a != b {
			t.Fatalf("round %d: transaction %s half applied (a=%v b=%v)", round, tag, a, b)
		}
		if w.txAcked[tag] && !a {
			t.Fatalf("round %d: acknowledged transaction %s lost", round, tag)
		}
		if w.txAcked[tag] {
			w.checked++
		}
		if a {
			var r, id, seq int
			fmt.Sscanf(tag, "%d:%d:%d", &r, &id, &seq)
			present["txn:"+strconv.Itoa(id)]++
		}
	}
	for id := 0; id < 8; id++ {
		k := "txn:" + strconv.Itoa(id)
		n, _ := strconv.ParseInt(fmt.Sprint(tc.must("GET", k)), 10, 64)
		if n != present[k] {
			t.Fatalf("round %d: %s = %d but %d of its transactions are present: a transaction was split", round, k, n, present[k])
		}
	}
	id, _ := strconv.ParseInt(fmt.Sprint(tc.must("GET", "idgen")), 10, 64)
	if id < w.idAcked {
		t.Fatalf("round %d: the id generator went back: %d < acknowledged %d", round, id, w.idAcked)
	}
	w.checked++
}

// aofMGet reads keys in batches.
func aofMGet(t *testing.T, tc *aofConn, keys []string) []string {
	t.Helper()
	out := make([]string, 0, len(keys))
	for len(keys) > 0 {
		n := min(len(keys), 500)
		r := tc.must(append([]string{"MGET"}, keys[:n]...)...).([]any)
		for _, v := range r {
			out = append(out, fmt.Sprint(v))
		}
		keys = keys[n:]
	}
	return out
}

// TestSIGTERMFlushesAOF: SIGTERM writes and fsyncs the log before the
// process exits (status 0), and the data loads again.
func TestSIGTERMFlushesAOF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := aofBuildBinary(t)
	dir := t.TempDir()
	proc, addr := aofStartProc(t, bin, dir, "no")
	tc := dialAOFAddr(t, addr)
	for i := 0; i < 100; i++ {
		tc.must("SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
	}
	proc.Process.Signal(syscall.SIGTERM)
	if err := proc.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	if !strings.Contains(string(log), "Calling fsync() on the AOF file.") {
		t.Fatalf("no final fsync logged:\n%s", log)
	}
	proc2, addr2 := aofStartProc(t, bin, dir, "no")
	defer func() { proc2.Process.Signal(syscall.SIGTERM); proc2.Wait() }()
	if n := dialAOFAddr(t, addr2).must("DBSIZE"); n != int64(100) {
		t.Fatalf("DBSIZE %v after restart", n)
	}
}
