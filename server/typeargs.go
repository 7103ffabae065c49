package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// What the value families (list, hash, set, sorted set) share: the typed
// lookup of read commands and the part of scanGenericCommand that works on
// one key's value.

// lookupRead looks key up for a read command with one of db's typed
// lookups (c.db.LookupHash, LookupSet, LookupZSet, LookupList): a missing
// key is nil, true; a key of another type writes the lookup's error
// (WRONGTYPE) and returns false.
func lookupRead[T any](c *client, lookup func(key []byte) (*T, error), key []byte) (*T, bool) {
	v, err := lookup(key)
	if err != nil {
		c.fail(err)
		return nil, false
	}
	return v, true
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
