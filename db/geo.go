package db

// The write of the geo family that is not a ZADD: storing a search result
// (Redis geo.c georadiusGeneric's STORE branch).

// Events of the geo store commands.
var (
	EvGeoRadiusStore = Event{ClassZSet, "georadiusstore"}
	EvGeoSearchStore = Event{ClassZSet, "geosearchstore"}
)

// GeoStore replaces dst with a sorted set of members (distinct) and their
// scores, built as Redis builds it (a skiplist converted to listpack when
// small), and signals once with ev; with no members it deletes dst,
// signalling "del" only when dst existed. It returns the number stored.
func (d *DB) GeoStore(dst []byte, members []string, scores []float64, ev Event) int {
	if len(members) == 0 {
		d.deleteForStore(dst)
		return 0
	}
	z := newZSet(false)
	z.dict.expand(len(members))
	maxLen := 0
	for i, m := range members {
		z.insertNew(scores[i], m)
		maxLen = max(maxLen, len(m))
	}
	z.toListpackIfSmall(maxLen, &d.ks.limits)
	d.storeValue(dst, TypeZSet, z, ev)
	d.ks.Stats.Dirty += int64(len(members)) - 1 // Redis counts each member
	return len(members)
}
