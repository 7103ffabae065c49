package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// Loading dump.rdb at start when the AOF is off (Redis's loadDataFromDisk
// and rdbLoadRio): keys go straight into the keyspace (no signal: nothing
// can watch yet), keys whose deadline passed are skipped as a master skips
// them, functions are loaded as FUNCTION LOAD would, and a file that does
// not parse refuses to start the server.

// loadRDBOnStartLocked loads dir/dbfilename if it exists.
func (s *Server) loadRDBOnStartLocked() error {
	if s.cfg.AppendOnly {
		return nil
	}
	path := s.rdbPathLocked()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %s. Exiting.", strerror(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %s. Exiting.", strerror(err))
	}
	start := time.Now()
	s.rdb.loadedReplID, s.rdb.loadedReplOff = "", -1
	loaded, expired, err := s.loadRDBFromLocked(f, st.Size(), s.repl.link == nil)
	if err != nil {
		return err
	}
	s.replLoadedInfoLocked(s.rdb.loadedReplID, s.rdb.loadedReplOff, s.rdb.loadedReplDB) // repl_replica.go
	s.rdb.loadedKeys, s.rdb.expiredOnLoad = loaded, expired
	s.rdb.dirtyAtSave = s.ks.Stats.Dirty
	s.log.Info(fmt.Sprintf("Done loading RDB, keys loaded: %d, keys expired: %d.", loaded, expired))
	s.log.Info(fmt.Sprintf("DB loaded from disk: %.3f seconds", time.Since(start).Seconds()))
	return nil
}

// rdbLoadOptionsLocked are the decoder's options: the deep check with
// sanitize-dump-payload yes.
func (s *Server) rdbLoadOptionsLocked() rdb.LoadOptions {
	return rdb.LoadOptions{Deep: paramOr(&s.cfg, "sanitize-dump-payload", "no") == "yes"}
}

// rdbLoadHandlerLocked returns the handler that loads an RDB file into the
// keyspace (rdbLoadRio): keys whose deadline is before skipBefore are
// skipped and counted in expired (-1 keeps them all, as an AOF preamble is
// loaded), the others added and counted in loaded; functions are loaded as
// FUNCTION LOAD loads them.
func (s *Server) rdbLoadHandlerLocked(skipBefore int64, loaded, expired *int64) *rdb.Handler {
	cur := 0
	return &rdb.Handler{
		SelectDB: func(id int) error {
			if id >= s.ks.Len() {
				return fmt.Errorf("FATAL: Data file was created with a Redis server configured to handle more than %d databases. Exiting", s.ks.Len())
			}
			cur = id
			return nil
		},
		ResizeDB: func(size, expires uint64) error {
			s.ks.DB(cur).Reserve(size, expires)
			return nil
		},
		Aux: func(k, v []byte) error {
			switch string(k) {
			case "redis-ver":
				s.log.Info("Loading RDB produced by version " + string(v))
			case "repl-id": // a replica's snapshot (rdbSaveInfoAuxFields)
				s.rdb.loadedReplID = string(v)
			case "repl-offset":
				s.rdb.loadedReplOff, _ = strconv.ParseInt(string(v), 10, 64)
			case "repl-stream-db":
				s.rdb.loadedReplDB, _ = strconv.Atoi(string(v))
			}
			return nil
		},
		Function: func(code []byte) error {
			if _, errText := s.functionsLocked().Load(code, false); errText != "" {
				return fmt.Errorf("Failed loading library: %s", errText)
			}
			return nil
		},
		Key: func(id int, key []byte, v *rdb.Value, m rdb.KeyMeta) error {
			if m.ExpireAt >= 0 && m.ExpireAt < skipBefore {
				*expired++
				return nil
			}
			s.ks.DB(id).LoadKey(key, v, db.RestoreOptions{Deadline: m.ExpireAt, IdleSecs: m.IdleSecs, Freq: m.Freq})
			*loaded++
			return nil
		},
	}
}

// infoRDBLocked writes INFO persistence's snapshot fields, in Redis's
// order (the fork and copy-on-write fields are 0: there is no child).
func (s *Server) infoRDBLocked(b *strings.Builder) {
	field(b, "current_cow_peak", 0)
	field(b, "current_cow_size", 0)
	field(b, "current_cow_size_age", 0)
	field(b, "current_fork_perc", "0.00")
	field(b, "current_save_keys_processed", 0)
	field(b, "current_save_keys_total", 0)
	field(b, "rdb_changes_since_last_save", s.ks.Stats.Dirty-s.rdb.dirtyAtSave)
	cur := int64(-1)
	if j := s.rdb.job; j != nil {
		cur = int64(time.Since(j.start).Seconds())
	}
	field(b, "rdb_bgsave_in_progress", b2i(s.rdb.job != nil))
	field(b, "rdb_last_save_time", s.rdb.lastSave)
	field(b, "rdb_last_bgsave_status", okErr(s.rdb.lastBGOK))
	field(b, "rdb_last_bgsave_time_sec", s.rdb.lastBGSecs)
	field(b, "rdb_current_bgsave_time_sec", cur)
	field(b, "rdb_saves", s.rdb.saves)
	field(b, "rdb_last_cow_size", 0)
	field(b, "rdb_last_load_keys_expired", s.rdb.expiredOnLoad)
	field(b, "rdb_last_load_keys_loaded", s.rdb.loadedKeys)
}

// loadRDBFromLocked loads an RDB of size bytes from r into the keyspace
// (rdbLoadRio). A master skips keys whose deadline passed; a replica loads
// them (its master deletes them).
func (s *Server) loadRDBFromLocked(r io.Reader, size int64, master bool) (loaded, expired int64, err error) {
	skipBefore := int64(-1) // a replica keeps what its master will expire
	if master {
		skipBefore = s.clock.UnixMilli()
	}
	h := s.rdbLoadHandlerLocked(skipBefore, &loaded, &expired)
	if _, err := rdb.Load(r, size, h, s.rdbLoadOptionsLocked()); err != nil {
		var re *rdb.Error
		if errors.As(err, &re) {
			return 0, 0, fmt.Errorf("Short read or OOM loading DB. Unrecoverable error, aborting now (%s)", re)
		}
		return 0, 0, err
	}
	return loaded, expired, nil
}
