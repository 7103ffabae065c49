package db

import "github.com/miniwatchd/miniwatchd/protocol"

// The stream type API: lookups and every write. XADD, XDEL and XTRIM end in
// one signal, as Redis's signalModifiedKey; the group and PEL writes
// (XSETID, XGROUP, XREADGROUP, XACK, XCLAIM, XAUTOCLAIM) change the value
// without touching watchers or tracking clients, exactly as Redis 7.0.15,
// which only counts them as changes (server.dirty) and raises their events:
// they go through streamChangedQuietly.

// LookupStream returns the stream at key for a read command: nil, nil when
// missing, ErrWrongType for another type.
func (d *DB) LookupStream(key []byte) (*Stream, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeStream {
		return nil, protocol.ErrWrongType
	}
	return e.val.(*Stream), nil
}

// LookupStreamQuiet is LookupStream without statistics or access-time
// update (serving blocked clients).
func (d *DB) LookupStreamQuiet(key string) *Stream {
	e := d.lookup(key, lookupNoTouch)
	if e == nil || e.typ() != TypeStream {
		return nil
	}
	return e.val.(*Stream)
}

// LookupStreamForWrite is the lookup of a write command that only reads
// first (XGROUP's checks): no statistics.
func (d *DB) LookupStreamForWrite(key []byte) (*Stream, error) {
	_, s, err := d.streamForWrite(key)
	return s, err
}

func (d *DB) streamForWrite(key []byte) (*entry, *Stream, error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, nil, nil
	}
	if e.typ() != TypeStream {
		return nil, nil, protocol.ErrWrongType
	}
	return e, e.val.(*Stream), nil
}

func (d *DB) createStream(key []byte) (*entry, *Stream) {
	s := newStream()
	e := newEntry(key, TypeStream)
	e.setObj(TypeStream, s)
	d.insert(e)
	return e, s
}

// streamChangedQuietly records a change of e's stream that Redis does not
// signal: the memory estimate follows, n changes are counted, the events
// are raised.
func (d *DB) streamChangedQuietly(e *entry, n int64, evs ...Event) {
	d.accountValueChange(e)
	d.ks.Stats.Dirty += n
	if o := d.ks.observer; o != nil {
		for _, ev := range evs {
			o.Notify(d, ev, e.key())
		}
	}
}

// XAddArgs are XADD's parsed arguments.
type XAddArgs struct {
	ID         StreamID
	IDGiven    bool
	SeqGiven   bool
	NoMkStream bool
	Trim       *TrimSpec
	FV         [][]byte // fields and values
}

// XAdd appends an entry (XADD) and returns its ID; ok is false when the key
// is missing and NoMkStream is set. After the append the stream is trimmed
// by Trim. One signal: "xadd", and "xtrim" when entries were trimmed; the
// clients blocked on the key are told.
func (d *DB) XAdd(key []byte, a XAddArgs) (id StreamID, trimmed int64, ok bool, err error) {
	if a.IDGiven && a.SeqGiven && a.ID.IsZero() {
		return id, 0, false, ErrStreamIDZero
	}
	e, s, err := d.streamForWrite(key)
	if err != nil {
		return id, 0, false, err
	}
	if e == nil {
		if a.NoMkStream {
			return id, 0, false, nil
		}
		e, s = d.createStream(key)
	}
	if s.lastID == MaxStreamID {
		return id, 0, false, ErrStreamExhausted
	}
	last := s.lastID
	switch {
	case !a.IDGiven:
		ms := uint64(d.ks.StreamNow())
		if ms > last.Ms {
			id = StreamID{ms, 0}
		} else {
			id, _ = last.Incr()
		}
	case !a.SeqGiven:
		id = StreamID{a.ID.Ms, 0}
		if a.ID.Ms == last.Ms {
			if last.Seq == MaxStreamID.Seq {
				return id, 0, false, ErrStreamIDTooSmall
			}
			id.Seq = last.Seq + 1
		} else if a.ID.Ms < last.Ms {
			return id, 0, false, ErrStreamIDTooSmall
		}
	default:
		id = a.ID
		if !last.Less(id) {
			return id, 0, false, ErrStreamIDTooSmall
		}
	}
	s.appendEntry(id, a.FV, &d.ks.limits)
	if a.Trim != nil {
		trimmed = s.trim(*a.Trim)
	}
	k := e.key()
	if trimmed > 0 {
		d.signal(k, true, EvXAdd, EvXTrim)
	} else {
		d.signal(k, true, EvXAdd)
	}
	if o := d.ks.observer; o != nil {
		o.Ready(d, k, TypeStream) // signalKeyAsReady after every XADD
	}
	return id, trimmed, true, nil
}

// XTrim trims the stream at key (XTRIM) and returns how many entries went;
// it signals ("xtrim") only when some did.
func (d *DB) XTrim(key []byte, t TrimSpec) (int64, error) {
	e, s, err := d.streamForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	n := s.trim(t)
	if n > 0 {
		d.signal(e.key(), true, EvXTrim)
		d.ks.Stats.Dirty += n - 1
	}
	return n, nil
}

// XDel deletes the entries ids (XDEL) and returns how many existed; it
// signals ("xdel") only when some did.
func (d *DB) XDel(key []byte, ids []StreamID) (int, error) {
	e, s, err := d.streamForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	deleted, first := 0, false
	for _, id := range ids {
		if s.deleteID(id) {
			if id == s.firstID {
				first = true
			}
			if s.maxDeleted.Less(id) {
				s.maxDeleted = id
			}
			deleted++
		}
	}
	if deleted == 0 {
		return 0, nil
	}
	if s.length == 0 {
		s.firstID = StreamID{}
	} else if first {
		s.updateFirstID()
	}
	d.signal(e.key(), true, EvXDel)
	d.ks.Stats.Dirty += int64(deleted) - 1
	return deleted, nil
}

// XSetID errors.
var (
	ErrXSetIDEntriesAdded = protocol.Error("ERR entries_added must be positive")
	ErrXSetIDMaxDeleted   = protocol.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
	ErrXSetIDCurMaxDel    = protocol.Error("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")
	ErrXSetIDTop          = protocol.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
	ErrXSetIDLength       = protocol.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
)

// XSetID sets the stream's last ID and, when given (>= 0, non-zero), its
// entries-added and max-deleted-entry-id (XSETID). The key must exist.
func (d *DB) XSetID(key []byte, id StreamID, entriesAdded int64, maxDel StreamID) error {
	e, s, err := d.streamForWrite(key)
	if err != nil {
		return err
	}
	if e == nil {
		return protocol.ErrNoSuchKey
	}
	if s.length > 0 {
		if id.Less(s.maxDeleted) {
			return ErrXSetIDCurMaxDel
		}
		if id.Less(s.LastValid()) {
			return ErrXSetIDTop
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			return ErrXSetIDLength
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDel.IsZero() {
		s.maxDeleted = maxDel
	}
	d.streamChangedQuietly(e, 1, EvXSetID)
	return nil
}
