package test

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Memory bombs in scripts against a redis-server whose address space is
// limited (ulimit -v), so that its Lua allocations fail as they would on a
// full machine: Lua's memory error bypasses the error handler ("ERR Error
// running script <sha>, not enough memory"; pcall returns "not enough
// memory" without a position). miniwatchd bounds one string at 512 MB and
// a run's heap growth (script/memory.go). The cases fail fast on both
// sides (but string.rep, which Lua builds piecewise up to the limit): the
// address space left after a failure is large enough for the script to go on,
// as on a machine whose memory ran out for one big allocation. (What a
// pcall that caught a memory error can do next depends on the allocator's
// state in Redis: after this bomb the script dies anyway, after a doubling
// loop it goes on; script/memory_test.go checks that pcall catches it.)
func TestScriptDiffMemoryBombs(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found")
		}
		t.Skip("redis-server not found")
	}
	port := sdFreePort(t)
	cmd := exec.Command("sh", "-c", "ulimit -v 400000 && exec redis-server --port "+strconv.Itoa(port)+
		" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --logfile ''")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
	}
	p := &sdPair{t: t, redis: addr, ours: sdStartOurs(t)}
	// bomb concatenates 40 strings of 16 MB: Lua 5.1 sizes the result
	// first and fails at once; miniwatchd refuses it before building it.
	const bomb = "local s = string.rep('x', 2^24) local function bomb() return " +
		"s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s..s end "
	scripts := []string{
		"return string.rep('x', 2^30)",
		"return string.rep('x', 2^32)",
		"return string.rep('abc', 2^40)",
		bomb + "return bomb()",
	}
	for _, proto := range []int{2, 3} {
		c := p.conn(proto)
		for _, s := range scripts {
			c.check(sdExact, "EVAL", s, "0")
		}
		c.check(sdExact, "PING")
	}
	t.Logf("%d memory bombs, RESP2 and RESP3", len(scripts))
}
