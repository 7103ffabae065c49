package rdb

import (
	"slices"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Kind is the kind of value an RDB object holds (Redis's OBJ_* types).
type Kind uint8

// Value kinds.
const (
	KindString Kind = iota + 1
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
)

// Value is one key's value, independent of the keyspace's structures: what
// the decoder produces and the encoder consumes.
type Value struct {
	Kind Kind
	// Str is a string value.
	Str []byte
	// Elems are a list's elements in order, a set's members, a hash's
	// fields and values interleaved, or a sorted set's members in
	// ascending (score, member) order, as the encoder needs them.
	Elems []string
	// Scores are a sorted set's scores, Scores[i] being Elems[i]'s.
	Scores []float64
	// Ints are an intset's members, ascending (Kind KindSet and Compact).
	Ints []int64
	// Compact says the value has (encoding) or had (decoding) Redis's
	// compact encoding: intset for a set, listpack for a hash or a sorted
	// set. Lists are always quicklists; strings need no flag.
	Compact bool
	// Stream is a stream's value (Kind KindStream).
	Stream *Stream
	// Type is the RDB type byte the value was decoded from (the loader's
	// encoding rules depend on it); the encoder ignores it.
	Type byte
}

// FromBlob reports whether the value was decoded from a compact blob
// (ziplist, listpack, zipmap or intset), whose encoding Redis 7.0 keeps on
// load unless the element count exceeds the limit.
func (v *Value) FromBlob() bool {
	switch v.Type {
	case TypeListZiplist, TypeSetIntset, TypeZSetZiplist, TypeHashZiplist, TypeHashListpack, TypeZSetListpack, TypeSetListpack:
		return true
	}
	return false
}

// Options are the saving parameters of rdb.c that change the bytes.
type Options struct {
	// Compress is rdbcompression: LZF for strings over 20 bytes.
	Compress bool
	// ListFill is list-max-listpack-size (quicklist fill, -2 by default).
	ListFill int
}

// DefaultOptions are Redis 7.0's defaults.
func DefaultOptions() Options { return Options{Compress: true, ListFill: -2} }

// ObjectType is the RDB type byte Redis 7.0 saves v with (rdbSaveObjectType).
func ObjectType(v *Value) byte {
	switch v.Kind {
	case KindString:
		return TypeString
	case KindList:
		return TypeListQuicklist2
	case KindSet:
		if v.Compact {
			return TypeSetIntset
		}
		return TypeSet
	case KindZSet:
		if v.Compact {
			return TypeZSetListpack
		}
		return TypeZSet2
	case KindHash:
		if v.Compact {
			return TypeHashListpack
		}
		return TypeHash
	case KindStream:
		return TypeStreamListpack2
	}
	panic("rdb: value of unknown kind")
}

// AppendObject appends v's type byte and its body (rdbSaveObjectType then
// rdbSaveObject).
func AppendObject(b []byte, v *Value, o *Options) []byte {
	b = append(b, ObjectType(v))
	return AppendBody(b, v, o)
}

// AppendBody appends v's body (rdbSaveObject) without the type byte.
func AppendBody(b []byte, v *Value, o *Options) []byte {
	switch v.Kind {
	case KindString:
		return AppendString(b, v.Str, o.Compress)
	case KindList:
		return appendQuicklist(b, v.Elems, o)
	case KindSet:
		if v.Compact {
			ints := v.Ints
			if ints == nil && len(v.Elems) > 0 {
				ints = make([]int64, len(v.Elems))
				for i, m := range v.Elems {
					ints[i], _ = strconv.ParseInt(m, 10, 64)
				}
				slices.Sort(ints)
			}
			return AppendString(b, AppendIntset(nil, ints), o.Compress)
		}
		b = AppendLen(b, uint64(len(v.Elems)))
		for _, m := range v.Elems {
			b = AppendString(b, m, o.Compress)
		}
		return b
	case KindZSet:
		if v.Compact {
			var lb ListpackBuilder
			var num [32]byte
			for i, m := range v.Elems {
				lb.Append(m)
				lb.Append(string(protocol.AppendFloat17(num[:0], v.Scores[i])))
			}
			return AppendString(b, lb.Bytes(), o.Compress)
		}
		// rdbSaveObject writes a skiplist from its tail, so that loading
		// inserts each element at the head.
		b = AppendLen(b, uint64(len(v.Elems)))
		for i := len(v.Elems) - 1; i >= 0; i-- {
			b = AppendString(b, v.Elems[i], o.Compress)
			b = AppendBinaryDouble(b, v.Scores[i])
		}
		return b
	case KindHash:
		if v.Compact {
			var lb ListpackBuilder
			for _, s := range v.Elems {
				lb.Append(s)
			}
			return AppendString(b, lb.Bytes(), o.Compress)
		}
		b = AppendLen(b, uint64(len(v.Elems)/2))
		for _, s := range v.Elems {
			b = AppendString(b, s, o.Compress)
		}
		return b
	case KindStream:
		return appendStream(b, v.Stream, o)
	}
	panic("rdb: value of unknown kind")
}

// Quicklist node limits (quicklist.c).
var optimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

const (
	sizeSafetyLimit = 8192
	packedThreshold = 1 << 30 // elements this large get a plain node
)

// nodeAllowInsert is Redis 7.0's _quicklistNodeAllowInsert for a node of
// nodeSize listpack bytes and count elements receiving an element of sz
// bytes: the new size is overestimated by SIZE_ESTIMATE_OVERHEAD (8) and
// checked by quicklistNodeExceedsLimit.
func nodeAllowInsert(nodeSize, count, sz, fill int) bool {
	newSize := nodeSize + sz + 8
	if fill < 0 {
		off := min(-fill-1, len(optimizationLevel)-1)
		return newSize <= optimizationLevel[off]
	}
	if newSize > sizeSafetyLimit {
		return false
	}
	return count+1 <= max(fill, 1)
}

// appendQuicklist appends a list as RDB_TYPE_LIST_QUICKLIST_2, with the
// nodes a quicklist gets when the elements are pushed at its tail one by
// one (quicklistPushTail).
func appendQuicklist(b []byte, elems []string, o *Options) []byte {
	type node struct {
		plain      bool
		start, end int
	}
	var nodes []node
	size := 0
	for i, e := range elems {
		if len(e) >= packedThreshold {
			nodes = append(nodes, node{plain: true, start: i, end: i + 1})
			continue
		}
		if n := len(nodes); n > 0 && !nodes[n-1].plain && nodeAllowInsert(size, nodes[n-1].end-nodes[n-1].start, len(e), o.ListFill) {
			nodes[n-1].end = i + 1
			size += lpEntrySize(e)
			continue
		}
		nodes = append(nodes, node{start: i, end: i + 1})
		size = lpHeaderSize + 1 + lpEntrySize(e)
	}
	b = AppendLen(b, uint64(len(nodes)))
	var lb ListpackBuilder
	for _, n := range nodes {
		if n.plain {
			b = AppendLen(b, quicklistPlain)
			b = AppendString(b, elems[n.start], o.Compress)
			continue
		}
		b = AppendLen(b, quicklistPacked)
		lb.Reset()
		for _, e := range elems[n.start:n.end] {
			lb.Append(e)
		}
		b = AppendString(b, lb.Bytes(), o.Compress)
	}
	return b
}

// lpEntrySize is the bytes element s takes in a listpack.
func lpEntrySize(s string) int {
	var n int
	if v, ok := protocol.ParseInt([]byte(s)); ok {
		var tmp [9]byte
		n = len(appendLPInt(tmp[:0], v))
	} else {
		switch l := len(s); {
		case l < 64:
			n = 1 + l
		case l < 4096:
			n = 2 + l
		default:
			n = 5 + l
		}
	}
	return n + backlenSize(n)
}
