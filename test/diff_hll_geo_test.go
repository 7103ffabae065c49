package test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestDiffPFCountMillion adds 1,000,000 random elements to one HyperLogLog
// on both servers and, at checkpoints from 1 to 1,000,000 elements,
// compares PFCOUNT, the raw value (GET: sparse while small, dense later)
// and, for a second key that stays sparse, the union, PFMERGE's result and
// the merged bytes.
func TestDiffPFCountMillion(t *testing.T) {
	p := newDiffPair(t)
	c := p.Conn("A")
	rng := rand.New(rand.NewPCG(modelSeed(), 19))
	checkpoints := []int{1, 2, 3, 10, 30, 100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000, 30000, 100000, 300000, 1000000}
	start := time.Now()
	added := 0
	elem := func() string {
		b := make([]byte, 1+rng.IntN(24))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return string(b)
	}
	for _, cp := range checkpoints {
		for added < cp {
			n := min(cp-added, 2000)
			args := make([]string, 0, n+2)
			args = append(args, "PFADD", "big")
			for i := 0; i < n; i++ {
				args = append(args, elem())
			}
			c.Do(args...)
			added += n
		}
		p.where = "after " + strconv.Itoa(added) + " elements"
		c.Do("GET", "big") // cache invalid
		c.Do("PFCOUNT", "big")
		c.Do("GET", "big") // cache written
		c.Do("PFDEBUG", "ENCODING", "big")
		if cp <= 300 {
			c.Do("PFADD", "small", elem(), elem())
		}
		c.Do("PFCOUNT", "big", "small")
		c.Do("PFMERGE", "merged", "small", "big")
		c.Do("GET", "merged")
		c.Do("PFCOUNT", "small")
		c.Do("GET", "small")
	}
	t.Logf("%d elements, %d checkpoints, in %v", added, len(checkpoints), time.Since(start).Round(time.Millisecond))
}

// compareScoresNear compares the scores of the sorted set key on both
// servers to within 1e-12 relative. Full-precision distances (STOREDIST)
// may differ in the last bit: glibc's sin, cos and asin are not correctly
// rounded in about 0.1% of cases and geo's are (see geo/crmath.go).
func compareScoresNear(t *testing.T, p *diffPair, c *diffConn, key string) {
	t.Helper()
	flat := func(n node) []node { // RESP3 nests each member with its score
		var out []node
		for _, e := range n.Elems {
			if e.Kind == '*' {
				out = append(out, e.Elems...)
			} else {
				out = append(out, e)
			}
		}
		return out
	}
	w, g := c.DoMode(cmpIgnore, "ZRANGE", key, "0", "-1", "WITHSCORES")
	want, got := flat(w), flat(g)
	if len(want) != len(got) {
		t.Fatalf("%s: ZRANGE %s WITHSCORES: %d vs %d elements", p.where, key, len(want), len(got))
	}
	for i := 1; i < len(want); i += 2 {
		a, errA := strconv.ParseFloat(want[i].Str, 64)
		b, errB := strconv.ParseFloat(got[i].Str, 64)
		if errA != nil || errB != nil || math.Abs(a-b) > 1e-12*math.Max(math.Abs(a), 1) {
			t.Fatalf("%s: score of %s: redis-server %q, miniwatchd %q", p.where, want[i-1].Str, want[i].Str, got[i].Str)
		}
	}
}

// TestDiffGeoSearchRandom adds random positions worldwide (with many near
// the poles' limits and the antimeridian) and compares random GEOSEARCH,
// GEORADIUS and GEOSEARCHSTORE ... STOREDIST queries, in both protocols:
// the members, their order, distances, hashes, coordinates and the stored
// full-precision distances.
func TestDiffGeoSearchRandom(t *testing.T) {
	diffRandomRuns(t, 300, func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int {
		compared := 0
		lon := func() float64 {
			switch rng.IntN(4) {
			case 0: // near the antimeridian
				return (180 - rng.Float64()*2) * float64(1-2*rng.IntN(2))
			default:
				return rng.Float64()*360 - 180
			}
		}
		lat := func() float64 {
			switch rng.IntN(4) {
			case 0: // near the limits of the indexable area
				return (85.05112878 - rng.Float64()*3) * float64(1-2*rng.IntN(2))
			default:
				return rng.Float64()*170.1 - 85.05
			}
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		for i := 0; i < 3000; i += 300 {
			args := []string{"GEOADD", "pts"}
			for j := i; j < i+300; j++ {
				args = append(args, f(lon()), f(lat()), "m"+strconv.Itoa(j))
			}
			c.Do(args...)
			compared++
		}
		units := []string{"m", "km", "mi", "ft"}
		for i := 0; i < ops; i++ {
			p.where = "query " + strconv.Itoa(i)
			unit := units[rng.IntN(len(units))]
			scale := map[string]float64{"m": 1, "km": 1000, "mi": 1609.34, "ft": 0.3048}[unit]
			dist := math.Exp(rng.Float64()*math.Log(5e6)) / scale // 1 m .. 5000 km
			from := []string{"FROMLONLAT", f(lon()), f(lat())}
			if rng.IntN(3) == 0 {
				from = []string{"FROMMEMBER", "m" + strconv.Itoa(rng.IntN(3000))}
			}
			by := []string{"BYRADIUS", f(dist), unit}
			if rng.IntN(2) == 0 {
				by = []string{"BYBOX", f(dist * (0.2 + rng.Float64()*2)), f(dist * (0.2 + rng.Float64()*2)), unit}
			}
			q := append(append([]string{"GEOSEARCH", "pts"}, from...), by...)
			// Distances may differ by one in their fourth decimal (README).
			c.DoMode(cmpGeoDist, append(q, "WITHDIST", "WITHHASH", "WITHCOORD")...)
			c.DoMode(cmpGeoDist, append(q, "DESC", "WITHDIST")...)
			c.DoMode(cmpGeoDist, append(q, "COUNT", strconv.Itoa(1+rng.IntN(5)), "WITHDIST")...)
			c.Do(append(q, "COUNT", strconv.Itoa(1+rng.IntN(5)), "ANY")...)
			st := append(append([]string{"GEOSEARCHSTORE", "dst", "pts"}, from...), by...)
			c.Do(append(st, "STOREDIST")...)
			c.Do("ZRANGE", "dst", "0", "-1")
			compareScoresNear(t, p, c, "dst")
			if from[0] == "FROMLONLAT" && by[0] == "BYRADIUS" {
				c.DoMode(cmpGeoDist, "GEORADIUS", "pts", from[1], from[2], by[1], unit, "WITHDIST", "ASC")
			}
			compared += 7
		}
		return compared
	})
}
