package server

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// TestParseScoreMatchesString2d checks that ZADD's integer fast path reads
// every input exactly as protocol.ParseFloat (Redis's string2d) does.
func TestParseScoreMatchesString2d(t *testing.T) {
	inputs := []string{
		"0", "-0", "1", "-1", "007", "+1", " 1", "1 ", "", "-",
		"9007199254740992", "-9007199254740992", "9007199254740993", "-9007199254740993",
		"9223372036854775807", "-9223372036854775808", "99999999999999999999",
		"1.5", "1e3", "inf", "-inf", "nan", "0x10", "abc",
	}
	for range 2000 {
		inputs = append(inputs, strconv.FormatInt(rand.Int64()>>rand.IntN(63), 10))
	}
	for _, in := range inputs {
		got, gok := parseScore([]byte(in))
		want, wok := protocol.ParseFloat([]byte(in))
		if gok != wok || (gok && (got != want || math.Signbit(got) != math.Signbit(want))) {
			t.Errorf("parseScore(%q) = %v, %v; string2d gives %v, %v", in, got, gok, want, wok)
		}
	}
}

// TestMaybeZAddOption checks the pre-filter never rejects an option and
// lets the usual scores through at once.
func TestMaybeZAddOption(t *testing.T) {
	for _, opt := range []string{"nx", "NX", "xx", "Xx", "ch", "CH", "incr", "INCR", "gt", "GT", "lt", "lT", "nx\x00junk"} {
		if !maybeZAddOption([]byte(opt)) {
			t.Errorf("maybeZAddOption(%q) = false", opt)
		}
	}
	for _, score := range []string{"1", "-1", "1.5", "+inf", "-inf", "", "x", "(1"} {
		if maybeZAddOption([]byte(score)) {
			t.Errorf("maybeZAddOption(%q) = true for a score", score)
		}
	}
}
