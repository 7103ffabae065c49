package protocol

import (
	"math"
	"testing"
)

func TestParseStrtod(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"", 0, true},
		{"1.5", 1.5, true},
		{"  -2", -2, true},
		{"\t\n3e2", 300, true},
		{"1e400", math.Inf(1), true},
		{"-1e400", math.Inf(-1), true},
		{"1e-400", 0, true},
		{"-0", negZero, true},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"0x10", 16, true},
		{"0x1p-2", 0.25, true},
		{"0x1p99999", math.Inf(1), true},
		{"5\x00junk", 5, true},
		{"\x00", 0, true},
		{"nan", 0, false},
		{"-nan", 0, false},
		{" ", 0, false},
		{"1 ", 0, false},
		{"1e", 0, false},
		{"0x", 0, false},
		{"abc", 0, false},
		{"1.2.3", 0, false},
		{"infin", 0, false},
		{"+", 0, false},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"-.e1", 0, false},
	}
	for _, tc := range tests {
		got, ok := ParseStrtod([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("ParseStrtod(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if ok && (got != tc.want || math.Signbit(got) != math.Signbit(tc.want)) {
			t.Errorf("ParseStrtod(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseStrtodNoRange(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"1", true}, {"", true}, {" 5", true}, {"5 ", false}, {"0x10", true}, {"inf", true},
		{"-Infinity", true}, {"nan", false}, {"1e400", false}, {"-1e400", false}, {"1e-400", false},
		{"1e-310", false}, {"4.9e-324", false}, {"2.2250738585072014e-308", true},
		{"2.2250738585072011e-308", false}, {"0e-400", true}, {"0x0p-2000", true}, {"1\x002", true},
	} {
		if _, ok := ParseStrtodNoRange([]byte(tc.in)); ok != tc.ok {
			t.Errorf("ParseStrtodNoRange(%q) ok=%v, want %v", tc.in, ok, tc.ok)
		}
	}
}
