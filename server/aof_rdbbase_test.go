package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The AOF base in RDB format (aof-use-rdb-preamble yes, the default): a
// rewrite slowed down by rdb-key-save-delay while clients write (new keys,
// overwrites, deletions, FLUSHDB, SWAPDB, streams) leaves a base holding the
// dataset at the log switch and an incremental file holding the rest, so
// miniwatchd and redis-server both load exactly the dataset the clients
// left; the base is an RDB file with aof-base 1 that redis-check-rdb
// accepts.
func TestAOFRDBBaseRewriteDuringWrites(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofRDBConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	for i := 0; i < 5000; i++ {
		tc.c.Write([]byte("*3\r\n$3\r\nSET\r\n$" + strconv.Itoa(len("k"+strconv.Itoa(i))) + "\r\nk" + strconv.Itoa(i) + "\r\n$1\r\nv\r\n"))
	}
	for i := 0; i < 5000; i++ {
		aofReadReply(tc.br)
	}
	streamFill(tc, "a")
	tc.must("SELECT", "1")
	tc.must("SET", "one", "1")
	tc.must("SELECT", "0")
	tc.must("CONFIG", "SET", "rdb-key-save-delay", "200") // 200 us a key: about a second
	tc.must("BGREWRITEAOF")
	if aofInfoField(t, tc, "aof_rewrite_in_progress") != "1" {
		t.Fatal("the rewrite is not running")
	}
	tc.must("SET", "during", "1")
	tc.must("DEL", "k1")
	tc.must("SET", "k2", "changed")
	tc.must("XADD", "sa", "*", "during", "yes")
	tc.must("SELECT", "1")
	tc.must("FLUSHDB")
	tc.must("SET", "after-flush", "z")
	tc.must("SELECT", "0")
	tc.must("SWAPDB", "1", "2")
	if aofInfoField(t, tc, "aof_rewrite_in_progress") != "1" {
		t.Fatal("the writes did not happen during the rewrite")
	}
	aofWaitRewriteDone(t, tc)
	tc.must("CONFIG", "SET", "rdb-key-save-delay", "0")
	tc.must("SET", "after", "1")
	want := aofDataset(t, tc)
	wantStreams := streamDataset(t, tc)
	s.Close()

	manifest, _ := aofDirFiles(t, dir)
	if !strings.Contains(manifest, "file appendonly.aof.2.base.rdb seq 2 type b") {
		t.Fatalf("manifest %q", manifest)
	}
	base := filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.rdb")
	b, _ := os.ReadFile(base)
	if !strings.HasPrefix(string(b), "REDIS0010") || !strings.Contains(string(b), "aof-base\xc0\x01") {
		t.Fatalf("base is not an RDB file with aof-base 1: %.60q", b)
	}
	if bin, err := exec.LookPath("redis-check-rdb"); err == nil {
		if out, err := exec.Command(bin, base).CombinedOutput(); err != nil || !strings.Contains(string(out), "RDB looks OK!") {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
	s2 := startAOFServer(t, aofRDBConfig(dir, "everysec"))
	c2 := dialAOF(t, s2)
	if got := aofDataset(t, c2); got != want {
		t.Fatalf("miniwatchd reloaded:\n%s", firstDiff(got, want))
	}
	if got := streamDataset(t, c2); got != wantStreams {
		t.Fatalf("miniwatchd reloaded streams:\n%s", firstDiff(got, wantStreams))
	}
	s2.Close()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed")
		}
		return
	}
	r := startAOFRedis(t, dir, aofRedisArgs()...)
	rc := dialAOFAddr(t, r.addr)
	if got := aofDataset(t, rc); got != want {
		t.Fatalf("redis-server loaded:\n%s", firstDiff(got, want))
	}
	if got := streamDataset(t, rc); got != wantStreams {
		t.Fatalf("redis-server loaded streams:\n%s", firstDiff(got, wantStreams))
	}
	r.stop("NOSAVE")
}
