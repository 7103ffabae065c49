package server

import (
	"github.com/miniwatchd/miniwatchd/db"
)

// Blocking sorted set commands (Redis t_zset.c's blockingGenericZpopCommand).
// With a non-empty sorted set among the keys they pop as ZPOPMIN/ZPOPMAX/
// ZMPOP do; otherwise the client blocks (blocking.go) until a sorted set is
// created at one of its keys, or replies a null array when blocking is
// denied (inside EXEC or a script) or on timeout.

var zsetBlockingCommands = []commandDef{
	{"bzpopmin", cmdBZPopMin},
	{"bzpopmax", cmdBZPopMax},
	{"bzmpop", cmdBZMPop},
}

func cmdBZPopMin(c *client, args [][]byte) {
	blockingZPopCommand(c, args[1:len(args)-1], args[len(args)-1], blockArgs{op: opBZPopMin, left: true})
}

func cmdBZPopMax(c *client, args [][]byte) {
	blockingZPopCommand(c, args[1:len(args)-1], args[len(args)-1], blockArgs{op: opBZPopMax})
}

// parseZSide parses MIN or MAX; min is reported as left.
func parseZSide(arg []byte) (min, ok bool) {
	switch {
	case cstrEqualFold(arg, "min"):
		return true, true
	case cstrEqualFold(arg, "max"):
		return false, true
	}
	return false, false
}

// cmdBZMPop is BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count].
// The other arguments are checked before the timeout.
func cmdBZMPop(c *client, args [][]byte) {
	a, err := parseMPop(args, 2, parseZSide)
	if err != nil {
		c.fail(err)
		return
	}
	blockingZPopCommand(c, a.keys, args[1], blockArgs{op: opBZMPop, left: a.left, count: a.count})
}

// blockingZPopCommand pops from the first non-empty sorted set among keys
// (a key of another type is WRONGTYPE), or blocks on all of them.
func blockingZPopCommand(c *client, keys [][]byte, timeoutArg []byte, a blockArgs) {
	timeout, err := parseBlockTimeout(timeoutArg)
	if err != nil {
		c.fail(err)
		return
	}
	found, err := zpopReply(c, c.db, keys, a)
	if err != nil {
		c.fail(err)
		return
	}
	if found {
		return
	}
	if c.denyBlocking {
		c.w.NullArray()
		return
	}
	c.srv.blockForKeysLocked(c, blockZSet, keys, c.srv.blockDeadline(timeout), a)
}

// zpopReply pops for a blocking sorted set command from the first existing
// key of keys and writes its reply: [key, member, score] for BZPOPMIN and
// BZPOPMAX, [key, [[member, score] ...]] for BZMPOP (scores are doubles in
// RESP3). Nothing is written when no key exists.
func zpopReply(c *client, d *db.DB, keys [][]byte, a blockArgs) (found bool, err error) {
	count := int64(1)
	nested := a.op == opBZMPop
	if nested {
		count = int64(a.count)
	}
	return d.ZPop(keys, !a.left, count,
		func(key []byte, n int) {
			propagateZPop(c, d, key, a.left, nested, n)
			if nested {
				c.w.Array(2)
				c.w.Bulk(key)
				c.w.Array(n)
				return
			}
			c.w.Array(2*n + 1)
			c.w.Bulk(key)
		},
		func(member string, score float64) {
			if nested {
				c.w.Array(2)
			}
			c.w.BulkString(member)
			c.w.Double(score)
		})
}

// serveZSetWaiter completes the command of a client blocked on the sorted
// set at key (Redis's serveClientsBlockedOnSortedSetKey, which runs the
// pop as the command would).
func serveZSetWaiter(s *Server, c *client, d *db.DB, key string) (served, deleted bool) {
	found, err := zpopReply(c, d, [][]byte{[]byte(key)}, c.blocked.args)
	if err != nil || !found {
		return false, true
	}
	return true, d.StoredType(key) != db.TypeZSet
}
