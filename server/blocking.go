package server

import (
	"slices"

	"github.com/miniwatchd/miniwatchd/db"
)

// Blocking commands (Redis 7.0 blocked.c; spec section 5).
//
// A command that finds no data blocks its client: the client is appended to
// the wait list of each of its keys in its database (Redis's
// db->blocking_keys) and stops processing its query buffer. Its connection
// goroutine releases the engine lock and goes back to reading, so it still
// notices a disconnect, but runs nothing more until it is unblocked.
//
// When a key that clients may block on is created, db's Observer.Ready hook
// queues it (at most once, and only while somebody of the matching kind is
// blocked on it) in the server's ready list (server.ready_keys). After the
// whole top-level command, EXEC or script has run, the ready list is drained
// (handleClientsBlockedOnKeys): for each key, the clients blocked on it are
// served first-blocked-first while the key still exists; serving BLMOVE may
// create more ready keys, served in the same pass.
//
// A served, timed-out or CLIENT UNBLOCKed client gets its reply written into
// its buffers by the goroutine holding the engine lock, and its connection
// goroutine is woken by a read deadline in the past: only that client wakes,
// and it then flushes the reply and processes what it received meanwhile.
//
// Disconnecting removes a blocked client from every structure
// (hooks.clientFree). Timeouts live in a heap driven by the server clock
// (blocking_timeout.go).

// blockKind is the type of data a blocked client waits for (Redis's btype).
type blockKind uint8

const (
	blockNone   blockKind = iota
	blockList             // BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH
	blockZSet             // BZPOPMIN, BZPOPMAX, BZMPOP
	blockStream           // XREAD, XREADGROUP (cmd_streamread.go)
	numBlockKinds
)

// kindForType returns the kind of blocked client a key of type t can serve.
func kindForType(t db.Type) blockKind {
	switch t {
	case db.TypeList:
		return blockList
	case db.TypeZSet:
		return blockZSet
	case db.TypeStream:
		return blockStream
	}
	return blockNone
}

// blockServeFunc completes the command of a client blocked on key, which
// holds data of the client's kind: it pops what the command pops and writes
// the command's reply (or error) into c.w. served is false, with nothing
// written, if the key turned out to hold no such data (the client then stays
// blocked); deleted reports that the key was deleted, so no later client can
// be served from it. hooks.serveBlocked (wiring.go) holds one per kind.
type blockServeFunc func(s *Server, c *client, d *db.DB, key string) (served, deleted bool)

// blockOp selects the command a blocked client runs when it is served.
type blockOp uint8

const (
	opBLPop blockOp = iota + 1
	opBRPop
	opBLMPop
	opBLMove // BLMOVE and BRPOPLPUSH
	opBZPopMin
	opBZPopMax
	opBZMPop
)

// blockArgs are what a blocked command needs when it is served (the rest of
// Redis's c->bpop). The bytes are owned copies: the query buffer they came
// from is reused while the client waits.
type blockArgs struct {
	op     blockOp
	left   bool         // pop from the head (list) or the minimum (zset); Redis's wherefrom
	toLeft bool         // BLMOVE: push at the head of target; Redis's whereto
	count  int          // BLMPOP/BZMPOP COUNT; 0 for the single-element forms
	target []byte       // BLMOVE/BRPOPLPUSH destination key
	stream *streamBlock // XREAD/XREADGROUP
}

// blockedClient is the state of a blocked client (client.blocked).
type blockedClient struct {
	c        *client
	kind     blockKind
	dbIndex  int
	waits    []*waiter // one per distinct key, in argument order
	deadline int64     // server clock, unix ms; 0 waits forever
	heapIdx  int       // index in the timeout heap, -1 when not in it
	args     blockArgs
}

// waiter is one (client, key) node of a key's wait list.
type waiter struct {
	c          *client
	list       *waitList
	prev, next *waiter
}

// waitList holds the clients blocked on one key, in the order they blocked
// (Redis's list in db->blocking_keys).
type waitList struct {
	key        string
	head, tail *waiter
	n          int
}

func (l *waitList) pushBack(w *waiter) {
	w.list, w.prev, w.next = l, l.tail, nil
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.n++
}

func (l *waitList) remove(w *waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next, w.list = nil, nil, nil
	l.n--
}

// readyKey is one entry of the ready list.
type readyKey struct {
	dbIndex int
	key     string
}

// blockingDB is one database's blocking bookkeeping. It stays with the
// database index across SWAPDB, as Redis's blocking_keys do.
type blockingDB struct {
	keys  map[string]*waitList // blocking_keys
	ready map[string]struct{}  // ready_keys: keys already in the ready list
}

// blockingState is the server's blocking bookkeeping; the engine lock
// guards all of it.
type blockingState struct {
	dbs     []blockingDB
	ready   []readyKey // server.ready_keys, in signal order
	spare   []readyKey // the previous pass's list, reused
	blocked int        // blocked clients (INFO blocked_clients)
	byKind  [numBlockKinds]int
	timeout timeoutHeap // blocked clients with a deadline
	kick    chan struct{}
}

// blockingKeyReady is the choke point's ready hook: a key that may serve
// blocked clients was written (Redis's signalKeyAsReady).
func blockingKeyReady(s *Server, d *db.DB, key string, t db.Type) {
	s.signalKeyAsReadyLocked(d.ID(), key, t)
}

// blockingClientFree unblocks a client being freed.
func blockingClientFree(s *Server, c *client) {
	if c.blocked != nil {
		s.unblockClientLocked(c)
	}
}

// blockingSwapped looks for ready keys in both databases SWAPDB exchanged.
func blockingSwapped(s *Server, a, b int) {
	s.scanForReadyKeysLocked(a)
	s.scanForReadyKeysLocked(b)
}

// blockingDBLocked returns database i's bookkeeping, creating the tables on
// first use.
func (s *Server) blockingDBLocked(i int) *blockingDB {
	if s.blk.dbs == nil {
		s.blk.dbs = make([]blockingDB, s.ks.Len())
	}
	b := &s.blk.dbs[i]
	if b.keys == nil {
		b.keys = make(map[string]*waitList)
		b.ready = make(map[string]struct{})
	}
	return b
}

// blockForKeysLocked blocks c on keys (Redis's blockForKeys): the client is
// appended to the wait list of each distinct key of its current database,
// in argument order. deadline is in unix ms of the server clock, 0 for
// none. The command writes no reply now; it is written when the client is
// served, times out or is unblocked.
func (s *Server) blockForKeysLocked(c *client, kind blockKind, keys [][]byte, deadline int64, args blockArgs) {
	b := &blockedClient{c: c, kind: kind, dbIndex: c.db.ID(), deadline: deadline, heapIdx: -1, args: args}
	bdb := s.blockingDBLocked(b.dbIndex)
	b.waits = make([]*waiter, 0, len(keys))
	var seen map[string]bool // for long key lists; short ones are scanned
	if len(keys) > 16 {
		seen = make(map[string]bool, len(keys))
	}
	for _, k := range keys {
		if seen != nil {
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
		} else if b.waitsOn(k) {
			continue // a key given twice counts once
		}
		wl := bdb.keys[string(k)]
		if wl == nil {
			wl = &waitList{key: string(k)}
			bdb.keys[wl.key] = wl
		}
		w := &waiter{c: c}
		wl.pushBack(w)
		b.waits = append(b.waits, w)
	}
	c.blocked = b
	s.blk.blocked++
	s.blk.byKind[kind]++
	if deadline != 0 {
		s.addBlockTimeoutLocked(b)
	}
}

// waitsOn reports whether the client already waits on key.
func (b *blockedClient) waitsOn(key []byte) bool {
	for _, w := range b.waits {
		if w.list.key == string(key) {
			return true
		}
	}
	return false
}

// unblockClientLocked removes c from every blocking structure (Redis's
// unblockClientWaitingData plus the counters of unblockClient). It writes
// no reply and does not wake the connection.
func (s *Server) unblockClientLocked(c *client) {
	b := c.blocked
	if b == nil {
		return
	}
	bdb := &s.blk.dbs[b.dbIndex]
	for _, w := range b.waits {
		wl := w.list
		wl.remove(w)
		if wl.n == 0 && bdb.keys[wl.key] == wl {
			delete(bdb.keys, wl.key)
		}
	}
	s.removeBlockTimeoutLocked(b)
	c.blocked = nil
	s.blk.blocked--
	s.blk.byKind[b.kind]--
}

// wakeLocked queues the reply just written to c.w for writing and, once
// the current round's commands are done, runs the commands c sent while it
// was blocked. A client that is executing its own batch needs neither.
func (s *Server) wakeLocked(c *client) {
	s.dropSilencedReplyLocked(c) // CLIENT REPLY OFF/SKIP (cmd_pause.go)
	if c.executing {
		return
	}
	s.loop.reprocessLocked(c)
}

// signalKeyAsReadyLocked queues key of database dbIndex, which has just
// been created with type t, for serving (Redis's signalKeyAsReady): only if
// some client of the matching kind is blocked, somebody waits on this key,
// and it is not queued already.
func (s *Server) signalKeyAsReadyLocked(dbIndex int, key string, t db.Type) {
	kind := kindForType(t)
	if kind == blockNone || s.blk.byKind[kind] == 0 || s.blk.dbs == nil {
		if t != db.TypeNone || s.blk.byKind[blockStream] == 0 || s.blk.dbs == nil {
			return
		}
	}
	bdb := &s.blk.dbs[dbIndex]
	wl := bdb.keys[key]
	if wl == nil {
		return
	}
	if _, queued := bdb.ready[wl.key]; queued {
		return
	}
	bdb.ready[wl.key] = struct{}{}
	s.blk.ready = append(s.blk.ready, readyKey{dbIndex: dbIndex, key: wl.key})
}

// scanForReadyKeysLocked queues every key of database i that clients wait
// on and that now holds data, after SWAPDB (Redis's
// scanDatabaseForReadyKeys). Keys are visited in sorted order.
func (s *Server) scanForReadyKeysLocked(i int) {
	if s.blk.dbs == nil || len(s.blk.dbs[i].keys) == 0 {
		return
	}
	bdb := &s.blk.dbs[i]
	keys := make([]string, 0, len(bdb.keys))
	for k := range bdb.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d := s.ks.DB(i)
	for _, k := range keys {
		s.signalKeyAsReadyLocked(i, k, d.StoredType(k))
	}
}

// handleClientsBlockedOnKeysLocked serves the clients blocked on the keys
// that became ready (Redis's handleClientsBlockedOnKeys). It runs after each
// top-level command, and repeats until serving creates no more ready keys.
func (s *Server) handleClientsBlockedOnKeysLocked() {
	for len(s.blk.ready) > 0 {
		batch := s.blk.ready
		s.blk.ready = s.blk.spare[:0]
		for _, rk := range batch {
			bdb := &s.blk.dbs[rk.dbIndex]
			delete(bdb.ready, rk.key)
			s.ks.SetTime(s.clock.UnixMilli()) // Redis's updateCachedTime before each key
			d := s.ks.DB(rk.dbIndex)
			kind := kindForType(d.ReadyType(rk.key))
			wl := bdb.keys[rk.key]
			if wl == nil {
				continue
			}
			if kind != blockNone && s.hooks.serveBlocked[kind] != nil {
				s.serveWaitListLocked(d, wl, kind)
			}
			// Streams serve their whole wait list, also when the key is
			// gone or holds another type (XREADGROUP clients get an error).
			if s.blk.byKind[blockStream] > 0 {
				if wl = bdb.keys[rk.key]; wl != nil {
					s.serveStreamWaitersLocked(d, wl)
				}
			}
		}
		clear(batch)
		s.blk.spare = batch[:0]
	}
}

// serveWaitListLocked serves the clients blocked on wl's key, which holds
// data of kind, first-blocked-first (Redis 7.0.15's
// serveClientsBlockedOnListKey and serveClientsBlockedOnSortedSetKey):
// clients blocked for another type are skipped and keep their place;
// service stops when the key is deleted.
func (s *Server) serveWaitListLocked(d *db.DB, wl *waitList, kind blockKind) {
	for w := wl.head; w != nil; {
		next := w.next // unblocking c removes only w from this list
		c := w.c
		switch {
		case c.blocked.kind != kind:
		case c.killed.Load():
			s.unblockClientLocked(c) // being freed: it must not take data
		default:
			s.setTouchContextClientLocked(c) // watch_obs.go
			served, deleted := s.hooks.serveBlocked[kind](s, c, d, wl.key)
			if !served {
				return
			}
			s.unblockClientLocked(c)
			s.wakeLocked(c)
			if deleted {
				return
			}
		}
		w = next
	}
}
