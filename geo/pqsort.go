package geo

// PartialSortByDistance orders points so that points[lrange..rrange] hold
// what a full sort would put there, as Redis's pqsort does (pqsort.c, a
// Bentley-McIlroy quicksort that skips the parts outside the range, in
// the version Redis 7.0 ships: no switch to insertion sort after a
// partition without swaps).
// GEOSEARCH ... COUNT uses it when COUNT is below the number of matches;
// porting the algorithm keeps Redis's order among equal distances.
func PartialSortByDistance(points []Point, desc bool, lrange, rrange int) {
	q := pqsorter{p: points, desc: desc, l: lrange, r: rrange}
	q.sort(0, len(points))
}

type pqsorter struct {
	p    []Point
	desc bool
	l, r int // element range to get right
}

// cmp is sort_gp_asc (or its negation, sort_gp_desc).
func (q *pqsorter) cmp(i, j int) int {
	a, b := q.p[i].Dist, q.p[j].Dist
	c := 0
	if a > b {
		c = 1
	} else if a != b {
		c = -1
	}
	if q.desc {
		return -c
	}
	return c
}

func (q *pqsorter) swap(i, j int) { q.p[i], q.p[j] = q.p[j], q.p[i] }

func (q *pqsorter) vecswap(i, j, n int) {
	for k := 0; k < n; k++ {
		q.swap(i+k, j+k)
	}
}

func (q *pqsorter) med3(a, b, c int) int {
	if q.cmp(a, b) < 0 {
		if q.cmp(b, c) < 0 {
			return b
		}
		if q.cmp(a, c) < 0 {
			return c
		}
		return a
	}
	if q.cmp(b, c) > 0 {
		return b
	}
	if q.cmp(a, c) < 0 {
		return a
	}
	return c
}

func (q *pqsorter) insertion(a, n int) {
	for pm := a + 1; pm < a+n; pm++ {
		for pl := pm; pl > a && q.cmp(pl-1, pl) > 0; pl-- {
			q.swap(pl, pl-1)
		}
	}
}

// outside reports whether elements [s, s+m) lie wholly before or after
// the wanted range.
func (q *pqsorter) outside(s, m int) bool {
	return (q.l < s && q.r < s) || (q.l >= s+m && q.r >= s+m)
}

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
		for {
			for pb <= pc {
				c := q.cmp(pb, a)
				if c > 0 {
					break
				}
				if c == 0 {
					q.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				c := q.cmp(pc, a)
				if c < 0 {
					break
				}
				if c == 0 {
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
