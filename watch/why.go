package watch

import "unsafe"

// Explaining an abort. When a client becomes dirty, the touch that did it is
// recorded in the client's one Why record (O(1), no allocation): the key and
// db, the cause class, who broke it and with what command, when, and how
// long after the client's first WATCH. The cause reaches this package
// through a Context, the "current touch context": the server fills it
// before each command (and around the service of a blocked client), the db
// package's removal path marks expiries and evictions in it. It is read only
// when a watcher is actually dirtied, so a touch that dirties nobody pays
// nothing for it.

// Cause classifies the touch that made a client dirty.
type Cause uint8

// Causes. The order is the order INFO watch lists them in.
const (
	CauseNone          Cause = iota // not explained (no context: tests of this package)
	CauseWrite                      // a write by another client's command
	CauseOwn                        // a write by the client's own command
	CauseExpiredLazy                // a lookup found the key past its deadline and deleted it
	CauseExpiredActive              // the active expiry cycle deleted the key
	CauseExpiredExec                // EXEC found a watched live key past its deadline (T-3)
	CauseEvicted                    // maxmemory eviction
	CauseFlushDB                    // FLUSHDB (T-2)
	CauseFlushAll                   // FLUSHALL (T-2)
	CauseSwapDB                     // SWAPDB (T-2)
	CauseRestore                    // RESTORE
	CauseMove                       // MOVE
	CauseCopy                       // COPY
	CauseRename                     // RENAME, RENAMENX
	CauseScript                     // a command run by a script (EVAL*, FCALL*)
	NumCauses
)

var causeNames = [NumCauses]string{
	"unknown", "write", "own-write", "expired-lazy", "expired-active", "expired-exec", "evicted",
	"flushdb", "flushall", "swapdb", "restore", "move", "copy", "rename", "script",
}

// String is the cause's name as INFO watch and DEBUG WATCH WHY print it.
func (c Cause) String() string {
	if c < NumCauses {
		return causeNames[c]
	}
	return "unknown"
}

// ByServer reports whether the cause is the server's own doing (expiry,
// eviction), with no client behind it.
func (c Cause) ByServer() bool {
	return c == CauseExpiredLazy || c == CauseExpiredActive || c == CauseExpiredExec || c == CauseEvicted
}

// Breaker is the client whose command is running, as explanations name it.
// It is asked only when a watcher is dirtied.
type Breaker interface {
	WatchBreaker() (id int64, name, addr string)
}

// Context is the current touch context shared by every database of a
// keyspace. The server sets Cause, Src, By and Cmd before each command;
// Policy when eviction may run. Nothing is allocated: the fields are
// overwritten in place.
type Context struct {
	// Cause is the class of a touch by the running command: CauseWrite for
	// an ordinary command (CauseOwn is decided per watcher, by Src), a
	// command's own class (CauseRestore, CauseFlushAll, ...), or
	// CauseScript for a command a script runs.
	Cause Cause
	Src   *Client // watch state of the client the command runs for; nil: none
	By    Breaker // that client; nil: the server
	Cmd   string  // the running command's name
	// Policy is the maxmemory-policy name an eviction reports.
	Policy string

	removal Cause  // an expiry or eviction in progress (set by the db's removal path)
	now     *int64 // the keyspace's time, unix ms

	// Stats are the gauges of the bookkeeping, kept by Watch and the
	// removal of records.
	Stats Stats
}

// Stats are the watch bookkeeping's gauges over every database sharing a
// Context.
type Stats struct {
	Records, PeakRecords int64 // (client, db, key) records now / at most
	Keys, PeakKeys       int64 // distinct (db, key) watched now / at most
	Bytes                int64 // estimated bytes held by records and key lists
}

// Estimated sizes of the bookkeeping (64-bit): a record (in its client's
// list) and its slot in the key's watcher list; a watched key's map entry
// (string header, inline first watcher, group overhead), its bytes counted
// apart, once per (db, key).
const (
	RecordBytes = int64(unsafe.Sizeof(Record{}) + unsafe.Sizeof(watcher{}))
	KeyBytes    = 48
)

// SetClock points the context at the keyspace's time (unix ms), read when
// a touch is recorded and at a client's first WATCH.
func (t *Context) SetClock(now *int64) { t.now = now }

// BeginRemoval marks the touches that follow, until EndRemoval, as an
// expiry or eviction of cause c. It returns the previous mark.
func (t *Context) BeginRemoval(c Cause) Cause {
	prev := t.removal
	t.removal = c
	return prev
}

// EndRemoval restores the mark BeginRemoval returned.
func (t *Context) EndRemoval(prev Cause) { t.removal = prev }

func (t *Context) nowMs() int64 {
	if t == nil || t.now == nil {
		return 0
	}
	return *t.now
}

// ResetPeaks sets the peaks to the current values (CONFIG RESETSTAT).
func (t *Context) ResetPeaks() {
	t.Stats.PeakRecords = t.Stats.Records
	t.Stats.PeakKeys = t.Stats.Keys
}

func (t *Context) added(key string, newKey bool) {
	if t == nil {
		return
	}
	s := &t.Stats
	s.Records++
	s.Bytes += RecordBytes
	if s.Records > s.PeakRecords {
		s.PeakRecords = s.Records
	}
	if newKey {
		s.Keys++
		s.Bytes += KeyBytes + int64(len(key))
		if s.Keys > s.PeakKeys {
			s.PeakKeys = s.Keys
		}
	}
}

// removed counts one record gone.
func (t *Context) removed() {
	if t == nil {
		return
	}
	t.Stats.Records--
	t.Stats.Bytes -= RecordBytes
}

// removedKey counts a watched key gone (its last record was removed).
func (t *Context) removedKey(key string) {
	if t == nil {
		return
	}
	t.Stats.Keys--
	t.Stats.Bytes -= KeyBytes + int64(len(key))
}

// Why explains the first touch that made a client dirty.
type Why struct {
	Cause  Cause
	DB     int
	Key    string
	ByID   int64  // breaking client's id; -1 for the server (expiry, eviction)
	ByName string // its CLIENT SETNAME name
	ByAddr string // its address
	// Cmd is the breaking command's name. For a lazy expiry it is the
	// command whose lookup found the key stale; empty for the active
	// expiry cycle, EXEC's deadline check and eviction.
	Cmd         string
	Policy      string // maxmemory-policy of an eviction
	AtMs        int64  // when (server clock, unix ms)
	WatchedAtMs int64  // the client's first WATCH of the transaction (unix ms)
}

// Why returns the explanation of the client's last dirtying: valid while
// the client is dirty and after the EXEC that aborted because of it, until
// the client becomes dirty again. Explained reports whether there is one.
func (c *Client) Why() *Why { return &c.why }

// Explained reports whether the client was ever dirtied by a recorded
// touch.
func (c *Client) Explained() bool { return c.whySet }

// WatchedAt returns the time of the client's first WATCH of the current
// transaction (unix ms).
func (c *Client) WatchedAt() int64 { return c.watchedAt }

// explain records the touch of (db, key) that makes c dirty now, under the
// current context t. Called only when c was clean.
func (c *Client) explain(t *Context, db int, key string, cause Cause) {
	w := &c.why
	c.whySet = true
	w.DB, w.Key = db, key
	w.WatchedAtMs = c.watchedAt
	w.Policy = ""
	if t == nil {
		w.Cause, w.ByID, w.ByName, w.ByAddr, w.Cmd, w.AtMs = cause, -1, "", "", "", 0
		return
	}
	w.AtMs = t.nowMs()
	if cause == CauseNone {
		cause = t.removal
	}
	if cause.ByServer() {
		w.ByID, w.ByName, w.ByAddr, w.Cmd = -1, "", "", ""
		switch cause {
		case CauseExpiredLazy:
			w.Cmd = t.Cmd
		case CauseEvicted:
			w.Policy = t.Policy
		}
		w.Cause = cause
		return
	}
	cause = t.Cause
	if cause == CauseWrite && t.Src == c {
		cause = CauseOwn
	}
	w.Cause = cause
	w.Cmd = t.Cmd
	if t.By != nil {
		w.ByID, w.ByName, w.ByAddr = t.By.WatchBreaker()
	} else {
		w.ByID, w.ByName, w.ByAddr = -1, "", ""
	}
}

// explainLike records for c the touch already explained for tmpl (the same
// key, db, time and breaker), without asking the context again: only the
// first WATCH time and the own-write cause are c's own.
func (c *Client) explainLike(tmpl *Client, t *Context) {
	c.why = tmpl.why
	c.whySet = true
	c.why.WatchedAtMs = c.watchedAt
	if t != nil && t.Cause == CauseWrite && (c.why.Cause == CauseOwn || c.why.Cause == CauseWrite) {
		c.why.Cause = CauseWrite
		if t.Cause == CauseWrite && t.Src == c {
			c.why.Cause = CauseOwn
		}
	}
}

// MarkClientDirty makes the record's client dirty, keeping every record
// (whole-database touches, T-2), and explains it by the current context.
func (r *Record) MarkClientDirty() {
	c := r.Client()
	if !c.dirty {
		c.explain(r.keys.ctx, r.keys.db, r.Key(), CauseNone)
	}
	c.dirty = true
}

// MarkDirtyExpired makes the client dirty because r's key, alive when
// watched, is past its deadline at EXEC (T-3).
func (c *Client) MarkDirtyExpired(r *Record) {
	if !c.dirty {
		c.explain(r.keys.ctx, r.keys.db, r.Key(), CauseExpiredExec)
	}
	c.dirty = true
}
