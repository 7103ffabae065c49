package geo

import (
	"math"
	"slices"
	"strconv"
)

// Point is a search result (geoPoint): a member, its decoded position, its
// distance from the centre in meters and its score.
type Point struct {
	Member    string
	Longitude float64
	Latitude  float64
	Dist      float64
	Score     float64
}

// RangeFunc calls fn with the members whose score is in [min, max), in
// score order, until fn returns false (geoGetPointsInRange's walk of the
// sorted set).
type RangeFunc func(min, max float64, fn func(member string, score float64) bool)

// withinShape is geoAppendIfWithinShape's test. A radius reads cosLat and
// cosLatFast, which Search sets before its first call.
func (s *Shape) withinShape(score float64) (p Point, ok bool) {
	lon, lat := ScoreLonLat(score)
	var dist float64
	if s.Box {
		dist, ok = inRectangle(s.Width*s.Conversion, s.Height*s.Conversion, s.Longitude, s.Latitude, lon, lat)
	} else {
		limit := s.Radius * s.Conversion
		// The great-circle distance is never shorter than the distance
		// along the meridian: that bound costs no trigonometry and
		// rejects the candidates north and south of the circle.
		if clearlyBeyond(latDistance(s.Latitude, lat), limit) ||
			clearlyBeyond(distanceFast(s.Longitude, s.Latitude, s.cosLatFast, lon, lat), limit) {
			return Point{}, false
		}
		dist = distanceCos(s.Longitude, s.Latitude, s.cosLat, lon, lat)
		ok = dist <= limit
	}
	return Point{Longitude: lon, Latitude: lat, Dist: dist, Score: score}, ok
}

// Search returns the members within s, in Redis's unsorted order: the
// centre box, then N, S, E, W, NE, NW, SE, SW, each in score order, a box
// equal to the one processed just before skipped (membersOfAllNeighbors).
// With limit > 0 (COUNT ... ANY) it stops once limit points are found.
func (s *Shape) Search(rangeFn RangeFunc, limit int) []Point {
	c := s.areas()
	if !s.Box {
		s.cosLat, s.cosLatFast = Cos(degRad(s.Latitude)), math.Cos(degRad(s.Latitude))
	}
	boxes := [9]HashBits{c.hash, c.neighbors.North, c.neighbors.South, c.neighbors.East, c.neighbors.West,
		c.neighbors.NorthEast, c.neighbors.NorthWest, c.neighbors.SouthEast, c.neighbors.SouthWest}
	out := make([]Point, 0, 16)
	lastProcessed := 0
	for i, b := range boxes {
		if b.IsZero() {
			continue
		}
		if lastProcessed != 0 && b == boxes[lastProcessed] {
			continue
		}
		if len(out) > 0 && limit > 0 && len(out) >= limit {
			break
		}
		min := Align52(b)
		b.Bits++
		max := Align52(b)
		rangeFn(float64(min), float64(max), func(member string, score float64) bool {
			if p, ok := s.withinShape(score); ok {
				p.Member = member
				out = append(out, p)
			}
			return !(len(out) > 0 && limit > 0 && len(out) >= limit)
		})
		lastProcessed = i
	}
	return out
}

// SortByDistance sorts points by distance, nearest first or (desc)
// farthest first; equal distances keep their order, as glibc's merge sort
// behind Redis's qsort keeps it.
func SortByDistance(points []Point, desc bool) {
	slices.SortStableFunc(points, func(a, b Point) int {
		c := 0
		if a.Dist > b.Dist {
			c = 1
		} else if a.Dist < b.Dist {
			c = -1
		}
		if desc {
			return -c
		}
		return c
	})
}

// AppendDistance appends d as Redis replies distances: "%.4f".
func AppendDistance(b []byte, d float64) []byte {
	return strconv.AppendFloat(b, d, 'f', 4, 64)
}

// AppendHuman appends d as Redis's addReplyHumanLongDouble writes a
// coordinate: "%.17Lf" with trailing zeroes (and a bare dot) removed.
func AppendHuman(b []byte, d float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, d, 'f', 17, 64)
	l := len(b)
	for l > start && b[l-1] == '0' {
		l--
	}
	if l > start && b[l-1] == '.' {
		l--
	}
	b = b[:l]
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}
