package db

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// listElems returns the list's elements in order.
func listElems(l *List) []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// TestListAgainstModel runs random operations on a List and on a plain
// slice and compares them after every step, so ring wrap-around, growth,
// shrinking and the middle operations are all exercised.
func TestListAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, seed*7))
		var l List
		var m []string
		for step := 0; step < 3000; step++ {
			v := strconv.Itoa(r.IntN(8))
			op := r.IntN(9)
			switch op {
			case 0, 1:
				l.pushFront(v)
				m = slices.Insert(m, 0, v)
			case 2, 3:
				l.pushBack(v)
				m = append(m, v)
			case 4:
				if len(m) > 0 {
					left := r.IntN(2) == 0
					got := l.pop(left)
					var want string
					if left {
						want, m = m[0], m[1:]
					} else {
						want, m = m[len(m)-1], m[:len(m)-1]
					}
					if got != want {
						t.Fatalf("seed %d step %d: pop %q, want %q", seed, step, got, want)
					}
				}
			case 5:
				i := r.IntN(len(m) + 1)
				l.insert(i, v)
				m = slices.Insert(m, i, v)
			case 6:
				if len(m) > 0 {
					first := r.IntN(len(m))
					n := r.IntN(len(m) - first + 1)
					l.deleteRange(first, n)
					m = slices.Delete(m, first, first+n)
				}
			case 7:
				limit := int64(r.IntN(4))
				fromTail := r.IntN(2) == 0
				got := l.removeMatches([]byte(v), limit, fromTail)
				var want int64
				m, want = modelRemove(m, v, limit, fromTail)
				if got != want {
					t.Fatalf("seed %d step %d: removed %d, want %d", seed, step, got, want)
				}
			case 8:
				if len(m) > 0 {
					i := r.IntN(len(m))
					l.set(i, v)
					m[i] = v
				}
			}
			if got := listElems(&l); !slices.Equal(got, m) {
				t.Fatalf("seed %d step %d op %d: list %v, model %v", seed, step, op, got, m)
			}
			var bytes int64
			for _, v := range m {
				bytes += allocSize(len(v))
			}
			if l.strBytes != bytes {
				t.Fatalf("seed %d step %d op %d: strBytes %d, want %d", seed, step, op, l.strBytes, bytes)
			}
		}
	}
}

func modelRemove(m []string, v string, limit int64, fromTail bool) ([]string, int64) {
	var removed int64
	out := slices.Clone(m)
	if fromTail {
		for i := len(out) - 1; i >= 0; i-- {
			if out[i] == v && (limit <= 0 || removed < limit) {
				out = slices.Delete(out, i, i+1)
				removed++
			}
		}
		return out, removed
	}
	for i := 0; i < len(out); {
		if out[i] == v && (limit <= 0 || removed < limit) {
			out = slices.Delete(out, i, i+1)
			removed++
			continue
		}
		i++
	}
	return out, removed
}

func TestListIndexAndRangeBounds(t *testing.T) {
	var l List
	for _, v := range []string{"a", "b", "c", "d"} {
		l.pushBack(v)
	}
	idx := []struct {
		i    int64
		want string
		ok   bool
	}{
		{0, "a", true}, {3, "d", true}, {4, "", false}, {-1, "d", true}, {-4, "a", true},
		{-5, "", false}, {-9223372036854775808, "", false}, {9223372036854775807, "", false},
	}
	for _, tc := range idx {
		got, ok := l.Index(tc.i)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Index(%d) = %q, %v; want %q, %v", tc.i, got, ok, tc.want, tc.ok)
		}
	}
	ranges := []struct {
		start, stop int64
		first, n    int
	}{
		{0, -1, 0, 4}, {1, 2, 1, 2}, {-2, -1, 2, 2}, {-100, 100, 0, 4}, {2, 1, 0, 0},
		{4, 10, 0, 0}, {-1, -2, 0, 0}, {0, 0, 0, 1},
		{-9223372036854775808, 9223372036854775807, 0, 4},
	}
	for _, tc := range ranges {
		first, n := l.RangeBounds(tc.start, tc.stop)
		if first != tc.first || n != tc.n {
			t.Errorf("RangeBounds(%d, %d) = %d, %d; want %d, %d", tc.start, tc.stop, first, n, tc.first, tc.n)
		}
	}
}

func TestListShrinksAfterPops(t *testing.T) {
	var l List
	for i := range 10000 {
		l.pushBack(strconv.Itoa(i))
	}
	big := len(l.buf)
	l.deleteRange(0, 9990)
	if len(l.buf) >= big {
		t.Fatalf("ring kept %d slots for %d elements", len(l.buf), l.Len())
	}
	if got := listElems(&l); got[0] != "9990" || got[9] != "9999" {
		t.Fatalf("elements after shrink: %v", got)
	}
}

func TestListDupIsDeep(t *testing.T) {
	var l List
	l.pushBack("a")
	l.pushFront("z")
	c := l.dup().(*List)
	l.set(0, "changed")
	if got := listElems(c); !slices.Equal(got, []string{"z", "a"}) {
		t.Fatalf("copy changed with the original: %v", got)
	}
	if c.encoding() != "quicklist" {
		t.Fatalf("encoding %q", c.encoding())
	}
}
