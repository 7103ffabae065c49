package script

import (
	"math"
	"testing"
)

func TestLuaNumberString(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{1.0 / 3, "0.33333333333333"},
		{0.1, "0.1"},
		{1e15, "1e+15"},
		{1e14, "1e+14"},
		{99999999999999, "99999999999999"},
		{math.Pow(2, 53), "9.007199254741e+15"},
		{100, "100"},
		{-100, "-100"},
		{math.Copysign(0, -1), "-0"},
		{0, "0"},
		{3.5, "3.5"},
		{1e-5, "1e-05"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{-math.NaN(), "-nan"},
		{123456789012345678, "1.2345678901235e+17"},
	} {
		if got := luaNumberString(tc.f); got != tc.want {
			t.Errorf("luaNumberString(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestStr2d(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"10", 10, true},
		{"  10  ", 10, true},
		{"\t-1.5e3\n", -1500, true},
		{"0x10", 16, true},
		{"0X1F", 31, true},
		{"1e1", 10, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"1e400", math.Inf(1), true},
		{"10\x00abc", 10, true}, // C strings stop at NUL
		{"", 0, false},
		{" ", 0, false},
		{"abc", 0, false},
		{"10a", 0, false},
		{"1e", 0, false},
		{"--1", 0, false},
		{"0x", 0, false},
	} {
		got, ok := str2d(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("str2d(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if f, ok := str2d("nan"); !ok || !math.IsNaN(f) {
		t.Errorf("str2d(nan) = %v, %v", f, ok)
	}
}

func TestStrtoul(t *testing.T) {
	for _, tc := range []struct {
		in   string
		base int
		want uint64
		n    int
	}{
		{"ff", 16, 255, 2},
		{"0xff", 16, 255, 4},
		{"z", 36, 35, 1},
		{"  12x", 10, 12, 4},
		{"-1", 10, math.MaxUint64, 2},
		{"99999999999999999999999", 10, math.MaxUint64, 23},
		{"g", 16, 0, 0},
	} {
		got, n := strtoul(tc.in, tc.base)
		if got != tc.want || n != tc.n {
			t.Errorf("strtoul(%q, %d) = %d, %d; want %d, %d", tc.in, tc.base, got, n, tc.want, tc.n)
		}
	}
}

func TestDoubleToInt(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want int64
	}{
		{3.99, 3},
		{-3.99, -3},
		{1e20, math.MinInt64},
		{-1e20, math.MinInt64},
		{math.NaN(), math.MinInt64},
		{math.Inf(1), math.MinInt64},
		{9223372036854775807, math.MinInt64}, // 2^63 as a double
		{-9223372036854775808, math.MinInt64},
		{9007199254740993, 9007199254740992},
	} {
		if got := doubleToInt64(tc.f); got != tc.want {
			t.Errorf("doubleToInt64(%v) = %d, want %d", tc.f, got, tc.want)
		}
	}
	if got := doubleToInt32(3e9); got != math.MinInt32 {
		t.Errorf("doubleToInt32(3e9) = %d", got)
	}
	if got := doubleToUint64(-1); got != math.MaxUint64 {
		t.Errorf("doubleToUint64(-1) = %x", got)
	}
	if got := doubleToUint64(1e19); got != 10000000000000000000 {
		t.Errorf("doubleToUint64(1e19) = %d", got)
	}
}

func TestChunkID(t *testing.T) {
	long := "a very long chunk name that goes on and on and on and on and on and on and on"
	for _, tc := range []struct{ in, want string }{
		{"return 1", `[string "return 1"]`},
		{"line1\nline2", `[string "line1..."]`},
		{long, `[string "a very long chunk name that goes on and on and on and on and on..."]`},
		{"=mychunk", "mychunk"},
		{"@user_script", "user_script"},
		{"@" + long + long, "..." + (long + long)[len(long+long)-72:]},
		{"\x1bLuaQ\x00\x01", "[string \"\x1bLuaQ\"]"},
	} {
		if got := chunkID(tc.in); got != tc.want {
			t.Errorf("chunkID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedisErrorText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-MY_CODE some message", "MY_CODE some message"},
		{"-nospace", "ERR nospace"},
		{"-", "ERR "},
		{"- x", " x"},
		{"plain message", "ERR plain message"},
		{"-ERR msg\r\n", "ERR msg"},
		{"-CODE \r\nmsg\r\n", "CODE msg"},
		{"-CODE a\x00b", "CODE a"},
	} {
		if got := redisErrorText(tc.in); got != tc.want {
			t.Errorf("redisErrorText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRand48(t *testing.T) {
	r := newRand48()
	r.seed(10)
	got := float64(r.next()%rand48Max) / rand48Max
	if s := luaNumberString(got); s != "0.87885112309775" {
		t.Errorf("math.randomseed(10); math.random() = %s", s)
	}
	// The state carries on: the second value differs from the first.
	if second := float64(r.next()%rand48Max) / rand48Max; second == got {
		t.Errorf("the generator repeats itself")
	}
	r.seed(10)
	if again := float64(r.next()%rand48Max) / rand48Max; again != got {
		t.Errorf("reseeding gives %v, want %v", again, got)
	}
}
