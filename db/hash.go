package db

import (
	"math"
	"math/rand/v2"
	"strconv"
	"unsafe"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Hash values (Redis t_hash.c's type API). A hash starts in the compact
// "listpack" encoding, a slice of pairs kept in insertion order (the order
// HGETALL reports), and moves for good to the "hashtable" encoding, a dict,
// when a field or value grows beyond hash-max-listpack-value bytes or the
// hash beyond hash-max-listpack-entries fields, exactly when Redis 7.0
// converts it.

// Events raised by hash writes.
var (
	EvHSet         = Event{ClassHash, "hset"}
	EvHDel         = Event{ClassHash, "hdel"}
	EvHIncrBy      = Event{ClassHash, "hincrby"}
	EvHIncrByFloat = Event{ClassHash, "hincrbyfloat"}
)

// Errors of the hash family.
var (
	ErrHashValueNotInt   = protocol.Error("ERR hash value is not an integer")
	ErrHashValueNotFloat = protocol.Error("ERR hash value is not a float")
)

// hashEntry is one field and its value, in one allocation: kv holds the
// field's bytes followed by the value's. The same type is the listpack's
// slice element and the hashtable's (intrusively chained) node.
type hashEntry struct {
	kv   string
	flen uint32
	next *hashEntry
}

func (e *hashEntry) field() string            { return e.kv[:e.flen] }
func (e *hashEntry) value() string            { return e.kv[e.flen:] }
func (e *hashEntry) dictKey() string          { return e.kv[:e.flen] }
func (e *hashEntry) dictNext() *hashEntry     { return e.next }
func (e *hashEntry) setDictNext(n *hashEntry) { e.next = n }
func newHashEntry(field, value []byte) hashEntry {
	return hashEntry{kv: joinBytes(field, value), flen: uint32(len(field))}
}

// joinBytes returns a followed by b as one newly allocated string.
func joinBytes(a, b []byte) string {
	n := len(a) + len(b)
	if n == 0 {
		return ""
	}
	buf := make([]byte, n)
	copy(buf, a)
	copy(buf[len(a):], b)
	return unsafe.String(&buf[0], n)
}

// Hash is a hash value. Its exported methods only read; the strings they
// return are immutable and stay valid after later writes.
type Hash struct {
	memAccount
	lp       []hashEntry                  // listpack encoding, when ht is nil
	ht       *dict[hashEntry, *hashEntry] // hashtable encoding
	strBytes int64                        // allocated bytes of the kv strings (typesize.go)
}

// Len returns the number of fields.
func (h *Hash) Len() int {
	if h.ht != nil {
		return h.ht.Len()
	}
	return len(h.lp)
}

// IsListpack reports whether the hash still has the compact encoding.
func (h *Hash) IsListpack() bool { return h.ht == nil }

func (h *Hash) encoding() string {
	if h.ht != nil {
		return "hashtable"
	}
	return "listpack"
}

func (h *Hash) lpIndex(field string) int {
	for i := range h.lp {
		if h.lp[i].field() == field {
			return i
		}
	}
	return -1
}

// Get returns the value of field.
func (h *Hash) Get(field []byte) (string, bool) {
	if h.ht != nil {
		if e := h.ht.Find(bstr(field)); e != nil {
			return e.value(), true
		}
		return "", false
	}
	if i := h.lpIndex(bstr(field)); i >= 0 {
		return h.lp[i].value(), true
	}
	return "", false
}

// Each calls fn for every field in Redis's iteration order (insertion
// order for a listpack) until fn returns false.
func (h *Hash) Each(fn func(field, value string) bool) {
	if h.ht != nil {
		h.ht.Each(func(e *hashEntry) bool { return fn(e.field(), e.value()) })
		return
	}
	for i := range h.lp {
		if !fn(h.lp[i].field(), h.lp[i].value()) {
			return
		}
	}
}

// Random returns a random field and its value; the hash must not be empty.
func (h *Hash) Random() (field, value string) {
	if h.ht != nil {
		e := h.ht.FairRandom()
		return e.field(), e.value()
	}
	e := &h.lp[rand.IntN(len(h.lp))]
	return e.field(), e.value()
}

// Scan runs one HSCAN step from cursor, as scanGenericCommand does: a
// listpack passes every pair and returns 0; a hashtable passes the pairs
// of one cursor position of its dict and returns the next cursor.
func (h *Hash) Scan(cursor uint64, fn func(field, value string)) uint64 {
	if h.ht == nil {
		for i := range h.lp {
			fn(h.lp[i].field(), h.lp[i].value())
		}
		return 0
	}
	return h.ht.Scan(cursor, func(e *hashEntry) { fn(e.field(), e.value()) })
}

func (h *Hash) dup() object {
	if h.ht == nil {
		return &Hash{lp: append([]hashEntry(nil), h.lp...), strBytes: h.strBytes}
	}
	n := &Hash{ht: &dict[hashEntry, *hashEntry]{}, strBytes: h.strBytes}
	n.ht.expand(h.ht.Len())
	nodes := make([]hashEntry, 0, h.ht.Len())
	h.ht.Each(func(e *hashEntry) bool {
		nodes = append(nodes, hashEntry{kv: e.kv, flen: e.flen})
		n.ht.Insert(&nodes[len(nodes)-1])
		return true
	})
	return n
}

// convert moves a listpack hash to the hashtable encoding
// (hashTypeConvertListpack). Nodes are allocated in one block.
func (h *Hash) convert() {
	if h.ht != nil {
		return
	}
	d := &dict[hashEntry, *hashEntry]{}
	d.expand(len(h.lp))
	nodes := make([]hashEntry, len(h.lp))
	for i := range h.lp {
		nodes[i] = hashEntry{kv: h.lp[i].kv, flen: h.lp[i].flen}
		d.Insert(&nodes[i])
	}
	h.ht, h.lp = d, nil
}

// convertForArgs converts a listpack hash when one of args is longer than
// hash-max-listpack-value (hashTypeTryConversion).
func (h *Hash) convertForArgs(args [][]byte, lim *EncodingLimits) {
	if h.ht != nil {
		return
	}
	for _, a := range args {
		if int64(len(a)) > lim.HashMaxListpackValue {
			h.convert()
			return
		}
	}
}

// set stores value at field and reports whether the field is new
// (hashTypeSet, including its conversion checks).
func (h *Hash) set(field, value []byte, lim *EncodingLimits) bool {
	if h.ht == nil && (int64(len(field)) > lim.HashMaxListpackValue || int64(len(value)) > lim.HashMaxListpackValue) {
		h.convert()
	}
	if h.ht == nil {
		if i := h.lpIndex(bstr(field)); i >= 0 {
			if h.lp[i].value() != bstr(value) {
				h.strBytes -= allocSize(len(h.lp[i].kv))
				h.lp[i] = newHashEntry(field, value)
				h.strBytes += allocSize(len(h.lp[i].kv))
			}
			return false
		}
		h.lp = append(h.lp, newHashEntry(field, value))
		h.strBytes += allocSize(len(field) + len(value))
		if int64(len(h.lp)) > lim.HashMaxListpackEntries {
			h.convert()
		}
		return true
	}
	if e := h.ht.Find(bstr(field)); e != nil {
		if e.value() != bstr(value) {
			h.strBytes -= allocSize(len(e.kv))
			e.kv = joinBytes(field, value)
			h.strBytes += allocSize(len(e.kv))
		}
		return false
	}
	n := newHashEntry(field, value)
	h.ht.Insert(&n)
	h.strBytes += allocSize(len(n.kv))
	return true
}

// del removes field and reports whether it was there (hashTypeDelete).
func (h *Hash) del(field []byte) bool {
	if h.ht != nil {
		e := h.ht.Remove(bstr(field))
		if e == nil {
			return false
		}
		h.strBytes -= allocSize(len(e.kv))
		if h.ht.NeedsShrink() {
			h.ht.Shrink()
		}
		return true
	}
	i := h.lpIndex(bstr(field))
	if i < 0 {
		return false
	}
	h.strBytes -= allocSize(len(h.lp[i].kv))
	copy(h.lp[i:], h.lp[i+1:])
	h.lp[len(h.lp)-1] = hashEntry{}
	h.lp = h.lp[:len(h.lp)-1]
	return true
}

// LookupHash returns the hash at key for a read command: nil, nil when the
// key is missing, ErrWrongType when it holds another type.
func (d *DB) LookupHash(key []byte) (*Hash, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeHash {
		return nil, protocol.ErrWrongType
	}
	return e.val.(*Hash), nil
}

// hashForWrite looks key up for a write. A missing key gives nil, nil, nil
// unless create is set: then an empty hash is inserted (raising "new"),
// which the caller must fill before it signals.
func (d *DB) hashForWrite(key []byte, create bool) (*entry, *Hash, error) {
	e := d.lookupWrite(key)
	if e == nil {
		if !create {
			return nil, nil, nil
		}
		h := &Hash{}
		e = newEntry(key, TypeHash)
		e.setObj(TypeHash, h)
		d.insert(e)
		return e, h, nil
	}
	if e.typ() != TypeHash {
		return nil, nil, protocol.ErrWrongType
	}
	return e, e.val.(*Hash), nil
}

// HashSet stores the field/value pairs of pairs (field, value, field,
// value...) in the hash at key, creating it when missing (HSET, HMSET). It
// returns the number of fields that were new. It always signals: Redis
// touches watchers even when every value was already there.
func (d *DB) HashSet(key []byte, pairs [][]byte) (int, error) {
	e, h, err := d.hashForWrite(key, true)
	if err != nil {
		return 0, err
	}
	lim := &d.ks.limits
	h.convertForArgs(pairs, lim)
	created := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		if h.set(pairs[i], pairs[i+1], lim) {
			created++
		}
	}
	d.signal(e.key(), true, EvHSet)
	return created, nil
}

// HashSetNX stores value at field only when the field is missing (HSETNX)
// and reports whether it did. An existing field changes nothing.
func (d *DB) HashSetNX(key, field, value []byte) (bool, error) {
	e, h, err := d.hashForWrite(key, false)
	if err != nil {
		return false, err
	}
	if h != nil {
		if _, ok := h.Get(field); ok {
			return false, nil
		}
	} else {
		e, h, _ = d.hashForWrite(key, true)
	}
	h.set(field, value, &d.ks.limits) // converts for long arguments too
	d.signal(e.key(), true, EvHSet)
	return true, nil
}

// HashDel removes fields from the hash at key and returns how many were
// there (HDEL). The key is deleted with its last field (events "hdel" then
// "del"); removing nothing does not signal.
func (d *DB) HashDel(key []byte, fields [][]byte) (int, error) {
	e, h, err := d.hashForWrite(key, false)
	if err != nil || h == nil {
		return 0, err
	}
	deleted, emptied := 0, false
	for _, f := range fields {
		if h.del(f) {
			deleted++
			if h.Len() == 0 {
				emptied = true
				break
			}
		}
	}
	if deleted == 0 {
		return 0, nil
	}
	k := e.key()
	if emptied {
		d.unlink(e)
		d.signal(k, false, EvHDel, EvDel)
	} else {
		d.signal(k, true, EvHDel)
	}
	return deleted, nil
}

// HashIncrBy adds incr to the integer at field (0 when missing) and
// returns the result (HINCRBY).
func (d *DB) HashIncrBy(key, field []byte, incr int64) (int64, error) {
	e, h, err := d.hashForWrite(key, false)
	if err != nil {
		return 0, err
	}
	var cur int64
	if h != nil {
		if v, ok := h.Get(field); ok {
			if cur, ok = protocol.ParseInt(sbytes(v)); !ok {
				return 0, ErrHashValueNotInt
			}
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		return 0, protocol.ErrIncrOverflow
	}
	cur += incr
	if h == nil {
		e, h, _ = d.hashForWrite(key, true)
	}
	var buf [24]byte
	h.set(field, strconv.AppendInt(buf[:0], cur, 10), &d.ks.limits)
	d.signal(e.key(), true, EvHIncrBy)
	return cur, nil
}

// HashIncrByFloat adds incr to the number at field (0 when missing) with
// long double arithmetic and returns the stored text (HINCRBYFLOAT).
func (d *DB) HashIncrByFloat(key, field []byte, incr protocol.LongDouble) ([]byte, error) {
	e, h, err := d.hashForWrite(key, false)
	if err != nil {
		return nil, err
	}
	var cur protocol.LongDouble
	if h != nil {
		if v, ok := h.Get(field); ok {
			if cur, ok = protocol.ParseLongDouble(sbytes(v)); !ok {
				return nil, ErrHashValueNotFloat
			}
		}
	}
	sum := cur.Add(incr)
	if sum.IsInfOrNaN() {
		return nil, protocol.ErrNaNOrInf
	}
	out := protocol.AppendLongDouble(nil, sum, protocol.LDStrHuman)
	if h == nil {
		e, h, _ = d.hashForWrite(key, true)
	}
	h.set(field, out, &d.ks.limits)
	d.signal(e.key(), true, EvHIncrByFloat)
	return out, nil
}
