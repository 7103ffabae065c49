//go:build !race

package test

// raceEnabled reports whether the tests run with -race.
const raceEnabled = false
