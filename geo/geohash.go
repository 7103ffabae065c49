package geo

// Limits of the indexable area (EPSG:900913 / EPSG:3785 / OSGEO:41001).
const (
	LongMin = -180.0
	LongMax = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	// StepMax is the precision of stored positions: 26 bits per axis.
	StepMax = 26
)

// HashBits is a geohash of step bits per axis (GeoHashBits).
type HashBits struct {
	Bits uint64
	Step uint8
}

// IsZero reports the "no box" marker (HASHISZERO).
func (h HashBits) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is an interval of one axis.
type Range struct{ Min, Max float64 }

// Area is the box a geohash stands for.
type Area struct {
	Hash      HashBits
	Longitude Range
	Latitude  Range
}

var (
	longRange = Range{LongMin, LongMax}
	latRange  = Range{LatMin, LatMax}
)

// interleave64 puts x's bits at the even positions and y's at the odd.
func interleave64(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | x<<s[i]) & b[i]
		y = (y | y<<s[i]) & b[i]
	}
	return x | y<<1
}

// deinterleave64 undoes interleave64: even bits in the low word, odd bits
// in the high word.
func deinterleave64(v uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x, y := v, v>>1
	for i := 0; i < 6; i++ {
		x = (x | x>>s[i]) & b[i]
		y = (y | y>>s[i]) & b[i]
	}
	return x | y<<32
}

// encode is geohashEncode over the given ranges.
func encode(lr, ar Range, longitude, latitude float64, step uint8) (HashBits, bool) {
	if step > 32 || step == 0 || (ar.Min == 0 && ar.Max == 0) || (lr.Min == 0 && lr.Max == 0) {
		return HashBits{}, false
	}
	if longitude > LongMax || longitude < LongMin || latitude > LatMax || latitude < LatMin {
		return HashBits{}, false
	}
	if latitude < ar.Min || latitude > ar.Max || longitude < lr.Min || longitude > lr.Max {
		return HashBits{Step: step}, false
	}
	latOffset := (latitude - ar.Min) / (ar.Max - ar.Min)
	longOffset := (longitude - lr.Min) / (lr.Max - lr.Min)
	latOffset *= float64(uint64(1) << step)
	longOffset *= float64(uint64(1) << step)
	return HashBits{Bits: interleave64(uint32(latOffset), uint32(longOffset)), Step: step}, true
}

// Encode is geohashEncodeWGS84.
func Encode(longitude, latitude float64, step uint8) (HashBits, bool) {
	return encode(longRange, latRange, longitude, latitude, step)
}

// decode is geohashDecode over the given ranges.
func decode(lr, ar Range, h HashBits) (Area, bool) {
	if h.IsZero() {
		return Area{}, false
	}
	a := Area{Hash: h}
	sep := deinterleave64(h.Bits)
	latScale := ar.Max - ar.Min
	longScale := lr.Max - lr.Min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << h.Step)
	a.Latitude.Min = ar.Min + (float64(ilato)*1.0/div)*latScale
	a.Latitude.Max = ar.Min + (float64(ilato+1)*1.0/div)*latScale
	a.Longitude.Min = lr.Min + (float64(ilono)*1.0/div)*longScale
	a.Longitude.Max = lr.Min + (float64(ilono+1)*1.0/div)*longScale
	return a, true
}

// Decode is geohashDecodeWGS84.
func Decode(h HashBits) (Area, bool) { return decode(longRange, latRange, h) }

// Center is geohashDecodeAreaToLongLat: the middle of a, clamped.
func (a *Area) Center() (longitude, latitude float64) {
	longitude = (a.Longitude.Min + a.Longitude.Max) / 2
	longitude = min(max(longitude, LongMin), LongMax)
	latitude = (a.Latitude.Min + a.Latitude.Max) / 2
	latitude = min(max(latitude, LatMin), LatMax)
	return longitude, latitude
}

// Align52 is geohashAlign52Bits: h's bits as a 52-bit score prefix.
func Align52(h HashBits) uint64 { return h.Bits << (52 - uint(h.Step)*2) }

func moveX(h *HashBits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x = x + (zz + 1)
	} else {
		x = x | zz
		x = x - (zz + 1)
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

func moveY(h *HashBits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y = y + (zz + 1)
	} else {
		y = y | zz
		y = y - (zz + 1)
	}
	y &= 0x5555555555555555 >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

// Neighbors are the eight boxes around one (GeoHashNeighbors).
type Neighbors struct {
	North, South, East, West, NorthEast, SouthEast, NorthWest, SouthWest HashBits
}

func neighborsOf(h HashBits) Neighbors {
	n := Neighbors{h, h, h, h, h, h, h, h}
	moveX(&n.East, 1)
	moveX(&n.West, -1)
	moveY(&n.South, -1)
	moveY(&n.North, 1)
	moveX(&n.NorthWest, -1)
	moveY(&n.NorthWest, 1)
	moveX(&n.NorthEast, 1)
	moveY(&n.NorthEast, 1)
	moveX(&n.SouthEast, 1)
	moveY(&n.SouthEast, -1)
	moveX(&n.SouthWest, -1)
	moveY(&n.SouthWest, -1)
	return n
}

// cUint64 converts a double as x86-64 code compiled from C's
// (uint64_t)double does, including out-of-range values (a sorted set
// score need not be a geohash).
func cUint64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if f < two63 {
		return uint64(cvttsd2si(f))
	}
	return uint64(cvttsd2si(f-two63)) ^ (1 << 63)
}

// cvttsd2si is the truncating double-to-int64 instruction: out of range or
// NaN gives the "integer indefinite" value.
func cvttsd2si(f float64) int64 {
	if f != f || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return -1 << 63
	}
	return int64(f)
}

// ScoreLonLat decodes a sorted set score into a position (decodeGeohash).
func ScoreLonLat(score float64) (longitude, latitude float64) {
	a, _ := Decode(HashBits{Bits: cUint64(score), Step: StepMax})
	return a.Center()
}

// Score encodes a position as the sorted set score GEOADD stores; the
// position must be within the limits.
func Score(longitude, latitude float64) uint64 {
	h, _ := Encode(longitude, latitude, StepMax)
	return Align52(h)
}

// ValidLonLat reports whether a position is within the indexable limits.
func ValidLonLat(longitude, latitude float64) bool {
	return longitude >= LongMin && longitude <= LongMax && latitude >= LatMin && latitude <= LatMax
}

// HashString is GEOHASH's 11-character standard geohash of a stored
// score: decoded, re-encoded over latitudes -90..90, and written in
// base32 with a final '0' (there are only 52 bits).
func HashString(score float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	lon, lat := ScoreLonLat(score)
	h, _ := encode(Range{-180, 180}, Range{-90, 90}, lon, lat, 26)
	var buf [11]byte
	for i := 0; i < 11; i++ {
		idx := 0
		if i != 10 {
			idx = int(h.Bits>>(52-uint((i+1)*5))) & 0x1f
		}
		buf[i] = alphabet[idx]
	}
	return string(buf[:])
}
