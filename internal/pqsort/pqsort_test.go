package pqsort

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRange checks that the wanted range holds what a full sort puts
// there, for random inputs with many ties and random ranges.
func TestSortRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cmp := func(a, b *int) int { return *a - *b }
	for range 2000 {
		n := 1 + r.IntN(200)
		s := make([]int, n)
		for i := range s {
			s[i] = r.IntN(1 + n/3)
		}
		want := slices.Clone(s)
		slices.Sort(want)
		l := r.IntN(n)
		h := l + r.IntN(n-l)
		Sort(s, cmp, l, h)
		if !slices.Equal(s[l:h+1], want[l:h+1]) {
			t.Fatalf("n=%d range %d..%d: got %v, want %v", n, l, h, s[l:h+1], want[l:h+1])
		}
	}
}
