package server

import (
	"math"
	"math/rand/v2"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Set commands (Redis 7.0.15 t_set.c).

var setCommands = []commandDef{
	{"sadd", cmdSAdd},
	{"srem", cmdSRem},
	{"scard", cmdSCard},
	{"sismember", cmdSIsMember},
	{"smismember", cmdSMIsMember},
	{"smembers", cmdSMembers},
	{"srandmember", cmdSRandMember},
	{"spop", cmdSPop},
	{"smove", cmdSMove},
	{"sinter", cmdSInter},
	{"sintercard", cmdSInterCard},
	{"sinterstore", cmdSInterStore},
	{"sunion", cmdSUnion},
	{"sunionstore", cmdSUnionStore},
	{"sdiff", cmdSDiff},
	{"sdiffstore", cmdSDiffStore},
	{"sscan", cmdSScan},
}

// Errors of the set family (also used by the sorted set family).
var (
	errNumkeysPositive = protocol.Error("ERR numkeys should be greater than 0")
	errTooManyKeys     = protocol.Error("ERR Number of keys can't be greater than number of args")
	errLimitNegative   = protocol.Error("ERR LIMIT can't be negative")
)

func cmdSAdd(c *client, args [][]byte) {
	n, err := c.db.SetAdd(args[1], args[2:])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdSRem(c *client, args [][]byte) {
	n, err := c.db.SetRem(args[1], args[2:])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdSCard(c *client, args [][]byte) {
	s, ok := lookupRead(c, c.db.LookupSet, args[1])
	if !ok {
		return
	}
	n := 0
	if s != nil {
		n = s.Len()
	}
	c.w.Int(int64(n))
}

func cmdSIsMember(c *client, args [][]byte) {
	s, ok := lookupRead(c, c.db.LookupSet, args[1])
	if !ok {
		return
	}
	c.w.Int(b2i(s != nil && s.Contains(args[2])))
}

func cmdSMIsMember(c *client, args [][]byte) {
	s, ok := lookupRead(c, c.db.LookupSet, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		c.w.Int(b2i(s != nil && s.Contains(m)))
	}
}

// writeSetMembers writes s as a set reply in its iteration order.
func writeSetMembers(c *client, s *db.Set) {
	c.w.Set(s.Len())
	s.Each(func(m []byte) bool {
		c.w.Bulk(m)
		return true
	})
}

func cmdSMembers(c *client, args [][]byte) {
	s, ok := lookupRead(c, c.db.LookupSet, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.w.Set(0)
		return
	}
	writeSetMembers(c, s)
}

func cmdSRandMember(c *client, args [][]byte) {
	if len(args) > 3 {
		c.fail(protocol.ErrSyntax)
		return
	}
	if len(args) == 2 {
		s, ok := lookupRead(c, c.db.LookupSet, args[1])
		if !ok {
			return
		}
		if s == nil {
			c.w.Null()
			return
		}
		var buf [24]byte
		c.w.Bulk(s.Random(&buf))
		return
	}
	l, err := parseRandomCount(args[2])
	if err != nil {
		c.fail(err)
		return
	}
	s, ok := lookupRead(c, c.db.LookupSet, args[1])
	if !ok {
		return
	}
	if s == nil || l == 0 {
		c.w.Array(0)
		return
	}
	srandmemberWithCount(c, s, l)
}

// srandmemberWithCount is srandmemberWithCountCommand: a negative count
// (or 1) allows repeats, a positive one returns distinct members (all of
// them, in iteration order, when count reaches the size).
func srandmemberWithCount(c *client, s *db.Set, l int64) {
	var buf [24]byte
	size := int64(s.Len())
	if l < 0 || l == 1 {
		count := l
		if count < 0 {
			count = -count
		}
		c.w.Array(int(count))
		for range count {
			c.w.Bulk(s.Random(&buf))
		}
		return
	}
	count := l
	if count >= size {
		c.w.Array(int(size))
		s.Each(func(m []byte) bool {
			c.w.Bulk(m)
			return true
		})
		return
	}
	c.w.Array(int(count))
	if count*randomSubStrategyMul > size {
		all := make([]string, 0, size)
		s.Each(func(m []byte) bool {
			all = append(all, string(m))
			return true
		})
		rand.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, m := range all[:count] {
			c.w.BulkString(m)
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		m := s.Random(&buf)
		if _, dup := seen[string(m)]; dup {
			continue
		}
		seen[string(m)] = struct{}{}
		c.w.Bulk(m)
	}
}

func cmdSPop(c *client, args [][]byte) {
	if len(args) > 3 {
		c.fail(protocol.ErrSyntax)
		return
	}
	if len(args) == 2 {
		m, found, err := c.db.SetPopOne(args[1])
		switch {
		case err != nil:
			c.fail(err)
		case !found:
			c.w.Null()
		default:
			c.w.BulkString(m)
			if c.propagating() {
				c.propagateAs(propSREM, args[1], []byte(m))
			}
		}
		return
	}
	count, err := parsePositiveLong(args[2], "")
	if err != nil {
		c.fail(err)
		return
	}
	members, _, err := c.db.SetPop(args[1], count)
	if err != nil {
		c.fail(err)
		return
	}
	propagateSPop(c, args[1], members)
	c.w.Set(len(members))
	for _, m := range members {
		c.w.BulkString(m)
	}
}

func cmdSMove(c *client, args [][]byte) {
	moved, err := c.db.SetMove(args[1], args[2], args[3])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(b2i(moved))
}

// readSets looks up the sets of an algebra command; it writes the error
// and returns false on a wrong type.
func readSets(c *client, keys [][]byte) ([]*db.Set, bool) {
	sets, err := c.db.ReadSets(keys)
	if err != nil {
		c.fail(err)
		return nil, false
	}
	return sets, true
}

// anyMissing reports whether one of sets is a missing key.
func anyMissing(sets []*db.Set) bool {
	for _, s := range sets {
		if s == nil {
			return true
		}
	}
	return false
}

func cmdSInter(c *client, args [][]byte) {
	sets, ok := readSets(c, args[1:])
	if !ok {
		return
	}
	if anyMissing(sets) {
		c.w.Set(0)
		return
	}
	d := c.w.DeferLen()
	n := 0
	db.SetInter(sets, func(m []byte) bool {
		c.w.Bulk(m)
		n++
		return true
	})
	c.w.SetSetLen(d, n)
}

func cmdSInterCard(c *client, args [][]byte) {
	numkeys, err := parseRangeLong(args[1], 1, math.MaxInt64, errNumkeysPositive)
	if err != nil {
		c.fail(err)
		return
	}
	if numkeys > int64(len(args)-2) {
		c.fail(errTooManyKeys)
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(args); j++ {
		if cstrEqualFold(args[j], "limit") && j < len(args)-1 {
			j++
			if limit, err = parsePositiveLong(args[j], errLimitNegative); err != nil {
				c.fail(err)
				return
			}
			continue
		}
		c.fail(protocol.ErrSyntax)
		return
	}
	sets, ok := readSets(c, args[2:2+numkeys])
	if !ok {
		return
	}
	var n int64
	if !anyMissing(sets) {
		db.SetInter(sets, func([]byte) bool {
			n++
			return limit == 0 || n < limit
		})
	}
	c.w.Int(n)
}

func cmdSInterStore(c *client, args [][]byte) {
	sets, ok := readSets(c, args[2:])
	if !ok {
		return
	}
	var result *db.Set
	if !anyMissing(sets) {
		result = c.db.SetInterSet(sets)
	}
	c.w.Int(int64(c.db.StoreSet(args[1], result, db.EvSInterStore)))
}

func cmdSUnion(c *client, args [][]byte) {
	if sets, ok := readSets(c, args[1:]); ok {
		writeSetMembers(c, c.db.SetUnion(sets))
	}
}

func cmdSUnionStore(c *client, args [][]byte) {
	if sets, ok := readSets(c, args[2:]); ok {
		c.w.Int(int64(c.db.StoreSet(args[1], c.db.SetUnion(sets), db.EvSUnionStore)))
	}
}

func cmdSDiff(c *client, args [][]byte) {
	if sets, ok := readSets(c, args[1:]); ok {
		writeSetMembers(c, c.db.SetDiff(sets))
	}
}

func cmdSDiffStore(c *client, args [][]byte) {
	if sets, ok := readSets(c, args[2:]); ok {
		c.w.Int(int64(c.db.StoreSet(args[1], c.db.SetDiff(sets), db.EvSDiffStore)))
	}
}

func cmdSScan(c *client, args [][]byte) {
	s, cursor, ok := lookupForScan(c, args, c.db.LookupSet)
	if !ok {
		return
	}
	scanValue(c, args, cursor, false, func(cur uint64, elems []string) (uint64, []string) {
		next := s.Scan(cur, func(m []byte) { elems = append(elems, string(m)) })
		return next, elems
	})
}
