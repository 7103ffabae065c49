package db

import (
	"iter"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The sorted set type API: lookups and every write (ZADD, ZREM, the
// ZREMRANGEBY* family, pops and ZRANGESTORE), each ending in one signal.

// LookupZSet returns the sorted set at key for a read command: nil, nil
// when the key is missing, ErrWrongType when it holds another type.
func (d *DB) LookupZSet(key []byte) (*ZSet, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeZSet {
		return nil, protocol.ErrWrongType
	}
	return e.val.(*ZSet), nil
}

// zsetForWrite looks key up for a write: nil, nil, nil when missing,
// ErrWrongType when it holds another type.
func (d *DB) zsetForWrite(key []byte) (*entry, *ZSet, error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, nil, nil
	}
	if e.typ() != TypeZSet {
		return nil, nil, protocol.ErrWrongType
	}
	return e, e.val.(*ZSet), nil
}

// ZAddResult is what ZAdd did: members added, members whose score changed,
// members processed (neither skipped by NX/XX/GT/LT), and the resulting
// score of the last processed member (ZADD INCR's reply).
type ZAddResult struct {
	Added, Updated, Processed int
	Score                     float64
}

// ZAdd adds members with scores, or updates their scores, under flags
// (ZADD, ZINCRBY with ZAddIncr), creating the key unless ZAddXX is set.
// It signals ("zadd", or "zincr" with ZAddIncr) only when a member was
// added or a score changed. An increment that produces NaN stops with
// ErrZScoreNaN.
func (d *DB) ZAdd(key []byte, scores []float64, members [][]byte, flags ZAddFlags) (ZAddResult, error) {
	var res ZAddResult
	e, z, err := d.zsetForWrite(key)
	if err != nil {
		return res, err
	}
	lim := &d.ks.limits
	if e == nil {
		if flags&ZAddXX != 0 {
			return res, nil
		}
		z = newZSet(lim.ZSetMaxListpackEntries != 0 && int64(len(members[0])) <= lim.ZSetMaxListpackValue)
		e = newEntry(key, TypeZSet)
		e.setObj(TypeZSet, z)
		d.insert(e)
	}
	for i, m := range members {
		r, score, ok := z.add(scores[i], m, flags, lim)
		if !ok {
			err = ErrZScoreNaN
			break
		}
		switch r {
		case zaddAdded:
			res.Added++
		case zaddUpdated:
			res.Updated++
		}
		if r != zaddNop {
			res.Processed++
			res.Score = score
		}
	}
	if res.Added+res.Updated > 0 {
		ev := EvZAdd
		if flags&ZAddIncr != 0 {
			ev = EvZIncr
		}
		d.signal(e.key(), true, ev)
	}
	return res, err
}

// ZRem removes members and returns how many were there (ZREM); the key
// goes with its last member.
func (d *DB) ZRem(key []byte, members [][]byte) (int, error) {
	e, z, err := d.zsetForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	deleted := 0
	for _, m := range members {
		if z.remove(m) {
			deleted++
		}
		if z.Len() == 0 {
			break
		}
	}
	if deleted > 0 {
		d.finishRemoval(e, z.Len() == 0, EvZRem)
	}
	return deleted, nil
}

// removedFromDict returns the callback that drops a node unlinked from the
// skiplist from the member dict (and from the size estimate).
func (z *ZSet) removedFromDict() func(*ZNode) {
	return func(n *ZNode) {
		z.dict.Remove(n.member)
		z.elemBytes -= zelemSize(n)
	}
}

// finishRangeRemoval shrinks the dict if needed and signals a ZREMRANGEBY*
// that removed deleted members.
func (d *DB) finishRangeRemoval(e *entry, z *ZSet, deleted int, ev Event) {
	if deleted == 0 {
		return
	}
	if z.dict.NeedsShrink() {
		z.dict.Shrink()
	}
	d.finishRemoval(e, z.Len() == 0, ev)
}

// ZRemRangeByRank removes the members of ranks start..end (0-based,
// negative counting from the end) and returns how many (ZREMRANGEBYRANK).
func (d *DB) ZRemRangeByRank(key []byte, start, end int64) (int, error) {
	e, z, err := d.zsetForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	n := int64(z.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start = max(start, 0)
	if start > end || start >= n {
		return 0, nil
	}
	end = min(end, n-1)
	deleted := z.zsl.deleteRangeByRank(int(start)+1, int(end)+1, z.removedFromDict())
	d.finishRangeRemoval(e, z, deleted, EvZRemRangeByRank)
	return deleted, nil
}

// ZRemRangeByScore removes the members with a score within r
// (ZREMRANGEBYSCORE).
func (d *DB) ZRemRangeByScore(key []byte, r *ScoreRange) (int, error) {
	e, z, err := d.zsetForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	deleted := z.zsl.deleteRange(
		func(n *ZNode) bool { return r.gteMin(n.score) },
		func(n *ZNode) bool { return r.lteMax(n.score) },
		z.removedFromDict())
	d.finishRangeRemoval(e, z, deleted, EvZRemRangeByScore)
	return deleted, nil
}

// ZRemRangeByLex removes the members within r (ZREMRANGEBYLEX).
func (d *DB) ZRemRangeByLex(key []byte, r *LexRange) (int, error) {
	e, z, err := d.zsetForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	within := func(n *ZNode) bool { return r.lteMax(n.member) }
	var deleted int
	if z.listpack {
		// zzlDeleteRangeByLex: the run from the first member in range.
		if first := z.FirstInLexRange(r); first != nil {
			deleted = z.zsl.deleteRunFrom(first, within, z.removedFromDict())
		}
	} else {
		deleted = z.zsl.deleteRange(func(n *ZNode) bool { return r.gteMin(n.member) }, within, z.removedFromDict())
	}
	d.finishRangeRemoval(e, z, deleted, EvZRemRangeByLex)
	return deleted, nil
}

// ZPop pops members from the first of keys that exists (ZPOPMIN,
// ZPOPMAX, ZMPOP; Redis's genericZpopCommand): the lowest scores first, or
// the highest when max is set. Keys are looked up in order for a write;
// missing ones are skipped and the first that holds another type stops
// with ErrWrongType. found is false when no key exists. With count 0
// nothing is popped. Otherwise begin is called with the key and the number
// of members that will be popped (min(count, size)), then each with every
// member, and the write is signalled ("zpopmin"/"zpopmax", then "del"
// when the set is emptied).
func (d *DB) ZPop(keys [][]byte, max bool, count int64, begin func(key []byte, n int), each func(member string, score float64)) (found bool, err error) {
	var e *entry
	var z *ZSet
	var key []byte
	for _, k := range keys {
		if e, z, err = d.zsetForWrite(k); err != nil {
			return false, err
		}
		if e != nil {
			key = k
			break
		}
	}
	if e == nil {
		return false, nil
	}
	if count <= 0 {
		return true, nil
	}
	n := int(min(count, int64(z.Len())))
	begin(key, n)
	for range n {
		x := z.zsl.first()
		if max {
			x = z.zsl.tail
		}
		z.removeNode(x)
		each(x.member, x.score)
	}
	if z.dict.NeedsShrink() {
		z.dict.Shrink()
	}
	ev := EvZPopMin
	if max {
		ev = EvZPopMax
	}
	d.finishRemoval(e, z.Len() == 0, ev)
	return true, nil
}

// ZRangeStore stores the (member, score) pairs of seq as a new sorted set
// at dst, replacing any value, and returns its size (ZRANGESTORE). The set
// is built as Redis builds it, listpack first, so it converts as it grows;
// an empty seq deletes dst. seq may read the sorted set being replaced.
func (d *DB) ZRangeStore(dst []byte, seq iter.Seq[*ZNode]) int {
	z := newZSet(true)
	lim := &d.ks.limits
	for n := range seq {
		z.add(n.score, sbytes(n.member), 0, lim)
	}
	return d.storeZSet(dst, z, EvZRangeStore)
}

// storeZSet replaces dst with z, or deletes dst when z is empty.
func (d *DB) storeZSet(dst []byte, z *ZSet, ev Event) int {
	if z.Len() == 0 {
		d.deleteForStore(dst)
		return 0
	}
	d.storeValue(dst, TypeZSet, z, ev)
	return z.Len()
}
