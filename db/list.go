package db

import "github.com/miniwatchd/miniwatchd/protocol"

// List operations (Redis t_list.c's type API). Every change ends in exactly
// one signal per key it modifies; a list that becomes empty is deleted in the
// same step (its events are the command's own followed by "del"). Elements
// are stored as strings: values returned to callers are immutable and may be
// kept.

// Keyspace events of the list family.
var (
	EvLPush   = Event{ClassList, "lpush"}
	EvRPush   = Event{ClassList, "rpush"}
	EvLPop    = Event{ClassList, "lpop"}
	EvRPop    = Event{ClassList, "rpop"}
	EvLInsert = Event{ClassList, "linsert"}
	EvLSet    = Event{ClassList, "lset"}
	EvLRem    = Event{ClassList, "lrem"}
	EvLTrim   = Event{ClassList, "ltrim"}
)

func pushEvent(left bool) Event {
	if left {
		return EvLPush
	}
	return EvRPush
}

func popEvent(left bool) Event {
	if left {
		return EvLPop
	}
	return EvRPop
}

// listForWrite is the lookup of a list that is about to be written: the
// entry and its list, nils when the key is missing, ErrWrongType when it
// holds another type.
func (d *DB) listForWrite(key []byte) (*entry, *List, error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, nil, nil
	}
	if e.typ() != TypeList {
		return nil, nil, protocol.ErrWrongType
	}
	return e, e.val.(*List), nil
}

// createList adds an empty list at key (Redis's dbAdd of a new quicklist);
// the caller pushes at least one element before it signals.
func (d *DB) createList(key []byte) (*entry, *List) {
	e := newEntry(key, TypeList)
	l := &List{}
	e.setObj(TypeList, l)
	d.insert(e)
	return e, l
}

// LookupList returns the list at key for a read command (nil, nil when
// missing) or ErrWrongType. It counts a keyspace hit or miss. The list must
// not be kept past the next write.
func (d *DB) LookupList(key []byte) (*List, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeList {
		return nil, protocol.ErrWrongType
	}
	return e.val.(*List), nil
}

// ListExists is the first lookup of a write command that checks the key
// before it parses its other arguments (LSET, LPOP with a zero count,
// BLMOVE): it reports whether a list is stored at key, or ErrWrongType.
func (d *DB) ListExists(key []byte) (bool, error) {
	e, _, err := d.listForWrite(key)
	return e != nil, err
}

// ListPush adds vals, in order, at the head (left, LPUSH) or the tail
// (RPUSH) of the list at key and returns its new length. The list is created
// when missing, unless onlyExisting (LPUSHX, RPUSHX), which then returns 0.
func (d *DB) ListPush(key []byte, vals [][]byte, left, onlyExisting bool) (int, error) {
	e, l, err := d.listForWrite(key)
	if err != nil {
		return 0, err
	}
	if e == nil {
		if onlyExisting {
			return 0, nil
		}
		e, l = d.createList(key)
	}
	l.grow(len(vals))
	for _, v := range vals {
		if left {
			l.pushFront(string(v))
		} else {
			l.pushBack(string(v))
		}
	}
	d.ks.Stats.Dirty += int64(len(vals)) - 1 // Redis counts each element
	d.signal(e.key(), true, pushEvent(left))
	return l.n, nil
}

// ListPop removes up to count (>= 1) elements from the head (left) or the
// tail and appends them to out in the order they were removed (LPOP, RPOP,
// LMPOP, and BLPOP/BLMPOP when data is there). It returns nil when the key
// is missing, and only then.
func (d *DB) ListPop(key []byte, left bool, count int, out []string) ([]string, error) {
	e, l, err := d.listForWrite(key)
	if err != nil || e == nil {
		return nil, err
	}
	out, _ = d.popFrom(e, l, left, count, out)
	return out, nil
}

// popFrom pops up to count elements from e's list l, deletes the key when
// it becomes empty and signals; it reports whether the key was deleted.
func (d *DB) popFrom(e *entry, l *List, left bool, count int, out []string) ([]string, bool) {
	n := min(count, l.n)
	for range n {
		out = append(out, l.pop(left))
	}
	l.shrink()
	d.ks.Stats.Dirty += int64(n) - 1
	k := e.key()
	if l.n == 0 {
		d.unlink(e)
		d.signal(k, false, popEvent(left), EvDel)
		return out, true
	}
	d.signal(k, true, popEvent(left))
	return out, false
}

// ListMove pops an element from the head (fromLeft) or tail of src and
// pushes it at the head (toLeft) or tail of dst, creating dst when missing
// (LMOVE, RPOPLPUSH, and BLMOVE when data is there). ok is false when src is
// missing. ErrWrongType is returned when src, or (src being present) dst,
// holds another type; nothing changes then.
func (d *DB) ListMove(src, dst []byte, fromLeft, toLeft bool) (v string, ok bool, err error) {
	se, sl, err := d.listForWrite(src)
	if err != nil || se == nil {
		return "", false, err
	}
	v, _, err = d.moveFrom(se, sl, dst, fromLeft, toLeft)
	if err != nil {
		return "", false, err
	}
	d.ks.Stats.Dirty-- // two signals, one change counted by Redis
	return v, true, nil
}

// moveFrom moves one element from the list sl (entry se) to dst: dst is
// touched first (its push events), then the source (its pop events, and
// "del" when it became empty), as Redis's lmoveGenericCommand does.
func (d *DB) moveFrom(se *entry, sl *List, dst []byte, fromLeft, toLeft bool) (v string, srcDeleted bool, err error) {
	de, dl, err := d.listForWrite(dst)
	if err != nil {
		return "", false, err
	}
	v = sl.pop(fromLeft)
	if de == nil {
		de, dl = d.createList(dst)
	}
	if toLeft {
		dl.pushFront(v)
	} else {
		dl.pushBack(v)
	}
	d.signal(de.key(), true, pushEvent(toLeft))
	k := se.key()
	if sl.n == 0 {
		d.unlink(se)
		d.signal(k, false, popEvent(fromLeft), EvDel)
		return v, true, nil
	}
	sl.shrink()
	d.signal(k, true, popEvent(fromLeft))
	return v, false, nil
}

// ListSet replaces the element at index (LSET). It returns ErrNoSuchKey when
// the key is missing and ErrOutOfRange when the index is. Setting the same
// value still signals, as Redis does.
func (d *DB) ListSet(key []byte, index int64, val []byte) error {
	e, l, err := d.listForWrite(key)
	if err != nil {
		return err
	}
	if e == nil {
		return protocol.ErrNoSuchKey
	}
	if index < 0 {
		index += int64(l.n)
	}
	if index < 0 || index >= int64(l.n) {
		return protocol.ErrOutOfRange
	}
	l.set(int(index), string(val))
	d.signal(e.key(), true, EvLSet)
	return nil
}

// ListInsert inserts val before or after the first element equal to pivot
// (LINSERT) and returns the new length; 0 when the key is missing and -1
// (no change) when pivot is not found.
func (d *DB) ListInsert(key []byte, before bool, pivot, val []byte) (int, error) {
	e, l, err := d.listForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	for i := 0; i < l.n; i++ {
		if l.At(i) != string(pivot) {
			continue
		}
		if !before {
			i++
		}
		l.insert(i, string(val))
		d.signal(e.key(), true, EvLInsert)
		return l.n, nil
	}
	return -1, nil
}

// ListRemove deletes elements equal to val (LREM): count > 0 removes the
// first count from the head, count < 0 the first -count from the tail, 0
// all of them. It returns how many were removed; nothing removed is no
// change.
func (d *DB) ListRemove(key []byte, count int64, val []byte) (int64, error) {
	e, l, err := d.listForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	fromTail := count < 0
	if fromTail {
		count = -count // -MinInt64 stays negative: no limit, as in Redis
	}
	removed := l.removeMatches(val, count, fromTail)
	if removed == 0 {
		return 0, nil
	}
	d.ks.Stats.Dirty += removed - 1
	k := e.key()
	if l.n == 0 {
		d.unlink(e)
		d.signal(k, false, EvLRem, EvDel)
	} else {
		d.signal(k, true, EvLRem)
	}
	return removed, nil
}

// ListTrim keeps only the elements from start to stop (LTRIM, indexes as
// LRANGE's). A missing key is left alone; otherwise the key is signalled
// even when nothing was removed, and deleted when nothing is kept.
func (d *DB) ListTrim(key []byte, start, stop int64) error {
	e, l, err := d.listForWrite(key)
	if err != nil || e == nil {
		return err
	}
	first, n := l.RangeBounds(start, stop)
	removed := l.n - n
	l.deleteRange(first+n, l.n-first-n)
	l.deleteRange(0, first)
	d.ks.Stats.Dirty += int64(removed) - 1
	k := e.key()
	if l.n == 0 {
		d.unlink(e)
		d.signal(k, false, EvLTrim, EvDel)
		return nil
	}
	d.signal(k, true, EvLTrim)
	return nil
}
