package db

import "math/rand/v2"

// This file holds the skiplist of sorted sets, a translation of Redis
// t_zset.c's zsl* functions: Pugh's skiplist ordered by (score, member),
// with a span per forward link so that rank lookups are O(log n), and a
// backward link at level 0 for reverse walks.

const (
	zslMaxLevel = 32 // ZSKIPLIST_MAXLEVEL
	// zslLevelThreshold makes each extra level 1/4 as likely (ZSKIPLIST_P).
	zslLevelThreshold = 1 << 30
)

type zlevel struct {
	forward *ZNode
	span    int
}

// ZNode is one member of a sorted set. Callers get nodes from ZSet's
// lookups and walk them with Next and Prev; they must not keep a node past
// the next write to its sorted set.
type ZNode struct {
	// The fields a walk reads come first, so that the score and the two
	// lowest levels (those of 15 nodes in 16) share one cache line.
	score    float64
	level    []zlevel // backed by lv, or a separate array for taller nodes
	lv       [2]zlevel
	backward *ZNode
	member   string
	next     *ZNode // chain of the member dict
}

// Member returns the node's member.
func (n *ZNode) Member() string { return n.member }

// Score returns the node's score.
func (n *ZNode) Score() float64 { return n.score }

// Next returns the following node in ascending order, or nil.
func (n *ZNode) Next() *ZNode { return n.level[0].forward }

// Prev returns the preceding node in ascending order, or nil.
func (n *ZNode) Prev() *ZNode { return n.backward }

func (n *ZNode) dictKey() string      { return n.member }
func (n *ZNode) dictNext() *ZNode     { return n.next }
func (n *ZNode) setDictNext(x *ZNode) { n.next = x }

func newZNode(levels int, score float64, member string) *ZNode {
	n := &ZNode{score: score, member: member}
	n.setLevels(levels)
	return n
}

// setLevels gives the unlinked node n the given number of empty levels,
// in its own storage when they fit.
func (n *ZNode) setLevels(levels int) {
	if levels <= len(n.lv) {
		n.level = n.lv[:levels]
	} else {
		n.level = make([]zlevel, levels)
	}
	clear(n.level)
}

// before reports whether node x sorts before (score, member).
func (x *ZNode) before(score float64, member string) bool {
	return x.score < score || (x.score == score && x.member < member)
}

type skiplist struct {
	header ZNode // sentinel: only its levels are used
	tail   *ZNode
	length int
	level  int
}

func (zsl *skiplist) init() {
	zsl.header.level = make([]zlevel, zslMaxLevel)
	zsl.level = 1
}

func zslRandomLevel() int {
	level := 1
	for level < zslMaxLevel && rand.Uint32() < zslLevelThreshold {
		level++
	}
	return level
}

// insert adds a node for (score, member), which must not be present.
func (zsl *skiplist) insert(score float64, member string) *ZNode {
	x := newZNode(zslRandomLevel(), score, member)
	zsl.link(x)
	return x
}

// link inserts the unlinked node x at the place of its (score, member),
// which must not be present, with the levels x already has (zslInsert).
func (zsl *skiplist) link(x *ZNode) {
	var update [zslMaxLevel]*ZNode
	var rank [zslMaxLevel]int
	score, member := x.score, x.member
	h := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		if i != zsl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := h.level[i].forward; f != nil && f.before(score, member); f = h.level[i].forward {
			rank[i] += h.level[i].span
			h = f
		}
		update[i] = h
	}
	level := len(x.level)
	if level > zsl.level {
		for i := zsl.level; i < level; i++ {
			rank[i] = 0
			update[i] = &zsl.header
			update[i].level[i].span = zsl.length
		}
		zsl.level = level
	}
	for i := 0; i < level; i++ {
		x.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = x
		x.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = rank[0] - rank[i] + 1
	}
	for i := level; i < zsl.level; i++ {
		update[i].level[i].span++
	}
	x.backward = nil
	if update[0] != &zsl.header {
		x.backward = update[0]
	}
	if f := x.level[0].forward; f != nil {
		f.backward = x
	} else {
		zsl.tail = x
	}
	zsl.length++
}

// unlinkNode removes x given the rightmost nodes before it at each level
// (zslDeleteNode).
func (zsl *skiplist) unlinkNode(x *ZNode, update *[zslMaxLevel]*ZNode) {
	for i := 0; i < zsl.level; i++ {
		if update[i].level[i].forward == x {
			update[i].level[i].span += x.level[i].span - 1
			update[i].level[i].forward = x.level[i].forward
		} else {
			update[i].level[i].span--
		}
	}
	if f := x.level[0].forward; f != nil {
		f.backward = x.backward
	} else {
		zsl.tail = x.backward
	}
	for zsl.level > 1 && zsl.header.level[zsl.level-1].forward == nil {
		zsl.level--
	}
	zsl.length--
}

// findUpdate fills update with the rightmost node before (score, member)
// at each level and returns the level-0 successor.
func (zsl *skiplist) findUpdate(score float64, member string, update *[zslMaxLevel]*ZNode) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && f.before(score, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	return x.level[0].forward
}

// delete removes the node (score, member) and returns it, or nil.
func (zsl *skiplist) delete(score float64, member string) *ZNode {
	var update [zslMaxLevel]*ZNode
	x := zsl.findUpdate(score, member, &update)
	if x != nil && x.score == score && x.member == member {
		zsl.unlinkNode(x, &update)
		return x
	}
	return nil
}

// updateScore moves the node x, which is in the list, to newScore
// (zslUpdateScore): in place when the order does not change, otherwise by
// unlinking it and linking it again. Redis links a new node with a fresh
// random level; x keeps its level, which is as random and independent of
// the position, and its storage. The node itself is kept, so the member
// dict needs no change.
func (zsl *skiplist) updateScore(x *ZNode, newScore float64) {
	if (x.backward == nil || x.backward.score < newScore) &&
		(x.level[0].forward == nil || x.level[0].forward.score > newScore) {
		x.score = newScore
		return
	}
	var update [zslMaxLevel]*ZNode
	zsl.findUpdate(x.score, x.member, &update)
	zsl.unlinkNode(x, &update)
	x.score = newScore
	zsl.link(x)
}

// rank returns the 1-based rank of (score, member), or 0 when absent
// (zslGetRank).
func (zsl *skiplist) rank(score float64, member string) int {
	r := 0
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && (f.before(score, member) || (f.score == score && f.member == member)); f = x.level[i].forward {
			r += x.level[i].span
			x = f
		}
		if x != &zsl.header && x.member == member {
			return r
		}
	}
	return 0
}

// byRank returns the node of 1-based rank r, or nil (zslGetElementByRank).
func (zsl *skiplist) byRank(r int) *ZNode {
	traversed := 0
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span <= r {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		if traversed == r {
			if x == &zsl.header {
				return nil
			}
			return x
		}
	}
	return nil
}

// first returns the lowest node, or nil.
func (zsl *skiplist) first() *ZNode { return zsl.header.level[0].forward }

// firstMatching returns the first node for which pastLow is true, given
// that pastLow is false then true along the list (a monotone predicate).
func (zsl *skiplist) firstMatching(pastLow func(*ZNode) bool) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !pastLow(f); f = x.level[i].forward {
			x = f
		}
	}
	return x.level[0].forward
}

// lastMatching returns the last node for which withinHigh is true, given
// that withinHigh is true then false along the list.
func (zsl *skiplist) lastMatching(withinHigh func(*ZNode) bool) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && withinHigh(f); f = x.level[i].forward {
			x = f
		}
	}
	if x == &zsl.header {
		return nil
	}
	return x
}

// deleteRangeByRank unlinks the nodes of 1-based ranks start..end and calls
// removed for each (zslDeleteRangeByRank); it returns how many it removed.
func (zsl *skiplist) deleteRangeByRank(start, end int, removed func(*ZNode)) int {
	var update [zslMaxLevel]*ZNode
	traversed := 0
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span < start {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		update[i] = x
	}
	traversed++
	n := 0
	for y := x.level[0].forward; y != nil && traversed <= end; traversed++ {
		next := y.level[0].forward
		zsl.unlinkNode(y, &update)
		removed(y)
		n++
		y = next
	}
	return n
}

// deleteRange unlinks the run of nodes that starts at the first node for
// which pastLow is true and continues while within is true, calling
// removed for each (zslDeleteRangeByScore and ByLex); it returns how many
// it removed.
func (zsl *skiplist) deleteRange(pastLow, within func(*ZNode) bool, removed func(*ZNode)) int {
	var update [zslMaxLevel]*ZNode
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !pastLow(f); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	n := 0
	for y := x.level[0].forward; y != nil && within(y); {
		next := y.level[0].forward
		zsl.unlinkNode(y, &update)
		removed(y)
		n++
		y = next
	}
	return n
}

// deleteRunFrom unlinks x, which is in the list, and the nodes after it
// while within is true (x itself is not checked), calling removed for
// each; it returns how many it removed.
func (zsl *skiplist) deleteRunFrom(x *ZNode, within func(*ZNode) bool, removed func(*ZNode)) int {
	var update [zslMaxLevel]*ZNode
	zsl.findUpdate(x.score, x.member, &update)
	n := 0
	for y := x; y != nil && (y == x || within(y)); {
		next := y.level[0].forward
		zsl.unlinkNode(y, &update)
		removed(y)
		n++
		y = next
	}
	return n
}
