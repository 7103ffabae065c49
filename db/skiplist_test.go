package db

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkZSet verifies every invariant of z against want (the members in
// order): forward order, backward links, tail, length, spans (through
// rank and byRank of every node) and the member dict.
func checkZSet(t *testing.T, z *ZSet, want []zsetEntry) {
	t.Helper()
	if z.Len() != len(want) || z.dict.Len() != len(want) {
		t.Fatalf("len %d, dict %d, want %d", z.Len(), z.dict.Len(), len(want))
	}
	var prev *ZNode
	i := 0
	for n := z.First(); n != nil; n = n.Next() {
		if i >= len(want) || n.member != want[i].member || n.score != want[i].score {
			t.Fatalf("node %d = (%q, %v), want %v", i, n.member, n.score, want)
		}
		if n.Prev() != prev {
			t.Fatalf("node %d: wrong backward link", i)
		}
		if r := z.zsl.rank(n.score, n.member); r != i+1 {
			t.Fatalf("rank of %q = %d, want %d", n.member, r, i+1)
		}
		if z.ByRank(i) != n {
			t.Fatalf("ByRank(%d) is not %q", i, n.member)
		}
		if z.dict.Find(n.member) != n {
			t.Fatalf("dict does not map %q to its node", n.member)
		}
		prev = n
		i++
	}
	if z.Last() != prev {
		t.Fatal("wrong tail")
	}
	for lvl := 0; lvl < z.zsl.level; lvl++ {
		pos := 0
		for x := &z.zsl.header; x.lvl(lvl).forward != nil; x = x.lvl(lvl).forward {
			pos += x.lvl(lvl).span
			if z.ByRank(pos-1) != x.lvl(lvl).forward {
				t.Fatalf("level %d: span sum %d does not lead to its node", lvl, pos)
			}
		}
	}
	for lvl := z.zsl.level; lvl < zslMaxLevel; lvl++ {
		if z.zsl.header.lvl(lvl).forward != nil {
			t.Fatalf("level %d above the list's level is linked", lvl)
		}
	}
}

type zsetEntry struct {
	member string
	score  float64
}

func sortEntries(m map[string]float64) []zsetEntry {
	out := make([]zsetEntry, 0, len(m))
	for k, v := range m {
		out = append(out, zsetEntry{k, v})
	}
	slices.SortFunc(out, func(a, b zsetEntry) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return strings.Compare(a.member, b.member)
	})
	return out
}

// TestSkiplistRandomized applies random inserts, score updates, removals
// and range deletions to a sorted set and a map, checking all invariants.
func TestSkiplistRandomized(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lim := DefaultEncodingLimits()
	z := newZSet(false)
	model := map[string]float64{}
	for op := 0; op < 4000; op++ {
		m := "m" + strconv.Itoa(rng.IntN(300))
		s := float64(rng.IntN(50))
		switch rng.IntN(6) {
		case 0, 1:
			z.add(s, []byte(m), 0, &lim)
			model[m] = s
		case 2:
			z.add(s, []byte(m), ZAddIncr, &lim)
			model[m] += s
		case 3:
			_, had := model[m]
			if z.remove([]byte(m)) != had {
				t.Fatalf("op %d: remove(%s) disagrees with the model", op, m)
			}
			delete(model, m)
		case 4:
			r := ScoreRange{Min: s, Max: s + float64(rng.IntN(3)), MinEx: rng.IntN(2) == 0}
			n := z.zsl.deleteRange(func(x *ZNode) bool { return r.gteMin(x.score) },
				func(x *ZNode) bool { return r.lteMax(x.score) }, z.removedFromDict())
			want := 0
			for k, v := range model {
				if r.gteMin(v) && r.lteMax(v) {
					delete(model, k)
					want++
				}
			}
			if n != want {
				t.Fatalf("op %d: deleteRange removed %d, want %d", op, n, want)
			}
		case 5:
			if len(model) == 0 {
				continue
			}
			start := 1 + rng.IntN(len(model))
			end := min(start+rng.IntN(4), len(model))
			sorted := sortEntries(model)
			n := z.zsl.deleteRangeByRank(start, end, z.removedFromDict())
			for _, e := range sorted[start-1 : end] {
				delete(model, e.member)
			}
			if n != end-start+1 {
				t.Fatalf("op %d: deleteRangeByRank removed %d", op, n)
			}
		}
		if op%97 == 0 || op > 3900 {
			checkZSet(t, z, sortEntries(model))
		}
	}
	checkZSet(t, z, sortEntries(model))
}

func TestZSetRanges(t *testing.T) {
	lim := DefaultEncodingLimits()
	z := newZSet(false)
	for i, m := range []string{"a", "b", "c", "d", "e"} {
		z.add(float64(i+1), []byte(m), 0, &lim)
	}
	tests := []struct {
		min, max    string
		first, last string
		count       int
	}{
		{"1", "5", "a", "e", 5},
		{"(1", "5", "b", "e", 4},
		{"1", "(5", "a", "d", 4},
		{"(1", "(2", "", "", 0},
		{"-inf", "+inf", "a", "e", 5},
		{"6", "10", "", "", 0},
		{"3", "1", "", "", 0},
		{"3", "3", "c", "c", 1},
		{"(3", "3", "", "", 0},
		{"2.5", "3.5", "c", "c", 1},
	}
	for _, tc := range tests {
		r, ok := ParseScoreRange([]byte(tc.min), []byte(tc.max))
		if !ok {
			t.Fatalf("ParseScoreRange(%q, %q) failed", tc.min, tc.max)
		}
		first, last := z.FirstInRange(&r), z.LastInRange(&r)
		name := func(n *ZNode) string {
			if n == nil {
				return ""
			}
			return n.member
		}
		if name(first) != tc.first || name(last) != tc.last || z.Count(&r) != tc.count {
			t.Errorf("[%s, %s]: first %q last %q count %d, want %q %q %d",
				tc.min, tc.max, name(first), name(last), z.Count(&r), tc.first, tc.last, tc.count)
		}
	}
}

func TestLexRanges(t *testing.T) {
	lim := DefaultEncodingLimits()
	z := newZSet(false)
	for _, m := range []string{"a", "b", "bb", "c", "d"} {
		z.add(0, []byte(m), 0, &lim)
	}
	tests := []struct {
		min, max string
		ok       bool
		count    int
	}{
		{"-", "+", true, 5},
		{"[b", "[c", true, 3},
		{"(b", "[c", true, 2},
		{"(b", "(c", true, 1},
		{"[bb", "[bb", true, 1},
		{"(bb", "[bb", true, 0},
		{"+", "-", true, 0},
		{"-", "-", true, 0},
		{"[", "+", true, 5},
		{"(", "+", true, 5},
		{"[z", "+", true, 0},
		{"b", "+", false, 0},
		{"", "+", false, 0},
		{"--", "+", false, 0},
		{"-\x00x", "+", true, 5},
	}
	for _, tc := range tests {
		r, ok := ParseLexRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok {
			t.Errorf("ParseLexRange(%q, %q) ok = %v", tc.min, tc.max, ok)
			continue
		}
		if ok && z.LexCount(&r) != tc.count {
			t.Errorf("LexCount(%q, %q) = %d, want %d", tc.min, tc.max, z.LexCount(&r), tc.count)
		}
	}
}

func TestParseScoreRange(t *testing.T) {
	tests := []struct {
		min, max     string
		ok           bool
		minEx, maxEx bool
	}{
		{"1", "2", true, false, false},
		{"(1", "(2", true, true, true},
		{"", "", true, false, false},
		{"(", "1", true, true, false},
		{" 1", "2", true, false, false},
		{"1 ", "2", false, false, false},
		{"((1", "2", false, false, false},
		{"nan", "2", false, false, false},
		{"1", "abc", false, false, false},
		{"1e999", "2", true, false, false},
	}
	for _, tc := range tests {
		r, ok := ParseScoreRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || (ok && (r.MinEx != tc.minEx || r.MaxEx != tc.maxEx)) {
			t.Errorf("ParseScoreRange(%q, %q) = %+v, %v", tc.min, tc.max, r, ok)
		}
	}
}
