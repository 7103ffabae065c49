package aof

import (
	"bufio"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// Reading a base file in RDB format: redis-server 7 writes its AOF base
// that way by default (aof-use-rdb-preamble yes). The rdb package decodes
// the snapshot; here it becomes the commands that rebuild it — SELECT, SET,
// RPUSH, SADD, ZADD, HSET (at most rdbItemsPerCmd items each), PEXPIREAT,
// FUNCTION LOAD — which the server replays like any other log.

// RDBError is an RDB base file that cannot be read. Offset is the byte
// where the problem was found.
type RDBError = rdb.Error

// rdbItemsPerCmd bounds the elements one emitted command carries
// (AOF_REWRITE_ITEMS_PER_CMD).
const rdbItemsPerCmd = 64

// IsRDB reports whether a file starting with head is in RDB format.
func IsRDB(head []byte) bool { return rdb.IsRDB(head) }

// decodeRDB reads an RDB stream from br up to and including its checksum
// and calls emit with the commands that rebuild it. It returns the bytes
// consumed.
func decodeRDB(br *bufio.Reader, size int64, emit func(args [][]byte) error) (int64, error) {
	selected := -1
	sel := func(db int) error {
		selected = db
		return emit([][]byte{[]byte("SELECT"), strconv.AppendInt(nil, int64(db), 10)})
	}
	h := &rdb.Handler{
		SelectDB: sel,
		Function: func(code []byte) error {
			return emit([][]byte{[]byte("FUNCTION"), []byte("LOAD"), code})
		},
		Key: func(db int, key []byte, v *rdb.Value, m rdb.KeyMeta) error {
			if selected != db {
				if err := sel(db); err != nil {
					return err
				}
			}
			if err := emitValue(emit, key, v); err != nil {
				return err
			}
			if m.ExpireAt >= 0 {
				return emit([][]byte{[]byte("PEXPIREAT"), key, strconv.AppendInt(nil, m.ExpireAt, 10)})
			}
			return nil
		},
	}
	return rdb.Load(br, size, h, rdb.LoadOptions{})
}

// emitValue emits the commands that create key with value v.
func emitValue(emit func(args [][]byte) error, key []byte, v *rdb.Value) error {
	switch v.Kind {
	case rdb.KindString:
		return emit([][]byte{[]byte("SET"), key, v.Str})
	case rdb.KindList:
		return emitItems(emit, "RPUSH", key, toBytes(v.Elems), 1)
	case rdb.KindSet:
		return emitItems(emit, "SADD", key, toBytes(v.IntMembers()), 1)
	case rdb.KindHash:
		return emitItems(emit, "HSET", key, toBytes(v.Elems), 2)
	case rdb.KindZSet:
		args := make([][]byte, 0, 2*len(v.Elems))
		for i, m := range v.Elems {
			args = append(args, protocol.AppendFloat17(nil, v.Scores[i]), []byte(m))
		}
		return emitItems(emit, "ZADD", key, args, 2)
	}
	return &RDBError{Reason: "value of an unsupported type"}
}

func toBytes(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

// emitItems emits cmd key items..., at most rdbItemsPerCmd items (of group
// arguments each) per command.
func emitItems(emit func(args [][]byte) error, cmd string, key []byte, args [][]byte, group int) error {
	per := rdbItemsPerCmd * group
	for len(args) > 0 {
		n := min(per, len(args))
		out := make([][]byte, 0, n+2)
		out = append(out, []byte(cmd), key)
		out = append(out, args[:n]...)
		if err := emit(out); err != nil {
			return err
		}
		args = args[n:]
	}
	return nil
}
