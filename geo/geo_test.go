package geo

import (
	"strconv"
	"testing"
)

// Values from redis-server 7.0.15 (GEOADD Sicily 13.361389 38.115556
// Palermo 15.087269 37.502669 Catania, then ZSCORE, GEOHASH, GEOPOS and
// GEODIST).
func TestSicily(t *testing.T) {
	palermo := Score(13.361389, 38.115556)
	catania := Score(15.087269, 37.502669)
	if palermo != 3479099956230698 || catania != 3479447370796909 {
		t.Fatalf("scores %d %d", palermo, catania)
	}
	if h := HashString(float64(palermo)); h != "sqc8b49rny0" {
		t.Fatalf("GEOHASH %s", h)
	}
	lon, lat := ScoreLonLat(float64(palermo))
	if a, b := string(AppendHuman(nil, lon)), string(AppendHuman(nil, lat)); a != "13.36138933897018433" || b != "38.11555639549629859" {
		t.Fatalf("GEOPOS %s %s", a, b)
	}
	lon2, lat2 := ScoreLonLat(float64(catania))
	if d := string(AppendDistance(nil, Distance(lon, lat, lon2, lat2))); d != "166274.1516" {
		t.Fatalf("GEODIST %s", d)
	}
}

func TestHumanFormat(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 1.5: "1.5", -180: "-180", 1e-20: "0", -1e-20: "0"} {
		if got := string(AppendHuman(nil, in)); got != want {
			t.Errorf("%v: %q, want %q", in, got, want)
		}
	}
}

func TestOutOfRangeScores(t *testing.T) {
	// Scores that are no geohash decode as Redis decodes them (clamped).
	for _, s := range []float64{-1, 1e20, 4503599627370496, 0} {
		lon, lat := ScoreLonLat(s)
		if !ValidLonLat(lon, lat) {
			t.Errorf("%v decodes outside the limits: %v %v", s, lon, lat)
		}
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		m, lat float64
		want   uint8
	}{{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {1000, 70, 13}, {1000, 85, 12}, {5e6, 0, 2}, {1e8, 0, 1}} {
		if got := estimateSteps(c.m, c.lat); got != c.want {
			t.Errorf("estimateSteps(%v, %v) = %d, want %d", c.m, c.lat, got, c.want)
		}
	}
}

func TestSearchFindsNeighbours(t *testing.T) {
	type member struct {
		name  string
		score float64
	}
	var set []member
	for i := 0; i < 50; i++ {
		lon, lat := 179.5+float64(i%10)*0.1-0.45, float64(i/10)*0.1
		if lon > 180 {
			lon -= 360
		}
		set = append(set, member{strconv.Itoa(i), float64(Score(lon, lat))})
	}
	rangeFn := func(min, max float64, fn func(string, float64) bool) {
		for _, m := range set {
			if m.score >= min && m.score < max && !fn(m.name, m.score) {
				return
			}
		}
	}
	s := Shape{Longitude: 180, Latitude: 0.2, Radius: 200, Conversion: 1000}
	got := s.Search(rangeFn, 0)
	if len(got) == 0 {
		t.Fatal("nothing found across the antimeridian")
	}
	for _, p := range got {
		if p.Dist > 200000 {
			t.Fatalf("%s at %v m", p.Member, p.Dist)
		}
	}
}
