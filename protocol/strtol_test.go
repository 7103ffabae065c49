package protocol

import (
	"math"
	"math/big"
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

// strtollModel is glibc's strtoll written the slow way (math/big), for
// FuzzStrtoll.
func strtollModel(s string, base int) (int64, string, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	sign := ""
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		sign = s[i : i+1]
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && int(s[j]-'0') < base {
		j++
	}
	if j == i {
		return 0, s, false
	}
	n, _ := new(big.Int).SetString(s[i:j], base)
	if sign == "-" {
		n.Neg(n)
	}
	switch {
	case n.Cmp(big.NewInt(math.MaxInt64)) > 0:
		return math.MaxInt64, s[j:], true
	case n.Cmp(big.NewInt(math.MinInt64)) < 0:
		return math.MinInt64, s[j:], true
	}
	return n.Int64(), s[j:], false
}

// FuzzStrtoll checks Strtoll against strtollModel and ParseMemory against
// its definition over the same digits (CONFIG SET values are client bytes).
func FuzzStrtoll(f *testing.F) {
	for _, s := range []string{"", "12", " +12x", "-9223372036854775809", "777", "78", "1\x002",
		"99999999999999999999999", "\t-0", "64mb", "1KB", "18446744073709551615kb", "-1", "5\x00x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, base := range []int{8, 10} {
			v, rest, of := Strtoll([]byte(s), base)
			mv, mrest, mof := strtollModel(s, base)
			if v != mv || string(rest) != mrest || of != mof {
				t.Fatalf("Strtoll(%q, %d) = %d, %q, %v; model %d, %q, %v", s, base, v, rest, of, mv, mrest, mof)
			}
		}
		got, ok := ParseMemory([]byte(s))
		c := s
		if i := strings.IndexByte(c, 0); i >= 0 {
			c = c[:i]
		}
		digits := strings.TrimRight(c, "bBkKmMgG")
		unit := strings.ToLower(c[len(digits):])
		mul := map[string]uint64{"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1e6, "mb": 1 << 20, "g": 1e9, "gb": 1 << 30}[unit]
		valid := mul != 0 && len(digits) < 128 && strings.Trim(digits, "0123456789") == ""
		if ok != valid {
			t.Fatalf("ParseMemory(%q) ok = %v, want %v", s, ok, valid)
		}
		if ok {
			n, _ := new(big.Int).SetString("0"+digits, 10)
			if n.Cmp(new(big.Int).SetUint64(math.MaxUint64)) > 0 {
				n.SetUint64(math.MaxUint64)
			}
			if want := n.Uint64() * mul; got != want {
				t.Fatalf("ParseMemory(%q) = %d, want %d", s, got, want)
			}
		}
	})
}
