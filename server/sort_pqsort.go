package server

// pqsortPerm is Redis's pqsort (pqsort.c: NetBSD's qsort, Bentley and
// McIlroy's, modified to sort only the partitions that overlap the range
// lrange..rrange) over the permutation p of vec. SORT uses it with a BY
// pattern and a LIMIT that does not cover every element; reproducing it
// step by step keeps the order of elements that compare equal (ALPHA BY
// values that are missing or the same) the one Redis returns.
func pqsortPerm(vec []sortElem, p []int32, cmp func(a, b *sortElem) int, lrange, rrange int) {
	q := pqsorter{vec: vec, p: p, cmp: cmp, lrange: lrange, rrange: rrange}
	q.sort(0, len(p))
}

type pqsorter struct {
	vec            []sortElem
	p              []int32
	cmp            func(a, b *sortElem) int
	lrange, rrange int
}

func (q *pqsorter) c(i, j int) int { return q.cmp(&q.vec[q.p[i]], &q.vec[q.p[j]]) }
func (q *pqsorter) swap(i, j int)  { q.p[i], q.p[j] = q.p[j], q.p[i] }

func (q *pqsorter) vecswap(i, j, n int) {
	for k := 0; k < n; k++ {
		q.swap(i+k, j+k)
	}
}

func (q *pqsorter) med3(a, b, c int) int {
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

func (q *pqsorter) insertion(a, n int) {
	for pm := a + 1; pm < a+n; pm++ {
		for pl := pm; pl > a && q.c(pl-1, pl) > 0; pl-- {
			q.swap(pl, pl-1)
		}
	}
}

// outside reports whether the elements [s, s+n) lie wholly before or after
// the range to sort.
func (q *pqsorter) outside(s, n int) bool {
	return (q.lrange < s && q.rrange < s) || (q.lrange >= s+n && q.rrange >= s+n)
}

// sort is _pqsort over the n elements from a.
func (q *pqsorter) sort(a, n int) {
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
		swapped := false
		for {
			for pb <= pc {
				r := q.c(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swapped = true
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
					swapped = true
					q.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			swapped = true
			pb++
			pc--
		}
		if !swapped {
			q.insertion(a, n)
			return
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
