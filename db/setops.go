package db

import (
	"cmp"
	"slices"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Set algebra: SINTER, SUNION, SDIFF, SINTERCARD and the STORE forms
// (Redis 7.0 sinterGenericCommand and sunionDiffGenericCommand). The
// algorithms, and the order in which they build their result, follow
// Redis's so that the result's encoding, and the reply order wherever Redis
// has a defined one (intsets iterate in ascending order), are the same.

// ReadSets looks keys up for the set algebra commands (read lookups, as in
// Redis 7.0 even for the STORE forms). A missing key gives a nil entry.
// The first key holding another type stops the lookups with ErrWrongType.
func (d *DB) ReadSets(keys [][]byte) ([]*Set, error) {
	sets := make([]*Set, len(keys))
	for i, k := range keys {
		s, err := d.LookupSet(k)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// byCardinality sorts sets by ascending size, stably (glibc's qsort is a
// merge sort for arrays this small, so equal sizes keep their order).
func byCardinality(sets []*Set) []*Set {
	sorted := slices.Clone(sets)
	slices.SortStableFunc(sorted, func(a, b *Set) int { return cmp.Compare(a.Len(), b.Len()) })
	return sorted
}

// SetInter calls fn for each member of the intersection of sets, which must
// all exist, in Redis's order: that of the smallest set. It stops when fn
// returns false. The bytes passed are valid only during the call.
func SetInter(sets []*Set, fn func(member []byte) bool) {
	sorted := byCardinality(sets)
	first := sorted[0]
	if first.ht == nil {
		for _, v := range first.ints {
			if !interHasInt(sorted, v) {
				continue
			}
			var buf [24]byte
			if !fn(protocol.AppendInt(buf[:0], v)) {
				return
			}
		}
		return
	}
	first.ht.Each(func(n *setMember) bool {
		for _, s := range sorted[1:] {
			if s != first && !s.Contains(sbytes(n.m)) {
				return true
			}
		}
		return fn(sbytes(n.m))
	})
}

func interHasInt(sorted []*Set, v int64) bool {
	for _, s := range sorted[1:] {
		if s != sorted[0] && !s.containsInt(v) {
			return false
		}
	}
	return true
}

// SetInterSet returns the intersection of sets (which must all exist) as a
// new set built as SINTERSTORE builds it.
func (d *DB) SetInterSet(sets []*Set) *Set {
	dst := &Set{}
	lim := &d.ks.limits
	SetInter(sets, func(m []byte) bool {
		dst.add(m, lim)
		return true
	})
	return dst
}

// SetUnion returns the union of sets (nil entries are empty sets) as a new
// set, built as Redis builds it: an intset to which every member is added.
func (d *DB) SetUnion(sets []*Set) *Set { return d.unionOf(sets) }

func (d *DB) unionOf(sets []*Set) *Set {
	dst := &Set{}
	lim := &d.ks.limits
	for _, s := range sets {
		if s == nil {
			continue
		}
		if s.ht == nil {
			for _, v := range s.ints {
				dst.addInt(v, lim)
			}
			continue
		}
		s.ht.Each(func(n *setMember) bool {
			dst.add(sbytes(n.m), lim)
			return true
		})
	}
	return dst
}

// SetDiff returns the members of sets[0] that are in no other set, as a
// new set. Like Redis it picks between iterating the first set (checking
// the others) and adding the first set then removing the others, by the
// same cost estimate; the choice shows in the result's encoding.
func (d *DB) SetDiff(sets []*Set) *Set {
	dst := &Set{}
	first := sets[0]
	if first == nil {
		return dst
	}
	lim := &d.ks.limits
	var algoOne, algoTwo int64
	for _, s := range sets {
		if s == nil {
			continue
		}
		algoOne += int64(first.Len())
		algoTwo += int64(s.Len())
	}
	algoOne /= 2
	if algoOne <= algoTwo {
		others := slices.Clone(sets[1:])
		slices.SortStableFunc(others, func(a, b *Set) int { return cmp.Compare(setLen(b), setLen(a)) })
		first.Each(func(m []byte) bool {
			for _, s := range others {
				if s == nil {
					continue
				}
				if s == first || s.Contains(m) {
					return true
				}
			}
			dst.add(m, lim)
			return true
		})
		return dst
	}
	card := 0
	for j, s := range sets {
		if s == nil {
			continue
		}
		s.Each(func(m []byte) bool {
			if j == 0 {
				if dst.add(m, lim) {
					card++
				}
			} else if dst.remove(m) {
				card--
			}
			return card != 0
		})
		if card == 0 {
			break
		}
	}
	return dst
}

func setLen(s *Set) int {
	if s == nil {
		return 0
	}
	return s.Len()
}

// StoreSet replaces the key dst with the set s and returns its size
// (SINTERSTORE, SUNIONSTORE, SDIFFSTORE): whatever dst held, of any type,
// is overwritten and its TTL dropped, then the write is signalled with ev.
// An empty s deletes dst instead (signalled with "del" only when dst
// existed).
func (d *DB) StoreSet(dst []byte, s *Set, ev Event) int {
	if s == nil || s.Len() == 0 {
		d.deleteForStore(dst)
		return 0
	}
	d.storeValue(dst, TypeSet, s, ev)
	return s.Len()
}

// deleteForStore deletes dst when a STORE command's result is empty, as
// dbDelete does: no expiry check first, a "del" event and a signal only
// when the key was there.
func (d *DB) deleteForStore(dst []byte) {
	e := d.data.main.Find(bstr(dst))
	if e == nil {
		return
	}
	k := e.key()
	d.unlink(e)
	d.signal(k, false, EvDel)
}

// storeValue sets dst to the aggregate v of type t as Redis's setKey does:
// a write lookup (expiring a stale dst), insert or overwrite, TTL removed,
// then one signal with ev.
func (d *DB) storeValue(dst []byte, t Type, v any, ev Event) {
	e := d.lookupWrite(dst)
	if e == nil {
		e = newEntry(dst, t)
		e.setObj(t, v)
		d.insert(e)
	} else {
		d.replaceValue(e, t, v)
		d.clearDeadline(e)
	}
	d.signal(e.key(), true, ev)
}
