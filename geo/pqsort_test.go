package geo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPartialSortPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 500; round++ {
		n := 1 + rng.IntN(120)
		pts := make([]Point, n)
		for i := range pts {
			pts[i] = Point{Member: string(rune('a' + i%26)), Dist: float64(rng.IntN(10))}
		}
		want := slices.Clone(pts)
		desc := rng.IntN(2) == 0
		SortByDistance(want, desc)
		k := 1 + rng.IntN(n)
		PartialSortByDistance(pts, desc, 0, k-1)
		for i := 0; i < k; i++ {
			if pts[i].Dist != want[i].Dist {
				t.Fatalf("n=%d k=%d desc=%v: position %d has %v, want %v", n, k, desc, i, pts[i].Dist, want[i].Dist)
			}
		}
	}
}
