// Package pqsort is Redis's pqsort (src/pqsort.c: NetBSD's qsort, Bentley
// and McIlroy's, modified to sort only the partitions that overlap the
// range lrange..rrange), in the version Redis 7.0.15 runs: a partition that
// swapped nothing does not switch to insertion sort (the tie orders of
// GEOSEARCH ... COUNT against redis-server show it). SORT with a BY pattern and a partial LIMIT and
// GEOSEARCH/GEORADIUS with a COUNT below the number of matches use it, so
// that elements comparing equal come out in the order Redis returns them.
// It is not stable and allocates nothing.
package pqsort

// Sort orders s so that s[lrange..rrange] (inclusive) hold what a full
// sort by cmp would put there; elements outside the range are only
// partitioned.
func Sort[T any](s []T, cmp func(a, b *T) int, lrange, rrange int) {
	q := sorter[T]{s: s, cmp: cmp, l: lrange, r: rrange}
	q.sort(0, len(s))
}

type sorter[T any] struct {
	s    []T
	cmp  func(a, b *T) int
	l, r int // the element range to get right
}

func (q *sorter[T]) c(i, j int) int { return q.cmp(&q.s[i], &q.s[j]) }

func (q *sorter[T]) swap(i, j int) { q.s[i], q.s[j] = q.s[j], q.s[i] }

func (q *sorter[T]) vecswap(i, j, n int) {
	for k := 0; k < n; k++ {
		q.swap(i+k, j+k)
	}
}

func (q *sorter[T]) med3(a, b, c int) int {
	if q.c(a, b) < 0 {
		if q.c(b, c) < 0 {
			return b
		}
		if q.c(a, c) < 0 {
			return c
		}
		return a
	}
	if q.c(b, c) > 0 {
		return b
	}
	if q.c(a, c) < 0 {
		return a
	}
	return c
}

func (q *sorter[T]) insertion(a, n int) {
	for pm := a + 1; pm < a+n; pm++ {
		for pl := pm; pl > a && q.c(pl-1, pl) > 0; pl-- {
			q.swap(pl, pl-1)
		}
	}
}

// outside reports whether the elements [s, s+n) lie wholly before or after
// the range to sort.
func (q *sorter[T]) outside(s, n int) bool {
	return (q.l < s && q.r < s) || (q.l >= s+n && q.r >= s+n)
}

// sort is _pqsort over the n elements from a.
func (q *sorter[T]) sort(a, n int) {
	for {
		if n < 7 {
			q.insertion(a, n)
			return
		}
		pm := a + n/2
		if n > 7 {
			pl, pn := a, a+n-1
			if n > 40 {
				d := n / 8
				pl = q.med3(pl, pl+d, pl+2*d)
				pm = q.med3(pm-d, pm, pm+d)
				pn = q.med3(pn-2*d, pn-d, pn)
			}
			pm = q.med3(pl, pm, pn)
		}
		q.swap(a, pm)
		pa, pb := a+1, a+1
		pc, pd := a+n-1, a+n-1
		for {
			for pb <= pc {
				r := q.c(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					q.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := q.c(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					q.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			pb++
			pc--
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		q.vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		q.vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && !q.outside(a, r) {
			q.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = pn-r, r
		if q.outside(a, n) {
			return
		}
	}
}
