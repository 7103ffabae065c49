package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/geo"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The search commands of the geo family: GEORADIUS, GEORADIUSBYMEMBER,
// their _RO forms, GEOSEARCH and GEOSEARCHSTORE (Redis geo.c's
// georadiusGeneric), with its argument order, error order and replies.

// Variants of geoRadiusGeneric (RADIUS_* / GEOSEARCH* in geo.c).
const (
	geoByCoords    = 1 << iota // GEORADIUS: centre and radius are positional
	geoByMember                // GEORADIUSBYMEMBER
	geoNoStore                 // the _RO forms: no STORE / STOREDIST
	geoSearch                  // GEOSEARCH syntax
	geoSearchStore             // GEOSEARCHSTORE: destination first, STOREDIST flag
)

// geoQuery is what the options asked for.
type geoQuery struct {
	withDist, withHash, withCoord bool
	fromMember, fromLonLat        bool
	byRadius, byBox               bool
	sort                          int // 0 none, 1 asc, 2 desc
	any                           bool
	count                         int64
	storeKey                      []byte
	storeDist                     bool
}

func geoRadiusGeneric(c *client, args [][]byte, srcIdx int, flags int) {
	z, ok := lookupRead(c, c.db.LookupZSet, args[srcIdx])
	if !ok {
		return
	}
	var q geoQuery
	var shape geo.Shape
	var base int
	switch {
	case flags&geoByCoords != 0:
		base = 6
		lon, lat, ok := extractLonLat(c, args[2:4])
		if !ok {
			return
		}
		shape.Longitude, shape.Latitude = lon, lat
		if !extractDistance(c, args[4:6], &shape) {
			return
		}
	case flags&geoByMember != 0 && z == nil:
		base = 5 // parse the options anyway, to pick the reply
	case flags&geoByMember != 0:
		base = 5
		if !memberLonLat(z, args[2], &shape) {
			c.fail(errGeoMember)
			return
		}
		if !extractDistance(c, args[3:5], &shape) {
			return
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			q.storeKey = args[1]
		}
	}
	if !parseGeoOptions(c, args, base, flags, z, &q, &shape) {
		return
	}
	if q.storeKey != nil && (q.withDist || q.withHash || q.withCoord) {
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.fail(protocol.Error("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options"))
		return
	}
	if flags&geoSearch != 0 && !(q.fromMember || q.fromLonLat) {
		c.fail(protocol.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + cstr(string(args[0]))))
		return
	}
	if flags&geoSearch != 0 && !(q.byRadius || q.byBox) {
		c.fail(protocol.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + cstr(string(args[0]))))
		return
	}
	if q.any && q.count == 0 {
		c.fail(errGeoAny)
		return
	}
	ev := db.EvGeoRadiusStore
	if flags&geoSearch != 0 {
		ev = db.EvGeoSearchStore
	}
	if z == nil {
		if q.storeKey != nil {
			c.db.GeoStore(q.storeKey, nil, nil, ev)
			c.w.Int(0)
		} else {
			c.w.Array(0)
		}
		return
	}
	if q.count != 0 && q.sort == 0 && !q.any {
		q.sort = 1
	}
	limit := 0
	if q.any {
		limit = int(q.count)
	}
	points := shape.Search(zsetRange(z), limit)
	if len(points) == 0 && q.storeKey == nil {
		c.w.Array(0)
		return
	}
	returned := len(points)
	if q.count != 0 && int64(returned) > q.count {
		returned = int(q.count)
	}
	if q.sort != 0 {
		// qsort (glibc's merge sort: stable) for everything, pqsort for
		// the first COUNT, as Redis does.
		if returned == len(points) {
			geo.SortByDistance(points, q.sort == 2)
		} else {
			geo.PartialSortByDistance(points, q.sort == 2, 0, returned-1)
		}
	}
	points = points[:returned]
	if q.storeKey != nil {
		members := make([]string, returned)
		scores := make([]float64, returned)
		for i := range points {
			members[i] = points[i].Member
			scores[i] = points[i].Score
			if q.storeDist {
				scores[i] = points[i].Dist / shape.Conversion
			}
		}
		c.w.Int(int64(c.db.GeoStore(q.storeKey, members, scores, ev)))
		return
	}
	writeGeoPoints(c, points, &q, shape.Conversion)
}

// parseGeoOptions is georadiusGeneric's option loop from args[base]; it
// writes the error and returns false on a bad option.
func parseGeoOptions(c *client, args [][]byte, base, flags int, z *db.ZSet, q *geoQuery, shape *geo.Shape) bool {
	remaining := len(args) - base
	search := flags&geoSearch != 0
	storeOK := flags&geoNoStore == 0 && !search
	for i := 0; i < remaining; i++ {
		arg := args[base+i]
		switch {
		case cstrEqualFold(arg, "withdist"):
			q.withDist = true
		case cstrEqualFold(arg, "withhash"):
			q.withHash = true
		case cstrEqualFold(arg, "withcoord"):
			q.withCoord = true
		case cstrEqualFold(arg, "any"):
			q.any = true
		case cstrEqualFold(arg, "asc"):
			q.sort = 1
		case cstrEqualFold(arg, "desc"):
			q.sort = 2
		case cstrEqualFold(arg, "count") && i+1 < remaining:
			n, ok := protocol.ParseInt(args[base+i+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return false
			}
			if n <= 0 {
				c.fail(errGeoCount)
				return false
			}
			q.count = n
			i++
		case cstrEqualFold(arg, "store") && i+1 < remaining && storeOK:
			q.storeKey, q.storeDist = args[base+i+1], false
			i++
		case cstrEqualFold(arg, "storedist") && i+1 < remaining && storeOK:
			q.storeKey, q.storeDist = args[base+i+1], true
			i++
		case cstrEqualFold(arg, "storedist") && search && flags&geoSearchStore != 0:
			q.storeDist = true
		case cstrEqualFold(arg, "frommember") && i+1 < remaining && search && !q.fromLonLat:
			if z != nil && !memberLonLat(z, args[base+i+1], shape) {
				c.fail(errGeoMember)
				return false
			}
			q.fromMember = true
			i++
		case cstrEqualFold(arg, "fromlonlat") && i+2 < remaining && search && !q.fromMember:
			lon, lat, ok := extractLonLat(c, args[base+i+1:base+i+3])
			if !ok {
				return false
			}
			shape.Longitude, shape.Latitude = lon, lat
			q.fromLonLat = true
			i += 2
		case cstrEqualFold(arg, "byradius") && i+2 < remaining && search && !q.byBox:
			if !extractDistance(c, args[base+i+1:base+i+3], shape) {
				return false
			}
			shape.Box = false
			q.byRadius = true
			i += 2
		case cstrEqualFold(arg, "bybox") && i+3 < remaining && search && !q.byRadius:
			if !extractBox(c, args[base+i+1:base+i+4], shape) {
				return false
			}
			shape.Box = true
			q.byBox = true
			i += 3
		default:
			c.fail(protocol.ErrSyntax)
			return false
		}
	}
	return true
}

// zsetRange walks z's members with a score in [min, max).
func zsetRange(z *db.ZSet) geo.RangeFunc {
	return func(min, max float64, fn func(member string, score float64) bool) {
		r := db.ScoreRange{Min: min, Max: max, MaxEx: true}
		for n := z.FirstInRange(&r); n != nil && r.BelowMax(n.Score()); n = n.Next() {
			if !fn(n.Member(), n.Score()) {
				return
			}
		}
	}
}

// writeGeoPoints writes the search reply: members, or per member an array
// of the member and the requested extras in the order dist, hash, coord.
func writeGeoPoints(c *client, points []geo.Point, q *geoQuery, conversion float64) {
	opts := 0
	for _, on := range []bool{q.withDist, q.withCoord, q.withHash} {
		if on {
			opts++
		}
	}
	c.w.Array(len(points))
	var tmp [64]byte
	for i := range points {
		p := &points[i]
		if opts > 0 {
			c.w.Array(opts + 1)
		}
		c.w.BulkString(p.Member)
		if q.withDist {
			c.w.Bulk(geo.AppendDistance(tmp[:0], p.Dist/conversion))
		}
		if q.withHash {
			c.w.Int(int64(p.Score))
		}
		if q.withCoord {
			c.w.Array(2)
			c.w.HumanDouble(geo.AppendHuman(tmp[:0], p.Longitude))
			c.w.HumanDouble(geo.AppendHuman(tmp[:0], p.Latitude))
		}
	}
}
