package server

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/watch"
)

// WATCH observability (issue 23; none of it exists in Redis): why a client's
// EXEC aborted (DEBUG WATCH WHY, debug_watch.go), the counters of INFO watch,
// and the hot watched keys summary (DEBUG WATCH HOTKEYS).
//
// The explanation is recorded by package watch when a client becomes dirty,
// from the keyspace's touch context (watch.Context), which this file fills:
// before each command call (setTouchContextLocked, from callTimed), and
// before a blocked client is served (setTouchContextClientLocked). Expiry and
// eviction mark themselves in it from db's removal path. Filling it is a few
// stores per command; reading it happens only when a watcher is dirtied. The
// counters below move at WATCH, EXEC and disconnect, never on a write.
//
// Everything here runs under the engine lock.

// execOutcome is how a client's last EXEC ended (DEBUG WATCH WHY explains
// the last one only if it aborted).
type execOutcome uint8

const (
	execNone      execOutcome = iota
	execCommitted             // ran its queue
	execAborted               // a watched key was touched: null reply
	execAbortErr              // EXECABORT (queueing error or EXEC rejected)
)

// watchObs is the server's WATCH observability state.
type watchObs struct {
	execCalls int64 // EXECs that ended a transaction
	committed int64
	execAbort int64 // EXECABORT
	aborted   [watch.NumCauses]int64
	byPolicy  map[string]int64 // evictions that aborted, by maxmemory-policy

	watchCalls int64

	dropped   int64 // records dropped when their clients disconnected
	dropNs    int64 // time spent dropping them
	dropMaxNs int64 // the longest single client's drop

	hot    *watch.HotKeys
	compat compatProfile
}

// watchCauseOf is the class a command's touches are explained by; an
// ordinary write is CauseWrite (own or another client's, decided per
// watcher).
func watchCauseOf(name string) watch.Cause {
	switch name {
	case "restore", "restore-asking":
		return watch.CauseRestore
	case "move":
		return watch.CauseMove
	case "copy":
		return watch.CauseCopy
	case "rename", "renamenx":
		return watch.CauseRename
	case "flushdb":
		return watch.CauseFlushDB
	case "flushall":
		return watch.CauseFlushAll
	case "swapdb":
		return watch.CauseSwapDB
	}
	return watch.CauseWrite
}

// WatchBreaker names the client in explanations (watch.Breaker).
func (c *client) WatchBreaker() (id int64, name, addr string) { return c.id, c.name, c.addr }

// setTouchContextLocked fills the touch context for a call of cmd by c. A
// command a script runs is explained as the script's, on behalf of the
// script's caller.
func (s *Server) setTouchContextLocked(c *client, cmd *command) {
	t := s.ks.TouchContext()
	t.Cmd = cmd.name
	if c == s.scripting.sc {
		if r := s.scripting.run; r != nil && r.caller != nil {
			t.Cause, t.Src, t.By = watch.CauseScript, &r.caller.watch, r.caller
			return
		}
	}
	t.Cause, t.Src, t.By = cmd.watchCause, &c.watch, c
}

// setTouchContextClientLocked fills the touch context for the service of
// blocked client c (its blocking command takes the data).
func (s *Server) setTouchContextClientLocked(c *client) {
	t := s.ks.TouchContext()
	t.Cause, t.Src, t.By, t.Cmd = watch.CauseWrite, &c.watch, c, c.lastCmd
}

// noteWatchLocked counts a WATCH call.
func (s *Server) noteWatchLocked() { s.wobs.watchCalls++ }

// noteExecLocked counts the end of c's transaction by EXEC.
func (s *Server) noteExecLocked(c *client, o execOutcome) {
	w := &s.wobs
	w.execCalls++
	c.lastExec = o
	switch o {
	case execCommitted:
		w.committed++
	case execAbortErr:
		w.execAbort++
	case execAborted:
		why := c.watch.Why()
		cause := why.Cause
		if !c.watch.Explained() {
			cause = watch.CauseNone
		}
		w.aborted[cause]++
		if cause == watch.CauseEvicted {
			if w.byPolicy == nil {
				w.byPolicy = make(map[string]int64)
			}
			w.byPolicy[why.Policy]++
		}
		if s.cfg.WatchAbortEvents {
			s.publishWatchAbortLocked(c, cause, why)
		}
		if w.hot != nil && c.watch.Explained() {
			cmd, name := why.Cmd, why.ByName
			if cmd == "" {
				cmd = "(" + cause.String() + ")"
			}
			switch {
			case why.ByID < 0:
				name = "(server)"
			case name == "":
				name = "(unnamed)"
			}
			w.hot.Add(why.DB, why.Key, cmd, name)
		}
	}
}

// dropClientWatchesLocked drops a disconnecting client's records, timing
// what a client watching many keys costs the server when it goes.
func (s *Server) dropClientWatchesLocked(c *client) {
	n := c.watch.Count()
	if n == 0 {
		c.watch.Reset()
		return
	}
	start := time.Now()
	c.watch.Reset()
	d := int64(time.Since(start))
	w := &s.wobs
	w.dropped += int64(n)
	w.dropNs += d
	w.dropMaxNs = max(w.dropMaxNs, d)
}

// watchObsStartLocked creates the hot keys summary and applies
// watch-hotkeys-size and watch-compat, now and on CONFIG SET (a start hook).
func (s *Server) watchObsStartLocked() {
	s.params.onApply(func(s *Server) error { s.applyWatchObsConfigLocked(); return nil },
		"watch-hotkeys-size", "watch-compat")
	s.applyWatchObsConfigLocked()
}

func (s *Server) applyWatchObsConfigLocked() {
	if s.wobs.hot == nil || s.wobs.hot.Cap() != s.cfg.WatchHotKeysSize {
		s.wobs.hot = watch.NewHotKeys(s.cfg.WatchHotKeysSize)
	}
	s.wobs.compat = parseCompat(s.cfg.WatchCompat)
}

// watchResetStat is CONFIG RESETSTAT's part: the counters (not the gauges;
// peaks restart from the current values; the hot keys summary has its own
// reset, DEBUG WATCH RESET).
func watchResetStat(s *Server) {
	hot, compat := s.wobs.hot, s.wobs.compat
	s.wobs = watchObs{hot: hot, compat: compat}
	s.ks.TouchContext().ResetPeaks()
}

// infoWatch is INFO watch (shown by INFO watch and INFO everything only).
// exec_calls = committed + aborted + execabort.
func infoWatch(s *Server, b *strings.Builder) {
	w := &s.wobs
	var aborted int64
	for _, n := range w.aborted {
		aborted += n
	}
	field(b, "watch_compat", s.wobs.compat.String())
	field(b, "watch_exec_calls", w.execCalls)
	field(b, "watch_exec_committed", w.committed)
	field(b, "watch_exec_aborted", aborted)
	for c := watch.Cause(1); c < watch.NumCauses; c++ {
		field(b, "watch_exec_aborted_"+strings.ReplaceAll(c.String(), "-", "_"), w.aborted[c])
	}
	if w.aborted[watch.CauseNone] != 0 {
		field(b, "watch_exec_aborted_unknown", w.aborted[watch.CauseNone])
	}
	if len(w.byPolicy) > 0 {
		pols := make([]string, 0, len(w.byPolicy))
		for p := range w.byPolicy {
			pols = append(pols, p)
		}
		sort.Strings(pols)
		var parts []string
		for _, p := range pols {
			parts = append(parts, fmt.Sprintf("%s=%d", p, w.byPolicy[p]))
		}
		field(b, "watch_exec_aborted_evicted_by_policy", strings.Join(parts, ","))
	}
	field(b, "watch_exec_execabort", w.execAbort)
	ratio := 0.0
	if w.execCalls > 0 {
		ratio = float64(aborted) / float64(w.execCalls)
	}
	field(b, "watch_abort_ratio", fmt.Sprintf("%.4f", ratio))
	field(b, "watch_calls", w.watchCalls)
	st := &s.ks.TouchContext().Stats
	field(b, "watch_records", st.Records)
	field(b, "watch_records_peak", st.PeakRecords)
	field(b, "watch_keys", st.Keys)
	field(b, "watch_keys_peak", st.PeakKeys)
	field(b, "watch_bookkeeping_bytes", st.Bytes)
	field(b, "watch_disconnect_dropped_records", w.dropped)
	field(b, "watch_disconnect_drop_usec", w.dropNs/1000)
	field(b, "watch_disconnect_drop_max_usec", w.dropMaxNs/1000)
	if h := w.hot; h != nil {
		field(b, "watch_hotkeys_size", h.Cap())
		field(b, "watch_hotkeys_entries", h.Len())
		field(b, "watch_hotkeys_bytes", h.Bytes())
		field(b, "watch_hotkeys_max_bytes", h.MaxBytes())
	}
}

// infoOwnSection is an INFO section of our own (hooks.infoOwn).
type infoOwnSection struct {
	name string
	fn   func(s *Server, b *strings.Builder)
}

// watchAbortChannel carries abort events when watch-abort-events is yes.
const watchAbortChannel = "__watch__:aborts"

// publishWatchAbortLocked publishes one abort event: the aborted client
// and DEBUG WATCH WHY's fields as name=value words, the key last (the rest
// of the message, spaces included).
func (s *Server) publishWatchAbortLocked(c *client, cause watch.Cause, w *watch.Why) {
	by := "server"
	if w.ByID >= 0 {
		by = fmt.Sprintf("id=%d name=%s addr=%s", w.ByID, w.ByName, w.ByAddr)
	}
	msg := fmt.Sprintf("client-id=%d client-name=%s cause=%s by=[%s] command=%s policy=%s at-ms=%d after-watch-ms=%d db=%d key=%s",
		c.id, c.name, cause, by, w.Cmd, w.Policy, w.AtMs, w.AtMs-w.WatchedAtMs, w.DB, w.Key)
	s.publishLocked([]byte(watchAbortChannel), []byte(msg), false)
}
