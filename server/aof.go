package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
)

// The append-only file (Redis aof.c), in Redis 7.0's multi-part layout:
// appenddirname holds a manifest, one base file (a snapshot, written by a
// rewrite) and the incremental files of the commands logged since. With
// appendonly no (the default) none of it runs and the propagation costs one
// branch per command; with appendonly yes every acknowledged write is in
// the file before its reply leaves, and fsynced first under
// appendfsync always (see conn.go's processInput and aof.Log).
//
// Files: aof.go (lifecycle, configuration, shutdown, cron), aof_reply.go
// (replies wait for the log; MISCONF), aof_propagate.go (what is logged:
// the API commands use), aof_commands.go (how the string, key and type
// commands that need it are logged), aof_load.go (replay at start-up),
// aof_rewrite.go and aof_rewrite_types.go (BGREWRITEAOF and the automatic
// rewrite), aof_info.go (INFO persistence).

// aofMode is Redis's aof_state.
type aofMode uint8

const (
	aofOff         aofMode = iota
	aofOn                  // logging to the manifest's last incremental file
	aofWaitRewrite         // turned on at run time: the first base is being written
)

// aofState is the server's AOF state, guarded by the engine lock.
type aofState struct {
	mode     aofMode
	prop     propagator
	log      *aof.Log      // the open incremental file; nil when off (or waiting for the first base)
	dir      string        // absolute path of appenddirname
	prefix   string        // appendfilename
	manifest *aof.Manifest // the manifest as on disk; nil before the first one
	selected int           // database of the last SELECT in the current file; -1 forces one

	otherSize       int64 // bytes of the base and the earlier incremental files
	rewriteBaseSize int64 // aof_base_size: the size after the last rewrite

	rw              *rewriteJob // the rewrite in progress
	scheduled       bool        // aof_rewrite_scheduled
	rewrites        int64       // aof_rewrites
	failures        int64       // aof_rewrites_consecutive_failures
	lastRewriteOK   bool        // aof_last_bgrewrite_status
	lastRewriteSecs int64       // aof_last_rewrite_time_sec (-1: none yet)
	limitDelay      time.Duration
	limitUntil      time.Time
	wg              sync.WaitGroup // the rewrite goroutine
}

var aofCommands = []commandDef{{"bgrewriteaof", cmdBGRewriteAOF}}

// aofStartLocked sets the AOF's initial state and its CONFIG SET hooks
// (a start hook).
func (s *Server) aofStartLocked() {
	s.aof.selected = -1
	s.aof.lastRewriteOK = true
	s.aof.lastRewriteSecs = -1
	s.params.onApply((*Server).applyAppendOnlyLocked, "appendonly")
	s.params.onApply((*Server).applyAppendFsyncLocked, "appendfsync")
}

// aofPaths fixes the directory and file prefix from the configuration.
func (s *Server) aofPaths() {
	s.aof.dir = s.cfg.Resolve(s.cfg.AppendDirName)
	s.aof.prefix = s.cfg.AppendFilename
}

// openAOFOnStartLocked loads the AOF when appendonly is yes and opens its
// last incremental file for appending (Redis's loadDataFromDisk and
// aofOpenIfNeededOnServerStart). An error refuses to start the server.
func (s *Server) openAOFOnStartLocked() error {
	if !s.cfg.AppendOnly {
		return nil
	}
	s.aofPaths()
	m, err := aof.LoadManifest(s.aof.dir, s.aof.prefix)
	if err != nil {
		return err
	}
	if m, err = s.aofUpgradeLocked(m); err != nil {
		return err
	}
	if m != nil {
		if err := s.loadAOFLocked(m); err != nil {
			return err
		}
	} else {
		m = &aof.Manifest{}
	}
	if err := os.MkdirAll(s.aof.dir, 0o755); err != nil {
		return fmt.Errorf("Can't open or create append-only dir %s: %w", s.cfg.AppendDirName, err)
	}
	if m.Base == nil && len(m.Incr) == 0 {
		name := m.NewBase(s.aof.prefix, s.aofPreambleLocked())
		if err := s.writeBaseNowLocked(name); err != nil {
			return err
		}
		s.log.Info("Creating AOF base file " + name + " on server start")
	}
	created := len(m.Incr) == 0
	var name string
	if created {
		name = m.NewIncr(s.aof.prefix)
	} else {
		name = m.Incr[len(m.Incr)-1].Name
	}
	f, err := os.OpenFile(filepath.Join(s.aof.dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("Can't open the append-only file %s: %w", name, err)
	}
	if err := aof.WriteManifest(s.aof.dir, s.aof.prefix, m); err != nil {
		f.Close()
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	s.aof.manifest = m
	s.aof.otherSize = s.aofFilesSize(m) - fi.Size()
	if m.Base != nil {
		s.aof.rewriteBaseSize = s.aofFileSize(m.Base.Name)
	}
	s.aof.log = aof.NewLog(s.wrapAOFFile(f), fi.Size(), aof.ParsePolicy(s.cfg.AppendFsync))
	s.aof.mode = aofOn
	s.aof.prop.setAOF(true)
	s.aof.selected = -1
	if created {
		s.log.Info("Creating AOF incr file " + name + " on server start")
	} else {
		s.log.Info("Opening AOF incr file " + name + " on server start")
	}
	s.aofDeleteHistoryLocked()
	s.aofRemoveTempFiles()
	return nil
}

// aofRemoveTempFiles removes what rewrites of a previous process left in
// the AOF directory when it died in the middle (never named by a manifest).
func (s *Server) aofRemoveTempFiles() {
	ents, _ := os.ReadDir(s.aof.dir)
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "temp-rewriteaof-") || n == aof.TempIncrName(s.aof.prefix) {
			os.Remove(filepath.Join(s.aof.dir, n))
		}
	}
}

// aofUpgradeLocked moves an old-style single AOF file (appendfilename in
// dir) into the AOF directory as its base, as Redis 7's aofUpgradePrepare.
func (s *Server) aofUpgradeLocked(m *aof.Manifest) (*aof.Manifest, error) {
	old := s.cfg.Resolve(s.aof.prefix)
	if _, err := os.Stat(old); err != nil {
		return m, nil
	}
	_, dirErr := os.Stat(s.aof.dir)
	inDir := false
	if _, err := os.Stat(filepath.Join(s.aof.dir, s.aof.prefix)); err == nil {
		inDir = true
	}
	if !(dirErr != nil || m == nil || (m.Base != nil && len(m.Incr) == 0 && m.Base.Name == s.aof.prefix && !inDir)) {
		return m, nil
	}
	if err := os.MkdirAll(s.aof.dir, 0o755); err != nil {
		return nil, fmt.Errorf("Can't open or create append-only dir %s: %w", s.cfg.AppendDirName, err)
	}
	m = &aof.Manifest{Base: &aof.FileInfo{Name: s.aof.prefix, Seq: 1, Type: aof.TypeBase}, BaseSeq: 1}
	if err := aof.WriteManifest(s.aof.dir, s.aof.prefix, m); err != nil {
		return nil, err
	}
	if err := os.Rename(old, filepath.Join(s.aof.dir, s.aof.prefix)); err != nil {
		return nil, fmt.Errorf("Error trying to move the old AOF file %s into dir %s: %w", s.aof.prefix, s.cfg.AppendDirName, err)
	}
	s.log.Info(fmt.Sprintf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", s.aof.prefix, s.cfg.AppendDirName))
	return m, nil
}

// aofFileSize returns the size of a file of the AOF directory (0 if it
// cannot be read).
func (s *Server) aofFileSize(name string) int64 {
	fi, err := os.Stat(filepath.Join(s.aof.dir, name))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// aofFilesSize returns the size of the base and incremental files of m.
func (s *Server) aofFilesSize(m *aof.Manifest) int64 {
	var n int64
	for _, fi := range m.Files() {
		n += s.aofFileSize(fi.Name)
	}
	return n
}

// aofCurrentSizeLocked is aof_current_size.
func (s *Server) aofCurrentSizeLocked() int64 {
	n := s.aof.otherSize
	if s.aof.log != nil {
		n += s.aof.log.Stats().FileSize
	}
	return n
}

// aofDeleteHistoryLocked removes the history files and rewrites the
// manifest without them (Redis's aofDelHistoryFiles), unless
// aof-disable-auto-gc is yes.
func (s *Server) aofDeleteHistoryLocked() {
	m := s.aof.manifest
	if m == nil || len(m.History) == 0 || paramOr(&s.cfg, "aof-disable-auto-gc", "no") == "yes" {
		return
	}
	for _, fi := range m.History {
		s.log.Info("Removing the history file " + fi.Name + " in the background")
		os.Remove(filepath.Join(s.aof.dir, fi.Name))
	}
	nm := m.Clone()
	nm.History = nil
	if err := aof.WriteManifest(s.aof.dir, s.aof.prefix, nm); err != nil {
		s.log.Warn("Failed to persist the AOF manifest", "err", err)
		return
	}
	s.aof.manifest = nm
}

// applyAppendOnlyLocked reacts to CONFIG SET appendonly (Redis's
// updateAppendonly): turning it off flushes, fsyncs and closes the log;
// turning it on writes a base first, in the background.
func (s *Server) applyAppendOnlyLocked() error {
	switch {
	case !s.cfg.AppendOnly && s.aof.mode != aofOff:
		s.stopAOFLocked()
	case s.cfg.AppendOnly && s.aof.mode == aofOff:
		if err := s.startAOFLocked(); err != nil {
			s.log.Warn("Redis needs to enable the AOF but can't trigger a background AOF rewrite operation.", "err", err)
			return errors.New("Unable to turn on AOF. Check server logs.")
		}
	}
	return nil
}

// startAOFLocked is Redis's startAppendOnly: the AOF waits for its first
// base, written by a background rewrite; logging starts where that base
// ends.
func (s *Server) startAOFLocked() error {
	s.aofPaths()
	if s.aof.rw == nil {
		m, err := aof.LoadManifest(s.aof.dir, s.aof.prefix)
		if err != nil {
			return err
		}
		s.aof.manifest = m
	}
	s.aof.mode = aofWaitRewrite
	switch {
	case s.aof.rw != nil:
		s.log.Warn("AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.")
		s.aof.rw.abort.Store(true)
		s.aof.scheduled = true
	default:
		if err := s.startRewriteLocked(); err != nil {
			s.aof.mode = aofOff
			return err
		}
	}
	return nil
}

// stopAOFLocked is Redis's stopAppendOnly: flush, fsync and close the
// log, stop a rewrite in progress.
func (s *Server) stopAOFLocked() {
	if s.aof.log != nil {
		s.aof.prop.setAOF(false)
		s.flushUnitLocked()
		if err := s.aof.log.Close(); err != nil {
			s.log.Warn("Fail to fsync the AOF file", "err", err)
		}
		s.aof.log = nil
	}
	if s.aof.rw != nil {
		s.aof.rw.abort.Store(true)
	}
	s.aof.prop.setAOF(false)
	s.aof.mode = aofOff
	s.aof.scheduled = false
	s.aof.selected = -1
}

// applyAppendFsyncLocked reacts to CONFIG SET appendfsync.
func (s *Server) applyAppendFsyncLocked() error {
	if s.aof.log != nil {
		s.aof.log.SetPolicy(aof.ParsePolicy(s.cfg.AppendFsync))
	}
	return nil
}

// aofShutdownLocked is SHUTDOWN's AOF step (prepareForShutdown): refuse
// while the first base is being written, else flush and fsync.
func (s *Server) aofShutdownLocked(save bool) error {
	if s.aof.mode == aofWaitRewrite && s.aof.rw != nil {
		s.log.Warn("Writing initial AOF, can't exit.")
		return errors.New("Writing initial AOF, can't exit.")
	}
	if s.aof.log != nil {
		s.flushUnitLocked()
		s.log.Info("Calling fsync() on the AOF file.")
		if err := s.aof.log.Flush(true); err != nil {
			s.log.Warn("Fail to fsync the AOF file", "err", err)
		}
	}
	return nil
}

// closeAOF runs when the server stops (SHUTDOWN, SIGTERM, Close): it stops
// a rewrite in progress, writes and fsyncs what is pending and closes the
// file. It runs without the engine lock, after every client is gone.
func (s *Server) closeAOF() {
	s.mu.Lock()
	if s.aof.rw != nil {
		s.aof.rw.abort.Store(true)
	}
	s.mu.Unlock()
	s.aof.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aof.log == nil {
		return
	}
	s.flushUnitLocked()
	s.aof.prop.setAOF(false)
	s.log.Info("Calling fsync() on the AOF file.")
	if err := s.aof.log.Close(); err != nil {
		s.log.Warn("Fail to fsync the AOF file", "err", err)
	}
	s.aof.log = nil
}

// aofCronLocked runs the AOF's periodic duties (serverCron): a scheduled
// rewrite, the automatic rewrite on growth, a retry of the first base.
func (s *Server) aofCronLocked() {
	if s.aof.rw != nil || s.closing.Load() {
		return
	}
	if s.aof.mode == aofWaitRewrite {
		s.aof.scheduled = true
	}
	if s.aof.scheduled && !s.aofRewriteLimitedLocked() {
		if err := s.startRewriteLocked(); err != nil {
			s.log.Warn("Can't start the scheduled AOF rewrite", "err", err)
		}
		return
	}
	if s.aof.mode != aofOn || s.cfg.AutoAOFRewritePercentage == 0 {
		return
	}
	cur := s.aofCurrentSizeLocked()
	if cur <= s.cfg.AutoAOFRewriteMinSize {
		return
	}
	base := max(s.aof.rewriteBaseSize, 1)
	growth := cur*100/base - 100
	if growth >= int64(s.cfg.AutoAOFRewritePercentage) && !s.aofRewriteLimitedLocked() {
		s.log.Info(fmt.Sprintf("Starting automatic rewriting of AOF on %d%% growth", growth))
		if err := s.startRewriteLocked(); err != nil {
			s.log.Warn("Can't start the automatic AOF rewrite", "err", err)
		}
	}
}

// aofRewriteLimitedLocked is Redis's aofRewriteLimited: after three
// consecutive failures, automatic rewrites back off 1, 2, 4 ... 60 minutes.
func (s *Server) aofRewriteLimitedLocked() bool {
	if s.aof.failures < 3 {
		s.aof.limitDelay, s.aof.limitUntil = 0, time.Time{}
		return false
	}
	if !s.aof.limitUntil.IsZero() {
		if time.Now().Before(s.aof.limitUntil) {
			return true
		}
		s.aof.limitUntil = time.Time{}
		return false
	}
	s.aof.limitDelay = min(max(2*s.aof.limitDelay, time.Minute), time.Hour)
	s.aof.limitUntil = time.Now().Add(s.aof.limitDelay)
	s.log.Warn(fmt.Sprintf("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes", int(s.aof.limitDelay/time.Minute)))
	return true
}
