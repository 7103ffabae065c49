package db

import (
	"math/rand/v2"
	"unsafe"
)

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
	// A node is allocated with its levels right behind it (see newZNode):
	// 64 bytes for a one-level node (three in four), so that a walk reads
	// one cache line per node at the bottom levels, as Redis's node with
	// its flexible level array does.
	score    float64
	levels   *zlevel // level 0; level i is 16*i bytes further (lvl)
	backward *ZNode
	member   string
	next     *ZNode // chain of the member dict
}

// lvl returns level i of n, which must be below n's level count.
func (n *ZNode) lvl(i int) *zlevel {
	return (*zlevel)(unsafe.Add(unsafe.Pointer(n.levels), uintptr(i)*unsafe.Sizeof(zlevel{})))
}

// Member returns the node's member.
func (n *ZNode) Member() string { return n.member }

// Score returns the node's score.
func (n *ZNode) Score() float64 { return n.score }

// Next returns the following node in ascending order, or nil.
func (n *ZNode) Next() *ZNode { return n.levels.forward }

// Prev returns the preceding node in ascending order, or nil.
func (n *ZNode) Prev() *ZNode { return n.backward }

func (n *ZNode) dictKey() string      { return n.member }
func (n *ZNode) dictNext() *ZNode     { return n.next }
func (n *ZNode) setDictNext(x *ZNode) { n.next = x }

// zlevels is a node allocated with its array of levels A.
type zlevels[A any] struct {
	ZNode
	l A
}

func newZNodeWith[A any](score float64, member string) *ZNode {
	a := &zlevels[A]{ZNode: ZNode{score: score, member: member}}
	a.levels = (*zlevel)(unsafe.Pointer(&a.l))
	return &a.ZNode
}

// newZNode allocates an unlinked node with the given number of levels,
// in the smallest of the node sizes that holds them.
func newZNode(levels int, score float64, member string) *ZNode {
	switch {
	case levels == 1:
		return newZNodeWith[[1]zlevel](score, member)
	case levels == 2:
		return newZNodeWith[[2]zlevel](score, member)
	case levels <= 4:
		return newZNodeWith[[4]zlevel](score, member)
	case levels <= 8:
		return newZNodeWith[[8]zlevel](score, member)
	case levels <= 16:
		return newZNodeWith[[16]zlevel](score, member)
	}
	return newZNodeWith[[zslMaxLevel]zlevel](score, member)
}

// before reports whether node x sorts before (score, member).
func (x *ZNode) before(score float64, member string) bool {
	return x.score < score || (x.score == score && x.member < member)
}

type skiplist struct {
	header ZNode // sentinel: only its levels (all 32) are used
	tail   *ZNode
	length int
	level  int
}

func (zsl *skiplist) init() {
	zsl.header.levels = &make([]zlevel, zslMaxLevel)[0]
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
	level := zslRandomLevel()
	x := newZNode(level, score, member)
	zsl.link(x, level)
	return x
}

// link inserts the unlinked node x at the place of its (score, member),
// which must not be present, with its first level levels (zslInsert).
func (zsl *skiplist) link(x *ZNode, level int) {
	var update [zslMaxLevel]*ZNode
	var rank [zslMaxLevel]int
	score, member := x.score, x.member
	h := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		if i != zsl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := h.lvl(i).forward; f != nil && f.before(score, member); f = h.lvl(i).forward {
			rank[i] += h.lvl(i).span
			h = f
		}
		update[i] = h
	}
	if level > zsl.level {
		for i := zsl.level; i < level; i++ {
			rank[i] = 0
			update[i] = &zsl.header
			update[i].lvl(i).span = zsl.length
		}
		zsl.level = level
	}
	for i := 0; i < level; i++ {
		x.lvl(i).forward = update[i].lvl(i).forward
		update[i].lvl(i).forward = x
		x.lvl(i).span = update[i].lvl(i).span - (rank[0] - rank[i])
		update[i].lvl(i).span = rank[0] - rank[i] + 1
	}
	for i := level; i < zsl.level; i++ {
		update[i].lvl(i).span++
	}
	x.backward = nil
	if update[0] != &zsl.header {
		x.backward = update[0]
	}
	if f := x.lvl(0).forward; f != nil {
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
		if update[i].lvl(i).forward == x {
			update[i].lvl(i).span += x.lvl(i).span - 1
			update[i].lvl(i).forward = x.lvl(i).forward
		} else {
			update[i].lvl(i).span--
		}
	}
	if f := x.lvl(0).forward; f != nil {
		f.backward = x.backward
	} else {
		zsl.tail = x.backward
	}
	for zsl.level > 1 && zsl.header.lvl(zsl.level-1).forward == nil {
		zsl.level--
	}
	zsl.length--
}

// findUpdate fills update with the rightmost node before (score, member)
// at each level and returns the level-0 successor.
func (zsl *skiplist) findUpdate(score float64, member string, update *[zslMaxLevel]*ZNode) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && f.before(score, member); f = x.lvl(i).forward {
			x = f
		}
		update[i] = x
	}
	return x.lvl(0).forward
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
		(x.lvl(0).forward == nil || x.lvl(0).forward.score > newScore) {
		x.score = newScore
		return
	}
	var update [zslMaxLevel]*ZNode
	zsl.findUpdate(x.score, x.member, &update)
	level := 0 // x's own: the levels at which its predecessor links to it
	for level < zsl.level && update[level].lvl(level).forward == x {
		level++
	}
	zsl.unlinkNode(x, &update)
	x.score = newScore
	zsl.link(x, level)
}

// rank returns the 1-based rank of (score, member), or 0 when absent
// (zslGetRank).
func (zsl *skiplist) rank(score float64, member string) int {
	r := 0
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && (f.before(score, member) || (f.score == score && f.member == member)); f = x.lvl(i).forward {
			r += x.lvl(i).span
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
		for x.lvl(i).forward != nil && traversed+x.lvl(i).span <= r {
			traversed += x.lvl(i).span
			x = x.lvl(i).forward
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
func (zsl *skiplist) first() *ZNode { return zsl.header.lvl(0).forward }

// firstMatching returns the first node for which pastLow is true, given
// that pastLow is false then true along the list (a monotone predicate).
func (zsl *skiplist) firstMatching(pastLow func(*ZNode) bool) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && !pastLow(f); f = x.lvl(i).forward {
			x = f
		}
	}
	return x.lvl(0).forward
}

// lastMatching returns the last node for which withinHigh is true, given
// that withinHigh is true then false along the list.
func (zsl *skiplist) lastMatching(withinHigh func(*ZNode) bool) *ZNode {
	x := &zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.lvl(i).forward; f != nil && withinHigh(f); f = x.lvl(i).forward {
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
		for x.lvl(i).forward != nil && traversed+x.lvl(i).span < start {
			traversed += x.lvl(i).span
			x = x.lvl(i).forward
		}
		update[i] = x
	}
	traversed++
	n := 0
	for y := x.lvl(0).forward; y != nil && traversed <= end; traversed++ {
		next := y.lvl(0).forward
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
		for f := x.lvl(i).forward; f != nil && !pastLow(f); f = x.lvl(i).forward {
			x = f
		}
		update[i] = x
	}
	n := 0
	for y := x.lvl(0).forward; y != nil && within(y); {
		next := y.lvl(0).forward
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
		next := y.lvl(0).forward
		zsl.unlinkNode(y, &update)
		removed(y)
		n++
		y = next
	}
	return n
}
