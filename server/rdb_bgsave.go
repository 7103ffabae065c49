package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/internal/atomicfile"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// BGSAVE without fork and without stopping clients.
//
// Go cannot fork a copy-on-write child, and copying the dataset under the
// lock stalls clients for as long as the copy takes. So BGSAVE does what
// the AOF rewrite does (aof_rewrite.go): a goroutine walks every database
// in chunks of keys, each chunk serialized (as RDB records) under the
// engine lock and appended to a spool file without it, while every key
// that changes is recorded. Keys changed during the walk are serialized
// again in passes, and the last few under the lock in a final step that
// also takes the database sizes, the functions and the aux fields. The
// snapshot is therefore the dataset exactly as it is at that final step (a
// point in time, as a fork gives, only at the end of the save rather than
// its start). The file is then assembled without the lock: per database,
// the spooled records of keys not changed since, then the records of the
// changed keys.
//
// FLUSHDB, FLUSHALL and SWAPDB during the walk: records are kept per
// dataset (the data a database index holds, which SWAPDB moves to another
// index) with the dataset's generation; a flush bumps the generation, so
// earlier records of that dataset are dropped, and restarts its walk.

const (
	bgsaveChunkKeys = 1000 // keys serialized per engine-lock acquisition
	bgsaveFinalKeys = 256  // changed keys left for the final, locked step
	bgsaveMaxPasses = 16
)

var errBGSaveAborted = errors.New("BGSAVE aborted")

// bgsaveJob is one BGSAVE. Fields marked engine are guarded by the engine
// lock; the others belong to the goroutine.
type bgsaveJob struct {
	start  time.Time
	path   string
	opt    rdb.Options
	sum    bool
	lru    bool
	delay  time.Duration // rdb-key-save-delay per key saved (tests slow a save down with it)
	walked int           // keys serialized by the last walk chunk
	abort  atomic.Bool
	// For the AOF rewrite's base (aof-use-rdb-preamble yes, aof_rewrite.go):
	// aofBase sets the aof-base aux field, parentAbort is the rewrite's
	// abort flag, and onFinal runs under the engine lock in the final
	// step, where the log switches to the new incremental file.
	aofBase     bool
	parentAbort *atomic.Bool
	onFinal     func()

	tracking bool                    // engine
	dsOf     []int                   // engine: database index -> dataset
	gen      []uint32                // engine: per dataset
	walk     []walkPos               // engine: per dataset
	touched  map[touchedKey]struct{} // engine: keys (by dataset) changed since the walk started
	fresh    map[touchedKey][]byte   // engine: their records now (nil: the key is gone)
	pending  [][]byte                // engine: spool bytes per dataset not yet written
	final    *bgsaveFinal            // engine: taken in the final step

	spool []*os.File // per dataset, created on first use
	dir   string
}

// bgsaveFinal is what the final step takes under the lock.
type bgsaveFinal struct {
	sizes, expires []int
	dsOf           []int
	gen            []uint32
	header         []byte // aux fields and functions, as file bytes after the signature
	dirty          int64
}

// newSnapshotJobLocked prepares a background snapshot to path, tracking
// changes from now on (it holds the keyspace's shrinking until its final
// step).
func (s *Server) newSnapshotJobLocked(path string) *bgsaveJob {
	n := s.ks.Len()
	j := &bgsaveJob{
		start: time.Now(), path: path, opt: s.rdbOptionsLocked(), sum: s.rdbChecksumLocked(),
		lru: s.saveAccessLocked(), delay: s.rdbKeySaveDelayLocked(), tracking: true, dsOf: make([]int, n), gen: make([]uint32, n),
		walk: make([]walkPos, n), touched: map[touchedKey]struct{}{}, fresh: map[touchedKey][]byte{},
		pending: make([][]byte, n), spool: make([]*os.File, n),
	}
	j.dir = filepath.Dir(j.path)
	for i := range j.dsOf {
		j.dsOf[i] = i
	}
	s.ks.HoldShrink(true)
	return j
}

// stopTrackingLocked ends the job's change tracking (once).
func (s *Server) stopTrackingLocked(j *bgsaveJob) {
	if j.tracking {
		j.tracking = false
		s.ks.HoldShrink(false)
	}
}

// aborted reports whether the job (or the rewrite it serves) was stopped.
func (j *bgsaveJob) aborted() bool {
	return j.abort.Load() || (j.parentAbort != nil && j.parentAbort.Load())
}

// removeSpools deletes the job's spool files.
func (j *bgsaveJob) removeSpools() {
	for i, f := range j.spool {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
			j.spool[i] = nil
		}
	}
}

// startBGSaveLocked starts a BGSAVE (rdbSaveBackground).
func (s *Server) startBGSaveLocked() error {
	j := s.newSnapshotJobLocked(s.rdbPathLocked())
	s.rdb.lastBGTry = time.Now().Unix()
	s.rdb.saves++
	s.rdb.job = j
	s.log.Info("Background saving started")
	s.rdb.wg.Add(1)
	go s.runBGSave(j)
	return nil
}

func (s *Server) runBGSave(j *bgsaveJob) {
	defer s.rdb.wg.Done()
	err := s.bgsave(j)
	j.removeSpools()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopTrackingLocked(j)
	s.rdb.job = nil
	secs := int64(time.Since(j.start).Seconds())
	s.rdb.lastBGSecs = secs
	if err != nil {
		s.rdb.lastBGOK = false
		s.log.Warn("Background saving error: " + err.Error())
		return
	}
	s.rdb.lastBGOK = true
	s.rdb.lastSave = time.Now().Unix()
	s.rdb.dirtyAtSave = j.final.dirty
	s.log.Info("Background saving terminated with success")
}

// bgsave walks, then assembles the file; the engine lock is not held on
// entry or exit.
func (s *Server) bgsave(j *bgsaveJob) error {
	passes := 0
	var pass []touchedKey
	for {
		s.mu.Lock()
		if j.aborted() {
			s.mu.Unlock()
			return errBGSaveAborted
		}
		ds := -1
		for i := range j.walk {
			if !j.walk[i].done {
				ds = i
				break
			}
		}
		switch {
		case ds >= 0:
			s.bgsaveWalkChunkLocked(j, ds)
		case len(pass) == 0 && len(j.touched) > bgsaveFinalKeys && passes < bgsaveMaxPasses:
			passes++
			for k := range j.touched {
				pass = append(pass, k)
			}
			clear(j.touched)
			fallthrough
		case len(pass) > 0:
			n := min(len(pass), bgsaveChunkKeys)
			s.bgsaveFreshLocked(j, pass[:n])
			pass = pass[n:]
		default:
			s.bgsaveFinalLocked(j)
			s.mu.Unlock()
			if err := j.flushPending(); err != nil {
				return err
			}
			return j.assemble()
		}
		s.mu.Unlock()
		if err := j.flushPending(); err != nil {
			return err
		}
		if j.delay > 0 && j.walked > 0 {
			time.Sleep(time.Duration(j.walked) * j.delay)
			j.walked = 0
		}
	}
}

// rdbKeySaveDelayLocked is rdb-key-save-delay (microseconds per key; a
// negative value is nanoseconds, as Redis's debugDelay takes it).
func (s *Server) rdbKeySaveDelayLocked() time.Duration {
	n, err := strconv.ParseInt(paramOr(&s.cfg, "rdb-key-save-delay", "0"), 10, 64)
	switch {
	case err != nil || n == 0:
		return 0
	case n < 0:
		return time.Duration(-n)
	}
	return time.Duration(n) * time.Microsecond
}

// dbOf returns the database index holding dataset ds.
func (j *bgsaveJob) dbOf(ds int) int {
	for i, x := range j.dsOf {
		if x == ds {
			return i
		}
	}
	return -1
}

// bgsaveWalkChunkLocked serializes the next chunk of dataset ds into its
// pending spool bytes: per key, its generation, name and record.
func (s *Server) bgsaveWalkChunkLocked(j *bgsaveJob, ds int) {
	i := j.dbOf(ds)
	d := s.ks.DB(i)
	w := &j.walk[ds]
	var rec []byte
	w.cur = d.Walk(w.cur, bgsaveChunkKeys, func(kv db.KeyView) {
		rec = s.keyRecordLocked(rec[:0], d, kv, j.lru, &j.opt)
		if len(rec) == 0 {
			return
		}
		j.walked++
		b := j.pending[ds]
		b = binary.AppendUvarint(b, uint64(j.gen[ds]))
		b = binary.AppendUvarint(b, uint64(len(kv.Key)))
		b = append(b, kv.Key...)
		b = binary.AppendUvarint(b, uint64(len(rec)))
		j.pending[ds] = append(b, rec...)
	})
	if w.cur == 0 {
		w.done = true
	}
}

// bgsaveFreshLocked serializes changed keys as they are now.
func (s *Server) bgsaveFreshLocked(j *bgsaveJob, keys []touchedKey) {
	for _, k := range keys {
		i := j.dbOf(k.db)
		d := s.ks.DB(i)
		kv, ok := d.View(k.key)
		if !ok {
			j.fresh[k] = nil
			continue
		}
		j.fresh[k] = s.keyRecordLocked(nil, d, kv, j.lru, &j.opt)
	}
}

// bgsaveFinalLocked serializes the last changed keys and takes the sizes,
// functions and aux fields: the snapshot's point in time.
func (s *Server) bgsaveFinalLocked(j *bgsaveJob) {
	var keys []touchedKey
	for k := range j.touched {
		keys = append(keys, k)
	}
	clear(j.touched)
	s.bgsaveFreshLocked(j, keys)
	s.stopTrackingLocked(j)
	f := &bgsaveFinal{dsOf: append([]int(nil), j.dsOf...), gen: append([]uint32(nil), j.gen...), dirty: s.ks.Stats.Dirty}
	for i := 0; i < s.ks.Len(); i++ {
		f.sizes = append(f.sizes, s.ks.DB(i).Size())
		f.expires = append(f.expires, s.ks.DB(i).Expires())
	}
	var hb headerBuf
	w := rdb.NewWriter(&hb, j.opt, false)
	s.writeRDBHeaderLocked(w, j.aofBase)
	w.Raw(nil)
	w.Close()
	// Keep what follows the 9-byte signature, without EOF and checksum.
	f.header = append([]byte(nil), hb.b[9:len(hb.b)-9]...)
	j.final = f
	if j.onFinal != nil {
		j.onFinal()
	}
}

type headerBuf struct{ b []byte }

func (h *headerBuf) Write(p []byte) (int, error) { h.b = append(h.b, p...); return len(p), nil }

// flushPending writes the spool bytes taken under the lock.
func (j *bgsaveJob) flushPending() error {
	for ds, b := range j.pending {
		if len(b) == 0 {
			continue
		}
		if j.spool[ds] == nil {
			f, err := os.CreateTemp(j.dir, fmt.Sprintf("temp-bgsave-%d-*.spool", os.Getpid()))
			if err != nil {
				return fmt.Errorf("Failed opening the spool file for BGSAVE: %w", err)
			}
			j.spool[ds] = f
		}
		if _, err := j.spool[ds].Write(b); err != nil {
			return fmt.Errorf("Write error saving DB on disk: %w", err)
		}
		j.pending[ds] = b[:0]
	}
	return nil
}

// assemble writes the RDB file from the spools and the fresh records.
func (j *bgsaveJob) assemble() error {
	tmp := filepath.Join(j.dir, fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %w", filepath.Base(tmp), j.dir, err)
	}
	defer os.Remove(tmp) // after the rename, a no-op
	bw := bufio.NewWriterSize(f, 256<<10)
	w := rdb.NewWriter(bw, j.opt, j.sum)
	w.Raw(j.final.header)
	for i, size := range j.final.sizes {
		if size == 0 {
			continue
		}
		if j.aborted() {
			f.Close()
			return errBGSaveAborted
		}
		ds := j.final.dsOf[i]
		w.SelectDB(i, size, j.final.expires[i])
		if sp := j.spool[ds]; sp != nil {
			if err := j.copySpool(w, sp, ds); err != nil {
				f.Close()
				return err
			}
		}
		for k, rec := range j.fresh {
			if k.db == ds && rec != nil {
				w.Raw(rec)
			}
		}
	}
	_, err = w.Close()
	if err == nil {
		err = bw.Flush()
	}
	if err = atomicfile.Commit(f, tmp, j.path, err); err != nil {
		return fmt.Errorf("Write error saving DB on disk: %w", err)
	}
	return nil
}

// copySpool copies dataset ds's spooled records of the final generation,
// except those of keys changed since (their fresh record replaces them).
func (j *bgsaveJob) copySpool(w *rdb.Writer, sp *os.File, ds int) error {
	if _, err := sp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(sp, 256<<10)
	var key, rec []byte
	for {
		gen, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if key, err = readSpoolBytes(br, key); err != nil {
			return err
		}
		if rec, err = readSpoolBytes(br, rec); err != nil {
			return err
		}
		if uint32(gen) != j.final.gen[ds] {
			continue
		}
		if _, changed := j.fresh[touchedKey{ds, string(key)}]; changed {
			continue
		}
		w.Raw(rec)
	}
}

func readSpoolBytes(br *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, err
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	_, err = io.ReadFull(br, buf)
	return buf, err
}

// snapshotJobsLocked returns the snapshots in progress that track changes:
// a BGSAVE's, and an AOF rewrite's RDB base.
func (s *Server) snapshotJobsLocked() [2]*bgsaveJob {
	var out [2]*bgsaveJob
	if j := s.rdb.job; j != nil && j.tracking {
		out[0] = j
	}
	if rw := s.aof.rw; rw != nil && rw.snap != nil && rw.snap.tracking {
		out[1] = rw.snap
	}
	return out
}

// bgsaveKeyModified records a changed key for the snapshots in progress.
func bgsaveKeyModified(s *Server, d *db.DB, key string) {
	for _, j := range s.snapshotJobsLocked() {
		if j != nil {
			j.touched[touchedKey{j.dsOf[d.ID()], strings.Clone(key)}] = struct{}{}
		}
	}
}

// bgsaveFlushed drops what was saved of the emptied datasets and restarts
// their walks.
func bgsaveFlushed(s *Server, dbIndex int) {
	for _, j := range s.snapshotJobsLocked() {
		if j != nil {
			j.flushed(dbIndex)
		}
	}
}

func (j *bgsaveJob) flushed(dbIndex int) {
	flush := func(ds int) {
		j.gen[ds]++
		j.walk[ds] = walkPos{}
		for k := range j.touched {
			if k.db == ds {
				delete(j.touched, k)
			}
		}
		for k := range j.fresh {
			if k.db == ds {
				delete(j.fresh, k)
			}
		}
	}
	if dbIndex < 0 {
		for ds := range j.gen {
			flush(ds)
		}
		return
	}
	flush(j.dsOf[dbIndex])
}

// bgsaveSwapped follows SWAPDB: the datasets change database index.
func bgsaveSwapped(s *Server, a, b int) {
	for _, j := range s.snapshotJobsLocked() {
		if j != nil {
			j.dsOf[a], j.dsOf[b] = j.dsOf[b], j.dsOf[a]
		}
	}
}
