package server

import (
	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// How the rewrite writes lists, sets, hashes and sorted sets: variadic
// RPUSH, SADD, HMSET and ZADD of at most rewriteItemsLimit elements each
// (Redis's rewriteListObject, rewriteSetObject, rewriteHashObject,
// rewriteSortedSetObject).

// itemBatch writes the header of each command of a variadic rewrite: a
// new "name key" header every rewriteItemsLimit items, each item being
// width arguments.
type itemBatch struct {
	name  string
	key   string
	left  int // items still to write
	width int
	count int // items written in the current command
}

func (ib *itemBatch) next(b []byte) []byte {
	if ib.count == 0 {
		n := min(ib.left, rewriteItemsLimit)
		b = aof.AppendArray(b, 2+n*ib.width)
		b = aof.AppendBulkString(b, ib.name)
		b = aof.AppendBulkString(b, ib.key)
	}
	ib.left--
	if ib.count++; ib.count == rewriteItemsLimit {
		ib.count = 0
	}
	return b
}

func rewriteList(b []byte, key string, v any) []byte {
	l := v.(*db.List)
	n := l.Len()
	ib := itemBatch{name: "RPUSH", key: key, left: n, width: 1}
	for i := 0; i < n; i++ {
		b = ib.next(b)
		b = aof.AppendBulkString(b, l.At(i))
	}
	return b
}

func rewriteSet(b []byte, key string, v any) []byte {
	s := v.(*db.Set)
	ib := itemBatch{name: "SADD", key: key, left: s.Len(), width: 1}
	s.Each(func(m []byte) bool {
		b = ib.next(b)
		b = aof.AppendBulk(b, m)
		return true
	})
	return b
}

func rewriteHash(b []byte, key string, v any) []byte {
	h := v.(*db.Hash)
	ib := itemBatch{name: "HMSET", key: key, left: h.Len(), width: 2}
	h.Each(func(field, value string) bool {
		b = ib.next(b)
		b = aof.AppendBulkString(b, field)
		b = aof.AppendBulkString(b, value)
		return true
	})
	return b
}

func rewriteZSet(b []byte, key string, v any) []byte {
	z := v.(*db.ZSet)
	ib := itemBatch{name: "ZADD", key: key, left: z.Len(), width: 2}
	var num [32]byte
	z.Each(func(n *db.ZNode) bool {
		b = ib.next(b)
		b = aof.AppendBulk(b, protocol.AppendFloat17(num[:0], n.Score()))
		b = aof.AppendBulkString(b, n.Member())
		return true
	})
	return b
}

// rewriteFunctions is Redis's rewriteFunctions: one FUNCTION LOAD of each
// library's code, so that loading the base recreates them.
func rewriteFunctions(s *Server, b []byte) []byte {
	if s.scripting.lib == nil {
		return b
	}
	for _, lib := range s.scripting.lib.Libs() {
		b = aof.AppendArray(b, 3)
		b = aof.AppendBulkString(b, "FUNCTION")
		b = aof.AppendBulkString(b, "LOAD")
		b = aof.AppendBulkString(b, lib.Code)
	}
	return b
}
