package aof

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Policy is appendfsync.
type Policy int

// appendfsync values.
const (
	FsyncEverySec Policy = iota // write before replying, fsync once a second in the background
	FsyncAlways                 // write and fsync before replying
	FsyncNo                     // write before replying, let the OS flush
)

// ParsePolicy maps an appendfsync value to a Policy (everysec for anything
// unknown; the configuration checks the value).
func ParsePolicy(s string) Policy {
	switch s {
	case "always":
		return FsyncAlways
	case "no":
		return FsyncNo
	}
	return FsyncEverySec
}

// File is what the log writes to; *os.File implements it. Tests use it to
// inject failures.
type File interface {
	Write(p []byte) (int, error)
	Sync() error
	Truncate(size int64) error
	Close() error
}

// ErrClosed is returned by Wait after Close for bytes that never reached
// the file.
var ErrClosed = errors.New("append-only file closed")

// logFile is one file the log writes or wrote to.
type logFile struct {
	f    File
	size atomic.Int64 // bytes write(2) accepted (updated during I/O without l.mu)

	// closeMu orders the background fsync (readers) with the file's close
	// when a rotation retires it (writer).
	closeMu sync.RWMutex
	closed  bool // closeMu
}

// sync fsyncs the file unless it was closed meanwhile (then it was
// fsynced by its retirement).
func (lf *logFile) sync() error {
	lf.closeMu.RLock()
	defer lf.closeMu.RUnlock()
	if lf.closed {
		return nil
	}
	return lf.f.Sync()
}

// close closes the file, waiting for a background fsync on it.
func (lf *logFile) close() {
	lf.closeMu.Lock()
	defer lf.closeMu.Unlock()
	if !lf.closed {
		lf.f.Close()
		lf.closed = true
	}
}

// segment is bytes waiting to be written to one file; close retires the
// file after them (sync, then close).
type segment struct {
	lf    *logFile
	data  []byte
	end   int64 // log offset just past data
	close bool
}

// Log is an open append-only file with Redis's write discipline: commands
// are appended to a memory buffer under the engine lock; a client's replies
// leave only after Wait says its bytes are written (and, with
// appendfsync always, fsynced). Offsets count every byte ever appended to
// the log, across file switches.
//
// Group commit: the first goroutine that waits while no I/O is running
// becomes the leader: it takes everything appended so far, writes it with
// one write(2), fsyncs once if needed, and wakes everyone whose bytes are
// now safe. Clients arriving meanwhile append to the next batch, written
// by the next leader, so N concurrent clients share one fsync.
//
// Errors: a failed or short write leaves the bytes in the buffer (a partial
// write is truncated away first) to be retried by the next round; a failed
// fsync under appendfsync always is fatal for this Log, as the OS may have
// dropped the dirty pages. Err reports either, for Redis's MISCONF check.
type Log struct {
	mu   sync.Mutex
	cond sync.Cond

	policy  Policy
	cur     *logFile  // the file appends go to
	pending []segment // bytes not yet written, in order
	spare   []byte

	appended int64 // offset just past everything appended
	written  int64 // offset just past what write(2) accepted
	synced   int64 // offset just past what fsync made durable
	busy     bool  // a leader is doing I/O
	round    uint64
	// Outcome of the last round: the offset it tried to reach and its error.
	roundEnd int64
	roundErr error

	writeErr   error // the last write failed; cleared by a successful write
	syncErr    error // the last fsync failed; cleared by a successful one
	fatal      error // appendfsync always: an fsync failed
	syncWanted bool  // fsync at the end of the next round
	bgSyncing  bool  // the everysec background fsync is running
	lastSync   time.Time
	closed     bool
	failed     atomic.Bool // writeErr, syncErr or fatal is set

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// NewLog returns a log appending to f, which holds size bytes already, and
// starts its background goroutine (everysec fsync, writing what was
// appended with nobody waiting, retrying after errors).
func NewLog(f File, size int64, p Policy) *Log {
	l := &Log{
		policy:   p,
		cur:      newLogFile(f, size),
		lastSync: time.Now(),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	l.cond.L = &l.mu
	go l.background()
	return l
}

// Append adds the encoded commands b to the log and returns the offset just
// past them. b is copied.
func (l *Log) Append(b []byte) int64 {
	if len(b) == 0 {
		return l.End()
	}
	l.mu.Lock()
	n := len(l.pending)
	if n > 0 && l.pending[n-1].lf == l.cur && !l.pending[n-1].close {
		l.pending[n-1].data = append(l.pending[n-1].data, b...)
	} else {
		buf := append(l.spare[:0], b...)
		l.spare = nil
		l.pending = append(l.pending, segment{lf: l.cur, data: buf})
		n++
	}
	l.appended += int64(len(b))
	l.pending[n-1].end = l.appended
	end := l.appended
	l.mu.Unlock()
	return end
}

// End returns the offset just past everything appended so far.
func (l *Log) End() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.appended
}

// Wait blocks until the bytes up to offset off are written and, under
// appendfsync always, fsynced. It returns an error only under always, when
// they could not be made durable: the caller must not acknowledge them.
// Under everysec and no it returns nil once a write was attempted, as
// Redis replies even when the write failed (Err then refuses new writes).
func (l *Log) Wait(off int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		if l.doneLocked(off) {
			return nil
		}
		if l.policy == FsyncAlways && l.fatal != nil {
			return l.fatal
		}
		if l.closed {
			return ErrClosed
		}
		if !l.busy {
			l.roundLocked(false)
		} else {
			r := l.round
			for l.busy && l.round == r {
				l.cond.Wait()
			}
		}
		if l.doneLocked(off) {
			return nil
		}
		if l.roundEnd >= off && l.roundErr != nil {
			if l.policy == FsyncAlways {
				return l.roundErr
			}
			return nil
		}
	}
}

// Durable reports whether the bytes up to off are already as safe as the
// policy requires (Wait would return at once).
func (l *Log) Durable(off int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.doneLocked(off)
}

// Barrier returns the offset just past everything appended so far and
// whether those bytes are already as safe as the policy requires.
func (l *Log) Barrier() (off int64, durable bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.appended, l.doneLocked(l.appended)
}

// Failed reports, without locking, whether Err would return an error.
func (l *Log) Failed() bool { return l.failed.Load() }

// doneLocked reports whether the bytes up to off are as safe as the
// policy requires before a reply.
func (l *Log) doneLocked(off int64) bool {
	if l.policy == FsyncAlways {
		return off <= l.synced
	}
	return off <= l.written
}

// roundLocked does one I/O round as the leader: it writes every pending
// segment in order, retires rotated files, and fsyncs the current file if
// the policy or sync asks for it. It releases l.mu during the I/O and
// returns with it held; waiters are woken at the end.
func (l *Log) roundLocked(sync bool) {
	l.busy = true
	segs := l.pending
	l.pending = nil
	end := l.appended
	cur := l.cur
	doSync := sync || l.syncWanted || l.policy == FsyncAlways
	l.syncWanted = false
	written, synced := l.written, l.synced
	l.mu.Unlock()

	var werr, serr error
	var unwritten []segment
	for i, sg := range segs {
		if len(sg.data) > 0 {
			n, err := writeFull(sg.lf, sg.data)
			written = sg.end - int64(len(sg.data)) + int64(n)
			if err != nil {
				werr = err
				rest := sg
				rest.data = sg.data[n:]
				unwritten = append(append(unwritten, rest), segs[i+1:]...)
				break
			}
		}
		if sg.close {
			if err := sg.lf.f.Sync(); err != nil {
				serr = err
			} else if serr == nil {
				synced = written
			}
			sg.lf.close()
		}
	}
	if werr == nil && doSync && synced < written {
		if err := cur.f.Sync(); err != nil {
			serr = err
		} else if serr == nil {
			synced = written
		}
	}

	l.mu.Lock()
	l.written = written
	if serr == nil {
		l.synced = synced
	}
	if len(unwritten) > 0 {
		l.pending = append(unwritten, l.pending...)
	} else if len(segs) > 0 && len(segs[len(segs)-1].data) < 64<<10 && l.spare == nil {
		l.spare = segs[len(segs)-1].data[:0]
	}
	l.writeErr = werr
	if doSync || serr != nil {
		l.syncErr = serr
		l.lastSync = time.Now()
	}
	if serr != nil && l.policy == FsyncAlways && l.fatal == nil {
		l.fatal = serr
	}
	l.roundEnd = end
	l.roundErr = werr
	if l.roundErr == nil && serr != nil && l.policy == FsyncAlways {
		l.roundErr = serr
	}
	l.failed.Store(l.writeErr != nil || l.syncErr != nil || l.fatal != nil)
	l.busy = false
	l.round++
	l.cond.Broadcast()
}

// writeFull writes b to lf, retrying short writes as Redis's aofWrite
// does. On failure it truncates the partial write away when it can and
// reports how many bytes of b remain in the file.
func writeFull(lf *logFile, b []byte) (int, error) {
	total := 0
	size := lf.size.Load()
	for total < len(b) {
		n, err := lf.f.Write(b[total:])
		total += n
		if err == nil && n == 0 {
			err = syscall.ENOSPC // a short write: Redis reports ENOSPC
		}
		if err != nil {
			if total > 0 && lf.f.Truncate(size) == nil {
				total = 0
			}
			lf.size.Add(int64(total))
			return total, err
		}
	}
	lf.size.Add(int64(total))
	return total, nil
}

// Flush writes everything appended so far and, when sync is true, fsyncs
// it, waiting for a round in progress first. It returns the error of the
// write or fsync, if any (shutdown, tests, switching to always).
func (l *Log) Flush(sync bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.busy {
		l.cond.Wait()
	}
	if l.closed {
		return ErrClosed
	}
	sync = sync || l.syncWanted || l.policy == FsyncAlways
	if l.written == l.appended && (!sync || l.synced == l.written) && len(l.pending) == 0 {
		return nil
	}
	l.roundLocked(sync)
	if l.writeErr != nil {
		return l.writeErr
	}
	return l.syncErr
}

// Rotate switches the log to f, which holds size bytes: what was appended
// before goes to the previous file, which is then fsynced and closed;
// later appends go to f. Call it between two commands (under the engine
// lock), so no transaction spans the two files.
func (l *Log) Rotate(f File, size int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, segment{lf: l.cur, end: l.appended, close: true})
	l.cur = newLogFile(f, size)
}

func newLogFile(f File, size int64) *logFile {
	lf := &logFile{f: f}
	lf.size.Store(size)
	return lf
}

// SetPolicy changes appendfsync. Switching to always fsyncs at the next
// round, so earlier writes become durable too.
func (l *Log) SetPolicy(p Policy) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p == FsyncAlways && l.policy != FsyncAlways {
		l.syncWanted = true
	}
	l.policy = p
}

// Policy returns the appendfsync policy in force.
func (l *Log) Policy() Policy {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.policy
}

// Err returns why writes must be refused (Redis's MISCONF condition): the
// last write failed, or the last fsync failed; nil when all is well.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.fatal != nil:
		return l.fatal
	case l.writeErr != nil:
		return l.writeErr
	}
	return l.syncErr
}

// Stats is what INFO persistence reports about the log.
type Stats struct {
	FileSize       int64 // bytes in the current file
	Pending        int64 // bytes appended but not written (aof_buffer_length)
	SyncInProgress bool  // an fsync is running (aof_pending_bio_fsync)
	WriteOK        bool  // aof_last_write_status
}

// Stats returns the log's counters.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{
		FileSize:       l.cur.size.Load(),
		Pending:        l.appended - l.written,
		SyncInProgress: l.bgSyncing || (l.busy && l.policy == FsyncAlways),
		WriteOK:        l.writeErr == nil && l.syncErr == nil && l.fatal == nil,
	}
}

// Close writes and fsyncs what is pending, stops the background goroutine
// and closes the file. It returns the first error of the final write,
// fsync or close.
func (l *Log) Close() error {
	l.closeOnce.Do(func() { close(l.stop) })
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.busy {
		l.cond.Wait()
	}
	if l.closed {
		return nil
	}
	var err error
	if len(l.pending) > 0 || l.synced < l.written {
		l.roundLocked(true)
		err = l.writeErr
		if err == nil {
			err = l.syncErr
		}
	}
	l.cur.closeMu.Lock()
	if cerr := l.cur.f.Close(); err == nil {
		err = cerr
	}
	l.cur.closed = true
	l.cur.closeMu.Unlock()
	l.closed = true
	l.cond.Broadcast()
	return err
}

// backgroundTick is how often the background goroutine looks at the log.
const backgroundTick = 100 * time.Millisecond

// background writes what was appended with nobody waiting (expiry
// deletions from the cron), retries failed writes, and under everysec
// fsyncs once a second (Redis's bio fsync). That fsync runs alongside the
// writes of client batches, which do not wait for it.
func (l *Log) background() {
	defer close(l.done)
	t := time.NewTicker(backgroundTick)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if !l.busy && l.fatal == nil && (len(l.pending) > 0 || l.writeErr != nil) {
			l.roundLocked(false)
		}
		if l.policy == FsyncEverySec && !l.bgSyncing && !l.busy && l.synced < l.written &&
			time.Since(l.lastSync) >= time.Second && !l.retiring() {
			l.backgroundSyncLocked()
		}
		l.mu.Unlock()
	}
}

// retiring reports whether a rotated file still waits to be retired.
func (l *Log) retiring() bool {
	for _, sg := range l.pending {
		if sg.close {
			return true
		}
	}
	return false
}

// backgroundSyncLocked fsyncs the current file without l.mu and without
// the leader role, so client batches keep writing meanwhile.
func (l *Log) backgroundSyncLocked() {
	lf, target := l.cur, l.written
	l.bgSyncing = true
	l.lastSync = time.Now()
	l.mu.Unlock()
	err := lf.sync()
	l.mu.Lock()
	l.bgSyncing = false
	l.syncErr = err
	if err == nil && target > l.synced {
		l.synced = target
	}
	l.failed.Store(l.writeErr != nil || l.syncErr != nil || l.fatal != nil)
	l.cond.Broadcast()
}
