package server

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// Loading the AOF at start-up (Redis's loadAppendOnlyFiles and
// loadSingleAppendOnlyFile): the base, then every incremental file, each
// replayed command by command through the command table by a client with
// no connection, as Redis's fake AOF client. A base in RDB format (or the
// RDB preamble of an old-style AOF) is loaded as dump.rdb is, keys straight
// into the keyspace, expired ones included.
//
// Nothing expires while loading: the keyspace's time is held at 0, so a key
// whose deadline passed while the server was down is loaded with it and
// expired afterwards by the usual lazy and active expiry, which logs its
// DEL, as in Redis. A last command cut short by a crash is dropped (and the
// file truncated) when aof-load-truncated is yes, and refused otherwise; a
// transaction without its EXEC at the end of the last file counts as such a
// command. Anything else that is not a command refuses to start, naming the
// file and the byte offset.

// loadError is a reason to refuse to start found while replaying.
type loadError struct{ msg string }

func (e *loadError) Error() string { return e.msg }

// loadAOFLocked replays the files of m into the keyspace.
func (s *Server) loadAOFLocked(m *aof.Manifest) error {
	files := m.Files()
	var total int64
	for _, fi := range files {
		st, err := os.Stat(filepath.Join(s.aof.dir, fi.Name))
		if err != nil {
			return fmt.Errorf("Unable to obtain the AOF file %s length. stat: %s", fi.Name, strerror(err))
		}
		total += st.Size()
	}
	if total == 0 {
		return nil
	}
	s.ks.SetTime(0)
	defer s.ks.SetTime(s.clock.UnixMilli())
	loadStart := time.Now()
	for i, fi := range files {
		start := time.Now()
		if err := s.replayAOFFileLocked(fi.Name, i == len(files)-1); err != nil {
			return err
		}
		kind := "incr"
		if fi.Type == aof.TypeBase {
			kind = "base"
		}
		s.log.Info(fmt.Sprintf("DB loaded from %s file %s: %.3f seconds", kind, fi.Name, time.Since(start).Seconds()))
	}
	s.log.Info(fmt.Sprintf("DB loaded from append only file: %.3f seconds", time.Since(loadStart).Seconds()))
	return nil
}

// newReplayClient returns the connection-less client that replays a file:
// it starts in database 0, is authenticated, and never blocks.
func (s *Server) newReplayClient() *client {
	c := &client{srv: s, db: s.ks.DB(0), authenticated: true, denyBlocking: true, replay: true, createdAt: time.Now()}
	c.w.Proto = 2
	return c
}

// replayAOFFileLocked replays one file of the AOF directory; last says
// whether it is the last file, the only one allowed to end early.
func (s *Server) replayAOFFileLocked(name string, last bool) error {
	path := filepath.Join(s.aof.dir, name)
	c := s.newReplayClient()
	multiStart := int64(-1)
	loadRDB := func(br *bufio.Reader, size int64) (int64, error) {
		var loaded, expired int64
		s.log.Info("Reading RDB base file on AOF loading...")
		return rdb.Load(br, size, s.rdbLoadHandlerLocked(-1, &loaded, &expired), s.rdbLoadOptionsLocked())
	}
	_, err := aof.ScanFileRDB(path, loadRDB, func(args [][]byte, start, end int64) error {
		return s.replayCommandLocked(c, name, args, start, &multiStart)
	})
	var (
		validUpTo int64
		te        *aof.TruncatedError
		fe        *aof.FormatError
		re        *aof.RDBError
		le        *loadError
	)
	switch {
	case err == nil && !c.multi.Active():
		return nil
	case err == nil:
		s.log.Warn("Revert incomplete MULTI/EXEC transaction in AOF file " + name)
		validUpTo = multiStart
	case errors.As(err, &te):
		validUpTo = te.Offset
		if c.multi.Active() {
			validUpTo = multiStart
		}
	case errors.As(err, &fe):
		return fmt.Errorf("Bad file format reading the append only file %s at byte offset %d (%s): make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", name, fe.Offset, fe.Reason)
	case errors.As(err, &re):
		return fmt.Errorf("Error reading the RDB base file %s, AOF loading aborted: %s", name, re)
	case errors.As(err, &le):
		return err
	default:
		return fmt.Errorf("Unrecoverable error reading the append only file %s: %s", name, strerror(err))
	}
	c.multi.Reset()
	if !last {
		return fmt.Errorf("Fatal error: the truncated file is not the last file: %s ends inside the command at byte offset %d", name, validUpTo)
	}
	if !s.cfg.AOFLoadTruncated {
		return fmt.Errorf("Unexpected end of file reading the append only file %s: the command at byte offset %d is incomplete. You can: "+
			"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
			"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name, validUpTo)
	}
	s.log.Warn("!!! Warning: short read while loading the AOF file " + name + "!!!")
	s.log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", name, validUpTo))
	if err := os.Truncate(path, validUpTo); err != nil {
		return fmt.Errorf("Error truncating the AOF file %s: %s", name, strerror(err))
	}
	s.log.Warn("AOF " + name + " loaded anyway because aof-load-truncated is enabled")
	return nil
}

// replayCommandLocked runs one command of a file for client c; inside
// MULTI it queues the command, as the fake client's commands are queued.
func (s *Server) replayCommandLocked(c *client, name string, args [][]byte, start int64, multiStart *int64) error {
	cmd, _ := s.table.lookup(args)
	if cmd == nil || cmd.proc == nil {
		return &loadError{fmt.Sprintf("Unknown command '%s' reading the append only file %s at byte offset %d", cstrBytes(args[0]), name, start)}
	}
	if (cmd.arity > 0 && cmd.arity != len(args)) || len(args) < -cmd.arity {
		return &loadError{fmt.Sprintf("Bad file format reading the append only file %s: wrong number of arguments for '%s' at byte offset %d", name, cmd.name, start)}
	}
	if cmd.name == "multi" {
		*multiStart = start
	}
	if c.multi.Active() && cmd.name != "exec" {
		c.multi.Queue(cmd, args, cmd.has(flagWrite), cmd.has(flagDenyOOM), false)
		return nil
	}
	if err := s.replayCallLocked(c, cmd, args); err != nil {
		return &loadError{fmt.Sprintf("Error replaying '%s' at byte offset %d of the append only file %s: %v", cmd.name, start, name, err)}
	}
	if cmd.name == "exec" {
		*multiStart = -1
	}
	c.w.Reset()
	return nil
}

// replayCallLocked runs cmd, turning a panic into an error.
func (s *Server) replayCallLocked(c *client, cmd *command, args [][]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	cmd.proc(c, args)
	return nil
}
