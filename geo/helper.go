package geo

import "math"

// Constants of geohash_helper.c.
const (
	// EarthRadius is Redis's earth radius in meters (quadratic mean, WGS-84).
	EarthRadius = 6372797.560856
	mercatorMax = 20037726.37
)

// dToR is C's M_PI / 180.0: the double pi divided by 180 in double
// arithmetic (a Go constant expression would divide the exact pi).
var dToR = piDouble / 180.0

var piDouble float64 = math.Pi

// The arithmetic below is written operation by operation as in
// geohash_helper.c; Go does not fuse multiply-adds on the default amd64
// target, and sin, cos and asin are the correctly rounded ones (crmath.go),
// as glibc's are.

func degRad(ang float64) float64 { return ang * dToR }
func radDeg(ang float64) float64 { return ang / dToR }

// latDistance is geohashGetLatDistance: the distance along a meridian.
func latDistance(lat1d, lat2d float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2d)-degRad(lat1d))
}

// Distance is geohashGetDistance: the haversine great-circle distance in
// meters, taking the meridian shortcut when the longitudes are the same.
func Distance(lon1d, lat1d, lon2d, lat2d float64) float64 {
	return distanceCos(lon1d, lat1d, Cos(degRad(lat1d)), lon2d, lat2d)
}

// distanceCos is Distance given cos1 = Cos(degRad(lat1d)), which a search
// computes once for its centre: the same operations in the same order, so
// the same result.
func distanceCos(lon1d, lat1d, cos1, lon2d, lat2d float64) float64 {
	lon1r := degRad(lon1d)
	lon2r := degRad(lon2d)
	v := Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1d, lat2d)
	}
	lat1r := degRad(lat1d)
	lat2r := degRad(lat2d)
	u := Sin((lat2r - lat1r) / 2)
	a := u*u + cos1*Cos(lat2r)*v*v
	return 2.0 * EarthRadius * Asin(math.Sqrt(a))
}

// distanceFast is distanceCos with Go's math functions (within a few
// ulps; cos1 = math.Cos(degRad(lat1d))): a search uses it to reject the
// candidates clearly outside the area before computing the exact distance
// of the others.
func distanceFast(lon1d, lat1d, cos1, lon2d, lat2d float64) float64 {
	lon1r := degRad(lon1d)
	lon2r := degRad(lon2d)
	v := math.Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1d, lat2d)
	}
	lat1r := degRad(lat1d)
	lat2r := degRad(lat2d)
	u := math.Sin((lat2r - lat1r) / 2)
	a := u*u + cos1*math.Cos(lat2r)*v*v
	return 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
}

// clearlyBeyond reports whether a distance computed by distanceFast is
// beyond limit by more than its possible error.
func clearlyBeyond(fast, limit float64) bool { return fast > limit*(1+1e-12)+1e-9 }

// inRectangle is geohashGetDistanceIfInRectangle: whether (x2,y2) is
// within the width_m x height_m box centred on (x1,y1), and its distance.
func inRectangle(widthM, heightM, x1, y1, x2, y2 float64) (float64, bool) {
	if latDistance(y2, y1) > heightM/2 {
		return 0, false
	}
	if clearlyBeyond(distanceFast(x2, y2, math.Cos(degRad(y2)), x1, y2), widthM/2) || Distance(x2, y2, x1, y2) > widthM/2 {
		return 0, false
	}
	return Distance(x1, y1, x2, y2), true
}

// estimateSteps is geohashEstimateStepsByRadius.
func estimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	step = min(max(step, 1), 26)
	return uint8(step)
}

// Shape is a query area (GeoShape): a circle of Radius or a Width x Height
// box around (Longitude, Latitude), lengths in the unit whose size in
// meters is Conversion.
type Shape struct {
	Box                   bool
	Longitude, Latitude   float64
	Conversion            float64
	Radius, Width, Height float64
	bounds                [4]float64 // min lon, min lat, max lon, max lat
	// cosLat and cosLatFast are the cosine of Latitude by Cos and by
	// math.Cos, set by Search for a radius's distances.
	cosLat, cosLatFast float64
}

// boundingBox is geohashBoundingBox.
func (s *Shape) boundingBox() {
	var height, width float64
	if s.Box {
		height = s.Conversion * (s.Height / 2)
		width = s.Conversion * (s.Width / 2)
	} else {
		height = s.Conversion * s.Radius
		width = s.Conversion * s.Radius
	}
	latDelta := radDeg(height / EarthRadius)
	longDeltaTop := radDeg(width / EarthRadius / Cos(degRad(s.Latitude+latDelta)))
	longDeltaBottom := radDeg(width / EarthRadius / Cos(degRad(s.Latitude-latDelta)))
	if s.Latitude < 0 {
		s.bounds[0] = s.Longitude - longDeltaBottom
		s.bounds[2] = s.Longitude + longDeltaBottom
	} else {
		s.bounds[0] = s.Longitude - longDeltaTop
		s.bounds[2] = s.Longitude + longDeltaTop
	}
	s.bounds[1] = s.Latitude - latDelta
	s.bounds[3] = s.Latitude + latDelta
}

// cover is GeoHashRadius: the centre box and its neighbours, those outside
// the query zeroed.
type cover struct {
	hash      HashBits
	area      Area
	neighbors Neighbors
}

// areas is geohashCalculateAreasByShapeWGS84.
func (s *Shape) areas() cover {
	s.boundingBox()
	minLon, minLat, maxLon, maxLat := s.bounds[0], s.bounds[1], s.bounds[2], s.bounds[3]
	var radiusMeters float64
	if s.Box {
		radiusMeters = math.Sqrt((s.Width/2)*(s.Width/2) + (s.Height/2)*(s.Height/2))
	} else {
		radiusMeters = s.Radius
	}
	radiusMeters *= s.Conversion
	steps := estimateSteps(radiusMeters, s.Latitude)
	hash, _ := encode(longRange, latRange, s.Longitude, s.Latitude, steps)
	nb := neighborsOf(hash)
	area, _ := decode(longRange, latRange, hash)

	decrease := false
	north, _ := decode(longRange, latRange, nb.North)
	south, _ := decode(longRange, latRange, nb.South)
	east, _ := decode(longRange, latRange, nb.East)
	west, _ := decode(longRange, latRange, nb.West)
	if north.Latitude.Max < maxLat || south.Latitude.Min > minLat ||
		east.Longitude.Max < maxLon || west.Longitude.Min > minLon {
		decrease = true
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = encode(longRange, latRange, s.Longitude, s.Latitude, steps)
		nb = neighborsOf(hash)
		area, _ = decode(longRange, latRange, hash)
	}
	if steps >= 2 {
		if area.Latitude.Min < minLat {
			nb.South, nb.SouthWest, nb.SouthEast = HashBits{}, HashBits{}, HashBits{}
		}
		if area.Latitude.Max > maxLat {
			nb.North, nb.NorthEast, nb.NorthWest = HashBits{}, HashBits{}, HashBits{}
		}
		if area.Longitude.Min < minLon {
			nb.West, nb.SouthWest, nb.NorthWest = HashBits{}, HashBits{}, HashBits{}
		}
		if area.Longitude.Max > maxLon {
			nb.East, nb.SouthEast, nb.NorthEast = HashBits{}, HashBits{}, HashBits{}
		}
	}
	return cover{hash: hash, area: area, neighbors: nb}
}
