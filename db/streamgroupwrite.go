package db

import (
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Consumer group writes (XGROUP, XREADGROUP, XACK, XCLAIM, XAUTOCLAIM).
// None of them signals (Redis 7.0.15 does not call signalModifiedKey for
// them); each counts its changes and raises its events through
// streamChangedQuietly.

// NoGroupError is the XGROUP error for a missing group.
func NoGroupError(group, key []byte) protocol.Error {
	return protocol.Error("NOGROUP No such consumer group '" + cstrString(group) + "' for key name '" + cstrString(key) + "'")
}

func cstrString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// groupForWrite looks the stream and its group up for an XGROUP
// subcommand: ErrStreamNoGroupKey when the key is missing (unless
// mkstream), WRONGTYPE, and the group (nil when missing).
func (d *DB) groupForWrite(key []byte) (*entry, *Stream, error) {
	e, s, err := d.streamForWrite(key)
	if err != nil {
		return nil, nil, err
	}
	return e, s, nil
}

// XGroupCreate creates group with last ID id (or the stream's last ID when
// dollar) and the read counter entriesRead (XGROUP CREATE). With mkstream a
// missing key is created (and signalled, as Redis does).
func (d *DB) XGroupCreate(key, group []byte, id StreamID, dollar bool, entriesRead int64, mkstream bool) error {
	e, s, err := d.groupForWrite(key)
	if err != nil {
		return err
	}
	if e == nil && !mkstream {
		return ErrStreamNoGroupKey
	}
	if dollar && s != nil {
		id = s.lastID
	}
	if e == nil {
		e, s = d.createStream(key)
		d.signal(e.key(), true)
	}
	if s.createGroup(group, id, entriesRead) == nil {
		return ErrStreamGroupExists
	}
	d.streamChangedQuietly(e, 1, EvXGroupCreate)
	return nil
}

// XGroupSetID sets a group's last ID and read counter (XGROUP SETID).
func (d *DB) XGroupSetID(key, group []byte, id StreamID, dollar bool, entriesRead int64) error {
	e, s, err := d.groupForWrite(key)
	if err != nil {
		return err
	}
	if e == nil {
		return ErrStreamNoGroupKey
	}
	g := s.Group(group)
	if g == nil {
		return NoGroupError(group, key)
	}
	if dollar {
		id = s.lastID
	}
	g.LastID, g.EntriesRead = id, entriesRead
	d.streamChangedQuietly(e, 1, EvXGroupSetID)
	return nil
}

// XGroupDestroy removes a group and reports whether it existed (XGROUP
// DESTROY); the clients blocked on the key are told (they get -NOGROUP).
func (d *DB) XGroupDestroy(key, group []byte) (bool, error) {
	e, s, err := d.groupForWrite(key)
	if err != nil {
		return false, err
	}
	if e == nil {
		return false, ErrStreamNoGroupKey
	}
	if !s.destroyGroup(group) {
		return false, nil
	}
	d.streamChangedQuietly(e, 1, EvXGroupDestroy)
	if o := d.ks.observer; o != nil {
		o.Ready(d, e.key(), TypeStream)
	}
	return true, nil
}

// XGroupCreateConsumer creates a consumer and reports whether it did.
func (d *DB) XGroupCreateConsumer(key, group, consumer []byte) (bool, error) {
	e, s, err := d.groupForWrite(key)
	if err != nil {
		return false, err
	}
	if e == nil {
		return false, ErrStreamNoGroupKey
	}
	g := s.Group(group)
	if g == nil {
		return false, NoGroupError(group, key)
	}
	if s.createConsumer(g, consumer, d.ks.StreamNow()) == nil {
		return false, nil
	}
	d.streamChangedQuietly(e, 1, EvXGroupCreateConsumer)
	return true, nil
}

// XGroupDelConsumer deletes a consumer and returns how many entries it had
// pending (XGROUP DELCONSUMER).
func (d *DB) XGroupDelConsumer(key, group, consumer []byte) (int, error) {
	e, s, err := d.groupForWrite(key)
	if err != nil {
		return 0, err
	}
	if e == nil {
		return 0, ErrStreamNoGroupKey
	}
	g := s.Group(group)
	if g == nil {
		return 0, NoGroupError(group, key)
	}
	c := g.Consumer(consumer)
	if c == nil {
		return 0, nil
	}
	n := s.deleteConsumer(g, c)
	d.streamChangedQuietly(e, 1, EvXGroupDelConsumer)
	return n, nil
}

// XAck acknowledges ids in group and returns how many were pending (XACK).
func (d *DB) XAck(key, group []byte, ids []StreamID) (int, error) {
	e, s, err := d.streamForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	g := s.Group(group)
	if g == nil {
		return 0, nil
	}
	n := 0
	for _, id := range ids {
		if p := g.pel.find(id); p != nil {
			s.ackPending(g, p)
			n++
		}
	}
	if n > 0 {
		d.streamChangedQuietly(e, int64(n))
	}
	return n, nil
}

// GroupSession is one command's work on a consumer group (XREADGROUP,
// XCLAIM, XAUTOCLAIM): it holds the stream, group and (once resolved) the
// consumer, and records changes; End finishes the command's accounting.
type GroupSession struct {
	d       *DB
	e       *entry
	S       *Stream
	G       *StreamGroup
	C       *StreamConsumer
	changes int64
	evs     []Event
}

// OpenGroup starts a session on key's group. ok is false (err nil) when the
// key or the group is missing.
func (d *DB) OpenGroup(key, group []byte) (gs GroupSession, ok bool, err error) {
	e, s, err := d.streamForWrite(key)
	if err != nil || e == nil {
		return gs, false, err
	}
	g := s.Group(group)
	if g == nil {
		return gs, false, nil
	}
	return GroupSession{d: d, e: e, S: s, G: g}, true, nil
}

// OpenGroupQuiet is OpenGroup for serving a blocked client: no statistics.
func (d *DB) OpenGroupQuiet(key string, group []byte) (gs GroupSession, ok bool) {
	e := d.lookup(key, lookupNoTouch)
	if e == nil || e.typ() != TypeStream {
		return gs, false
	}
	s := e.val.(*Stream)
	g := s.Group(group)
	if g == nil {
		return gs, false
	}
	return GroupSession{d: d, e: e, S: s, G: g}, true
}

// Consumer resolves the session's consumer, creating it (event
// "xgroup-createconsumer") when missing; refresh updates its seen-time.
// It reports whether the consumer was created.
func (gs *GroupSession) Consumer(name []byte, refresh bool) bool {
	if gs.C != nil && gs.C.name == string(name) {
		return false
	}
	now := gs.d.ks.StreamNow()
	if c := gs.G.Consumer(name); c != nil {
		gs.C = c
		if refresh {
			c.SeenTime = now
		}
		return false
	}
	gs.C = gs.S.createConsumer(gs.G, name, now)
	gs.changes++
	gs.evs = append(gs.evs, EvXGroupCreateConsumer)
	return true
}

// Deliver records that the entry id was delivered by XREADGROUP ">" to the
// session's consumer: the group's last ID and read counter move, and unless
// noack a pending entry is created (or taken over from another consumer).
// It returns the pending entry (nil with noack).
func (gs *GroupSession) Deliver(id StreamID, noack bool) *PendingEntry {
	s, g := gs.S, gs.G
	if g.LastID.Less(id) {
		if g.EntriesRead != InvalidEntriesRead && !s.rangeHasTombstones(id, MaxStreamID) {
			g.EntriesRead++
		} else if s.entriesAdded != 0 {
			g.EntriesRead = s.estimateDistance(id)
		}
		g.LastID = id
	}
	gs.changes++
	if noack {
		return nil
	}
	now := gs.d.ks.StreamNow()
	if p := g.pel.find(id); p != nil {
		movePending(p, gs.C)
		p.DeliveryTime, p.DeliveryCount = now, 1
		return p
	}
	return s.addPending(g, gs.C, id, now)
}

// Redeliver records a history read of the pending entry p.
func (gs *GroupSession) Redeliver(p *PendingEntry) {
	p.DeliveryTime = gs.d.ks.StreamNow()
	p.DeliveryCount++
	gs.changes++
}

// Drop removes the pending entry p (its entry no longer exists).
func (gs *GroupSession) Drop(p *PendingEntry) {
	gs.S.ackPending(gs.G, p)
	gs.changes++
}

// Claim gives the pending entry p (or, when nil, a new one for id: FORCE)
// to the session's consumer with the delivery time at, and the delivery
// count retry (>= 0), or incremented unless justid.
func (gs *GroupSession) Claim(p *PendingEntry, id StreamID, at int64, retry int64, justid bool) *PendingEntry {
	if p == nil {
		p = &PendingEntry{ID: id, DeliveryCount: 1}
		gs.G.pel.insert(p)
		gs.S.groupBytes += pendingBytes
	}
	p.DeliveryTime = at
	if retry >= 0 {
		p.DeliveryCount = uint64(retry)
	} else if !justid {
		p.DeliveryCount++
	}
	if p.Consumer == nil {
		p.Consumer = gs.C
		gs.C.pel.insert(p)
	} else {
		movePending(p, gs.C)
	}
	gs.changes++
	return p
}

// SetLastID moves the group's last ID forward to id (XCLAIM LASTID) and
// reports whether it moved.
func (gs *GroupSession) SetLastID(id StreamID) bool {
	if gs.G.LastID.Less(id) {
		gs.G.LastID = id
		gs.changes++
		return true
	}
	return false
}

// Changed reports whether the session changed anything.
func (gs *GroupSession) Changed() bool { return gs.changes > 0 }

// End records the session's changes.
func (gs *GroupSession) End() {
	if gs.e == nil || gs.changes == 0 {
		return
	}
	gs.d.streamChangedQuietly(gs.e, gs.changes, gs.evs...)
	gs.changes, gs.evs = 0, nil
}

// rangeHasTombstones is streamRangeHasTombstones.
func (s *Stream) rangeHasTombstones(start, end StreamID) bool {
	if s.length == 0 || s.maxDeleted.IsZero() {
		return false
	}
	if s.maxDeleted.Less(s.firstID) {
		return false
	}
	return !s.maxDeleted.Less(start) && !end.Less(s.maxDeleted)
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *Stream) estimateDistance(id StreamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.Cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch id.Cmp(s.lastID) {
	case 0:
		return int64(s.entriesAdded)
	case 1:
		return InvalidEntriesRead
	}
	if s.maxDeleted.IsZero() || s.maxDeleted.Less(s.firstID) {
		switch id.Cmp(s.firstID) {
		case -1:
			return int64(s.entriesAdded - s.length)
		case 0:
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return InvalidEntriesRead
}

// Lag returns the group's lag as XINFO GROUPS reports it; ok is false when
// it cannot be known (streamReplyWithCGLag).
func (s *Stream) Lag(g *StreamGroup) (int64, bool) {
	if s.entriesAdded == 0 {
		return 0, true
	}
	if g.EntriesRead != InvalidEntriesRead && !s.rangeHasTombstones(g.LastID, MaxStreamID) {
		return int64(s.entriesAdded) - g.EntriesRead, true
	}
	if n := s.estimateDistance(g.LastID); n != InvalidEntriesRead {
		return int64(s.entriesAdded) - n, true
	}
	return 0, false
}

// StreamNow is the time consumer seen-times and deliveries are stamped
// with: the command's time, or the wall clock while the AOF loads (the
// keyspace time is 0 then, and Redis uses mstime()).
func (ks *Keyspace) StreamNow() int64 {
	if ks.nowMs > 0 {
		return ks.nowMs
	}
	return time.Now().UnixMilli()
}
