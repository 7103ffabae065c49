package protocol

import "testing"

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
		{"4294967297", 4294967297}, {"99999999999999999999", 1<<63 - 1}, {"12\x003", 12},
	} {
		if got := Atoll([]byte(tc.in)); got != tc.want {
			t.Errorf("Atoll(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
