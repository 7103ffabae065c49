package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/internal/atomicfile"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// RDB snapshots (Redis 7.0 rdb.c rdbSave, saveCommand, bgsaveCommand,
// lastsaveCommand): SAVE writes the dataset under the engine lock, BGSAVE
// in a goroutine without stopping clients (rdb_bgsave.go); both write
// temp-<pid>.rdb in dir and rename it to dbfilename. The file holds the
// aux fields redis-server writes (redis-ver, redis-bits, ctime, used-mem,
// aof-base), the function libraries, and per database SELECTDB, RESIZEDB
// and the keys with their expiry and, under an LRU or LFU maxmemory-policy,
// their idle time or counter.

// rdbVersionString is the redis-ver aux field: the version miniwatchd
// answers as (INFO redis_version).
const rdbVersionString = "7.0.15"

// rdbState is the snapshot bookkeeping (engine lock).
type rdbState struct {
	lastSave      int64 // unix seconds of the last successful save (LASTSAVE)
	dirtyAtSave   int64 // Stats.Dirty when the dataset last reached disk
	saves         int64 // rdb_saves
	lastBGOK      bool  // rdb_last_bgsave_status
	lastBGSecs    int64 // rdb_last_bgsave_time_sec, -1 before the first
	lastBGTry     int64 // unix seconds of the last BGSAVE attempt
	scheduled     bool  // BGSAVE SCHEDULE waits for the AOF rewrite
	job           *bgsaveJob
	loadedKeys    int64 // rdb_last_load_keys_loaded
	expiredOnLoad int64 // rdb_last_load_keys_expired
	shutdownSave  bool  // SHUTDOWN SAVE was given
	// The replication aux fields of the last snapshot loaded (repl-id,
	// repl-offset, repl-stream-db): a replica's history at start.
	loadedReplID  string
	loadedReplOff int64
	loadedReplDB  int
	wg            sync.WaitGroup // the BGSAVE goroutine
}

var (
	errBGSaveRunning = protocol.Error("ERR Background save already in progress")
	errBareERR       = protocol.Error("ERR")
)

var saveCommands = []commandDef{{"save", cmdSave}, {"bgsave", cmdBGSave}, {"lastsave", cmdLastSave}}

// rdbStartLocked is initServer's part for RDB snapshots.
func (s *Server) rdbStartLocked() {
	s.rdb.lastSave = time.Now().Unix()
	s.rdb.lastBGOK = true
	s.rdb.lastBGSecs = -1
}

// rdbPathLocked returns dir/dbfilename.
func (s *Server) rdbPathLocked() string {
	return s.cfg.Resolve(paramOr(&s.cfg, "dbfilename", "dump.rdb"))
}

// rdbChecksumLocked is rdbchecksum.
func (s *Server) rdbChecksumLocked() bool { return paramOr(&s.cfg, "rdbchecksum", "yes") == "yes" }

// saveAccessLocked says which access data SAVE writes before each key:
// the idle time under an LRU policy, the LFU counter under an LFU one.
func (s *Server) saveAccessLocked() (lru bool) {
	return strings.HasSuffix(s.cfg.MaxMemoryPolicy, "-lru")
}

// writeRDBHeaderLocked writes the aux fields and the functions.
func (s *Server) writeRDBHeaderLocked(w *rdb.Writer, aofBase bool) {
	w.Aux("redis-ver", rdbVersionString)
	w.Aux("redis-bits", "64")
	w.Aux("ctime", fmt.Sprint(time.Now().Unix()))
	w.Aux("used-mem", fmt.Sprint(s.usedMemoryLocked()))
	s.replAuxLocked(w) // repl_master.go: repl-stream-db, repl-id, repl-offset
	base := "0"
	if aofBase {
		base = "1"
	}
	w.Aux("aof-base", base)
	for _, code := range s.functionsLocked().Snapshot() {
		w.Function(code)
	}
}

// keyRecordLocked appends the record of one key.
func (s *Server) keyRecordLocked(b []byte, d *db.DB, kv db.KeyView, lru bool, o *rdb.Options) []byte {
	m := rdb.KeyMeta{ExpireAt: kv.Deadline, IdleSecs: -1, Freq: -1}
	if lru || s.ks.LFU() {
		m.IdleSecs, m.Freq = s.ks.AccessMeta(kv.Key, d, lru)
	}
	if kv.Type == db.TypeString {
		sv := rdb.Value{Kind: rdb.KindString, Str: kv.Str}
		return rdb.AppendKey(b, kv.Key, &sv, m, o)
	}
	v := db.ValueOf(kv)
	if v == nil {
		return b // a type the codec does not write yet (see rdb/doc.go)
	}
	return rdb.AppendKey(b, kv.Key, v, m, o)
}

// saveRDBLocked writes the whole dataset to path through a temporary file
// in the same directory (rdbSave), under the engine lock, and records the
// save.
func (s *Server) saveRDBLocked(path string, aofBase bool) error {
	if err := s.writeRDBFileLocked(path, aofBase); err != nil {
		return err
	}
	s.log.Info("DB saved on disk")
	s.rdb.dirtyAtSave = s.ks.Stats.Dirty
	s.rdb.lastSave = time.Now().Unix()
	s.rdb.lastBGOK = true
	return nil
}

// writeRDBFileLocked writes the whole dataset to path through a temporary
// file in the same directory, under the engine lock; aofBase marks an AOF
// base (the aof-base aux field).
func (s *Server) writeRDBFileLocked(path string, aofBase bool) error {
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.rdb", os.Getpid()))
	f, err := os.Create(tmp)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %s", filepath.Base(tmp), filepath.Dir(path), strerror(err)))
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = s.writeRDBLocked(bw, aofBase)
	if err == nil {
		err = bw.Flush()
	}
	if err = atomicfile.Commit(f, tmp, path, err); err != nil {
		s.log.Warn("Write error saving DB on disk: " + strerror(err))
		return err
	}
	return nil
}

// writeRDBLocked writes the whole dataset as an RDB file to out, under
// the engine lock (SAVE and the snapshot of a full resync).
func (s *Server) writeRDBLocked(out io.Writer, aofBase bool) error {
	o := s.rdbOptionsLocked()
	w := rdb.NewWriter(out, o, s.rdbChecksumLocked())
	s.writeRDBHeaderLocked(w, aofBase)
	lru := s.saveAccessLocked()
	var rec []byte
	for i := 0; i < s.ks.Len(); i++ {
		d := s.ks.DB(i)
		if d.Size() == 0 {
			continue
		}
		w.SelectDB(i, d.Size(), d.Expires())
		for cur := uint64(0); ; {
			cur = d.Walk(cur, 1024, func(kv db.KeyView) {
				rec = s.keyRecordLocked(rec[:0], d, kv, lru, &o)
				w.Raw(rec)
			})
			if cur == 0 {
				break
			}
		}
	}
	_, err := w.Close()
	return err
}

func cmdSave(c *client, args [][]byte) {
	s := c.srv
	if s.rdb.job != nil {
		c.fail(errBGSaveRunning)
		return
	}
	s.rdb.saves++
	if err := s.saveRDBLocked(s.rdbPathLocked(), false); err != nil {
		c.fail(errBareERR)
		return
	}
	c.w.OK()
}

func cmdBGSave(c *client, args [][]byte) {
	schedule := false
	if len(args) > 1 {
		if len(args) == 2 && strings.EqualFold(string(args[1]), "schedule") {
			schedule = true
		} else {
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	s := c.srv
	switch {
	case s.rdb.job != nil:
		c.fail(errBGSaveRunning)
	case s.aof.rw != nil || c.inExec:
		if schedule || c.inExec {
			s.rdb.scheduled = true
			c.w.Status("Background saving scheduled")
			return
		}
		c.fail(protocol.Error("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible."))
	default:
		if err := s.startBGSaveLocked(); err != nil {
			c.fail(errBareERR)
			return
		}
		c.w.Status("Background saving started")
	}
}

func cmdLastSave(c *client, args [][]byte) { c.w.Int(c.srv.rdb.lastSave) }

// rdbCronLocked starts a scheduled BGSAVE once no rewrite runs, and a
// BGSAVE when a save point is reached (serverCron): changes >= its count
// and its seconds elapsed since the last save, retrying a failed one only
// after 5 seconds.
func (s *Server) rdbCronLocked() {
	if s.rdb.job != nil || s.aof.rw != nil {
		return
	}
	if s.rdb.scheduled {
		s.rdb.scheduled = false
		_ = s.startBGSaveLocked()
		return
	}
	now := time.Now().Unix()
	dirty := s.ks.Stats.Dirty - s.rdb.dirtyAtSave
	for _, sp := range s.cfg.Save {
		if dirty >= int64(sp.Changes) && now-s.rdb.lastSave > sp.Seconds &&
			(now-s.rdb.lastBGTry > 5 || s.rdb.lastBGOK) {
			s.log.Info(fmt.Sprintf("%d changes in %d seconds. Saving...", sp.Changes, sp.Seconds))
			_ = s.startBGSaveLocked()
			return
		}
	}
}

// rdbShutdownLocked saves before a shutdown when save points are set, or
// SHUTDOWN SAVE asked (prepareForShutdown); a BGSAVE in progress is
// stopped first.
func (s *Server) rdbShutdownLocked(save bool) error {
	if j := s.rdb.job; j != nil {
		s.log.Warn("There is a child saving an .rdb. Killing it!")
		j.abort.Store(true)
	}
	if !save || (len(s.cfg.Save) == 0 && !s.rdb.shutdownSave) {
		return nil
	}
	s.log.Info("Saving the final RDB snapshot before exiting.")
	if err := s.saveRDBLocked(s.rdbPathLocked(), false); err != nil {
		s.log.Warn("Error trying to save the DB, can't exit.")
		return errors.New("Error trying to save the DB")
	}
	return nil
}

// closeRDB stops a BGSAVE in progress and waits for it.
func (s *Server) closeRDB() {
	s.mu.Lock()
	if j := s.rdb.job; j != nil {
		j.abort.Store(true)
	}
	s.mu.Unlock()
	s.rdb.wg.Wait()
}
