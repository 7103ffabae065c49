package server

import (
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Argument parsing and replies shared by the hash, set and sorted set
// families: Redis's getRangeLongFromObjectOrReply family and the part of
// scanGenericCommand that works on one key's value.

// errOutOfRange is the plain out-of-range error (HRANDFIELD and
// ZRANDMEMBER WITHVALUES/WITHSCORES with a count whose double overflows).
var errOutOfRange = protocol.Error("ERR value is out of range")

// parseRangeLong is getRangeLongFromObjectOrReply: an integer (string2ll)
// in [lo, hi]. When msg is set it is the error for both failures, as in
// Redis; otherwise a non-integer gives ErrNotInteger and an integer out of
// range "value is out of range, value must between <lo> and <hi>".
func parseRangeLong(arg []byte, lo, hi int64, msg protocol.Error) (int64, error) {
	n, ok := protocol.ParseInt(arg)
	if !ok {
		if msg != "" {
			return 0, msg
		}
		return 0, protocol.ErrNotInteger
	}
	if n < lo || n > hi {
		if msg != "" {
			return 0, msg
		}
		return 0, protocol.Error("ERR value is out of range, value must between " +
			strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
	}
	return n, nil
}

// parsePositiveLong is getPositiveLongFromObjectOrReply: an integer >= 0;
// msg (default "value is out of range, must be positive") covers both
// failures.
func parsePositiveLong(arg []byte, msg protocol.Error) (int64, error) {
	if msg == "" {
		msg = protocol.ErrNotPositive
	}
	return parseRangeLong(arg, 0, math.MaxInt64, msg)
}

// parseLong is getLongFromObjectOrReply without a custom message.
func parseLong(arg []byte) (int64, error) {
	n, ok := protocol.ParseInt(arg)
	if !ok {
		return 0, protocol.ErrNotInteger
	}
	return n, nil
}

// parseRandomCount parses the count of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER: any integer but LLONG_MIN (CVE-2023-25155's fix).
func parseRandomCount(arg []byte) (int64, error) {
	return parseRangeLong(arg, -math.MaxInt64, math.MaxInt64, "")
}

// emptyScan writes the reply of a SCAN-family command on a missing key.
func emptyScan(c *client) {
	c.w.Array(2)
	c.w.BulkString("0")
	c.w.Array(0)
}

// scanStep runs one step of a dict walk from cursor, appending what it
// visits to elems, and returns the next cursor.
type scanStep func(cursor uint64, elems []string) (uint64, []string)

// scanValue is scanGenericCommand for a hash, set or sorted set value: it
// parses the options in args[3:] (after the key was found, as Redis does),
// calls step until the cursor is back to 0, count elements (count*10 dict
// positions at most) were collected, then filters by MATCH and replies.
// With pairs, elems holds (key, value) pairs and the filter looks at keys.
func scanValue(c *client, args [][]byte, cursor uint64, pairs bool, step scanStep) {
	opt, err := parseScanOptions(args, 3, false)
	if err != nil {
		c.fail(err)
		return
	}
	count := opt.Count
	var elems []string
	maxIter := count * 10
	for {
		cursor, elems = step(cursor, elems)
		if cursor == 0 || maxIter == 0 || len(elems) >= count {
			break
		}
		maxIter--
	}
	width := 1
	if pairs {
		width = 2
	}
	usePattern := opt.Pattern != nil && !(len(opt.Pattern) == 1 && opt.Pattern[0] == '*')
	pattern := string(opt.Pattern)
	kept := elems[:0]
	for i := 0; i+width <= len(elems); i += width {
		if usePattern && !glob.MatchString(pattern, elems[i]) {
			continue
		}
		kept = append(kept, elems[i:i+width]...)
	}
	c.w.Array(2)
	var buf [24]byte
	c.w.Bulk(strconv.AppendUint(buf[:0], cursor, 10))
	c.w.Array(len(kept))
	for _, s := range kept {
		c.w.BulkString(s)
	}
}

// lookupForScan parses a SCAN-family cursor, then looks the key up with
// lookup; it writes the reply and returns false when there is nothing to
// scan (bad cursor, missing key, wrong type).
func lookupForScan[T any](c *client, args [][]byte, lookup func(key []byte) (*T, error)) (*T, uint64, bool) {
	cursor, ok := protocol.ParseScanCursor(args[2])
	if !ok {
		c.fail(errInvalidCursor)
		return nil, 0, false
	}
	v, err := lookup(args[1])
	if err != nil {
		c.fail(err)
		return nil, 0, false
	}
	if v == nil {
		emptyScan(c)
		return nil, 0, false
	}
	return v, cursor, true
}
