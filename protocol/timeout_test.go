package protocol

import (
	"math"
	"testing"
)

// TestParseTimeoutSeconds compares with a C program that computes
// (long long)ceill(strtold(s) * 1000.0) on x86-64 Linux with glibc, as Redis
// 7.0.15's getTimeoutFromObjectOrReply does.
func TestParseTimeoutSeconds(t *testing.T) {
	const minInt = math.MinInt64
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"1", 1000, true},
		{"0.1", 100, true},
		{"1.5", 1500, true},
		{"-1", -1000, true},
		{"-0.0001", 0, true},
		{"-1e-5", 0, true},
		{"-0.999", -999, true},
		{"-1.0001", -1000, true},
		{"inf", minInt, true},
		{"-inf", minInt, true},
		{"0x10", 16000, true},
		{"0x1p-1", 500, true},
		{"1e-400", 1, true},
		{"1e-5", 1, true},
		{"0.0001", 1, true},
		{"0.001", 1, true},
		{"1e-3", 1, true},
		{"0.0009999999999999999999", 1, true},
		{"0.0015", 2, true},
		{"1.0005", 1001, true},
		{"2.675", 2675, true},
		{"0.3", 300, true},
		{"0.7", 700, true},
		{"1.001", 1001, true},
		{"4.999999999999999999999", 5000, true},
		{"123456.789", 123456789, true},
		{"9007199254740.993", 9007199254740993, true},
		{"12345678901234.5678", 12345678901234568, true},
		{"9223372036854775.807", 9223372036854775807, true},
		{"9223372036854775.808", minInt, true},
		{"-9223372036854775.808", -9223372036854775807, true},
		{"-9223372036854775.809", minInt, true},
		{"1e16", minInt, true},
		{"1.7976931348623157e308", minInt, true},
		{"nan", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"", 0, false},
		{"abc", 0, false},
		{"1e99999", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseTimeoutSeconds([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseTimeoutSeconds(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
