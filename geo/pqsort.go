package geo

import "github.com/miniwatchd/miniwatchd/internal/pqsort"

// PartialSortByDistance orders points so that points[lrange..rrange] hold
// what a full sort by distance would put there, with Redis's pqsort (so
// points at equal distances come out in Redis's order). GEOSEARCH ...
// COUNT uses it when COUNT is below the number of matches.
func PartialSortByDistance(points []Point, desc bool, lrange, rrange int) {
	cmp := distAsc // sort_gp_asc
	if desc {
		cmp = distDesc // sort_gp_desc
	}
	pqsort.Sort(points, cmp, lrange, rrange)
}

func distAsc(a, b *Point) int {
	switch {
	case a.Dist > b.Dist:
		return 1
	case a.Dist == b.Dist:
		return 0
	}
	return -1
}

func distDesc(a, b *Point) int { return -distAsc(a, b) }
