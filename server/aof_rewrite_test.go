package server

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// aofWaitRewriteDone waits until no rewrite is in progress or scheduled.
func aofWaitRewriteDone(t testing.TB, tc *aofConn) {
	t.Helper()
	aofWaitFor(t, 30*time.Second, "the AOF rewrite", func() bool {
		return aofInfoField(t, tc, "aof_rewrite_in_progress") == "0" && aofInfoField(t, tc, "aof_rewrite_scheduled") == "0"
	})
}

func TestBGRewriteAOFCompacts(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	for i := 0; i < 200; i++ {
		tc.must("INCR", "c"+strconv.Itoa(i%5))
	}
	tc.must("SET", "t", "v", "EX", "1000")
	tc.must("SELECT", "9")
	tc.must("SET", "nine", "9")
	tc.must("SELECT", "0")
	before, _ := os.Stat(aofLastIncr(t, dir))
	if r := tc.must("BGREWRITEAOF"); r != "Background append only file rewriting started" {
		t.Fatalf("reply %v", r)
	}
	aofWaitRewriteDone(t, tc)
	tc.must("SET", "after", "1")
	want := aofDataset(t, tc)
	manifest, files := aofDirFiles(t, dir)
	if manifest != "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatalf("manifest %q", manifest)
	}
	if strings.Join(files, " ") != "appendonly.aof.2.base.aof appendonly.aof.2.incr.aof appendonly.aof.manifest" {
		t.Fatalf("files %v (history not removed?)", files)
	}
	base := aofFileCommands(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.aof"))
	for _, want := range []string{"SET c0 40", "SET t v\nPEXPIREAT t <T>", "SELECT 9\nSET nine 9"} {
		if !strings.Contains(base, want) {
			t.Fatalf("base lacks %q:\n%s", want, base)
		}
	}
	if st, _ := os.Stat(filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.aof")); st.Size() >= before.Size() {
		t.Fatalf("base %d bytes, old log %d: not compacted", st.Size(), before.Size())
	}
	if got := aofIncrText(t, dir); got != "SELECT 0\nSET after 1" {
		t.Fatalf("new incr file: %q", got)
	}
	if r := tc.must("INFO", "persistence").(string); !strings.Contains(r, "aof_rewrites:1\r\n") || !strings.Contains(r, "aof_last_bgrewrite_status:ok") {
		t.Fatalf("INFO:\n%s", r)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	if got := aofDataset(t, dialAOF(t, s2)); got != want {
		t.Fatalf("after reload:\n%s\nwant\n%s", got, want)
	}
}

// TestBGRewriteAOFUnderLoad rewrites repeatedly while clients write
// (increments, new keys, deletions, TTLs, transactions, whole-database
// commands); after a restart the aofDataset must be exactly what it was: a
// write lost by the rewrite or applied twice (an INCR) would show.
func TestBGRewriteAOFUnderLoad(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	setup := dialAOF(t, s)
	for i := 0; i < 5000; i++ {
		setup.must("SET", "pre"+strconv.Itoa(i), strconv.Itoa(i))
	}
	var steps atomic.Int64
	s.hooks.rewriteStep = func() { steps.Add(1); time.Sleep(time.Millisecond) }

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tc := dialAOF(t, s)
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := "pre" + strconv.Itoa(rng.IntN(5000))
				switch rng.IntN(11) {
				case 9:
					tc.must("RPUSH", "list"+strconv.Itoa(rng.IntN(20)), strconv.Itoa(i))
				case 10:
					tc.must("LPOP", "list"+strconv.Itoa(rng.IntN(20)))
				case 0, 1:
					tc.must("INCR", "ctr"+strconv.Itoa(rng.IntN(50)))
				case 2:
					tc.must("SET", fmt.Sprintf("new%d-%d", w, i), "x")
				case 3:
					tc.must("DEL", k)
				case 4:
					tc.must("EXPIRE", k, "10000")
				case 5:
					tc.must("APPEND", k, "+")
				case 6:
					tc.must("MULTI")
					tc.must("INCR", "txa")
					tc.must("INCR", "txb")
					tc.must("EXEC")
				case 7:
					tc.must("SELECT", "3")
					tc.must("INCR", "db3")
					tc.must("SELECT", "0")
				case 8:
					if rng.IntN(20) == 0 {
						tc.must("SWAPDB", "3", "4")
					}
				}
			}
		}(w)
	}
	for r := 0; r < 3; r++ {
		for {
			if rep := setup.do("BGREWRITEAOF"); rep == "Background append only file rewriting started" {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		aofWaitRewriteDone(t, setup)
	}
	close(stop)
	wg.Wait()
	if steps.Load() < 10 {
		t.Fatalf("only %d rewrite steps: writes did not interleave", steps.Load())
	}
	if aofInfoField(t, setup, "aof_rewrites") != "3" || aofInfoField(t, setup, "aof_last_bgrewrite_status") != "ok" {
		t.Fatal(setup.must("INFO", "persistence"))
	}
	if a, b := setup.must("GET", "txa"), setup.must("GET", "txb"); a != b {
		t.Fatalf("txa %v txb %v", a, b)
	}
	want := aofDataset(t, setup)
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	if got := aofDataset(t, dialAOF(t, s2)); got != want {
		t.Fatalf("aofDataset differs after rewrites under load and reload (%d vs %d bytes)", len(got), len(want))
	}
}

// TestRewriteWholeDatabaseEvents pauses a rewrite in the middle of its walk
// and runs FLUSHDB, SWAPDB and FLUSHALL, which the base must reflect.
func TestRewriteWholeDatabaseEvents(t *testing.T) {
	for _, event := range []string{"flushdb", "swapdb", "flushall", "swapdb-flushdb"} {
		t.Run(event, func(t *testing.T) {
			dir := t.TempDir()
			s := startAOFServer(t, aofTestConfig(dir, "everysec"))
			tc := dialAOF(t, s)
			for db := 0; db < 3; db++ {
				tc.must("SELECT", strconv.Itoa(db))
				for i := 0; i < 2500; i++ {
					tc.must("SET", fmt.Sprintf("k%d", i), fmt.Sprintf("db%d-%d", db, i))
				}
			}
			tc.must("SELECT", "0")
			paused, resume := make(chan struct{}), make(chan struct{})
			var once sync.Once
			s.hooks.rewriteStep = func() {
				once.Do(func() { close(paused); <-resume })
			}
			tc.must("BGREWRITEAOF")
			<-paused
			switch event {
			case "flushdb":
				tc.must("FLUSHDB")
				tc.must("SET", "k1", "after-flush")
			case "swapdb":
				tc.must("SWAPDB", "0", "2")
				tc.must("SET", "k2", "after-swap")
			case "flushall":
				tc.must("FLUSHALL")
				tc.must("SELECT", "1")
				tc.must("SET", "k1", "after-flushall")
			case "swapdb-flushdb":
				tc.must("SWAPDB", "1", "0")
				tc.must("SELECT", "1")
				tc.must("FLUSHDB")
				tc.must("SET", "x", "y")
			}
			close(resume)
			aofWaitRewriteDone(t, tc)
			want := aofDataset(t, tc)
			s.Close()
			s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
			if got := aofDataset(t, dialAOF(t, s2)); got != want {
				t.Fatalf("aofDataset after reload differs (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}

func TestBGRewriteAOFReplies(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	tc.must("SET", "k", "v")
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.hooks.rewriteStep = func() { once.Do(func() { close(paused); <-resume }) }
	tc.must("BGREWRITEAOF")
	<-paused
	if err, ok := tc.do("BGREWRITEAOF").(error); !ok || err.Error() != "ERR Background append only file rewriting already in progress" {
		t.Fatalf("second BGREWRITEAOF: %v", err)
	}
	if v := aofInfoField(t, tc, "aof_rewrite_in_progress"); v != "1" {
		t.Fatalf("aof_rewrite_in_progress %q", v)
	}
	close(resume)
	aofWaitRewriteDone(t, tc)
	s.hooks.rewriteStep = nil
	tc.must("MULTI")
	tc.must("BGREWRITEAOF")
	if r := tc.must("EXEC").([]any); r[0] != "Background append only file rewriting scheduled" {
		t.Fatalf("in EXEC: %v", r)
	}
	aofWaitRewriteDone(t, tc)
	if v := aofInfoField(t, tc, "aof_rewrites"); v != "2" {
		t.Fatalf("aof_rewrites %q after the scheduled rewrite", v)
	}
}

// TestConfigSetAppendOnly turns the AOF on at run time (a base is written
// first, then writes are logged), restarts on it, and turns it off.
func TestConfigSetAppendOnly(t *testing.T) {
	dir := t.TempDir()
	cfg := aofTestConfig(dir, "always")
	cfg.AppendOnly = false
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	tc.must("SET", "before", "1")
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir")); !os.IsNotExist(err) {
		t.Fatal("AOF directory created with appendonly no")
	}
	tc.must("CONFIG", "SET", "appendonly", "yes")
	if v := aofInfoField(t, tc, "aof_enabled"); v != "1" {
		t.Fatalf("aof_enabled %q", v)
	}
	aofWaitRewriteDone(t, tc)
	tc.must("SET", "after", "2")
	manifest, _ := aofDirFiles(t, dir)
	if manifest != "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" {
		t.Fatalf("manifest %q", manifest)
	}
	want := aofDataset(t, tc)
	tc.must("CONFIG", "SET", "appendonly", "no")
	if v := aofInfoField(t, tc, "aof_enabled"); v != "0" {
		t.Fatalf("aof_enabled %q", v)
	}
	tc.must("SET", "unlogged", "3")
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "always"))
	if got := aofDataset(t, dialAOF(t, s2)); got != want {
		t.Fatalf("after reload:\n%s\nwant\n%s", got, want)
	}
}

// TestBGRewriteAOFWithAppendOnlyOff writes a snapshot directory without
// turning the AOF on; a server started on it with appendonly yes loads it.
func TestBGRewriteAOFWithAppendOnlyOff(t *testing.T) {
	dir := t.TempDir()
	cfg := aofTestConfig(dir, "everysec")
	cfg.AppendOnly = false
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	aofFillData(tc)
	want := aofDataset(t, tc)
	tc.must("BGREWRITEAOF")
	aofWaitRewriteDone(t, tc)
	if v := aofInfoField(t, tc, "aof_enabled"); v != "0" {
		t.Fatalf("aof_enabled %q", v)
	}
	manifest, _ := aofDirFiles(t, dir)
	if manifest != "file appendonly.aof.1.base.aof seq 1 type b\n" {
		t.Fatalf("manifest %q", manifest)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	if got := aofDataset(t, dialAOF(t, s2)); got != want {
		t.Fatalf("after reload:\n%s\nwant\n%s", got, want)
	}
}

func TestAutoRewrite(t *testing.T) {
	dir := t.TempDir()
	cfg := aofTestConfig(dir, "everysec")
	cfg.AutoAOFRewriteMinSize = 4096
	cfg.AutoAOFRewritePercentage = 100
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	for i := 0; i < 300; i++ {
		tc.must("SET", "k", strings.Repeat("v", 20))
	}
	aofWaitFor(t, 10*time.Second, "an automatic rewrite", func() bool { return aofInfoField(t, tc, "aof_rewrites") != "0" })
	aofWaitRewriteDone(t, tc)
	if size, _ := strconv.Atoi(aofInfoField(t, tc, "aof_current_size")); size > 1000 {
		t.Fatalf("aof_current_size %d after the rewrite", size)
	}
}

// TestShutdownDuringFirstBase: SHUTDOWN is refused while the first base of
// an AOF turned on at run time is being written, as in Redis.
func TestShutdownDuringFirstBase(t *testing.T) {
	dir := t.TempDir()
	cfg := aofTestConfig(dir, "everysec")
	cfg.AppendOnly = false
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	for i := 0; i < 3000; i++ {
		tc.must("SET", strconv.Itoa(i), "v")
	}
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.hooks.rewriteStep = func() { once.Do(func() { close(paused); <-resume }) }
	tc.must("CONFIG", "SET", "appendonly", "yes")
	<-paused
	if err, ok := tc.do("SHUTDOWN").(error); !ok || err.Error() != "ERR Errors trying to SHUTDOWN. Check logs." {
		t.Fatalf("SHUTDOWN during the first base: %v", tc.do("PING"))
	}
	close(resume)
	aofWaitRewriteDone(t, tc)
	if v := aofInfoField(t, tc, "aof_enabled"); v != "1" {
		t.Fatalf("aof_enabled %q", v)
	}
}

// TestRewriteTypes rewrites sets, hashes and sorted sets of every encoding,
// including ones larger than one variadic command, and reloads them.
func TestRewriteTypes(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	tc.must("SADD", "intset", "1", "-2", "300")
	tc.must("SADD", "strset", "a", "b")
	tc.must("HSET", "small", "f", "v", "n", "1")
	tc.must("HSET", "long", "f", strings.Repeat("x", 100))
	tc.must("ZADD", "zs", "1.5", "a", "-inf", "b", "1e300", "c", "0.1", "d")
	for i := 0; i < 200; i++ {
		n := strconv.Itoa(i)
		tc.must("SADD", "bigset", "m"+n)
		tc.must("SADD", "bigints", n)
		tc.must("HSET", "bighash", "f"+n, n)
		tc.must("ZADD", "bigzs", n+".5", "m"+n)
		tc.must("RPUSH", "biglist", "e"+n)
	}
	tc.must("RPUSH", "list", "a", "", "a", "1")
	tc.must("PEXPIRE", "bigzs", "100000000")
	want := aofDataset(t, tc)
	tc.must("BGREWRITEAOF")
	aofWaitRewriteDone(t, tc)
	base := aofFileCommands(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.aof"))
	if strings.Count(base, "SADD bigset") != 4 || strings.Count(base, "HMSET bighash") != 4 ||
		strings.Count(base, "ZADD bigzs") != 4 || strings.Count(base, "RPUSH biglist") != 4 {
		t.Fatalf("variadic commands not split by %d items:\n%.2000s", rewriteItemsLimit, base)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	if got := aofDataset(t, dialAOF(t, s2)); got != want {
		t.Fatalf("after rewrite and reload:\n%s\nwant\n%s", got, want)
	}
}

// TestRewriteKeepsFunctions checks that a rewrite's base holds the FUNCTION
// libraries (Redis's rewriteFunctions: one FUNCTION LOAD per library), so a
// restart after BGREWRITEAOF still has them, and the base written at start
// up too.
func TestRewriteKeepsFunctions(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	code := "#!lua name=keeplib\nredis.register_function('keepfn', function() return 'kept' end)"
	tc.must("FUNCTION", "LOAD", code)
	tc.must("SET", "k", "v")
	tc.must("BGREWRITEAOF")
	aofWaitRewriteDone(t, tc)
	base := aofFileCommands(t, filepath.Join(dir, "appendonlydir", "appendonly.aof.2.base.aof"))
	if !strings.Contains(base, "FUNCTION LOAD") {
		t.Fatalf("base lacks the library:\n%s", base)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc2 := dialAOF(t, s2)
	if r := tc2.do("FCALL", "keepfn", "0"); r != "kept" {
		t.Fatalf("FCALL keepfn after the rewrite and a restart: %v", r)
	}
	if r := tc2.do("GET", "k"); r != "v" {
		t.Fatalf("GET k: %v", r)
	}
}
