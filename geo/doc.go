// Package geo is Redis 7.0's geo indexing (geohash.c, geohash_helper.c and
// the search loop of geo.c): 52-bit interleaved geohashes used as sorted
// set scores, the nine-box area cover of a radius or box query, the
// haversine distance with Redis's earth radius, and the text forms of
// distances, coordinates and GEOHASH strings. Every computation follows
// Redis's order of floating-point operations, so results match to the
// last digit.
//
// The package is a leaf: sorted sets are reached through a callback, and
// nothing here holds state.
package geo
