package db

import "github.com/miniwatchd/miniwatchd/protocol"

// What SORT reads and writes (Redis 7.0 sort.c): the list, set or sorted
// set to sort, the values its BY and GET patterns name, and the list its
// STORE option writes. SORT ... STORE makes all its lookups write lookups
// (no keyspace hits or misses, no "keymiss" events), as Redis 7.0 does.

// EvSortStore is the event of SORT ... STORE.
var EvSortStore = Event{ClassList, "sortstore"}

// SortSource is the value SORT sorts: at most one field is set; none when
// the key is missing (an empty list to Redis).
type SortSource struct {
	List *List
	Set  *Set
	ZSet *ZSet
}

// LookupSortSource looks up the key SORT sorts (a write lookup when
// forStore) and returns its value, or ErrWrongType unless it is a list, a
// set or a sorted set. A sorted set still in the listpack encoding is
// converted to the skiplist one, as Redis's SORT converts it before
// sorting: OBJECT ENCODING changes, nothing is signalled (the value is the
// same). The value must not be kept past the next write.
func (d *DB) LookupSortSource(key []byte, forStore bool) (SortSource, error) {
	flags := lookupRead
	if forStore {
		flags = 0
	}
	e := d.lookup(bstr(key), flags)
	if e == nil {
		return SortSource{}, nil
	}
	switch e.typ() {
	case TypeList:
		return SortSource{List: e.val.(*List)}, nil
	case TypeSet:
		return SortSource{Set: e.val.(*Set)}, nil
	case TypeZSet:
		z := e.val.(*ZSet)
		z.listpack = false // zsetConvert(sortval, OBJ_ENCODING_SKIPLIST)
		return SortSource{ZSet: z}, nil
	}
	return SortSource{}, protocol.ErrWrongType
}

// SortPatternValue is the lookup at the end of lookupKeyByPattern: the
// string at key, or with hasField the value of field in the hash at key;
// ok is false when the key is missing or of another type, or the field is
// missing. It is a read lookup unless forStore. The bytes must not be kept
// past the next write.
func (d *DB) SortPatternValue(key, field []byte, hasField, forStore bool) ([]byte, bool) {
	flags := lookupRead
	if forStore {
		flags = 0
	}
	e := d.lookup(bstr(key), flags)
	if e == nil {
		return nil, false
	}
	if hasField {
		if e.typ() != TypeHash {
			return nil, false
		}
		v, ok := e.val.(*Hash).Get(field)
		if !ok {
			return nil, false
		}
		return sbytes(v), true
	}
	if e.typ() != TypeString {
		return nil, false
	}
	return e.str(), true
}

// StoreList replaces dst with a list of vals, in order (SORT ... STORE):
// whatever dst held is overwritten and its TTL dropped, then one signal
// with ev; it counts one change per element, as Redis's server.dirty. An
// empty vals deletes dst instead, signalled with "del" when it existed.
// It returns len(vals).
func (d *DB) StoreList(dst []byte, vals []string, ev Event) int {
	if len(vals) == 0 {
		d.deleteForStore(dst)
		return 0
	}
	l := &List{}
	l.grow(len(vals))
	for _, v := range vals {
		l.pushBack(v)
	}
	d.ks.Stats.Dirty += int64(len(vals)) - 1
	d.storeValue(dst, TypeList, l, ev)
	return len(vals)
}
