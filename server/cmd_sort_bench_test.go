package server

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkSortVector1000 weighs and sorts 1,000 random integers as SORT
// does (the work of bench/targets.sh's SORT row minus the reply).
func BenchmarkSortVector1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	elems := make([]string, 1000)
	for i := range elems {
		elems[i] = strconv.Itoa(rng.IntN(1000000))
	}
	vec := make([]sortElem, len(elems))
	o := &sortOptions{limitCnt: -1}
	sc := new(sortScratch)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for j, e := range elems {
			f, _ := sortWeight(sbytesOf(e))
			vec[j] = sortElem{obj: e, score: f}
		}
		sortVector(sc, vec, o, false, 0, int64(len(vec))-1)
	}
}

// BenchmarkDispatchSort1000 is bench/targets.sh's SORT row without the
// network: SORT of a list of 1,000 random integers, reply included.
func BenchmarkDispatchSort1000(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	rng := rand.New(rand.NewPCG(3, 4))
	push := argv("RPUSH", "sortnums")
	for range 1000 {
		push = append(push, []byte(strconv.Itoa(rng.IntN(1000000))))
	}
	benchRun(b, s, c, push)
	cmd := argv("SORT", "sortnums")
	b.ReportAllocs()
	for b.Loop() {
		benchRun(b, s, c, cmd)
	}
}
