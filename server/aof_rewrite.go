package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/internal/atomicfile"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The AOF rewrite (BGREWRITEAOF, the automatic rewrite on growth, and the
// first base when the AOF is turned on at run time), without fork and
// without stopping clients.
//
// A goroutine writes a new base file while clients keep running: it walks
// every database in chunks of keys, each chunk serialized under the engine
// lock and written without it. Meanwhile every key that changes is
// recorded (db's choke point tells the observer), and FLUSHDB, FLUSHALL and
// SWAPDB are written into the base stream where they happen, restarting or
// exchanging the walks they affect. When the walk is done, the changed keys
// are written again (DEL, then their value now), in passes, until few are
// left; the last of them are written under the engine lock, and in that
// same critical section the log switches to a new incremental file. The
// base therefore holds the dataset exactly as it is at the switch, and the
// new incremental file everything after it: no write is lost and none is
// applied twice.
//
// Crash safety follows Redis's multi-part layout: the new incremental file
// is listed in the manifest before the log switches to it (so the old base
// plus every incremental file is always a complete history), and the
// manifest that names the new base is written only once the base is
// fsynced.

// Sizes of the rewrite's steps.
const (
	rewriteChunkKeys  = 1000    // keys serialized per engine-lock acquisition
	rewriteFinalKeys  = 256     // changed keys left for the final, locked pass
	rewriteMaxPasses  = 16      // passes over changed keys before the final one
	rewriteAutoSync   = 4 << 20 // fsync the base every this many bytes (aof-rewrite-incremental-fsync)
	rewriteItemsLimit = 64      // AOF_REWRITE_ITEMS_PER_CMD, for the type rewriters
)

var (
	errRewriteAborted = errors.New("AOF rewrite aborted")
	errRewriteRunning = errors.New("Background append only file rewriting already in progress")
)

// rewriteJob is one rewrite. Fields marked engine are guarded by the
// engine lock; the others belong to the rewrite goroutine.
type rewriteJob struct {
	initial  bool // the AOF is being turned on: this is its first base
	logging  bool // the AOF was on: switch the log to a new incremental file
	start    time.Time
	abort    atomic.Bool
	dir      string
	prefix   string
	autoSync bool
	// snap writes the base in RDB format (aof-use-rdb-preamble yes): a
	// background snapshot (rdb_bgsave.go) whose final step switches the
	// log, so the base is the dataset exactly at the switch here too. The
	// fields below that build a base of commands are then unused.
	snap *bgsaveJob

	tracking bool                    // engine: record changed keys and whole-db events
	touched  map[touchedKey]struct{} // engine: keys changed since the walk may have passed them
	pass     []touchedKey            // engine: changed keys being written again
	walk     []walkPos               // engine: per database
	buf      []byte                  // engine: serialized commands not yet written
	selected int                     // engine: database of the last SELECT in the base
	err      error                   // engine: a value could not be serialized
	rotated  bool                    // engine: the log switched to incrFile

	manifest *aof.Manifest // the manifest on disk when the rewrite started (with incrName if logging)
	tmpBase  string
	base     *os.File
	written  int64
	synced   int64
	incrName string
	incrFile *os.File
}

type touchedKey struct {
	db  int
	key string
}

type walkPos struct {
	cur  uint64
	done bool
}

func cmdBGRewriteAOF(c *client, args [][]byte) {
	s := c.srv
	switch {
	case s.aof.rw != nil:
		c.fail(protocol.Error("ERR " + errRewriteRunning.Error()))
	case c.inExec:
		s.aof.scheduled = true
		s.aof.failures = 0
		c.w.Status("Background append only file rewriting scheduled")
	default:
		if err := s.startRewriteLocked(); err != nil {
			s.log.Warn("Can't rewrite append only file in background", "err", err)
			c.fail(protocol.Error("ERR Can't execute an AOF background rewriting. Please check the server logs for more information."))
			return
		}
		c.w.Status("Background append only file rewriting started")
	}
}

// startRewriteLocked starts a rewrite in the background.
func (s *Server) startRewriteLocked() error {
	if s.aof.rw != nil {
		return errRewriteRunning
	}
	if s.aof.mode == aofOff {
		s.aofPaths()
		m, err := aof.LoadManifest(s.aof.dir, s.aof.prefix)
		if err != nil {
			s.aof.lastRewriteOK = false
			return err
		}
		s.aof.manifest = m
	}
	if err := os.MkdirAll(s.aof.dir, 0o755); err != nil {
		s.aof.lastRewriteOK = false
		return fmt.Errorf("Can't open or create append-only dir %s: %w", s.cfg.AppendDirName, err)
	}
	m := s.aof.manifest
	if m == nil {
		m = &aof.Manifest{}
	}
	rw := &rewriteJob{
		initial:  s.aof.mode == aofWaitRewrite,
		logging:  s.aof.mode == aofOn && s.aof.log != nil,
		start:    time.Now(),
		dir:      s.aof.dir,
		prefix:   s.aof.prefix,
		autoSync: paramOr(&s.cfg, "aof-rewrite-incremental-fsync", "yes") == "yes",
		selected: -1,
		manifest: m.Clone(),
	}
	if s.aofPreambleLocked() {
		rw.snap = s.newSnapshotJobLocked(filepath.Join(rw.dir, "rewrite-base.rdb"))
		rw.snap.aofBase = true
		rw.snap.parentAbort = &rw.abort
		rw.snap.onFinal = func() { s.switchRewriteLogLocked(rw) }
	} else {
		rw.tracking = true
		rw.touched = make(map[touchedKey]struct{})
		rw.walk = make([]walkPos, s.ks.Len())
		s.ks.HoldShrink(true)
	}
	s.aof.rw = rw
	s.aof.scheduled = false
	s.aof.rewrites++
	s.aof.wg.Add(1)
	go s.runRewrite(rw)
	s.log.Info("Background append only file rewriting started")
	return nil
}

// runRewrite is the rewrite goroutine.
func (s *Server) runRewrite(rw *rewriteJob) {
	defer s.aof.wg.Done()
	err := s.rewrite(rw)
	s.mu.Lock()
	s.finishRewriteLocked(rw, err)
	s.mu.Unlock()
}

// aofPreambleLocked is aof-use-rdb-preamble: the base is written in RDB
// format.
func (s *Server) aofPreambleLocked() bool {
	return paramOr(&s.cfg, "aof-use-rdb-preamble", "yes") == "yes"
}

// rewrite does the work; the engine lock is not held on entry or exit.
func (s *Server) rewrite(rw *rewriteJob) error {
	if err := s.prepareRewrite(rw); err != nil {
		return err
	}
	if rw.snap != nil {
		return s.rewriteRDB(rw)
	}
	for passes := 0; ; {
		s.mu.Lock()
		if rw.abort.Load() {
			s.mu.Unlock()
			return errRewriteAborted
		}
		switch i := rw.nextWalk(); {
		case i >= 0:
			s.rewriteWalkChunkLocked(rw, i)
		case len(rw.pass) == 0 && len(rw.touched) > rewriteFinalKeys && passes < rewriteMaxPasses:
			passes++
			rw.pass = rw.takeTouched(rw.pass)
			fallthrough
		case len(rw.pass) > 0:
			n := min(len(rw.pass), rewriteChunkKeys)
			s.rewriteKeysLocked(rw, rw.pass[:n])
			rw.pass = rw.pass[n:]
		default:
			s.finalRewriteStepLocked(rw)
			buf, err := rw.takeBuf()
			s.mu.Unlock()
			if err != nil {
				return err
			}
			return s.commitRewrite(rw, buf)
		}
		buf, err := rw.takeBuf()
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if err := rw.writeBase(buf); err != nil {
			return err
		}
		if step := s.hooks.rewriteStep; step != nil {
			step()
		}
	}
}

// rewriteRDB writes the base as an RDB snapshot: the snapshot's final step
// switches the log (switchRewriteLogLocked), then the file is installed.
func (s *Server) rewriteRDB(rw *rewriteJob) error {
	// The snapshot writes the file whole, replacing the temporary base.
	rw.base.Close()
	rw.base = nil
	rw.snap.path = rw.tmpBase
	err := s.bgsave(rw.snap)
	rw.snap.removeSpools()
	if err != nil {
		return err
	}
	if st, err := os.Stat(rw.tmpBase); err == nil {
		rw.written = st.Size()
	}
	return s.commitRewrite(rw, nil)
}

// prepareRewrite creates the temporary base file and the incremental file
// the log will switch to. When the AOF is on, that file is listed in the
// manifest at once (it is empty until the switch, so the manifest stays a
// complete history); when the AOF is being turned on, it is a temporary
// file that the manifest names only at the end, as Redis does.
func (s *Server) prepareRewrite(rw *rewriteJob) error {
	rw.tmpBase = filepath.Join(rw.dir, fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	f, err := os.OpenFile(rw.tmpBase, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("Opening the temp file for AOF rewrite: %w", err)
	}
	rw.base = f
	switch {
	case rw.logging:
		m := rw.manifest.Clone()
		rw.incrName = m.NewIncr(rw.prefix)
		if rw.incrFile, err = createIncr(rw.dir, rw.incrName); err != nil {
			return err
		}
		if err := aof.WriteManifest(rw.dir, rw.prefix, m); err != nil {
			return err
		}
		rw.manifest = m
		s.mu.Lock()
		s.aof.manifest = m.Clone()
		s.mu.Unlock()
		s.log.Info("Creating AOF incr file " + rw.incrName + " on background rewrite")
	case rw.initial:
		rw.incrName = aof.TempIncrName(rw.prefix)
		if rw.incrFile, err = createIncr(rw.dir, rw.incrName); err != nil {
			return err
		}
	}
	return nil
}

// createIncr creates (empty) an incremental file for appending.
func createIncr(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("Can't open the append-only file %s: %w", name, err)
	}
	return f, nil
}

// nextWalk returns the first database whose walk is not done, or -1.
func (rw *rewriteJob) nextWalk() int {
	for i := range rw.walk {
		if !rw.walk[i].done {
			return i
		}
	}
	return -1
}

// rewriteWalkChunkLocked serializes the next chunk of database i.
func (s *Server) rewriteWalkChunkLocked(rw *rewriteJob, i int) {
	w := &rw.walk[i]
	w.cur = s.ks.DB(i).Walk(w.cur, rewriteChunkKeys, func(kv db.KeyView) { rw.emitKey(s.hooks.rewriteValue, i, kv) })
	if w.cur == 0 {
		w.done = true
	}
}

// rewriteKeysLocked writes keys again: DEL, then their current value.
func (s *Server) rewriteKeysLocked(rw *rewriteJob, keys []touchedKey) {
	for _, k := range keys {
		rw.selectDB(k.db)
		rw.buf = aof.AppendArray(rw.buf, 2)
		rw.buf = aof.AppendBulk(rw.buf, propDEL)
		rw.buf = aof.AppendBulkString(rw.buf, k.key)
		if kv, ok := s.ks.DB(k.db).View(k.key); ok {
			rw.emitKey(s.hooks.rewriteValue, k.db, kv)
		}
	}
}

// finalRewriteStepLocked writes the last changed keys and switches the log
// to the new incremental file, in one critical section: the base ends
// exactly where the new file begins.
func (s *Server) finalRewriteStepLocked(rw *rewriteJob) {
	rw.pass = rw.takeTouched(rw.pass[:0])
	s.rewriteKeysLocked(rw, rw.pass)
	rw.pass = nil
	for _, fn := range s.hooks.rewriteGlobals {
		rw.buf = fn(s, rw.buf)
	}
	rw.tracking = false
	s.ks.HoldShrink(false)
	s.switchRewriteLogLocked(rw)
}

// switchRewriteLogLocked switches the log to the rewrite's new incremental
// file (or, when the AOF was turned off meanwhile, drops that file): the
// base ends where the file begins.
func (s *Server) switchRewriteLogLocked(rw *rewriteJob) {
	switch {
	case rw.logging && s.aof.mode == aofOn && s.aof.log != nil:
		s.flushUnitLocked()
		st := s.aof.log.Stats()
		s.aof.otherSize += st.FileSize + st.Pending
		s.aof.log.Rotate(s.wrapAOFFile(rw.incrFile), 0)
		s.aof.selected = -1
		rw.rotated = true
	case rw.initial && s.aof.mode == aofWaitRewrite:
		s.aof.log = aof.NewLog(s.wrapAOFFile(rw.incrFile), 0, aof.ParsePolicy(s.cfg.AppendFsync))
		s.aof.prop.setAOF(true)
		s.aof.selected = -1
		rw.rotated = true
	case rw.incrFile != nil: // the AOF was turned off meanwhile: a snapshot only
		rw.incrFile.Close()
		if rw.initial {
			os.Remove(filepath.Join(rw.dir, rw.incrName))
		}
		rw.incrFile = nil
	}
}

// commitRewrite finishes the base file and installs it: fsync, rename,
// and the manifest that names it (older files become history).
func (s *Server) commitRewrite(rw *rewriteJob, last []byte) error {
	if rw.base != nil { // an RDB base is complete and synced already
		if err := rw.writeBase(last); err != nil {
			return err
		}
		if err := rw.base.Sync(); err != nil {
			return fmt.Errorf("Write error writing append only file on disk: %w", err)
		}
		if err := rw.base.Close(); err != nil {
			return err
		}
		rw.base = nil
	}
	m := rw.manifest.Clone()
	baseName := m.NewBase(rw.prefix, rw.snap != nil)
	switch {
	case rw.initial && rw.rotated:
		name := m.NewIncr(rw.prefix)
		if err := os.Rename(filepath.Join(rw.dir, rw.incrName), filepath.Join(rw.dir, name)); err != nil {
			return fmt.Errorf("Error trying to rename the temporary AOF incr file %s into %s: %w", rw.incrName, name, err)
		}
		rw.incrName = name
		m.IncrBefore(name)
	case rw.logging && rw.rotated:
		m.IncrBefore(rw.incrName)
	default:
		m.IncrBefore("")
	}
	if err := os.Rename(rw.tmpBase, filepath.Join(rw.dir, baseName)); err != nil {
		return fmt.Errorf("Error trying to rename the temporary AOF base file %s into %s: %w", filepath.Base(rw.tmpBase), baseName, err)
	}
	rw.tmpBase = ""
	if err := aof.WriteManifest(rw.dir, rw.prefix, m); err != nil {
		return err
	}
	s.log.Info("Successfully renamed the temporary AOF base file into " + baseName)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aof.manifest = m
	if s.aof.mode != aofOff && !rw.abort.Load() {
		s.aof.otherSize = rw.written
		s.aof.rewriteBaseSize = s.aofCurrentSizeLocked()
		if rw.initial {
			s.aof.mode = aofOn
		}
	}
	s.aofDeleteHistoryLocked()
	return nil
}

// finishRewriteLocked records the outcome and cleans up after a failure:
// the temporary base goes; an incremental file prepared for the switch is
// still switched to when the AOF is on (it is already in the manifest, as
// Redis keeps the new INCR file of a failed rewrite), and removed when the
// AOF was being turned on (which is then retried by the cron).
func (s *Server) finishRewriteLocked(rw *rewriteJob, err error) {
	s.aof.rw = nil
	if rw.tracking {
		rw.tracking = false
		s.ks.HoldShrink(false)
	}
	if rw.snap != nil {
		s.stopTrackingLocked(rw.snap)
	}
	s.aof.lastRewriteSecs = int64(time.Since(rw.start) / time.Second)
	if err == nil {
		s.aof.lastRewriteOK = true
		s.aof.failures = 0
		s.log.Info("Background AOF rewrite finished successfully")
		return
	}
	if rw.base != nil {
		rw.base.Close()
	}
	if rw.tmpBase != "" {
		os.Remove(rw.tmpBase)
	}
	switch {
	case rw.rotated && rw.initial:
		if s.aof.log != nil && s.aof.mode == aofWaitRewrite {
			s.aof.prop.setAOF(false)
			s.aof.log.Close()
			s.aof.log = nil
		}
		os.Remove(filepath.Join(rw.dir, rw.incrName))
	case !rw.rotated && rw.incrFile != nil:
		if rw.logging && s.aof.mode == aofOn && s.aof.log != nil {
			s.flushUnitLocked()
			st := s.aof.log.Stats()
			s.aof.otherSize += st.FileSize + st.Pending
			s.aof.log.Rotate(s.wrapAOFFile(rw.incrFile), 0)
			s.aof.selected = -1
		} else {
			rw.incrFile.Close()
			if rw.initial {
				os.Remove(filepath.Join(rw.dir, rw.incrName))
			}
		}
	}
	if errors.Is(err, errRewriteAborted) {
		s.log.Warn("Background AOF rewrite stopped")
	} else {
		s.aof.lastRewriteOK = false
		s.aof.failures++
		s.log.Warn("Background AOF rewrite terminated with error", "err", err)
	}
	if s.aof.mode == aofWaitRewrite {
		s.aof.scheduled = true
	}
}

// writeBaseNowLocked writes the whole dataset as base file name at once,
// under the engine lock (start-up with an empty AOF directory, where the
// dataset is empty or small, as Redis's synchronous rewriteAppendOnlyFile).
func (s *Server) writeBaseNowLocked(name string) error {
	if strings.HasSuffix(name, ".rdb") {
		return s.writeRDBFileLocked(filepath.Join(s.aof.dir, name), true)
	}
	rw := &rewriteJob{walk: make([]walkPos, s.ks.Len()), selected: -1}
	for i := rw.nextWalk(); i >= 0; i = rw.nextWalk() {
		s.rewriteWalkChunkLocked(rw, i)
	}
	for _, fn := range s.hooks.rewriteGlobals {
		rw.buf = fn(s, rw.buf)
	}
	if rw.err != nil {
		return rw.err
	}
	path := filepath.Join(s.aof.dir, name)
	tmp := filepath.Join(s.aof.dir, fmt.Sprintf("temp-rewriteaof-%d.aof", os.Getpid()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("Opening the temp file for AOF rewrite: %w", err)
	}
	_, err = f.Write(rw.buf)
	if err = atomicfile.Commit(f, tmp, path, err); err != nil {
		return fmt.Errorf("Write error writing append only file on disk: %w", err)
	}
	return nil
}

// rewriteValueFunc appends the commands that rebuild value v of key
// (hooks.rewriteValue holds one per type other than string).
type rewriteValueFunc func(b []byte, key string, v any) []byte

// emitKey serializes one key: its value (with values, the rewriters of
// the types other than string), then PEXPIREAT if it has a TTL.
func (rw *rewriteJob) emitKey(values map[db.Type]rewriteValueFunc, dbID int, kv db.KeyView) {
	rw.selectDB(dbID)
	switch kv.Type {
	case db.TypeString:
		rw.buf = aof.AppendArray(rw.buf, 3)
		rw.buf = aof.AppendBulk(rw.buf, propSET)
		rw.buf = aof.AppendBulkString(rw.buf, kv.Key)
		rw.buf = aof.AppendBulk(rw.buf, kv.Str)
	default:
		fn := values[kv.Type]
		if fn == nil {
			if rw.err == nil {
				rw.err = fmt.Errorf("no AOF rewrite for keys of type %s (key %q)", kv.Type, kv.Key)
			}
			return
		}
		rw.buf = fn(rw.buf, kv.Key, kv.Obj)
	}
	if kv.Deadline >= 0 {
		rw.buf = aof.AppendArray(rw.buf, 3)
		rw.buf = aof.AppendBulk(rw.buf, propPEXPIREAT)
		rw.buf = aof.AppendBulkString(rw.buf, kv.Key)
		rw.buf = aof.AppendBulkInt(rw.buf, kv.Deadline)
	}
}

// selectDB makes the base stream's current database dbID.
func (rw *rewriteJob) selectDB(dbID int) {
	if rw.selected != dbID {
		rw.buf = aof.AppendSelect(rw.buf, dbID)
		rw.selected = dbID
	}
}

// takeBuf hands the serialized bytes to the goroutine for writing.
func (rw *rewriteJob) takeBuf() ([]byte, error) {
	if rw.err != nil {
		return nil, rw.err
	}
	b := rw.buf
	rw.buf = nil
	return b, nil
}

// takeTouched moves the changed keys into dst (emptying the set).
func (rw *rewriteJob) takeTouched(dst []touchedKey) []touchedKey {
	for k := range rw.touched {
		dst = append(dst, k)
	}
	clear(rw.touched)
	return dst
}

// writeBase writes b to the temporary base, fsyncing every rewriteAutoSync
// bytes so the final fsync stays short.
func (rw *rewriteJob) writeBase(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := rw.base.Write(b); err != nil {
		return fmt.Errorf("Write error writing append only file on disk: %w", err)
	}
	rw.written += int64(len(b))
	if rw.autoSync && rw.written-rw.synced >= rewriteAutoSync {
		if err := rw.base.Sync(); err != nil {
			return fmt.Errorf("Write error writing append only file on disk: %w", err)
		}
		rw.synced = rw.written
	}
	return nil
}

// rewriteKeyModified records a changed key for the rewrite in progress.
func rewriteKeyModified(s *Server, d *db.DB, key string) {
	if rw := s.aof.rw; rw != nil && rw.tracking {
		rw.touched[touchedKey{d.ID(), strings.Clone(key)}] = struct{}{}
	}
}

// rewriteFlushed writes FLUSHDB / FLUSHALL into the base stream where it
// happens and restarts the walk of the emptied databases.
func rewriteFlushed(s *Server, dbIndex int) {
	rw := s.aof.rw
	if rw == nil || !rw.tracking {
		return
	}
	if dbIndex < 0 {
		rw.buf = aof.AppendCommandStrings(rw.buf, "FLUSHALL")
		for i := range rw.walk {
			rw.walk[i] = walkPos{}
		}
		clear(rw.touched)
		rw.pass = rw.pass[:0]
		return
	}
	rw.selectDB(dbIndex)
	rw.buf = aof.AppendCommandStrings(rw.buf, "FLUSHDB")
	rw.walk[dbIndex] = walkPos{}
	for k := range rw.touched {
		if k.db == dbIndex {
			delete(rw.touched, k)
		}
	}
}

// rewriteSwapped writes SWAPDB into the base stream where it happens; the
// walks and the changed keys of the two databases follow their data.
func rewriteSwapped(s *Server, a, b int) {
	rw := s.aof.rw
	if rw == nil || !rw.tracking {
		return
	}
	rw.buf = aof.AppendCommandStrings(rw.buf, "SWAPDB", fmt.Sprint(a), fmt.Sprint(b))
	rw.walk[a], rw.walk[b] = rw.walk[b], rw.walk[a]
	swap := func(k touchedKey) touchedKey {
		switch k.db {
		case a:
			k.db = b
		case b:
			k.db = a
		}
		return k
	}
	moved := make(map[touchedKey]struct{}, len(rw.touched))
	for k := range rw.touched {
		moved[swap(k)] = struct{}{}
	}
	rw.touched = moved
	for i := range rw.pass {
		rw.pass[i] = swap(rw.pass[i])
	}
}
