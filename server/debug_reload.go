package server

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE] (Redis 7.0 debug.c): save the
// dataset to dbfilename (unless NOSAVE), empty it and the function
// libraries (unless NOFLUSH: emptyData, which touches the watchers of the
// keys it removes but counts no change), and load the file back as at
// start, keys past their deadline skipped. MERGE lets a loaded key or
// library replace one already there (RDBFLAGS_ALLOW_DUP); without it a
// duplicate key, on which Redis 7.0 aborts, is refused here with the load
// error, the keys read before it staying loaded.

var (
	errReloadOption = protocol.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
	errReloadLoad   = protocol.Error("ERR Error trying to load the RDB dump, check server logs.")
)

// debugReload runs DEBUG RELOAD for c.
func debugReload(c *client, args [][]byte) {
	s := c.srv
	merge, flush, save := false, true, true
	for _, a := range args[2:] {
		switch strings.ToLower(string(a)) {
		case "merge":
			merge = true
		case "noflush":
			flush = false
		case "nosave":
			save = false
		default:
			c.fail(errReloadOption)
			return
		}
	}
	if save {
		if err := s.saveRDBLocked(s.rdbPathLocked(), false); err != nil {
			c.fail(errBareERR)
			return
		}
	}
	if flush {
		dirty := s.ks.Stats.Dirty
		s.ks.FlushAll()
		s.ks.Stats.Dirty = dirty
		s.functionsLocked().Flush()
	}
	if err := s.reloadRDBLocked(merge); err != nil {
		s.log.Warn(err.Error())
		c.fail(errReloadLoad)
		return
	}
	s.log.Info("DB reloaded by DEBUG RELOAD")
	c.w.OK()
}

// reloadRDBLocked loads dbfilename into the keyspace (rdbLoad with
// RDBFLAGS_ALLOW_DUP when merge is set).
func (s *Server) reloadRDBLocked(merge bool) error {
	path := s.rdbPathLocked()
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %s", strerror(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	var loaded, expired int64
	h := s.rdbLoadHandlerLocked(s.clock.UnixMilli(), &loaded, &expired)
	if !merge {
		addKey := h.Key
		h.Key = func(id int, key []byte, v *rdb.Value, m rdb.KeyMeta) error {
			if _, dup := s.ks.DB(id).View(string(key)); dup {
				return fmt.Errorf("RDB has duplicated key '%s' in DB %d", key, id)
			}
			return addKey(id, key, v, m)
		}
	}
	h.Function = func(code []byte) error {
		if _, errText := s.functionsLocked().Load(code, merge); errText != "" {
			return errors.New("Failed loading library: " + errText)
		}
		return nil
	}
	if _, err := rdb.Load(f, st.Size(), h, s.rdbLoadOptionsLocked()); err != nil {
		return err
	}
	s.rdb.loadedKeys, s.rdb.expiredOnLoad = loaded, expired
	return nil
}
