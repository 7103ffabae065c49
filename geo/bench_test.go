package geo

import (
	"sort"
	"testing"
)

var sink float64

func BenchmarkSinCR(b *testing.B) {
	x := 0.3
	for b.Loop() {
		sink += Sin(x)
		x += 1e-9
	}
}

func BenchmarkCosCR(b *testing.B) {
	x := 1.2
	for b.Loop() {
		sink += Cos(x)
		x += 1e-9
	}
}

func BenchmarkAsinCR(b *testing.B) {
	x := 0.01
	for b.Loop() {
		sink += Asin(x)
		x += 1e-12
	}
}

func BenchmarkDistance(b *testing.B) {
	x := 0.01
	for b.Loop() {
		sink += Distance(13.361389, 38.115556, 15.087269+x, 37.502669)
		x += 1e-9
	}
}

func BenchmarkSearch100k(b *testing.B) {
	rng := uint64(19)
	next := func() float64 {
		rng = rng*6364136223846793005 + 1442695040888963407
		return float64(rng>>11) / (1 << 53)
	}
	scores := make([]float64, 100000)
	for i := range scores {
		scores[i] = float64(Score(next()*360-180, next()*170-85))
	}
	slicesSort(scores)
	rangeFn := func(min, max float64, fn func(string, float64) bool) {
		lo, hi := 0, len(scores)
		for lo < hi {
			m := (lo + hi) / 2
			if scores[m] < min {
				lo = m + 1
			} else {
				hi = m
			}
		}
		for i := lo; i < len(scores) && scores[i] < max; i++ {
			if !fn("m", scores[i]) {
				return
			}
		}
	}
	for b.Loop() {
		s := Shape{Longitude: 13.361389, Latitude: 38.115556, Radius: 100, Conversion: 1000}
		pts := s.Search(rangeFn, 0)
		SortByDistance(pts, false)
	}
}

func slicesSort(s []float64) { sort.Float64s(s) }
