package server

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
)

// aofFaultFile wraps an incremental file to make writes or fsyncs fail, or
// fsyncs stall, while the test asks.
type aofFaultFile struct {
	aof.File
	mu        sync.Mutex
	writeErr  error
	syncErr   error
	syncGate  chan struct{}
	syncCalls int
}

func (f *aofFaultFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	err := f.writeErr
	f.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

func (f *aofFaultFile) Sync() error {
	f.mu.Lock()
	gate, err := f.syncGate, f.syncErr
	f.syncCalls++
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *aofFaultFile) set(fn func(f *aofFaultFile)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

// aofInstallFaults returns a prepare function for startAOFServer that
// makes every incremental file the server opens an aofFaultFile, and a
// function giving the latest one.
func aofInstallFaults() (prepare func(s *Server), current func() *aofFaultFile) {
	var mu sync.Mutex
	var last *aofFaultFile
	prepare = func(s *Server) {
		s.hooks.aofFile = func(f aof.File) aof.File {
			mu.Lock()
			defer mu.Unlock()
			last = &aofFaultFile{File: f}
			return last
		}
	}
	return prepare, func() *aofFaultFile {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// reply reads one reply with a timeout; ok is false if none came.
func (tc *aofConn) reply(d time.Duration) (any, bool) {
	tc.c.SetReadDeadline(time.Now().Add(d))
	defer tc.c.SetReadDeadline(time.Time{})
	if _, err := tc.br.Peek(1); err != nil {
		return nil, false
	}
	return aofReadReply(tc.br), true
}

// send writes a command without reading its reply.
func (tc *aofConn) send(args ...string) {
	tc.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := tc.c.Write(aof.AppendCommandStrings(nil, args...)); err != nil {
		tc.t.Fatal(err)
	}
}

// TestAlwaysNoReplyBeforeFsync: under appendfsync always neither the
// writer nor a reader that could see the write gets a reply while the
// fsync of that write is running.
func TestAlwaysNoReplyBeforeFsync(t *testing.T) {
	faults, current := aofInstallFaults()
	s := startAOFServer(t, aofTestConfig(t.TempDir(), "always"), faults)
	w, r := dialAOF(t, s), dialAOF(t, s)
	w.must("SET", "warm", "up")
	gate := make(chan struct{})
	current().set(func(f *aofFaultFile) { f.syncGate = gate })
	w.send("SET", "k", "v")
	time.Sleep(50 * time.Millisecond)
	r.send("GET", "k")
	if rep, ok := w.reply(300 * time.Millisecond); ok {
		t.Fatalf("writer got %v before the fsync completed", rep)
	}
	if rep, ok := r.reply(100 * time.Millisecond); ok {
		t.Fatalf("reader got %v before the write it sees was fsynced", rep)
	}
	current().set(func(f *aofFaultFile) { f.syncGate = nil })
	close(gate)
	if rep, ok := w.reply(5 * time.Second); !ok || rep != "OK" {
		t.Fatalf("writer: %v %v", rep, ok)
	}
	if rep, ok := r.reply(5 * time.Second); !ok || rep != "v" {
		t.Fatalf("reader: %v %v", rep, ok)
	}
}

// TestAlwaysWriteErrorIsNotAcknowledged: a failed write under always gives
// the writer MISCONF instead of OK and closes its connection; writes are
// refused until the disk recovers; the write is then persisted.
func TestAlwaysWriteErrorIsNotAcknowledged(t *testing.T) {
	faults, current := aofInstallFaults()
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"), faults)
	tc := dialAOF(t, s)
	tc.must("SET", "ok", "1")
	current().set(func(f *aofFaultFile) { f.writeErr = syscall.ENOSPC })
	const misconf = "MISCONF Errors writing to the AOF file: No space left on device"
	if err, ok := tc.do("SET", "x", "1").(error); !ok || err.Error() != misconf {
		t.Fatalf("SET during a write error: %v", err)
	}
	if _, ok := tc.do("PING").(error); !ok {
		t.Fatal("connection not closed after an unacknowledged write")
	}
	tc2 := dialAOF(t, s)
	if err, ok := tc2.do("SET", "y", "1").(error); !ok || err.Error() != misconf {
		t.Fatalf("second client's SET: %v", err)
	}
	current().set(func(f *aofFaultFile) { f.writeErr = nil })
	tc3 := dialAOF(t, s)
	aofWaitFor(t, 5*time.Second, "the write to be retried", func() bool {
		return aofInfoField(t, tc3, "aof_last_write_status") == "ok"
	})
	tc3.must("SET", "z", "1")
	if v := tc3.must("GET", "x"); v != "1" {
		t.Fatalf("x = %v", v)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "always"))
	if got := aofDataset(t, dialAOF(t, s2)); !strings.Contains(got, `"x"=1`) || !strings.Contains(got, `"z"=1`) || strings.Contains(got, `"y"`) {
		t.Fatalf("after restart:\n%s", got)
	}
}

// TestEverySecWriteErrorRefusesWrites: under everysec Redis still replies
// to the write that failed, then refuses writes (and PING, and EXEC of a
// transaction with writes) with MISCONF until a write succeeds again.
func TestEverySecWriteErrorRefusesWrites(t *testing.T) {
	faults, current := aofInstallFaults()
	s := startAOFServer(t, aofTestConfig(t.TempDir(), "everysec"), faults)
	tc := dialAOF(t, s)
	current().set(func(f *aofFaultFile) { f.writeErr = syscall.EIO })
	if r := tc.must("SET", "a", "1"); r != "OK" {
		t.Fatalf("SET %v", r)
	}
	const misconf = "MISCONF Errors writing to the AOF file: Input/output error"
	for _, cmd := range [][]string{{"SET", "b", "1"}, {"PING"}, {"INCR", "n"}} {
		if err, ok := tc.do(cmd...).(error); !ok || err.Error() != misconf {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	if v := tc.must("GET", "a"); v != "1" {
		t.Fatalf("reads must work: %v", v)
	}
	if v := aofInfoField(t, tc, "aof_last_write_status"); v != "err" {
		t.Fatalf("aof_last_write_status %q", v)
	}
	tc.must("MULTI")
	if err, ok := tc.do("SET", "c", "1").(error); !ok || err.Error() != misconf {
		t.Fatalf("queued write: %v", err)
	}
	if err, ok := tc.do("EXEC").(error); !ok || !strings.HasPrefix(err.Error(), "EXECABORT") {
		t.Fatalf("EXEC: %v", err)
	}
	current().set(func(f *aofFaultFile) { f.writeErr = nil })
	aofWaitFor(t, 5*time.Second, "recovery", func() bool { return aofInfoField(t, tc, "aof_last_write_status") == "ok" })
	tc.must("SET", "b", "1")
}

// TestAlwaysFsyncErrorIsFatalUntilReopened: after a failed fsync under
// always nothing more is acknowledged (the kernel may have dropped the
// pages); turning the AOF off and on again writes a fresh base.
func TestAlwaysFsyncErrorIsFatalUntilReopened(t *testing.T) {
	faults, current := aofInstallFaults()
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"), faults)
	tc := dialAOF(t, s)
	current().set(func(f *aofFaultFile) { f.syncErr = syscall.EIO })
	if err, ok := tc.do("SET", "a", "1").(error); !ok || !strings.HasPrefix(err.Error(), "MISCONF") {
		t.Fatalf("SET with a failing fsync: %v", err)
	}
	current().set(func(f *aofFaultFile) { f.syncErr = nil })
	tc2 := dialAOF(t, s)
	if err, ok := tc2.do("SET", "b", "1").(error); !ok || err.Error() != "MISCONF Errors writing to the AOF file: Input/output error" {
		t.Fatalf("after the fsync error cleared: %v", err)
	}
	dialAOF(t, s).do("CONFIG", "SET", "appendonly", "no")
	tc3 := dialAOF(t, s)
	tc3.must("CONFIG", "SET", "appendonly", "yes")
	aofWaitRewriteDone(t, tc3)
	tc3.must("SET", "c", "1")
	if v := aofInfoField(t, tc3, "aof_last_write_status"); v != "ok" {
		t.Fatalf("aof_last_write_status %q", v)
	}
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "always"))
	got := aofDataset(t, dialAOF(t, s2))
	if !strings.Contains(got, `"a"=1`) || !strings.Contains(got, `"c"=1`) {
		t.Fatalf("after restart:\n%s", got)
	}
}

func TestInfoPersistenceAOFFields(t *testing.T) {
	cfg := aofTestConfig(t.TempDir(), "everysec")
	cfg.AppendOnly = false
	s := startAOFServer(t, cfg)
	tc := dialAOF(t, s)
	off := tc.must("INFO", "persistence").(string)
	tc.must("CONFIG", "SET", "appendonly", "yes")
	aofWaitRewriteDone(t, tc)
	on := tc.must("INFO", "persistence").(string)
	names := func(info string) string {
		var out []string
		for _, l := range strings.Split(info, "\r\n") {
			if k, _, ok := strings.Cut(l, ":"); ok && (strings.HasPrefix(k, "aof_") || strings.HasPrefix(k, "module_fork")) {
				out = append(out, k)
			}
		}
		return strings.Join(out, ",")
	}
	common := "aof_enabled,aof_rewrite_in_progress,aof_rewrite_scheduled,aof_last_rewrite_time_sec,aof_current_rewrite_time_sec,aof_last_bgrewrite_status,aof_rewrites,aof_rewrites_consecutive_failures,aof_last_write_status,aof_last_cow_size,module_fork_in_progress,module_fork_last_cow_size"
	if got := names(off); got != common {
		t.Fatalf("appendonly no:\n%s", got)
	}
	if got := names(on); got != common+",aof_current_size,aof_base_size,aof_pending_rewrite,aof_buffer_length,aof_pending_bio_fsync,aof_delayed_fsync" {
		t.Fatalf("appendonly yes:\n%s", got)
	}
	if !strings.Contains(on, "aof_enabled:1\r\n") || !strings.Contains(on, "aof_rewrites:1\r\n") {
		t.Fatal(on)
	}
}

// TestShutdownAndCloseFsync: SHUTDOWN (with NOSAVE too) and Close — what
// SIGTERM does — write and fsync what is pending before the server stops.
func TestShutdownAndCloseFsync(t *testing.T) {
	for _, how := range []string{"SHUTDOWN", "SHUTDOWN NOSAVE", "SHUTDOWN SAVE", "Close"} {
		t.Run(how, func(t *testing.T) {
			faults, current := aofInstallFaults()
			dir := t.TempDir()
			cfg := aofTestConfig(dir, "no")
			s := startAOFServer(t, cfg, faults)
			tc := dialAOF(t, s)
			tc.must("SET", "k", "v")
			if n := current().syncs(); n != 0 {
				t.Fatalf("%d fsyncs before the shutdown under appendfsync no", n)
			}
			if how == "Close" {
				s.Close()
			} else {
				tc.do(strings.Fields(how)...)
				select {
				case <-s.Done():
				case <-time.After(10 * time.Second):
					t.Fatal("server did not stop")
				}
				s.Close() // waits for the close hooks
			}
			if n := current().syncs(); n == 0 {
				t.Fatal("no fsync at shutdown")
			}
			if got := aofIncrText(t, dir); got != "SELECT 0\nSET k v" {
				t.Fatalf("log %q", got)
			}
		})
	}
}

func (f *aofFaultFile) syncs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncCalls
}
