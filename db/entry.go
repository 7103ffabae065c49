package db

import (
	"strings"
	"unsafe"
)

// Type is the type of a key's value, as TYPE reports it.
type Type uint8

// Value types.
const (
	TypeNone Type = iota
	TypeString
	TypeList
	TypeSet
	TypeZSet
	TypeHash
	TypeStream
)

// String returns the name TYPE replies with.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeHash:
		return "hash"
	case TypeStream:
		return "stream"
	}
	return "none"
}

// ParseType maps a TYPE name (as SCAN ... TYPE takes it, case-insensitive)
// to a Type; unknown names give TypeNone.
func ParseType(name []byte) Type {
	var buf [8]byte
	if len(name) > len(buf) {
		return TypeNone
	}
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(name)]) {
	case "string":
		return TypeString
	case "list":
		return TypeList
	case "set":
		return TypeSet
	case "zset":
		return TypeZSet
	case "hash":
		return TypeHash
	case "stream":
		return TypeStream
	}
	return TypeNone
}

// entry is one key of the main table. It is kept small because there is one
// per key: the key's bytes and, for strings that were set whole, the value's
// bytes are kv, stored in the entry's own tail when they fit (entrytail.go);
// aggregates and strings edited in place (APPEND, SETRANGE) live in val.
type entry struct {
	kv   string // key bytes, followed by the inline string value
	val  any    // aggregate value or *rawString; nil for an inline string
	next *entry // dict chain
	klen uint32
	meta uint32 // bits 0-23: LRU clock or LFU data; 24-27: Type; 28: has TTL; 29: raw string encoding; 30: never int-encoded; 31: has a tail
}

const (
	metaLRUMask   = 1<<24 - 1
	metaTypeShift = 24
	metaTypeMask  = 0xf << metaTypeShift
	metaHasTTL    = 1 << 28
	metaRawStr    = 1 << 29
	metaNoIntStr  = 1 << 30 // a string stored as given, never "int" (INCRBYFLOAT's result)
	metaTail      = 1 << 31 // allocated with a tail holding the key (entrytail.go); never changes
)

func (e *entry) dictKey() string       { return e.kv[:e.klen] }
func (e *entry) dictNext() *entry      { return e.next }
func (e *entry) setDictNext(n *entry)  { e.next = n }
func (e *entry) key() string           { return e.kv[:e.klen] }
func (e *entry) typ() Type             { return Type((e.meta & metaTypeMask) >> metaTypeShift) }
func (e *entry) hasTTL() bool          { return e.meta&metaHasTTL != 0 }
func (e *entry) lru() uint32           { return e.meta & metaLRUMask }
func (e *entry) setLRU(v uint32)       { e.meta = e.meta&^metaLRUMask | v&metaLRUMask }
func (e *entry) setHasTTL(v bool)      { e.meta = setBit(e.meta, metaHasTTL, v) }
func (e *entry) setRawEncoding(v bool) { e.meta = setBit(e.meta, metaRawStr, v) }
func (e *entry) rawEncoding() bool     { return e.meta&metaRawStr != 0 }
func (e *entry) setType(t Type)        { e.meta = e.meta&^metaTypeMask | uint32(t)<<metaTypeShift }
func setBit(m, bit uint32, v bool) uint32 {
	if v {
		return m | bit
	}
	return m &^ bit
}

// rawString is a string value that is edited in place (APPEND, SETRANGE,
// SETBIT): it grows with spare capacity so repeated appends are amortised
// O(1), as an sds string is in Redis.
type rawString struct{ b []byte }

// str returns the string value's bytes. They alias the entry and must not be
// modified or kept past the next write to the key.
func (e *entry) str() []byte {
	if r, ok := e.val.(*rawString); ok {
		return r.b
	}
	v := e.kv[e.klen:]
	return unsafe.Slice(unsafe.StringData(v), len(v))
}

// setStr replaces the value with the string val, stored inline with the
// key: in e's tail when it fits (overwriting the old value's bytes), else in
// a new allocation.
func (e *entry) setStr(val []byte) {
	n := int(e.klen) + len(val)
	if t := e.tail(); n <= len(t) {
		copy(t[e.klen:], val) // the tail already starts with the key
		e.kv = unsafe.String(unsafe.SliceData(t), n)
	} else {
		buf := make([]byte, n)
		copy(buf, e.kv[:e.klen])
		copy(buf[e.klen:], val)
		e.kv = unsafe.String(unsafe.SliceData(buf), n)
	}
	e.val = nil
	e.setType(TypeString)
	e.setRawEncoding(false)
	e.meta &^= metaNoIntStr
}

// setObj replaces the value with an aggregate (or raw string) of type t; the
// inline value bytes are dropped.
func (e *entry) setObj(t Type, v any) {
	switch tail := e.tail(); {
	case tail != nil:
		e.kv = unsafe.String(unsafe.SliceData(tail), e.klen)
	case len(e.kv) != int(e.klen):
		e.kv = strings.Clone(e.kv[:e.klen]) // let the inline value's bytes go
	}
	e.val = v
	e.setType(t)
	e.setRawEncoding(false)
	e.meta &^= metaNoIntStr
}

// newEntry builds an entry for key, of type t, with no value yet.
func newEntry[K string | []byte](key K, t Type) *entry {
	e, buf := allocEntry(len(key))
	copy(buf, key)
	e.klen = uint32(len(key))
	e.setType(t)
	return e
}

// newStringEntry builds an entry for a new key holding a string value, with
// key and value in one allocation.
func newStringEntry[K string | []byte](key K, val []byte) *entry {
	e, buf := allocEntry(len(key) + len(val))
	copy(buf, key)
	copy(buf[len(key):], val)
	e.klen = uint32(len(key))
	e.setType(TypeString)
	return e
}

// copyMeta gives e the access data, type and flags m (another entry's meta),
// keeping e's own metaTail.
func (e *entry) copyMeta(m uint32) {
	e.meta = m&^metaTail | e.meta&metaTail
}

// expEntry is one key of the expires table: the deadline of a key that has a
// TTL, in unix milliseconds.
type expEntry struct {
	e    *entry
	when int64
	next *expEntry
}

func (x *expEntry) dictKey() string         { return x.e.key() }
func (x *expEntry) dictNext() *expEntry     { return x.next }
func (x *expEntry) setDictNext(n *expEntry) { x.next = n }

// bstr views b as a string without copying, for lookups only: the result must
// not be retained.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// sbytes views s as bytes without copying; the result must not be modified.
func sbytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
