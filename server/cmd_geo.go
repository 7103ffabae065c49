package server

import (
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/geo"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Geo commands (Redis geo.c) on sorted sets whose scores are 52-bit
// geohashes. Positions, areas and distances are package geo; GEOADD is a
// ZADD (and is propagated as one); the STORE forms write through
// db.GeoStore.

var geoCommands = []commandDef{
	{"geoadd", cmdGeoAdd},
	{"geodist", cmdGeoDist},
	{"geohash", cmdGeoHash},
	{"geopos", cmdGeoPos},
	{"georadius", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 1, geoByCoords) }},
	{"georadius_ro", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 1, geoByCoords|geoNoStore) }},
	{"georadiusbymember", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 1, geoByMember) }},
	{"georadiusbymember_ro", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 1, geoByMember|geoNoStore) }},
	{"geosearch", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 1, geoSearch) }},
	{"geosearchstore", func(c *client, a [][]byte) { geoRadiusGeneric(c, a, 2, geoSearch|geoSearchStore) }},
}

// Error replies of geo.c.
var (
	errGeoMember   = protocol.Error("ERR could not decode requested zset member")
	errGeoUnit     = protocol.Error("ERR unsupported unit provided. please use M, KM, FT, MI")
	errGeoRadius   = protocol.Error("ERR need numeric radius")
	errGeoNegative = protocol.Error("ERR radius cannot be negative")
	errGeoWidth    = protocol.Error("ERR need numeric width")
	errGeoHeight   = protocol.Error("ERR need numeric height")
	errGeoBoxNeg   = protocol.Error("ERR height or width cannot be negative")
	errGeoCount    = protocol.Error("ERR COUNT must be > 0")
	errGeoAny      = protocol.Error("ERR the ANY argument requires COUNT argument")
)

// appendCFloat6 formats f as C's "%f".
func appendCFloat6(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'f', 6, 64)
}

// extractLonLat is extractLongLatOrReply.
func extractLonLat(c *client, args [][]byte) (lon, lat float64, ok bool) {
	var xy [2]float64
	for i := range xy {
		if xy[i], ok = protocol.ParseFloat(args[i]); !ok {
			c.fail(protocol.ErrNotFloat)
			return 0, 0, false
		}
	}
	if !geo.ValidLonLat(xy[0], xy[1]) {
		b := append([]byte("ERR invalid longitude,latitude pair "), appendCFloat6(nil, xy[0])...)
		b = appendCFloat6(append(b, ','), xy[1])
		c.fail(protocol.Error(b))
		return 0, 0, false
	}
	return xy[0], xy[1], true
}

// extractUnit is extractUnitOrReply: meters per unit, or 0 after an error.
func extractUnit(c *client, u []byte) float64 {
	switch {
	case cstrEqualFold(u, "m"):
		return 1
	case cstrEqualFold(u, "km"):
		return 1000
	case cstrEqualFold(u, "ft"):
		return 0.3048
	case cstrEqualFold(u, "mi"):
		return 1609.34
	}
	c.fail(errGeoUnit)
	return 0
}

// extractDistance is extractDistanceOrReply: "<radius> <unit>".
func extractDistance(c *client, args [][]byte, s *geo.Shape) bool {
	d, ok := protocol.ParseFloat(args[0])
	if !ok {
		c.fail(errGeoRadius)
		return false
	}
	if d < 0 {
		c.fail(errGeoNegative)
		return false
	}
	s.Radius = d
	s.Conversion = extractUnit(c, args[1])
	return s.Conversion != 0
}

// extractBox is extractBoxOrReply: "<width> <height> <unit>".
func extractBox(c *client, args [][]byte, s *geo.Shape) bool {
	w, ok := protocol.ParseFloat(args[0])
	if !ok {
		c.fail(errGeoWidth)
		return false
	}
	h, ok := protocol.ParseFloat(args[1])
	if !ok {
		c.fail(errGeoHeight)
		return false
	}
	if h < 0 || w < 0 {
		c.fail(errGeoBoxNeg)
		return false
	}
	s.Width, s.Height = w, h
	s.Conversion = extractUnit(c, args[2])
	return s.Conversion != 0
}

// memberLonLat is longLatFromMember.
func memberLonLat(z *db.ZSet, member []byte, s *geo.Shape) bool {
	score, ok := z.Score(member)
	if ok {
		s.Longitude, s.Latitude = geo.ScoreLonLat(score)
	}
	return ok
}

// cmdGeoAdd is geoaddCommand: the positions become scores and the command
// runs as ZADD key [options] score member..., which is also what the AOF
// records (Redis replaces the command vector).
func cmdGeoAdd(c *client, args [][]byte) {
	nx, xx := false, false
	longIdx := 2
	for ; longIdx < len(args); longIdx++ {
		opt := args[longIdx]
		if cstrEqualFold(opt, "nx") {
			nx = true
		} else if cstrEqualFold(opt, "xx") {
			xx = true
		} else if !cstrEqualFold(opt, "ch") {
			break
		}
	}
	if (len(args)-longIdx)%3 != 0 || (xx && nx) {
		c.fail(protocol.ErrSyntax)
		return
	}
	elements := (len(args) - longIdx) / 3
	zargs := make([][]byte, 0, longIdx+elements*2)
	zargs = append(zargs, []byte("zadd"))
	zargs = append(zargs, args[1:longIdx]...)
	for i := 0; i < elements; i++ {
		el := args[longIdx+i*3:]
		lon, lat, ok := extractLonLat(c, el[:2])
		if !ok {
			return
		}
		zargs = append(zargs, strconv.AppendUint(nil, geo.Score(lon, lat), 10), el[2])
	}
	zaddGeneric(c, zargs, 0)
	c.propagateAs(zargs...)
}

// cmdGeoDist is geodistCommand.
func cmdGeoDist(c *client, args [][]byte) {
	toMeter := 1.0
	if len(args) == 5 {
		if toMeter = extractUnit(c, args[4]); toMeter == 0 {
			return
		}
	} else if len(args) > 5 {
		c.fail(protocol.ErrSyntax)
		return
	}
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.w.Null()
		return
	}
	s1, ok1 := z.Score(args[2])
	s2, ok2 := z.Score(args[3])
	if !ok1 || !ok2 {
		c.w.Null()
		return
	}
	lon1, lat1 := geo.ScoreLonLat(s1)
	lon2, lat2 := geo.ScoreLonLat(s2)
	var tmp [48]byte
	c.w.Bulk(geo.AppendDistance(tmp[:0], geo.Distance(lon1, lat1, lon2, lat2)/toMeter))
}

// cmdGeoHash is geohashCommand.
func cmdGeoHash(c *client, args [][]byte) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	for _, m := range args[2:] {
		score, found := 0.0, false
		if z != nil {
			score, found = z.Score(m)
		}
		if !found {
			c.w.Null()
			continue
		}
		c.w.BulkString(geo.HashString(score))
	}
}

// cmdGeoPos is geoposCommand.
func cmdGeoPos(c *client, args [][]byte) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[1])
	if !ok {
		return
	}
	c.w.Array(len(args) - 2)
	var tmp [64]byte
	for _, m := range args[2:] {
		score, found := 0.0, false
		if z != nil {
			score, found = z.Score(m)
		}
		if !found {
			c.w.NullArray()
			continue
		}
		lon, lat := geo.ScoreLonLat(score)
		c.w.Array(2)
		c.w.HumanDouble(geo.AppendHuman(tmp[:0], lon))
		c.w.HumanDouble(geo.AppendHuman(tmp[:0], lat))
	}
}
