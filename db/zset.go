package db

import (
	"math"
	"math/rand/v2"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Sorted set values (Redis 7.0 t_zset.c's type API). Every sorted set is a
// skiplist plus a member dict whose nodes are the skiplist's nodes, so
// lookups by member are O(1) and rank operations O(log n) whatever the
// encoding. The encoding Redis would use is tracked as a flag: "listpack"
// until the set grows beyond zset-max-listpack-entries members or receives
// a member longer than zset-max-listpack-value bytes, then "skiplist" for
// good (Z*STORE results may start compact). While "listpack", scores are
// stored as Redis stores them in a listpack, which turns -0 into 0.

// Events raised by sorted set writes.
var (
	EvZAdd             = Event{ClassZSet, "zadd"}
	EvZIncr            = Event{ClassZSet, "zincr"}
	EvZRem             = Event{ClassZSet, "zrem"}
	EvZRemRangeByRank  = Event{ClassZSet, "zremrangebyrank"}
	EvZRemRangeByScore = Event{ClassZSet, "zremrangebyscore"}
	EvZRemRangeByLex   = Event{ClassZSet, "zremrangebylex"}
	EvZUnionStore      = Event{ClassZSet, "zunionstore"}
	EvZInterStore      = Event{ClassZSet, "zinterstore"}
	EvZDiffStore       = Event{ClassZSet, "zdiffstore"}
	EvZRangeStore      = Event{ClassZSet, "zrangestore"}
	EvZPopMin          = Event{ClassZSet, "zpopmin"}
	EvZPopMax          = Event{ClassZSet, "zpopmax"}
)

// ErrZScoreNaN is ZADD INCR's and ZINCRBY's error when the new score
// would be NaN (+inf plus -inf).
var ErrZScoreNaN = protocol.Error("ERR resulting score is not a number (NaN)")

// ZSet is a sorted set value. Its exported methods only read.
type ZSet struct {
	memAccount
	zsl       skiplist
	dict      dict[ZNode, *ZNode]
	listpack  bool
	elemBytes int64 // allocated bytes of the nodes and members (typesize.go)
}

func newZSet(listpack bool) *ZSet {
	z := &ZSet{listpack: listpack}
	z.zsl.init()
	return z
}

// Len returns the number of members.
func (z *ZSet) Len() int { return z.zsl.length }

// IsListpack reports whether Redis would still use the compact encoding.
func (z *ZSet) IsListpack() bool { return z.listpack }

func (z *ZSet) encoding() string {
	if z.listpack {
		return "listpack"
	}
	return "skiplist"
}

// lpScore is the score a listpack gives back for s: an integral double
// in +-2^62 is stored as an integer, so -0 comes back as 0.
func lpScore(s float64) float64 {
	if s == 0 {
		return 0
	}
	return s
}

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	if n := z.dict.Find(bstr(member)); n != nil {
		return n.score, true
	}
	return 0, false
}

// Rank returns member's 0-based rank, counted from the highest score when
// rev is set.
func (z *ZSet) Rank(member []byte, rev bool) (int, bool) {
	n := z.dict.Find(bstr(member))
	if n == nil {
		return 0, false
	}
	r := z.zsl.rank(n.score, n.member)
	if rev {
		return z.zsl.length - r, true
	}
	return r - 1, true
}

// ByRank returns the node of 0-based rank r (ascending), or nil.
func (z *ZSet) ByRank(r int) *ZNode {
	if r < 0 || r >= z.zsl.length {
		return nil
	}
	if r == 0 {
		return z.zsl.first()
	}
	if r == z.zsl.length-1 {
		return z.zsl.tail
	}
	return z.zsl.byRank(r + 1)
}

// First returns the lowest node, or nil.
func (z *ZSet) First() *ZNode { return z.zsl.first() }

// Last returns the highest node, or nil.
func (z *ZSet) Last() *ZNode { return z.zsl.tail }

// Random returns a random node; the set must not be empty.
//
// A listpack-encoded set picks a uniform rank, as lpRandomPair does; a
// skiplist-encoded one a fair random dict entry (dictGetFairRandomKey).
func (z *ZSet) Random() *ZNode {
	if z.listpack {
		return z.ByRank(rand.IntN(z.zsl.length))
	}
	return z.dict.FairRandom()
}

// Each calls fn for every node in ascending order until fn returns false.
func (z *ZSet) Each(fn func(n *ZNode) bool) {
	for n := z.zsl.first(); n != nil; n = n.Next() {
		if !fn(n) {
			return
		}
	}
}

// Scan runs one ZSCAN step from cursor: a listpack passes every node in
// order and returns 0; otherwise one cursor position of the member dict.
func (z *ZSet) Scan(cursor uint64, fn func(n *ZNode)) uint64 {
	if z.listpack {
		for n := z.zsl.first(); n != nil; n = n.Next() {
			fn(n)
		}
		return 0
	}
	return z.dict.Scan(cursor, fn)
}

// AppendScore appends score as ZSCAN prints it for this set's encoding:
// the listpack's stored text (d2string), or "%.17Lg" for a skiplist.
func (z *ZSet) AppendScore(b []byte, score float64) []byte {
	if z.listpack {
		return protocol.AppendFloat17(b, score)
	}
	return protocol.AppendDouble17(b, score)
}

func (z *ZSet) dup() object {
	n := newZSet(z.listpack)
	n.dict.expand(z.Len())
	for x := z.zsl.tail; x != nil; x = x.backward {
		n.insertNew(x.score, x.member)
	}
	return n
}

// insertNew adds a member known to be absent.
func (z *ZSet) insertNew(score float64, member string) *ZNode {
	n := z.zsl.insert(score, member)
	z.dict.Insert(n)
	z.elemBytes += zelemSize(n)
	return n
}

// remove deletes member and reports whether it was there (zsetDel).
func (z *ZSet) remove(member []byte) bool {
	n := z.dict.Remove(bstr(member))
	if n == nil {
		return false
	}
	z.zsl.delete(n.score, n.member)
	z.elemBytes -= zelemSize(n)
	if z.dict.NeedsShrink() {
		z.dict.Shrink()
	}
	return true
}

// removeNode deletes node n, which is in the set.
func (z *ZSet) removeNode(n *ZNode) {
	z.dict.Remove(n.member)
	z.zsl.delete(n.score, n.member)
	z.elemBytes -= zelemSize(n)
}

// toListpackIfSmall switches a freshly built set to the listpack encoding
// when it fits (zsetConvertToListpackIfNeeded); maxLen is its longest
// member's length.
func (z *ZSet) toListpackIfSmall(maxLen int, lim *EncodingLimits) {
	if z.listpack || int64(z.Len()) > lim.ZSetMaxListpackEntries || int64(maxLen) > lim.ZSetMaxListpackValue {
		return
	}
	z.listpack = true
	for n := z.zsl.first(); n != nil; n = n.Next() {
		n.score = lpScore(n.score) // order is unchanged: -0 == 0
	}
}

// ZAddFlags are ZADD's options (Redis's ZADD_IN_* flags).
type ZAddFlags uint8

// ZADD options.
const (
	ZAddIncr ZAddFlags = 1 << iota
	ZAddNX
	ZAddXX
	ZAddGT
	ZAddLT
)

// zaddResult is zsetAdd's outcome for one element (ZADD_OUT_*).
type zaddResult uint8

const (
	zaddNop zaddResult = iota
	zaddAdded
	zaddUpdated
	zaddUnchanged // processed, score kept (same score or +0 increment)
)

// add is zsetAdd: it adds member or updates its score under flags and
// returns what happened and the member's resulting score. ok is false when
// an increment produces NaN.
func (z *ZSet) add(score float64, member []byte, flags ZAddFlags, lim *EncodingLimits) (res zaddResult, newScore float64, ok bool) {
	if math.IsNaN(score) {
		return zaddNop, 0, false
	}
	if n := z.dict.Find(bstr(member)); n != nil {
		if flags&ZAddNX != 0 {
			return zaddNop, 0, true
		}
		cur := n.score
		if flags&ZAddIncr != 0 {
			score += cur
			if math.IsNaN(score) {
				return zaddNop, 0, false
			}
		}
		if (flags&ZAddLT != 0 && score >= cur) || (flags&ZAddGT != 0 && score <= cur) {
			return zaddNop, 0, true
		}
		newScore = score
		if z.listpack {
			score = lpScore(score)
		}
		if score == cur {
			return zaddUnchanged, newScore, true
		}
		z.zsl.updateScore(n, score)
		return zaddUpdated, newScore, true
	}
	if flags&ZAddXX != 0 {
		return zaddNop, 0, true
	}
	if z.listpack && (int64(z.Len())+1 > lim.ZSetMaxListpackEntries || int64(len(member)) > lim.ZSetMaxListpackValue) {
		z.listpack = false
	}
	newScore = score
	if z.listpack {
		score = lpScore(score)
	}
	z.insertNew(score, string(member))
	return zaddAdded, newScore, true
}
