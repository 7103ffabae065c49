package server

import (
	"slices"
	"sort"
	"strings"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Client-side caching (Redis 7.0 tracking.c): the tracking table, BCAST
// prefixes and invalidation messages. A client with CLIENT TRACKING ON has
// the keys of its read commands remembered (afterCall); every modification
// of such a key, from the one write choke point (db's signal, through the
// observer), sends it an invalidation and forgets the key. FLUSHDB and
// FLUSHALL send a null invalidation to every tracking client.
//
// Everything here runs under the engine lock.

// trackingState is the server side of client-side caching.
type trackingState struct {
	clients int // clients with tracking on (INFO tracking_clients)

	// table maps a key name (of any db, as in Redis) to the IDs of the
	// clients that may cache it.
	table map[string]map[int64]struct{}
	items int // IDs summed over table (INFO tracking_total_items)

	// prefixes holds the BCAST registrations: prefix -> clients and the keys
	// modified since the last broadcast.
	prefixes map[string]*bcastState

	// pending holds invalidations for the client whose command is running:
	// Redis sends them after the command's reply (or after EXEC).
	pending []pendingInvalidation

	// removing is the key being deleted by expiry or eviction while its
	// observer calls run: such a change belongs to no client.
	removing   string
	isRemoving bool

	// broadcastScheduled is set while a goroutine is on its way to send the
	// broadcasts of keys changed outside any client's batch.
	broadcastScheduled bool

	// limitRounds counts the consecutive commands before which the table
	// stayed over tracking-table-max-keys.
	limitRounds int

	// Scratch buffers: key positions, the value and the frame of an
	// invalidation, the client IDs of one key.
	keyPos []int
	value  []byte
	frame  []byte
	ids    []int64
}

// bcastState is one BCAST prefix.
type bcastState struct {
	keys    map[string]*client // key -> last client that modified it (nil: none)
	clients orderedSet[*client]
}

// pendingInvalidation is an invalidation deferred until the end of the
// running command: a key, or the null of a flush.
type pendingInvalidation struct {
	c    *client
	key  string
	null bool
}

// clientTracking is a client's CLIENT TRACKING state.
type clientTracking struct {
	on, bcast, optin, optout, noloop bool
	caching                          bool // CLIENT CACHING given for the next command
	brokenRedir                      bool
	redirect                         int64
	prefixes                         []string // BCAST prefixes, sorted

	// prevWasClient says the last command processed was a CLIENT
	// subcommand, which keeps a CLIENT CACHING flag alive (resetClient).
	prevWasClient bool
}

// Invalidation frames. The RESP2 form is a Pub/Sub message on the
// __redis__:invalidate channel, sent only to a redirect client in pub/sub
// mode.
const (
	invalidatePush    = ">2\r\n$10\r\ninvalidate\r\n"
	invalidateMessage = "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"
)

// enableTrackingLocked turns tracking on for c (Redis's enableTracking).
func (s *Server) enableTrackingLocked(c *client, redirect int64, opt clientTracking, prefixes []string) {
	t := &c.ps.tracking
	if !t.on {
		s.ps.tracking.clients++
	}
	t.on = true
	t.brokenRedir, t.bcast, t.optin, t.optout, t.noloop = false, false, false, false, false
	t.redirect = redirect
	if opt.bcast {
		t.bcast = true
		if len(prefixes) == 0 {
			s.enableBcastPrefixLocked(c, "")
		}
		for _, p := range prefixes {
			s.enableBcastPrefixLocked(c, p)
		}
	}
	t.optin, t.optout, t.noloop = opt.optin, opt.optout, opt.noloop
}

// enableBcastPrefixLocked registers c for the keys starting with prefix.
func (s *Server) enableBcastPrefixLocked(c *client, prefix string) {
	ts := &s.ps.tracking
	if ts.prefixes == nil {
		ts.prefixes = make(map[string]*bcastState)
	}
	bs := ts.prefixes[prefix]
	if bs == nil {
		bs = &bcastState{keys: make(map[string]*client)}
		ts.prefixes[prefix] = bs
	}
	if bs.clients.add(c) {
		t := &c.ps.tracking
		if i, found := slices.BinarySearch(t.prefixes, prefix); !found {
			t.prefixes = slices.Insert(t.prefixes, i, prefix)
		}
	}
}

// disableTrackingLocked turns tracking off (Redis's disableTracking). The
// keys the client read stay in the table and are dropped lazily.
func (s *Server) disableTrackingLocked(c *client) {
	t := &c.ps.tracking
	if t.bcast {
		ts := &s.ps.tracking
		for _, p := range t.prefixes {
			if bs := ts.prefixes[p]; bs != nil {
				bs.clients.remove(c)
				if bs.clients.len() == 0 {
					delete(ts.prefixes, p)
				}
			}
		}
		t.prefixes = nil
	}
	if t.on {
		s.ps.tracking.clients--
		t.on, t.brokenRedir, t.bcast, t.optin, t.optout, t.caching, t.noloop =
			false, false, false, false, false, false, false
	}
}

// trackingRememberKeysLocked records that caller may cache the keys of a
// read command (Redis's trackingRememberKeys).
func (s *Server) trackingRememberKeysLocked(caller *client, cmd *command, args [][]byte) {
	t := &caller.ps.tracking
	if (t.optin && !t.caching) || (t.optout && t.caching) {
		return
	}
	ts := &s.ps.tracking
	ts.keyPos = cmd.meta.AppendKeyPositions(ts.keyPos[:0], args)
	for _, i := range ts.keyPos {
		ids := ts.table[string(args[i])]
		if ids == nil {
			if ts.table == nil {
				ts.table = make(map[string]map[int64]struct{})
			}
			ids = make(map[int64]struct{}, 1)
			ts.table[string(args[i])] = ids
		}
		if _, ok := ids[caller.id]; !ok {
			ids[caller.id] = struct{}{}
			ts.items++
		}
	}
}

// trackingKeyModified is the observer hook of db's choke point: it queues
// the key for BCAST clients and invalidates it for the clients that read it
// (Redis's trackingInvalidateKey called from signalModifiedKey).
func trackingKeyModified(s *Server, d *db.DB, key string) {
	ts := &s.ps.tracking
	if len(ts.table) == 0 && len(ts.prefixes) == 0 {
		return
	}
	cur := s.currentLocked()
	if len(ts.prefixes) > 0 {
		modifier := cur
		if ts.isRemoving && ts.removing == key {
			modifier = nil // expiry and eviction are nobody's write
		}
		s.rememberKeyToBroadcastLocked(modifier, key)
		if cur == nil {
			s.scheduleBroadcastLocked()
		}
	}
	s.invalidateKeyLocked(key, cur, true)
	if ts.isRemoving && ts.removing == key {
		ts.isRemoving, ts.removing = false, ""
	}
}

// Removing notes, for the signal that follows, that db removes key by
// expiry or eviction (db.RemovalObserver).
func (o observer) Removing(d *db.DB, key string, why db.RemoveReason) {
	ts := &o.s.ps.tracking
	ts.isRemoving, ts.removing = true, key
}

// rememberKeyToBroadcastLocked queues key for every BCAST prefix it
// starts with, remembering who changed it (for NOLOOP).
func (s *Server) rememberKeyToBroadcastLocked(modifier *client, key string) {
	var owned string // the key outlives the command: copy it once
	for p, bs := range s.ps.tracking.prefixes {
		if strings.HasPrefix(key, p) {
			if owned == "" {
				owned = strings.Clone(key)
			}
			bs.keys[owned] = modifier
		}
	}
}

// invalidateKeyLocked sends key's invalidation to every client that read it
// and forgets them. cur is the client whose command is running; with
// deferSelf its own invalidation waits for the end of its command.
func (s *Server) invalidateKeyLocked(key string, cur *client, deferSelf bool) {
	ts := &s.ps.tracking
	ids := ts.table[key]
	if ids == nil {
		return
	}
	order := ts.ids[:0]
	for id := range ids {
		order = append(order, id)
	}
	slices.Sort(order)
	ts.ids = order[:0]
	for _, id := range order {
		target := s.clients[id]
		if target == nil || !target.ps.tracking.on || target.ps.tracking.bcast {
			continue
		}
		if target.ps.tracking.noloop && target == cur {
			continue
		}
		if target == cur && deferSelf {
			ts.pending = append(ts.pending, pendingInvalidation{c: target, key: strings.Clone(key)})
			continue
		}
		s.sendTrackingMessageLocked(target, s.keyInvalidationValue(key))
	}
	ts.items -= len(ids)
	delete(ts.table, key)
}

// keyInvalidationValue encodes the one-key array of an invalidation.
func (s *Server) keyInvalidationValue(key string) []byte {
	ts := &s.ps.tracking
	b := append(ts.value[:0], "*1\r\n"...)
	b = protocol.AppendBulkString(b, key)
	ts.value = b
	return b
}

// nullInvalidationValue is the null of a flush, in the tracking client's
// protocol (Redis uses the tracking client's, even when redirecting).
func nullInvalidationValue(c *client) []byte {
	if c.w.Proto == 3 {
		return []byte("_\r\n")
	}
	return []byte("$-1\r\n")
}

// sendTrackingMessageLocked delivers an invalidation whose value part
// (array of keys or null) is value, to c or to its redirect client (Redis's
// sendTrackingMessage). A vanished redirect client marks the redirection
// broken and, for a RESP3 client, says so with a tracking-redir-broken push.
func (s *Server) sendTrackingMessageLocked(c *client, value []byte) {
	t := &c.ps.tracking
	target, redirected := c, false
	if t.redirect != 0 {
		r := s.clients[t.redirect]
		if r == nil {
			t.brokenRedir = true
			if c.w.Proto == 3 {
				b := append([]byte(">2\r\n$21\r\ntracking-redir-broken\r\n:"), appendUint(nil, uint64(t.redirect))...)
				s.deliverLocked(c, append(b, '\r', '\n'))
			}
			return
		}
		target, redirected = r, true
	}
	var head string
	switch {
	case target.w.Proto == 3:
		head = invalidatePush
	case redirected && target.ps.subscribed():
		head = invalidateMessage
	default:
		return // a RESP2 connection cannot receive pushes
	}
	ts := &s.ps.tracking
	ts.frame = append(append(ts.frame[:0], head...), value...)
	s.deliverLocked(target, ts.frame)
}

// trackingFlushed sends the null invalidation of FLUSHDB/FLUSHALL to every
// tracking client and empties the table (Redis's
// trackingInvalidateKeysOnFlush). The flushing client gets its own after
// its reply.
func trackingFlushed(s *Server, dbIndex int) {
	ts := &s.ps.tracking
	if ts.clients > 0 {
		cur := s.currentLocked()
		var list []*client
		for _, c := range s.clients {
			if c.ps.tracking.on {
				list = append(list, c)
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
		for _, c := range list {
			if c == cur {
				ts.pending = append(ts.pending, pendingInvalidation{c: c, null: true})
				continue
			}
			s.sendTrackingMessageLocked(c, nullInvalidationValue(c))
		}
	}
	ts.table = nil
	ts.items = 0
}

// flushPendingInvalidationsLocked sends the invalidations deferred during a
// command (Redis's trackingHandlePendingKeyInvalidations after call).
func (s *Server) flushPendingInvalidationsLocked() {
	ts := &s.ps.tracking
	if len(ts.pending) == 0 {
		return
	}
	pending := ts.pending
	ts.pending = nil
	for _, p := range pending {
		if s.clients[p.c.id] != p.c {
			continue // the client went away
		}
		if p.null {
			s.sendTrackingMessageLocked(p.c, nullInvalidationValue(p.c))
		} else {
			s.sendTrackingMessageLocked(p.c, s.keyInvalidationValue(p.key))
		}
	}
	clear(pending)
	if ts.pending == nil {
		ts.pending = pending[:0]
	}
}

// broadcastInvalidationsLocked sends the keys queued for each BCAST prefix
// to its clients, one array per prefix, keys in byte order, leaving out for
// a NOLOOP client the keys it changed itself (Redis's
// trackingBroadcastInvalidationMessages, run before the event loop
// sleeps).
func (s *Server) broadcastInvalidationsLocked() {
	ts := &s.ps.tracking
	if ts.clients == 0 || len(ts.prefixes) == 0 {
		return
	}
	var prefixes []string
	for p, bs := range ts.prefixes {
		if len(bs.keys) > 0 {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 {
		return
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		bs := ts.prefixes[p]
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		all := appendKeyArray(nil, keys, bs.keys, nil)
		for _, c := range bs.clients.snapshot() {
			if c.ps.tracking.noloop {
				if own := appendKeyArray(nil, keys, bs.keys, c); own != nil {
					s.sendTrackingMessageLocked(c, own)
				}
				continue
			}
			s.sendTrackingMessageLocked(c, all)
		}
		bs.keys = make(map[string]*client)
	}
}

// appendKeyArray encodes keys as an array, leaving out those last modified
// by skip (when not nil); it returns nil when nothing is left.
func appendKeyArray(b []byte, keys []string, modifiers map[string]*client, skip *client) []byte {
	n := 0
	for _, k := range keys {
		if skip == nil || modifiers[k] != skip {
			n++
		}
	}
	if n == 0 && skip != nil {
		return nil
	}
	b = protocol.AppendArrayLen(b, n)
	for _, k := range keys {
		if skip == nil || modifiers[k] != skip {
			b = protocol.AppendBulkString(b, k)
		}
	}
	return b
}

// scheduleBroadcastLocked arranges for the broadcasts of keys changed
// outside any client's batch (active expiry) to go out once the engine lock
// is free, as Redis sends them before its event loop sleeps.
func (s *Server) scheduleBroadcastLocked() {
	ts := &s.ps.tracking
	if ts.broadcastScheduled {
		return
	}
	ts.broadcastScheduled = true
	go func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ps.tracking.broadcastScheduled = false
		s.broadcastInvalidationsLocked()
	}()
}

// trackingLimitUsedSlotsLocked keeps the tracking table within
// tracking-table-max-keys by invalidating keys as if they were modified,
// with an effort that grows while the table stays over the limit (Redis's
// trackingLimitUsedSlots, run before each command).
func (s *Server) trackingLimitUsedSlotsLocked(cur *client) {
	ts := &s.ps.tracking
	max := s.cfg.TrackingTableMaxKeys
	if max <= 0 || int64(len(ts.table)) <= max {
		ts.limitRounds = 0
		return
	}
	effort := 100 * (ts.limitRounds + 1)
	for key := range ts.table {
		if effort == 0 {
			break
		}
		effort--
		s.invalidateKeyLocked(key, cur, false)
		if int64(len(ts.table)) <= max {
			ts.limitRounds = 0
			return
		}
	}
	ts.limitRounds++
}
