package db

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Sorted set algebra: ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms
// (Redis 7.0 zunionInterDiffGenericCommand). Inputs may be sorted sets or
// plain sets (whose members score 1). Scores are combined in Redis's order
// (inputs sorted by size, ascending) so sums round the same way.

// ZSource is one input: a sorted set, a set, or nothing (a missing key),
// with the weight its scores are multiplied by.
type ZSource struct {
	z      *ZSet
	s      *Set
	Weight float64
}

// Aggregate says how the scores of one member in several inputs combine.
type Aggregate uint8

// AGGREGATE options.
const (
	AggSum Aggregate = iota
	AggMin
	AggMax
)

// ReadZSources looks up keys as inputs (read lookups), each with weight 1.
// The first key holding something other than a sorted set or a set stops
// with ErrWrongType.
func (d *DB) ReadZSources(keys [][]byte) ([]ZSource, error) {
	srcs := make([]ZSource, len(keys))
	for i, k := range keys {
		srcs[i].Weight = 1
		e := d.lookup(bstr(k), lookupRead)
		if e == nil {
			continue
		}
		switch e.typ() {
		case TypeZSet:
			srcs[i].z = e.val.(*ZSet)
		case TypeSet:
			srcs[i].s = e.val.(*Set)
		default:
			return nil, protocol.ErrWrongType
		}
	}
	return srcs, nil
}

// Len returns the number of members of the input.
func (src *ZSource) Len() int {
	switch {
	case src.z != nil:
		return src.z.Len()
	case src.s != nil:
		return src.s.Len()
	}
	return 0
}

// same reports whether two inputs are the same value (a key given twice).
func (src *ZSource) same(o *ZSource) bool {
	return (src.z != nil && src.z == o.z) || (src.s != nil && src.s == o.s)
}

// find returns member's unweighted score in the input.
func (src *ZSource) find(member string) (float64, bool) {
	switch {
	case src.z != nil:
		if n := src.z.dict.Find(member); n != nil {
			return n.score, true
		}
	case src.s != nil:
		if src.s.Contains(sbytes(member)) {
			return 1, true
		}
	}
	return 0, false
}

// each calls fn with every member and its unweighted score.
func (src *ZSource) each(fn func(member string, score float64)) {
	switch {
	case src.z != nil:
		for n := src.z.zsl.tail; n != nil; n = n.backward {
			fn(n.member, n.score)
		}
	case src.s != nil && src.s.ht != nil:
		src.s.ht.Each(func(m *setMember) bool {
			fn(m.m, 1)
			return true
		})
	case src.s != nil:
		for _, v := range src.s.ints {
			fn(strconv.FormatInt(v, 10), 1)
		}
	}
}

// aggregate folds val into *target (zunionInterAggregate): a sum that is
// NaN (+inf plus -inf) becomes 0.
func aggregate(target *float64, val float64, agg Aggregate) {
	switch agg {
	case AggSum:
		*target += val
		if math.IsNaN(*target) {
			*target = 0
		}
	case AggMin:
		if val < *target {
			*target = val
		}
	case AggMax:
		if val > *target {
			*target = val
		}
	}
}

// weighted returns w*score, with NaN (0 times infinity) as 0.
func weighted(w, score float64) float64 {
	s := w * score
	if math.IsNaN(s) {
		return 0
	}
	return s
}

func bySize(srcs []ZSource) []ZSource {
	sorted := slices.Clone(srcs)
	slices.SortStableFunc(sorted, func(a, b ZSource) int { return cmp.Compare(a.Len(), b.Len()) })
	return sorted
}

// ZUnion returns the union of srcs as a new (skiplist-encoded) sorted set,
// and the length of its longest member.
func ZUnion(srcs []ZSource, agg Aggregate) (*ZSet, int) {
	sorted := bySize(srcs)
	acc := make(map[string]float64, sorted[len(sorted)-1].Len())
	for i := range sorted {
		src := &sorted[i]
		src.each(func(m string, s float64) {
			score := weighted(src.Weight, s)
			if cur, ok := acc[m]; ok {
				aggregate(&cur, score, agg)
				acc[m] = cur
			} else {
				acc[m] = score
			}
		})
	}
	z := newZSet(false)
	z.dict.expand(len(acc))
	maxLen := 0
	for m, s := range acc {
		z.insertNew(s, m)
		maxLen = max(maxLen, len(m))
	}
	return z, maxLen
}

// interEach calls fn with each member of the intersection and its
// combined score, until fn returns false.
func interEach(srcs []ZSource, agg Aggregate, fn func(member string, score float64) bool) {
	sorted := bySize(srcs)
	first := &sorted[0]
	if first.Len() == 0 {
		return
	}
	stop := false
	first.each(func(m string, s float64) {
		if stop {
			return
		}
		score := weighted(first.Weight, s)
		for j := 1; j < len(sorted); j++ {
			other := &sorted[j]
			if other.same(first) {
				aggregate(&score, s*other.Weight, agg)
				continue
			}
			v, ok := other.find(m)
			if !ok {
				return
			}
			aggregate(&score, v*other.Weight, agg)
		}
		stop = !fn(m, score)
	})
}

// ZInter returns the intersection of srcs as a new (skiplist-encoded)
// sorted set, and the length of its longest member.
func ZInter(srcs []ZSource, agg Aggregate) (*ZSet, int) {
	z := newZSet(false)
	maxLen := 0
	interEach(srcs, agg, func(m string, s float64) bool {
		z.insertNew(s, m)
		maxLen = max(maxLen, len(m))
		return true
	})
	return z, maxLen
}

// ZInterCard returns the size of the intersection of srcs, counting no
// further than limit when limit > 0 (ZINTERCARD).
func ZInterCard(srcs []ZSource, limit int64) int64 {
	var n int64
	interEach(srcs, AggSum, func(string, float64) bool {
		n++
		return limit == 0 || n < limit
	})
	return n
}

// ZDiff returns the members of srcs[0] found in no other input, with their
// scores, as a new (skiplist-encoded) sorted set, and the length of its
// longest member. A key given twice (srcs[0] again) empties the result.
func ZDiff(srcs []ZSource) (*ZSet, int) {
	z := newZSet(false)
	first := &srcs[0]
	if first.Len() == 0 {
		return z, 0
	}
	for j := 1; j < len(srcs); j++ {
		if srcs[j].same(first) {
			return z, 0
		}
	}
	maxLen := 0
	first.each(func(m string, s float64) {
		for j := 1; j < len(srcs); j++ {
			if _, ok := srcs[j].find(m); ok {
				return
			}
		}
		z.insertNew(s, m)
		maxLen = max(maxLen, len(m))
	})
	return z, maxLen
}

// StoreZSet stores z, a result of ZUnion, ZInter or ZDiff whose longest
// member is maxLen bytes, at dst (ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE):
// it takes the listpack encoding when small enough, replaces any value at
// dst and is signalled with ev; an empty z deletes dst. It returns z's
// size.
func (d *DB) StoreZSet(dst []byte, z *ZSet, maxLen int, ev Event) int {
	if z.Len() > 0 {
		z.toListpackIfSmall(maxLen, &d.ks.limits)
	}
	return d.storeZSet(dst, z, ev)
}
