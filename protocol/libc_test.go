package protocol

import "testing"

func TestStrtoll(t *testing.T) {
	cases := []struct {
		in       string
		base     int
		v        int64
		n        int
		overflow bool
	}{
		{"", 10, 0, 0, false}, {"12", 10, 12, 2, false}, {" +12x", 10, 12, 4, false},
		{"-12", 10, -12, 3, false}, {" ", 10, 0, 0, false}, {"+", 10, 0, 0, false},
		{"0x10", 10, 0, 1, false}, {"9223372036854775808", 10, 1<<63 - 1, 19, true},
		{"-9223372036854775808", 10, -1 << 63, 20, false}, {"-9223372036854775809", 10, -1 << 63, 20, true},
		{"777", 8, 511, 3, false}, {"78", 8, 7, 1, false}, {"1\x002", 10, 1, 1, false},
		{"99999999999999999999999", 10, 1<<63 - 1, 23, true},
	}
	for _, tc := range cases {
		v, n, of := Strtoll(tc.in, tc.base)
		if v != tc.v || n != tc.n || of != tc.overflow {
			t.Errorf("Strtoll(%q, %d) = %d, %d, %v; want %d, %d, %v", tc.in, tc.base, v, n, of, tc.v, tc.n, tc.overflow)
		}
		bv, bn, bof := Strtoll([]byte(tc.in), tc.base)
		if bv != v || bn != n || bof != of {
			t.Errorf("Strtoll([]byte(%q)) differs from the string form", tc.in)
		}
	}
}

func TestAtoi(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"0", 0}, {"12", 12}, {"-3", -3}, {"+4", 4}, {" \t5", 5}, {"6x", 6}, {"x", 0}, {"", 0},
		{"01", 1}, {"4294967297", 1}, {"2147483648", -2147483648},
		{"99999999999999999999", -1}, // strtol clamps to LONG_MAX, whose low 32 bits are -1
		{"-99999999999999999999", 0}, // LONG_MIN's low 32 bits are 0
	} {
		if got := Atoi([]byte(tc.in)); got != tc.want {
			t.Errorf("Atoi(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestAtoll(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {" 42", 42}, {"-7", -7}, {"12abc", 12}, {"abc", 0}, {"", 0},
		{"4294967297", 4294967297}, {"99999999999999999999", 1<<63 - 1},
	} {
		if got := Atoll([]byte(tc.in)); got != tc.want {
			t.Errorf("Atoll(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
