package test

import "testing"

// TestTrackingHLLGeoDiff compares client-side caching invalidations and
// keyspace events of the HyperLogLog and geo commands with redis-server:
// PFCOUNT writing the cached cardinality invalidates (signalModifiedKey)
// but raises no event, PFDEBUG TODENSE does neither, the geo stores
// invalidate their destination.
func TestTrackingHLLGeoDiff(t *testing.T) {
	redis, ours := psDiffPair(t)
	for _, tc := range []struct{ name, script string }{
		{"hll", trackingHLL},
		{"geo", trackingGeo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			psReset(t, redis, ours)
			psDiff(t, redis, ours, tc.script)
		})
	}
}

const trackingHLL = `
A: HELLO 3
A: CLIENT TRACKING on
C: CONFIG SET notify-keyspace-events KEA
B: PSUBSCRIBE __key*__:*
C: PFADD h a b
A: GET h
C: PFCOUNT h
A: GET h
C: PFCOUNT h
A: PFCOUNT h
C: PFADD h c
A: PFCOUNT h
C: PFCOUNT h other
A: GET h
C: PFDEBUG TODENSE h
C: PFMERGE h h
A: GET h
C: PFMERGE m h
C: PING
`

const trackingGeo = `
A: HELLO 3
A: CLIENT TRACKING on
C: CONFIG SET notify-keyspace-events KEA
B: PSUBSCRIBE __key*__:*
C: GEOADD g 1 1 a 2 2 b
A: GEOPOS g a
A: GEOSEARCH g FROMLONLAT 1 1 BYRADIUS 500 km
C: GEOADD g 1 1 a
C: GEOADD g XX CH 1.5 1.5 a
A: ZRANGE dst 0 -1
C: GEORADIUS g 1 1 500 km STORE dst
A: ZRANGE dst 0 -1
C: GEOSEARCHSTORE dst g FROMLONLAT 1 1 BYRADIUS 500 km STOREDIST
A: ZRANGE dst 0 -1
C: GEOSEARCHSTORE dst g FROMLONLAT 50 50 BYRADIUS 1 km
A: GEODIST g a b
C: GEORADIUSBYMEMBER g a 10 km STORE g
C: PING
`
