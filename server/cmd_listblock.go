package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Blocking list commands (Redis t_list.c's blocking half). With data
// present they act as their non-blocking form; otherwise the client blocks
// (blocking.go), unless blocking is denied (inside EXEC or a script), where
// they reply as if the timeout had expired at once: a null array, or a null
// bulk string for BLMOVE and BRPOPLPUSH (spec B-7, E-9).

var listBlockingCommands = []commandDef{
	{"blpop", cmdBLPop},
	{"brpop", cmdBRPop},
	{"blmpop", cmdBLMPop},
	{"blmove", cmdBLMove},
	{"brpoplpush", cmdBRPopLPush},
}

func cmdBLPop(c *client, args [][]byte) {
	blockingPopCommand(c, args[1:len(args)-1], args[len(args)-1], blockArgs{op: opBLPop, left: true})
}

func cmdBRPop(c *client, args [][]byte) {
	blockingPopCommand(c, args[1:len(args)-1], args[len(args)-1], blockArgs{op: opBRPop})
}

// cmdBLMPop is BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count].
// The other arguments are checked before the timeout.
func cmdBLMPop(c *client, args [][]byte) {
	a, err := parseMPop(args, 2, parseListPosition)
	if err != nil {
		c.fail(err)
		return
	}
	blockingPopCommand(c, a.keys, args[1], blockArgs{op: opBLMPop, left: a.left, count: a.count})
}

// blockingPopCommand is Redis's blockingPopGenericCommand: pop from the
// first non-empty list among keys, or block on all of them.
func blockingPopCommand(c *client, keys [][]byte, timeoutArg []byte, a blockArgs) {
	timeout, err := parseBlockTimeout(timeoutArg)
	if err != nil {
		c.fail(err)
		return
	}
	if a.op == opBLMPop {
		if mpopFirst(c, mpopArgs{keys: keys, left: a.left, count: a.count}) {
			return
		}
	} else {
		for _, key := range keys {
			var one [1]string
			vals, err := c.db.ListPop(key, a.left, 1, one[:0])
			if err != nil {
				c.fail(err)
				return
			}
			if vals == nil {
				continue
			}
			c.w.Array(2)
			c.w.Bulk(key)
			c.w.BulkString(vals[0])
			propagateListPop(c, c.db, key, a.left, -1)
			return
		}
	}
	if c.denyBlocking {
		c.w.NullArray()
		return
	}
	c.srv.blockForKeysLocked(c, blockList, keys, c.srv.blockDeadline(timeout), a)
}

// cmdBLMove is BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
func cmdBLMove(c *client, args [][]byte) {
	from, ok := parseListPosition(args[3])
	if !ok {
		c.fail(protocol.ErrSyntax)
		return
	}
	to, ok := parseListPosition(args[4])
	if !ok {
		c.fail(protocol.ErrSyntax)
		return
	}
	blockingMoveCommand(c, args[1], args[2], args[5], from, to)
	c.propagateAs(propLMOVE, args[1], args[2], args[3], args[4]) // when it moved at once
}

// cmdBRPopLPush is BRPOPLPUSH source destination timeout.
func cmdBRPopLPush(c *client, args [][]byte) {
	blockingMoveCommand(c, args[1], args[2], args[3], false, true)
	c.propagateAs(propRPOPLPUSH, args[1], args[2]) // when it moved at once
}

// blockingMoveCommand is Redis's blmoveGenericCommand. A destination of the
// wrong type is reported only when there is an element to move, so a
// client may block on such a move and get WRONGTYPE when it is served.
func blockingMoveCommand(c *client, src, dst, timeoutArg []byte, from, to bool) {
	timeout, err := parseBlockTimeout(timeoutArg)
	if err != nil {
		c.fail(err)
		return
	}
	exists, err := c.db.ListExists(src)
	if err != nil {
		c.fail(err)
		return
	}
	if exists {
		moveCommand(c, src, dst, from, to)
		return
	}
	if c.denyBlocking {
		c.w.Null()
		return
	}
	a := blockArgs{op: opBLMove, left: from, toLeft: to, target: append([]byte(nil), dst...)}
	c.srv.blockForKeysLocked(c, blockList, [][]byte{src}, c.srv.blockDeadline(timeout), a)
}

// serveListWaiter completes the command of a client blocked on the list at
// key (Redis's serveClientBlockedOnList): BLPOP/BRPOP reply [key, element],
// BLMPOP [key, [elements]], BLMOVE/BRPOPLPUSH the element, or WRONGTYPE
// when the destination holds another type (nothing is moved then).
func serveListWaiter(s *Server, c *client, d *db.DB, key string) (served, deleted bool) {
	a := &c.blocked.args
	switch a.op {
	case opBLPop, opBRPop:
		v, deleted, ok := d.ServeListPop(key, a.left)
		if !ok {
			return false, true
		}
		propagateListPop(c, d, []byte(key), a.left, -1)
		c.w.Array(2)
		c.w.BulkString(key)
		c.w.BulkString(v)
		return true, deleted
	case opBLMPop:
		vals, deleted, ok := d.ServeListPopCount(key, a.left, a.count, nil)
		if !ok {
			return false, true
		}
		propagateListPop(c, d, []byte(key), a.left, len(vals))
		c.w.Array(2)
		c.w.BulkString(key)
		writeBulkStrings(c, vals)
		return true, deleted
	case opBLMove:
		if d.StoredType(key) != db.TypeList {
			return false, true
		}
		v, deleted, err := d.ServeListMove(key, a.target, a.left, a.toLeft)
		if err != nil {
			c.fail(err)
			return true, false
		}
		propagateServedMove(c, d, []byte(key), a.target, a.left, a.toLeft)
		c.w.BulkString(v)
		return true, deleted
	}
	return false, false
}
