package db

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Set values (Redis 7.0 t_set.c's type API). A set whose members are all
// integers (in string2ll's strict form) starts as an "intset", a sorted
// slice of int64, and moves for good to the "hashtable" encoding, a dict,
// when a non-integer member arrives or it grows beyond
// set-max-intset-entries. Redis 7.0 sets have no listpack encoding.

// Events raised by set writes.
var (
	EvSAdd        = Event{ClassSet, "sadd"}
	EvSRem        = Event{ClassSet, "srem"}
	EvSPop        = Event{ClassSet, "spop"}
	EvSInterStore = Event{ClassSet, "sinterstore"}
	EvSUnionStore = Event{ClassSet, "sunionstore"}
	EvSDiffStore  = Event{ClassSet, "sdiffstore"}
)

// setMember is one member of a hashtable-encoded set, chained in its dict.
type setMember struct {
	m    string
	next *setMember
}

func (n *setMember) dictKey() string          { return n.m }
func (n *setMember) dictNext() *setMember     { return n.next }
func (n *setMember) setDictNext(x *setMember) { n.next = x }

// Set is a set value. Its exported methods only read.
type Set struct {
	memAccount
	ints     []int64                      // intset encoding (ascending), when ht is nil
	ht       *dict[setMember, *setMember] // hashtable encoding
	strBytes int64                        // allocated bytes of the member strings (typesize.go)
}

// newSetFor returns an empty set with the encoding Redis's setTypeCreate
// picks for a set whose first member is first.
func newSetFor(first []byte) *Set {
	if _, ok := protocol.ParseInt(first); ok {
		return &Set{}
	}
	return &Set{ht: &dict[setMember, *setMember]{}}
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.ht != nil {
		return s.ht.Len()
	}
	return len(s.ints)
}

// IsIntset reports whether the set still has the intset encoding.
func (s *Set) IsIntset() bool { return s.ht == nil }

func (s *Set) encoding() string {
	if s.ht != nil {
		return "hashtable"
	}
	return "intset"
}

// Contains reports whether member is in the set.
func (s *Set) Contains(member []byte) bool {
	if s.ht != nil {
		return s.ht.Find(bstr(member)) != nil
	}
	v, ok := protocol.ParseInt(member)
	return ok && s.containsInt(v)
}

func (s *Set) containsInt(v int64) bool {
	if s.ht != nil {
		var buf [24]byte
		return s.ht.Find(bstr(strconv.AppendInt(buf[:0], v, 10))) != nil
	}
	_, found := slices.BinarySearch(s.ints, v)
	return found
}

// Each calls fn for every member in Redis's iteration order (ascending for
// an intset) until fn returns false. The bytes passed are valid only during
// the call and must not be modified.
func (s *Set) Each(fn func(member []byte) bool) {
	if s.ht != nil {
		s.ht.Each(func(n *setMember) bool { return fn(sbytes(n.m)) })
		return
	}
	var buf [24]byte
	for _, v := range s.ints {
		if !fn(strconv.AppendInt(buf[:0], v, 10)) {
			return
		}
	}
}

// Random returns a random member; the set must not be empty. An intset
// member is formatted into buf.
func (s *Set) Random(buf *[24]byte) []byte {
	if s.ht != nil {
		return sbytes(s.ht.FairRandom().m)
	}
	return strconv.AppendInt(buf[:0], s.ints[rand.IntN(len(s.ints))], 10)
}

// Scan runs one SSCAN step from cursor: an intset passes every member and
// returns 0; a hashtable passes one cursor position of its dict.
func (s *Set) Scan(cursor uint64, fn func(member []byte)) uint64 {
	if s.ht == nil {
		var buf [24]byte
		for _, v := range s.ints {
			fn(strconv.AppendInt(buf[:0], v, 10))
		}
		return 0
	}
	return s.ht.Scan(cursor, func(n *setMember) { fn(sbytes(n.m)) })
}

func (s *Set) dup() object {
	if s.ht == nil {
		return &Set{ints: slices.Clone(s.ints)}
	}
	n := &Set{ht: &dict[setMember, *setMember]{}, strBytes: s.strBytes}
	n.ht.expand(s.ht.Len())
	nodes := make([]setMember, 0, s.ht.Len())
	s.ht.Each(func(m *setMember) bool {
		nodes = append(nodes, setMember{m: m.m})
		n.ht.Insert(&nodes[len(nodes)-1])
		return true
	})
	return n
}

// convert moves an intset to the hashtable encoding (setTypeConvert).
func (s *Set) convert() {
	if s.ht != nil {
		return
	}
	d := &dict[setMember, *setMember]{}
	d.expand(len(s.ints))
	nodes := make([]setMember, len(s.ints))
	for i, v := range s.ints {
		nodes[i].m = strconv.FormatInt(v, 10)
		d.Insert(&nodes[i])
		s.strBytes += allocSize(len(nodes[i].m))
	}
	s.ht, s.ints = d, nil
}

// add adds member and reports whether it was new (setTypeAdd, with its
// conversions).
func (s *Set) add(member []byte, lim *EncodingLimits) bool {
	if s.ht == nil {
		v, ok := protocol.ParseInt(member)
		if ok {
			return s.addInt(v, lim)
		}
		s.convert()
	}
	if s.ht.Find(bstr(member)) != nil {
		return false
	}
	s.ht.Insert(&setMember{m: string(member)})
	s.strBytes += allocSize(len(member))
	return true
}

// addInt adds the integer member v (which the caller parsed) and reports
// whether it was new.
func (s *Set) addInt(v int64, lim *EncodingLimits) bool {
	if s.ht != nil {
		var buf [24]byte
		return s.add(strconv.AppendInt(buf[:0], v, 10), lim)
	}
	i, found := slices.BinarySearch(s.ints, v)
	if found {
		return false
	}
	s.ints = slices.Insert(s.ints, i, v)
	if int64(len(s.ints)) > lim.intsetMaxEntries() {
		s.convert()
	}
	return true
}

// remove removes member and reports whether it was there (setTypeRemove).
func (s *Set) remove(member []byte) bool {
	if s.ht != nil {
		n := s.ht.Remove(bstr(member))
		if n == nil {
			return false
		}
		s.strBytes -= allocSize(len(n.m))
		if s.ht.NeedsShrink() {
			s.ht.Shrink()
		}
		return true
	}
	v, ok := protocol.ParseInt(member)
	if !ok {
		return false
	}
	i, found := slices.BinarySearch(s.ints, v)
	if !found {
		return false
	}
	s.ints = slices.Delete(s.ints, i, i+1)
	return true
}

// LookupSet returns the set at key for a read command: nil, nil when the
// key is missing, ErrWrongType when it holds another type.
func (d *DB) LookupSet(key []byte) (*Set, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeSet {
		return nil, protocol.ErrWrongType
	}
	return e.val.(*Set), nil
}

// setForWrite looks key up for a write: nil, nil, nil when missing,
// ErrWrongType when it holds another type.
func (d *DB) setForWrite(key []byte) (*entry, *Set, error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, nil, nil
	}
	if e.typ() != TypeSet {
		return nil, nil, protocol.ErrWrongType
	}
	return e, e.val.(*Set), nil
}

// insertSet adds the new key with the set s (raising "new").
func (d *DB) insertSet(key []byte, s *Set) *entry {
	e := newEntry(key, TypeSet)
	e.setObj(TypeSet, s)
	d.insert(e)
	return e
}

// SetAdd adds members to the set at key, creating it when missing, and
// returns how many were new (SADD). Adding nothing new does not signal.
func (d *DB) SetAdd(key []byte, members [][]byte) (int, error) {
	e, s, err := d.setForWrite(key)
	if err != nil {
		return 0, err
	}
	if e == nil {
		s = newSetFor(members[0])
		e = d.insertSet(key, s)
	}
	lim := &d.ks.limits
	added := 0
	for _, m := range members {
		if s.add(m, lim) {
			added++
		}
	}
	if added > 0 {
		d.signal(e.key(), true, EvSAdd)
	}
	return added, nil
}

// SetRem removes members from the set at key and returns how many were
// there (SREM). The key goes with its last member ("srem" then "del");
// removing nothing does not signal.
func (d *DB) SetRem(key []byte, members [][]byte) (int, error) {
	e, s, err := d.setForWrite(key)
	if err != nil || e == nil {
		return 0, err
	}
	deleted, emptied := 0, false
	for _, m := range members {
		if s.remove(m) {
			deleted++
			if s.Len() == 0 {
				emptied = true
				break
			}
		}
	}
	if deleted > 0 {
		d.finishRemoval(e, emptied, EvSRem)
	}
	return deleted, nil
}

// finishRemoval signals a write that removed elements from the aggregate
// at e with event ev; when emptied, the key is deleted first and "del"
// follows ev, the order in which Redis notifies.
func (d *DB) finishRemoval(e *entry, emptied bool, ev Event) {
	k := e.key()
	if emptied {
		d.unlink(e)
		d.signal(k, false, ev, EvDel)
		return
	}
	d.signal(k, true, ev)
}

// SetMove moves member from the set at src to the set at dst (SMOVE) and
// reports whether it was in src. Both keys are looked up first; either
// holding another type is ErrWrongType. Moving within one set changes
// nothing. The destination is signalled only when member was new there.
func (d *DB) SetMove(src, dst, member []byte) (bool, error) {
	se := d.lookupWrite(src)
	de := d.lookupWrite(dst)
	if se == nil {
		return false, nil
	}
	if se.typ() != TypeSet || (de != nil && de.typ() != TypeSet) {
		return false, protocol.ErrWrongType
	}
	ss := se.val.(*Set)
	if se == de {
		return ss.Contains(member), nil
	}
	if !ss.remove(member) {
		return false, nil
	}
	d.finishRemoval(se, ss.Len() == 0, EvSRem)
	var ds *Set
	if de == nil {
		ds = newSetFor(member)
		de = d.insertSet(dst, ds)
	} else {
		ds = de.val.(*Set)
	}
	if ds.add(member, &d.ks.limits) {
		d.signal(de.key(), true, EvSAdd)
	}
	return true, nil
}

// SetPopOne removes a random member from the set at key and returns it
// (SPOP without a count); ok is false when the key is missing.
func (d *DB) SetPopOne(key []byte) (member string, ok bool, err error) {
	e, s, err := d.setForWrite(key)
	if err != nil || e == nil {
		return "", false, err
	}
	var buf [24]byte
	m := s.Random(&buf)
	member = string(m) // m may alias the member being removed
	s.remove(m)
	d.finishRemoval(e, s.Len() == 0, EvSPop)
	return member, true, nil
}

// spopMoveStrategyMul is SPOP_MOVE_STRATEGY_MUL: SPOP with a count builds
// a new set of the remaining members once count*this reaches the rest.
const spopMoveStrategyMul = 5

// SetPop removes up to count random members from the set at key and
// returns them (SPOP with a count, count >= 0); ok is false when the key is
// missing. It follows spopWithCountCommand's three cases, so the encoding
// left behind is Redis's: all members (in the order a union would list
// them, then the key is deleted), random members one by one, or a new set
// rebuilt from the members that stay.
func (d *DB) SetPop(key []byte, count int64) (members []string, ok bool, err error) {
	e, s, err := d.setForWrite(key)
	if err != nil || e == nil {
		return nil, false, err
	}
	if count == 0 {
		return nil, true, nil
	}
	size := int64(s.Len())
	if count >= size {
		u := d.unionOf([]*Set{s})
		members = make([]string, 0, size)
		u.Each(func(m []byte) bool {
			members = append(members, string(m))
			return true
		})
		d.finishRemoval(e, true, EvSPop)
		return members, true, nil
	}
	members = make([]string, 0, count)
	remaining := size - count
	lim := &d.ks.limits
	var buf [24]byte
	if remaining*spopMoveStrategyMul > count {
		for range count {
			m := string(s.Random(&buf))
			s.remove(sbytes(m))
			members = append(members, m)
		}
	} else {
		var kept *Set
		for range remaining {
			m := string(s.Random(&buf))
			if kept == nil {
				kept = newSetFor(sbytes(m))
			}
			kept.add(sbytes(m), lim)
			s.remove(sbytes(m))
		}
		s.Each(func(m []byte) bool {
			members = append(members, string(m))
			return true
		})
		d.replaceValue(e, TypeSet, kept)
	}
	d.signal(e.key(), true, EvSPop)
	return members, true, nil
}
