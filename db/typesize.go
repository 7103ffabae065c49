package db

import "unsafe"

// Memory estimates of hash, set and sorted set values (the sizer interface
// of memory.go), O(1) from counters the mutators keep: the allocated bytes
// of the strings (and, for sorted sets, of the nodes) plus the per-element
// overheads of the representation in use. Bucket arrays are counted as one
// slot per element, as memory.go counts the keyspace's, and not by their
// current size: incremental rehashing changes that during reads, which do
// not signal, and the total must only move when a write signals.

const (
	dictBytes      = 80 // a dict struct (two tables, counters)
	hashEntryBytes = int64(unsafe.Sizeof(hashEntry{}))
	setMemberBytes = 32 // setMember (24) rounded to its size class
	// zNodeBytes is the mean size of a skiplist node with its levels: 64
	// bytes with one level (3 in 4 nodes), 80 with two, 112 with three or
	// four, ... 70.25 on average; counted as 72.
	zNodeBytes = 72
	// zsetBytes is the ZSet struct with its 32-level skiplist header.
	zsetBytes = int64(unsafe.Sizeof(ZSet{})) + zslMaxLevel*int64(unsafe.Sizeof(zlevel{}))
)

func (h *Hash) memUsage() int64 {
	n := int64(unsafe.Sizeof(Hash{})) + h.strBytes
	if h.ht == nil {
		return n + int64(cap(h.lp))*hashEntryBytes
	}
	return n + dictBytes + int64(h.ht.Len())*(hashEntryBytes+bucketBytes)
}

func (s *Set) memUsage() int64 {
	n := int64(unsafe.Sizeof(Set{})) + s.strBytes
	if s.ht == nil {
		return n + allocSize(8*cap(s.ints))
	}
	return n + dictBytes + int64(s.ht.Len())*(setMemberBytes+bucketBytes)
}

func (z *ZSet) memUsage() int64 {
	return zsetBytes + z.elemBytes + int64(z.dict.Len())*bucketBytes
}

// zelemSize is what one member adds to a sorted set's estimate. It depends
// only on the member, so adding and removing it always balance.
func zelemSize(n *ZNode) int64 { return zNodeBytes + allocSize(len(n.member)) }

// accountedValue is what the memory total holds for e's aggregate value.
func accountedValue(e *entry) int64 {
	if s, ok := e.val.(sizer); ok {
		return *s.accounted()
	}
	return 0
}

// replaceValue gives the existing key e the new aggregate v of type t,
// taking the old value's part out of the memory total; the next signal
// adds the new value's.
func (d *DB) replaceValue(e *entry, t Type, v any) {
	before := baseSize(e) + accountedValue(e)
	e.setObj(t, v)
	d.accountBase(e, before)
}
