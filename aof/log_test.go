package aof

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeFile is a File in memory that can fail or stall on demand.
type fakeFile struct {
	mu        sync.Mutex
	data      []byte
	synced    int // len(data) at the last successful Sync
	syncs     int
	writeErr  error // writes fail (after partial bytes) while set
	partial   int
	syncErr   error
	syncDelay time.Duration
	syncGate  chan struct{} // Sync waits for a receive when set
	closed    bool
}

func (f *fakeFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errors.New("write on closed file")
	}
	if f.writeErr != nil {
		n := min(f.partial, len(p))
		f.data = append(f.data, p[:n]...)
		return n, f.writeErr
	}
	f.data = append(f.data, p...)
	return len(p), nil
}

func (f *fakeFile) Sync() error {
	f.mu.Lock()
	gate, delay := f.syncGate, f.syncDelay
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	time.Sleep(delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	if f.syncErr != nil {
		return f.syncErr
	}
	f.synced = len(f.data)
	return nil
}

func (f *fakeFile) Truncate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.data = f.data[:size]
	return nil
}

func (f *fakeFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

func (f *fakeFile) state() (data string, synced, syncs int, closed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.data), f.synced, f.syncs, f.closed
}

func TestLogAlwaysRepliesOnlyAfterFsync(t *testing.T) {
	f := &fakeFile{syncGate: make(chan struct{})}
	l := NewLog(f, 0, FsyncAlways)
	defer l.Close()
	off := l.Append([]byte("abc"))
	done := make(chan error, 1)
	go func() { done <- l.Wait(off) }()
	select {
	case <-done:
		t.Fatal("Wait returned before the fsync finished")
	case <-time.After(150 * time.Millisecond):
	}
	if data, _, _, _ := f.state(); data != "abc" {
		t.Fatalf("not written before the fsync: %q", data)
	}
	close(f.syncGate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, synced, _, _ := f.state(); synced != 3 {
		t.Fatalf("synced %d", synced)
	}
}

// TestLogGroupCommit: concurrent writers share fsyncs, and each Wait
// returns only once its own bytes are synced.
func TestLogGroupCommit(t *testing.T) {
	f := &fakeFile{syncDelay: 2 * time.Millisecond}
	l := NewLog(f, 0, FsyncAlways)
	const writers, each = 40, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				off := l.Append([]byte(fmt.Sprintf("w%02d-%03d;", w, i)))
				if err := l.Wait(off); err != nil {
					errs <- err
					return
				}
				if _, synced, _, _ := f.state(); int64(synced) < off {
					errs <- fmt.Errorf("Wait(%d) returned with %d bytes synced", off, synced)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l.Close()
	data, _, syncs, _ := f.state()
	if len(data) != writers*each*8 {
		t.Fatalf("wrote %d bytes, want %d", len(data), writers*each*8)
	}
	if syncs >= writers*each/2 {
		t.Fatalf("%d fsyncs for %d commits: no group commit", syncs, writers*each)
	}
	t.Logf("%d commits, %d fsyncs", writers*each, syncs)
}

func TestLogEverySecWritesBeforeReplyAndSyncsLater(t *testing.T) {
	f := &fakeFile{}
	l := NewLog(f, 0, FsyncEverySec)
	defer l.Close()
	off := l.Append([]byte("hello"))
	if err := l.Wait(off); err != nil {
		t.Fatal(err)
	}
	data, synced, _, _ := f.state()
	if data != "hello" || synced != 0 {
		t.Fatalf("after Wait: data %q synced %d", data, synced)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, synced, _, _ := f.state(); synced == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no background fsync within 5s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestLogBackgroundWritesUnwaitedAppends(t *testing.T) {
	for _, p := range []Policy{FsyncAlways, FsyncNo} {
		f := &fakeFile{}
		l := NewLog(f, 0, p)
		l.Append([]byte("DEL"))
		deadline := time.Now().Add(3 * time.Second)
		for {
			data, synced, _, _ := f.state()
			if data == "DEL" && (p != FsyncAlways || synced == 3) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("policy %d: background did not write: %q %d", p, data, synced)
			}
			time.Sleep(20 * time.Millisecond)
		}
		l.Close()
	}
}

func TestLogWriteErrorAlways(t *testing.T) {
	f := &fakeFile{writeErr: syscall.ENOSPC, partial: 2}
	l := NewLog(f, 0, FsyncAlways)
	defer l.Close()
	off := l.Append([]byte("abcdef"))
	err := l.Wait(off)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Wait: %v, want ENOSPC", err)
	}
	if !l.Failed() || !errors.Is(l.Err(), syscall.ENOSPC) || l.Stats().WriteOK {
		t.Fatalf("status after a failed write: %v %v", l.Failed(), l.Err())
	}
	if data, _, _, _ := f.state(); data != "" {
		t.Fatalf("partial write not truncated: %q", data)
	}
	f.mu.Lock()
	f.writeErr = nil
	f.mu.Unlock()
	if err := l.Wait(off); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if data, synced, _, _ := f.state(); data != "abcdef" || synced != 6 {
		t.Fatalf("after retry: %q synced %d", data, synced)
	}
	if l.Failed() || l.Err() != nil {
		t.Fatal("error not cleared by a successful write")
	}
}

func TestLogWriteErrorEverySecStillReplies(t *testing.T) {
	f := &fakeFile{writeErr: syscall.EIO}
	l := NewLog(f, 0, FsyncEverySec)
	defer l.Close()
	off := l.Append([]byte("xyz"))
	if err := l.Wait(off); err != nil {
		t.Fatalf("everysec Wait must not fail: %v", err)
	}
	if !errors.Is(l.Err(), syscall.EIO) {
		t.Fatalf("Err %v", l.Err())
	}
	f.mu.Lock()
	f.writeErr = nil
	f.mu.Unlock()
	deadline := time.Now().Add(3 * time.Second)
	for l.Failed() {
		if time.Now().After(deadline) {
			t.Fatal("the background did not retry the write")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if data, _, _, _ := f.state(); data != "xyz" {
		t.Fatalf("data %q", data)
	}
}

func TestLogFsyncErrorAlwaysIsFatal(t *testing.T) {
	f := &fakeFile{syncErr: syscall.EIO}
	l := NewLog(f, 0, FsyncAlways)
	defer l.Close()
	off := l.Append([]byte("a"))
	if err := l.Wait(off); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Wait %v", err)
	}
	f.mu.Lock()
	f.syncErr = nil
	f.mu.Unlock()
	off = l.Append([]byte("b"))
	if err := l.Wait(off); !errors.Is(err, syscall.EIO) {
		t.Fatalf("after a failed fsync, always must keep refusing: %v", err)
	}
}

func TestLogRotate(t *testing.T) {
	f1, f2 := &fakeFile{}, &fakeFile{}
	l := NewLog(f1, 10, FsyncEverySec)
	l.Append([]byte("old"))
	l.Rotate(f2, 0)
	off := l.Append([]byte("new"))
	if err := l.Wait(off); err != nil {
		t.Fatal(err)
	}
	d1, s1, _, c1 := f1.state()
	d2, _, _, _ := f2.state()
	if d1 != "old" || s1 != 3 || !c1 || d2 != "new" {
		t.Fatalf("old file %q synced %d closed %v; new file %q", d1, s1, c1, d2)
	}
	if st := l.Stats(); st.FileSize != 3 || st.Pending != 0 {
		t.Fatalf("stats %+v", st)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, s2, _, c2 := f2.state(); s2 != 3 || !c2 {
		t.Fatalf("Close did not sync and close: %d %v", s2, c2)
	}
	if err := l.Wait(off + 1); err != ErrClosed {
		t.Fatalf("Wait after Close: %v", err)
	}
}

func TestLogSwitchToAlwaysSyncs(t *testing.T) {
	f := &fakeFile{}
	l := NewLog(f, 0, FsyncNo)
	defer l.Close()
	off := l.Append([]byte("q"))
	if err := l.Wait(off); err != nil {
		t.Fatal(err)
	}
	l.SetPolicy(FsyncAlways)
	if l.Durable(off) {
		t.Fatal("unsynced bytes reported durable under always")
	}
	if err := l.Flush(false); err != nil {
		t.Fatal(err)
	}
	if _, synced, _, _ := f.state(); synced != 1 {
		t.Fatalf("switching to always did not fsync: %d", synced)
	}
}

// TestLogEverySecFsyncDoesNotBlockWrites: the background fsync of everysec
// runs beside client writes, which keep being acknowledged meanwhile.
func TestLogEverySecFsyncDoesNotBlockWrites(t *testing.T) {
	gate := make(chan struct{})
	f := &fakeFile{syncGate: gate}
	l := NewLog(f, 0, FsyncEverySec)
	defer func() { close(gate); l.Close() }()
	if err := l.Wait(l.Append([]byte("a"))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !l.Stats().SyncInProgress {
		if time.Now().After(deadline) {
			t.Fatal("no background fsync started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan error, 1)
	go func() { done <- l.Wait(l.Append([]byte("b"))) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a write waited for the background fsync")
	}
	if data, _, _, _ := f.state(); data != "ab" {
		t.Fatalf("data %q", data)
	}
}
