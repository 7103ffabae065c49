package server

import (
	"github.com/miniwatchd/miniwatchd/protocol"
)

// List commands (Redis t_list.c). The blocking forms are in
// cmd_listblock.go.

var listCommands = []commandDef{
	{"lpush", cmdLPush},
	{"rpush", cmdRPush},
	{"lpushx", cmdLPushX},
	{"rpushx", cmdRPushX},
	{"lpop", cmdLPop},
	{"rpop", cmdRPop},
	{"llen", cmdLLen},
	{"lrange", cmdLRange},
	{"lindex", cmdLIndex},
	{"lset", cmdLSet},
	{"linsert", cmdLInsert},
	{"lrem", cmdLRem},
	{"ltrim", cmdLTrim},
	{"lpos", cmdLPos},
	{"lmove", cmdLMove},
	{"rpoplpush", cmdRPopLPush},
	{"lmpop", cmdLMPop},
}

var (
	errRankZero     = protocol.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	errCountNeg     = protocol.Error("ERR COUNT can't be negative")
	errMaxlenNeg    = protocol.Error("ERR MAXLEN can't be negative")
	listPopCmdNames = [2]string{"rpop", "lpop"}
)

func cmdLPush(c *client, args [][]byte)  { pushCommand(c, args, true, false) }
func cmdRPush(c *client, args [][]byte)  { pushCommand(c, args, false, false) }
func cmdLPushX(c *client, args [][]byte) { pushCommand(c, args, true, true) }
func cmdRPushX(c *client, args [][]byte) { pushCommand(c, args, false, true) }

// pushCommand is Redis's pushGenericCommand.
func pushCommand(c *client, args [][]byte, left, onlyExisting bool) {
	n, err := c.db.ListPush(args[1], args[2:], left, onlyExisting)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdLPop(c *client, args [][]byte) { popCommand(c, args, true) }
func cmdRPop(c *client, args [][]byte) { popCommand(c, args, false) }

// popCommand is Redis's popGenericCommand: LPOP/RPOP key [count]. With a
// count the reply is an array (a null array for a missing key).
func popCommand(c *client, args [][]byte, left bool) {
	if len(args) > 3 {
		c.fail(protocol.ErrWrongArity(listPopCmdNames[b2i(left)]))
		return
	}
	hasCount := len(args) == 3
	count := int64(1)
	if hasCount {
		n, ok := protocol.ParseInt(args[2])
		if !ok || n < 0 {
			c.fail(protocol.ErrNotPositive)
			return
		}
		count = n
	}
	if count == 0 {
		exists, err := c.db.ListExists(args[1])
		switch {
		case err != nil:
			c.fail(err)
		case !exists:
			c.w.NullArray()
		default:
			c.w.Array(0)
		}
		return
	}
	var one [1]string
	vals, err := c.db.ListPop(args[1], left, int(count), one[:0])
	switch {
	case err != nil:
		c.fail(err)
	case vals == nil && hasCount:
		c.w.NullArray()
	case vals == nil:
		c.w.Null()
	case hasCount:
		writeBulkStrings(c, vals)
	default:
		c.w.BulkString(vals[0])
	}
}

// writeBulkStrings replies with an array of the strings.
func writeBulkStrings(c *client, vals []string) {
	c.w.Array(len(vals))
	for _, v := range vals {
		c.w.BulkString(v)
	}
}

func cmdLLen(c *client, args [][]byte) {
	l, ok := lookupRead(c, c.db.LookupList, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(l.Len()))
}

func cmdLRange(c *client, args [][]byte) {
	start, ok1 := protocol.ParseInt(args[2])
	stop, ok2 := protocol.ParseInt(args[3])
	if !ok1 || !ok2 {
		c.fail(protocol.ErrNotInteger)
		return
	}
	l, ok := lookupRead(c, c.db.LookupList, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.w.Array(0)
		return
	}
	first, n := l.RangeBounds(start, stop)
	c.w.Array(n)
	for i := first; i < first+n; i++ {
		c.w.BulkString(l.At(i))
	}
}

func cmdLIndex(c *client, args [][]byte) {
	l, ok := lookupRead(c, c.db.LookupList, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.w.Null()
		return
	}
	idx, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	v, ok := l.Index(idx)
	if !ok {
		c.w.Null()
		return
	}
	c.w.BulkString(v)
}

func cmdLSet(c *client, args [][]byte) {
	exists, err := c.db.ListExists(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if !exists {
		c.fail(protocol.ErrNoSuchKey)
		return
	}
	idx, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if err := c.db.ListSet(args[1], idx, args[3]); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

func cmdLInsert(c *client, args [][]byte) {
	var before bool
	switch {
	case cstrEqualFold(args[2], "after"):
	case cstrEqualFold(args[2], "before"):
		before = true
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	n, err := c.db.ListInsert(args[1], before, args[3], args[4])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdLRem(c *client, args [][]byte) {
	count, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	n, err := c.db.ListRemove(args[1], count, args[3])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(n)
}

func cmdLTrim(c *client, args [][]byte) {
	start, ok1 := protocol.ParseInt(args[2])
	stop, ok2 := protocol.ParseInt(args[3])
	if !ok1 || !ok2 {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if err := c.db.ListTrim(args[1], start, stop); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

// cmdLPos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
func cmdLPos(c *client, args [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch {
		case cstrEqualFold(args[j], "rank") && more:
			j++
			r, ok := protocol.ParseInt(args[j])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if r == 0 {
				c.fail(errRankZero)
				return
			}
			rank = r
		case cstrEqualFold(args[j], "count") && more:
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok || n < 0 {
				c.fail(errCountNeg)
				return
			}
			count = n
		case cstrEqualFold(args[j], "maxlen") && more:
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok || n < 0 {
				c.fail(errMaxlenNeg)
				return
			}
			maxlen = n
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	fromTail := rank < 0
	if fromTail {
		rank = -rank // -MinInt64 stays negative, as in Redis: every match qualifies
	}
	l, ok := lookupRead(c, c.db.LookupList, args[1])
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			c.w.Array(0)
		} else {
			c.w.Null()
		}
		return
	}
	ele := args[2]
	counting := count != -1
	var d protocol.Deferred
	if counting {
		d = c.w.DeferLen()
	}
	llen := int64(l.Len())
	var index, matches, arraylen int64
	matchindex := int64(-1)
	for ; index < llen && (maxlen == 0 || index < maxlen); index++ {
		pos := index
		if fromTail {
			pos = llen - index - 1
		}
		if l.At(int(pos)) == string(ele) {
			matches++
			matchindex = pos
			if matches >= rank {
				if !counting {
					break
				}
				arraylen++
				c.w.Int(matchindex)
				if count != 0 && matches-rank+1 >= count {
					break
				}
			}
		}
		matchindex = -1
	}
	switch {
	case counting:
		c.w.SetArrayLen(d, int(arraylen))
	case matchindex != -1:
		c.w.Int(matchindex)
	default:
		c.w.Null()
	}
}

// parseListPosition parses LEFT or RIGHT (Redis's
// getListPositionFromObjectOrReply); it reports left and ok.
func parseListPosition(arg []byte) (left, ok bool) {
	switch {
	case cstrEqualFold(arg, "left"):
		return true, true
	case cstrEqualFold(arg, "right"):
		return false, true
	}
	return false, false
}

func cmdLMove(c *client, args [][]byte) {
	from, ok1 := parseListPosition(args[3])
	if !ok1 {
		c.fail(protocol.ErrSyntax)
		return
	}
	to, ok2 := parseListPosition(args[4])
	if !ok2 {
		c.fail(protocol.ErrSyntax)
		return
	}
	moveCommand(c, args[1], args[2], from, to)
}

func cmdRPopLPush(c *client, args [][]byte) { moveCommand(c, args[1], args[2], false, true) }

// moveCommand is Redis's lmoveGenericCommand.
func moveCommand(c *client, src, dst []byte, from, to bool) {
	v, ok, err := c.db.ListMove(src, dst, from, to)
	switch {
	case err != nil:
		c.fail(err)
	case !ok:
		c.w.Null()
	default:
		c.w.BulkString(v)
	}
}

// mpopArgs are the parsed arguments of LMPOP/BLMPOP and BZMPOP.
type mpopArgs struct {
	keys  [][]byte
	left  bool // LEFT, or MIN for sorted sets
	count int
}

// parseMPop parses "numkeys key [key ...] <side> [COUNT count]" with
// numkeys at args[idx] (Redis's lmpopGenericCommand and
// zmpopGenericCommand): the keys, the side as side parses it (LEFT|RIGHT or
// MIN|MAX) and the count (1 when not given).
func parseMPop(args [][]byte, idx int, side func([]byte) (bool, bool)) (mpopArgs, error) {
	numkeys, ok := protocol.ParseInt(args[idx])
	if !ok || numkeys < 1 {
		return mpopArgs{}, errNumkeysPositive
	}
	if numkeys >= int64(len(args)) {
		return mpopArgs{}, protocol.ErrSyntax
	}
	whereIdx := idx + int(numkeys) + 1
	if whereIdx >= len(args) {
		return mpopArgs{}, protocol.ErrSyntax
	}
	left, ok := side(args[whereIdx])
	if !ok {
		return mpopArgs{}, protocol.ErrSyntax
	}
	count := int64(-1)
	for j := whereIdx + 1; j < len(args); j++ {
		if count == -1 && cstrEqualFold(args[j], "count") && j < len(args)-1 {
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok || n < 1 {
				return mpopArgs{}, errCountPositive
			}
			count = n
			continue
		}
		return mpopArgs{}, protocol.ErrSyntax
	}
	if count == -1 {
		count = 1
	}
	return mpopArgs{keys: args[idx+1 : whereIdx], left: left, count: int(count)}, nil
}

// cmdLMPop is LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count].
func cmdLMPop(c *client, args [][]byte) {
	a, err := parseMPop(args, 1, parseListPosition)
	if err != nil {
		c.fail(err)
		return
	}
	if !mpopFirst(c, a) {
		c.w.NullArray()
	}
}

// mpopFirst pops from the first non-empty list of a.keys and replies
// [key, [elements]]; it reports false, with no reply written, when every key
// is missing. A key of another type is an error (replied, true returned).
func mpopFirst(c *client, a mpopArgs) bool {
	for _, key := range a.keys {
		vals, err := c.db.ListPop(key, a.left, a.count, nil)
		if err != nil {
			c.fail(err)
			return true
		}
		if vals == nil {
			continue
		}
		c.w.Array(2)
		c.w.Bulk(key)
		writeBulkStrings(c, vals)
		propagateListPop(c, c.db, key, a.left, len(vals))
		return true
	}
	return false
}
