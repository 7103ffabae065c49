package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// XREAD and XREADGROUP (Redis t_stream.c xreadCommand) and the serving of
// clients blocked in them (blocked.c serveClientsBlockedOnStreamKey and
// unblockDeletedStreamReadgroupClients). A blocked stream reader waits in
// the same wait lists as list and sorted set clients (blocking.go); XADD
// and XGROUP DESTROY queue the key as ready every time, and so does the
// deletion or overwriting of a stream key (db's Ready on unlink), so that
// XREADGROUP clients get their -UNBLOCKED or -NOGROUP error.

var streamReadCommands = []commandDef{
	{"xread", cmdXRead},
	{"xreadgroup", cmdXRead},
}

// xreadDefaultBlockedCount is XREAD_BLOCKED_DEFAULT_COUNT.
const xreadDefaultBlockedCount = 1000

var (
	errXReadGroupOnly  = protocol.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
	errXReadNoAckOnly  = protocol.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
	errXReadMissGroup  = protocol.Error("ERR Missing GROUP option for XREADGROUP")
	errXReadGroupDolla = protocol.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
	errXReadGreater    = protocol.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
	errXReadKeyGone    = protocol.Error("UNBLOCKED the stream key no longer exists")
	errXReadUnbalanced = protocol.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
	errTimeoutNotInt   = protocol.Error("ERR timeout is not an integer or out of range")
	errXReadGroupGone  = protocol.Error("NOGROUP the consumer group this client was blocked on no longer exists")
)

// streamBlock is what a blocked stream reader needs when it is served.
type streamBlock struct {
	ids      map[string]db.StreamID // per key: serve IDs greater than this
	count    int
	group    []byte // XREADGROUP: group and consumer
	consumer []byte
	noack    bool
}

func cmdXRead(c *client, args [][]byte) {
	xreadgroup := len(args[0]) == 10
	timeout := int64(-1)
	var count int64
	var group, consumer []byte
	noack := false
	streamsArg, n := 0, 0
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case cstrEqualFold(o, "block") && more > 0:
			if c == c.srv.scripting.sc {
				c.fail(protocol.Error("ERR " + cstr(string(args[0])) + " command is not allowed with BLOCK option from scripts"))
				return
			}
			i++
			ms, ok := protocol.ParseInt(args[i])
			if !ok {
				c.fail(errTimeoutNotInt)
				return
			}
			if ms < 0 {
				c.fail(protocol.ErrTimeoutNegative)
				return
			}
			timeout = ms
		case cstrEqualFold(o, "count") && more > 0:
			i++
			v, ok := protocol.ParseInt(args[i])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			count = max(v, 0)
		case cstrEqualFold(o, "streams") && more > 0:
			streamsArg = i + 1
			n = len(args) - streamsArg
			if n%2 != 0 {
				c.fail(errXReadUnbalanced)
				return
			}
			n /= 2
			i = len(args)
		case cstrEqualFold(o, "group") && more >= 2:
			if !xreadgroup {
				c.fail(errXReadGroupOnly)
				return
			}
			group, consumer = args[i+1], args[i+2]
			i += 2
		case cstrEqualFold(o, "noack"):
			if !xreadgroup {
				c.fail(errXReadNoAckOnly)
				return
			}
			noack = true
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if streamsArg == 0 {
		c.fail(protocol.ErrSyntax)
		return
	}
	if xreadgroup && group == nil {
		c.fail(errXReadMissGroup)
		return
	}
	c.preventPropagation()
	keys := args[streamsArg : streamsArg+n]
	ids := make([]db.StreamID, n)
	for i := 0; i < n; i++ {
		key, arg := keys[i], args[streamsArg+n+i]
		s, err := c.db.LookupStream(key)
		if err != nil {
			c.fail(err)
			return
		}
		if group != nil && (s == nil || s.Group(group) == nil) {
			c.fail(protocol.Error("NOGROUP No such key '" + cstr(string(key)) + "' or consumer group '" +
				cstr(string(group)) + "' in XREADGROUP with GROUP option"))
			return
		}
		switch {
		case len(arg) == 1 && arg[0] == '$':
			if xreadgroup {
				c.fail(errXReadGroupDolla)
				return
			}
			if s != nil {
				ids[i] = s.LastID()
			}
			continue
		case len(arg) == 1 && arg[0] == '>':
			if !xreadgroup {
				c.fail(errXReadGreater)
				return
			}
			ids[i] = db.MaxStreamID
			continue
		}
		id, _, err := db.ParseStreamID(arg, 0, true, false)
		if err != nil {
			c.fail(err)
			return
		}
		ids[i] = id
	}
	var hdr protocol.Deferred
	served := 0
	for i, key := range keys {
		s, _ := c.db.LookupStream(key)
		if s == nil {
			continue
		}
		gt := ids[i]
		sync, history := false, false
		if group != nil {
			if gt != db.MaxStreamID {
				sync, history = true, true
			} else if s.Len() > 0 {
				if last := s.Group(group).LastID; last.Less(s.LastValid()) {
					sync, gt = true, last
				}
			}
		} else if s.Len() > 0 && gt.Less(s.LastValid()) {
			sync = true
		}
		if !sync {
			continue
		}
		served++
		if served == 1 {
			hdr = c.w.DeferLen()
		}
		if !c.w.Resp3() {
			c.w.Array(2)
		}
		c.w.Bulk(key)
		start, _ := gt.Incr()
		if group == nil {
			writeEntriesFrom(c, s, start, int(count))
			continue
		}
		readGroupReply(c, c.db, key, group, consumer, start, int(count), noack, history)
	}
	if served > 0 {
		if c.w.Resp3() {
			c.w.SetMapLen(hdr, served)
		} else {
			c.w.SetArrayLen(hdr, served)
		}
		return
	}
	if timeout != -1 {
		if c.denyBlocking {
			c.w.NullArray()
			return
		}
		b := &streamBlock{ids: make(map[string]db.StreamID, n), group: cloneBytes(group), consumer: cloneBytes(consumer), noack: noack}
		for i, k := range keys {
			if _, dup := b.ids[string(k)]; !dup {
				b.ids[string(k)] = ids[i]
			}
		}
		b.count = int(count)
		if b.count == 0 {
			b.count = xreadDefaultBlockedCount
		}
		c.srv.blockForKeysLocked(c, blockStream, keys, c.srv.blockDeadline(timeout), blockArgs{stream: b})
		return
	}
	c.w.NullArray()
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// readGroupReply serves one key of XREADGROUP from start (inclusive): the
// consumer's history (its PEL) or new entries, which move the group and
// create pending entries. It writes the entries array.
func readGroupReply(c *client, d *db.DB, key, group, consumer []byte, start db.StreamID, count int, noack, history bool) {
	gs, _, _ := d.OpenGroup(key, group)
	readGroupSession(c, d, &gs, key, group, consumer, start, count, noack, history)
}

func readGroupSession(c *client, d *db.DB, gs *db.GroupSession, key, group, consumer []byte, start db.StreamID, count int, noack, history bool) {
	created := gs.Consumer(consumer, true)
	gs.C.SeenTime = d.Keyspace().StreamNow()
	hdr := c.w.DeferLen()
	n := 0
	if history {
		var pend []*db.PendingEntry
		gs.G.PendingRange(gs.C, start, db.MaxStreamID, func(p *db.PendingEntry) bool {
			pend = append(pend, p)
			return count == 0 || len(pend) < count
		})
		var fvBuf [16][]byte
		for _, p := range pend {
			fv, ok := gs.S.Get(p.ID, fvBuf[:0])
			if !ok {
				c.w.Array(2)
				writeID(c, p.ID)
				c.w.NullArray()
			} else {
				writeEntry(c, p.ID, fv)
				gs.Redeliver(p)
			}
			n++
		}
		c.w.SetArrayLen(hdr, n)
		gs.End()
		return
	}
	gs.S.ReadFrom(start, func(id db.StreamID, fv [][]byte) bool {
		writeEntry(c, id, fv)
		n++
		if p := gs.Deliver(id, noack); p != nil {
			propagateXClaimIn(c, d, key, group, p, string(consumer), gs.G.LastID)
		}
		return count == 0 || n < count
	})
	c.w.SetArrayLen(hdr, n)
	if noack && n > 0 {
		// Redis 7.0.15 logs a new consumer only here, where no XCLAIM
		// would create it on a replica (checked on its replication stream).
		if created {
			propagateCreateConsumer(c, d, key, group, consumer)
		}
		propagateGroupSetID(c, d, key, group, gs.G)
	}
	gs.End()
}

// propagateXClaimIn is propagateXClaim in database d.
func propagateXClaimIn(c *client, d *db.DB, key, group []byte, p *db.PendingEntry, consumer string, lastID db.StreamID) {
	if c.srv.aof.prop.on {
		streamPropagate(c, d, xclaimArgs(key, group, p, []byte(consumer), lastID)...)
	}
}

// streamPropagate records args for c's stream read: as part of its command,
// or, for a blocked client being served after another client's command, on
// its own (Redis's alsoPropagate from serveClientsBlockedOnStreamKey).
func streamPropagate(c *client, d *db.DB, args ...[]byte) {
	if c.blocked != nil {
		c.srv.propagateLocked(d, args...)
		return
	}
	c.alsoPropagate(d, args...)
}

// serveStreamWaitersLocked serves the clients blocked on wl's key in
// database d, which may hold a stream, another type or nothing
// (serveClientsBlockedOnStreamKey, then
// unblockDeletedStreamReadgroupClients for a key that is no stream).
func (s *Server) serveStreamWaitersLocked(d *db.DB, wl *waitList) {
	st := d.LookupStreamQuiet(wl.key)
	for w := wl.head; w != nil; {
		next := w.next
		c := w.c
		if c.blocked.kind != blockStream {
			w = next
			continue
		}
		if c.killed.Load() {
			s.unblockClientLocked(c)
			w = next
			continue
		}
		b := c.blocked.args.stream
		if st == nil {
			if b.group != nil {
				c.fail(errXReadKeyGone)
				s.unblockClientLocked(c)
				s.wakeLocked(c)
			}
			w = next
			continue
		}
		gt := b.ids[wl.key]
		var gs db.GroupSession
		if b.group != nil {
			var ok bool
			gs, ok = d.OpenGroupQuiet(wl.key, b.group)
			if !ok {
				c.fail(errXReadGroupGone)
				s.unblockClientLocked(c)
				s.wakeLocked(c)
				w = next
				continue
			}
			gt = gs.G.LastID
		}
		if gt.Less(st.LastID()) {
			start, _ := gt.Incr()
			key := []byte(wl.key)
			if c.w.Resp3() {
				c.w.Map(1)
			} else {
				c.w.Array(1)
				c.w.Array(2)
			}
			c.w.Bulk(key)
			if b.group == nil {
				writeEntriesFrom(c, st, start, b.count)
			} else {
				readGroupSession(c, d, &gs, key, b.group, b.consumer, start, b.count, b.noack, false)
			}
			s.unblockClientLocked(c)
			s.wakeLocked(c)
		}
		w = next
	}
}
