package protocol

import (
	"strings"
	"testing"
)

// The cases moved here with the parsers from the config package.

func TestParseMemory(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"1", 1, true}, {"1b", 1, true}, {"1B", 1, true},
		{"1k", 1000, true}, {"1kb", 1024, true}, {"1KB", 1024, true}, {"2m", 2000000, true},
		{"2mb", 2 << 20, true}, {"3g", 3000000000, true}, {"3gb", 3 << 30, true}, {"gb", 0, true},
		{"007", 7, true}, {"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 1<<64 - 1, true}, {"18446744073709551615kb", 1<<64 - 1024, true},
		{"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1.5", 0, false},
		{"1kbb", 0, false}, {"1\u212a", 0, false}, {"1t", 0, false}, {"5\x00x", 5, true},
		{strings.Repeat("1", 128), 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseMemory([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStrtoll(t *testing.T) {
	cases := []struct {
		in       string
		base     int
		v        int64
		end      string
		overflow bool
	}{
		{"", 10, 0, "", false}, {"12", 10, 12, "", false}, {" +12x", 10, 12, "x", false},
		{"-12", 10, -12, "", false}, {" ", 10, 0, " ", false}, {"+", 10, 0, "+", false},
		{"0x10", 10, 0, "x10", false}, {"9223372036854775808", 10, 1<<63 - 1, "", true},
		{"-9223372036854775808", 10, -1 << 63, "", false}, {"-9223372036854775809", 10, -1 << 63, "", true},
		{"777", 8, 511, "", false}, {"78", 8, 7, "8", false}, {"1\x002", 10, 1, "", false},
	}
	for _, tc := range cases {
		v, end, of := Strtoll([]byte(tc.in), tc.base)
		if v != tc.v || string(end) != tc.end || of != tc.overflow {
			t.Errorf("Strtoll(%q, %d) = %d, %q, %v; want %d, %q, %v", tc.in, tc.base, v, end, of, tc.v, tc.end, tc.overflow)
		}
	}
}
