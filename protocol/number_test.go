package protocol

import (
	"bufio"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Hand-written cases come first in each test; the testdata/*.tsv.gz vectors
// were produced by glibc (see testdata/gen/gen.c) and are checked after.

type parseIntTest struct {
	in  string
	out int64
	ok  bool
}

var parseIntTests = []parseIntTest{
	{"", 0, false},
	{"0", 0, true},
	{"-0", 0, false},
	{"+0", 0, false},
	{"1", 1, true},
	{"+1", 0, false},
	{"-1", -1, true},
	{"01", 0, false},
	{"00", 0, false},
	{"-01", 0, false},
	{"-", 0, false},
	{" 1", 0, false},
	{"1 ", 0, false},
	{"1\x00", 0, false},
	{"\x001", 0, false},
	{"12345", 12345, true},
	{"-12345", -12345, true},
	{"1_000", 0, false},
	{"1e3", 0, false},
	{"1.0", 0, false},
	{"0x10", 0, false},
	{"a", 0, false},
	{"12a", 0, false},
	{"9223372036854775807", math.MaxInt64, true},
	{"9223372036854775808", 0, false},
	{"-9223372036854775808", math.MinInt64, true},
	{"-9223372036854775809", 0, false},
	{"18446744073709551615", 0, false},
	{"18446744073709551616", 0, false},
	{"99999999999999999999", 0, false},
	{"-99999999999999999999", 0, false},
	{"100000000000000000000", 0, false},
	{"1000000000000000000", 1000000000000000000, true},
	{"-1000000000000000000", -1000000000000000000, true},
	{"9999999999999999999", 0, false},
	{"--1", 0, false},
	{"1-", 0, false},
	{"١", 0, false}, // a non-ASCII digit
}

func TestParseInt(t *testing.T) {
	for _, tt := range parseIntTests {
		out, ok := ParseInt([]byte(tt.in))
		if out != tt.out || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, out, ok, tt.out, tt.ok)
		}
	}
}

// TestParseIntRoundTrip checks that every int64 printed by AppendInt parses
// back, and that the same text with a '+', a leading zero or a space does not.
func TestParseIntRoundTrip(t *testing.T) {
	vals := []int64{0, 1, -1, 9, 10, -10, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	for v, i := int64(7), 0; i < 200; i++ {
		v = v*6364136223846793005 + 1442695040888963407
		vals = append(vals, v, v>>(i%63))
	}
	for _, v := range vals {
		s := AppendInt(nil, v)
		if string(s) != strconv.FormatInt(v, 10) {
			t.Fatalf("AppendInt(%d) = %q", v, s)
		}
		if got, ok := ParseInt(s); !ok || got != v {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, true", s, got, ok, v)
		}
		for _, bad := range []string{"+" + string(s), " " + string(s), string(s) + " ", string(s) + "0"} {
			if got, ok := ParseInt([]byte(bad)); ok && bad != string(s)+"0" {
				t.Errorf("ParseInt(%q) = %d, true; want false", bad, got)
			}
		}
	}
}

func TestParseIntVectors(t *testing.T) {
	n := 0
	for _, f := range loadVectors(t, "string2ll.tsv") {
		out, ok := ParseInt([]byte(f[0]))
		want, _ := strconv.ParseInt(f[2], 10, 64)
		if ok != (f[1] == "1") || out != want {
			t.Errorf("ParseInt(%q) = %d, %v; glibc says %s %s", f[0], out, ok, f[1], f[2])
		}
		n++
	}
	t.Logf("%d vectors", n)
}

var parseUintTests = []struct {
	in  string
	out uint64
	ok  bool
}{
	{"", 0, false},
	{"0", 0, true},
	{"1", 1, true},
	{"-1", 0, false}, // string2ll parses it and it is negative
	{"-0", 0, true},  // string2ll refuses it; strtoull gives 0
	{"-05", 18446744073709551611, true},
	{"+5", 5, true},
	{" 5", 5, true},
	{"\t\n5", 5, true},
	{"5 ", 0, false},
	{"007", 7, true},
	{"9223372036854775808", 9223372036854775808, true},
	{"18446744073709551615", math.MaxUint64, true},
	{"18446744073709551616", 0, false},
	{"-18446744073709551615", 1, true},
	{"-18446744073709551616", 0, false},
	{"-9223372036854775809", 9223372036854775807, true},
	{"+", 0, false},
	{"-", 0, false},
	{" ", 0, false},
	{"+ 1", 0, false},
	{"0x10", 0, false},
	{"1e3", 0, false},
	{"5\x00abc", 5, true}, // a C string ends at NUL
	{"\x005", 0, false},
}

func TestParseUint(t *testing.T) {
	for _, tt := range parseUintTests {
		out, ok := ParseUint([]byte(tt.in))
		if out != tt.out || ok != tt.ok {
			t.Errorf("ParseUint(%q) = %d, %v; want %d, %v", tt.in, out, ok, tt.out, tt.ok)
		}
	}
	checkUintVectors(t, "string2ull.tsv", "ParseUint", ParseUint)
}

var parseScanCursorTests = []struct {
	in  string
	out uint64
	ok  bool
}{
	{"", 0, true}, // strtoul("") is 0 with the end at the NUL
	{"0", 0, true},
	{"00", 0, true},
	{"+0", 0, true},
	{"-0", 0, true},
	{"-1", math.MaxUint64, true},
	{"17", 17, true},
	{" 0", 0, false},
	{"\t0", 0, false},
	{"0 ", 0, false},
	{"18446744073709551615", math.MaxUint64, true},
	{"18446744073709551616", 0, false},
	{"-18446744073709551615", 1, true},
	{"abc", 0, false},
	{"0x10", 0, false},
	{"1e2", 0, false},
	{"+", 0, false},
	{"- 1", 0, false},
	{"0\x00abc", 0, true},
	{"\x00", 0, true},
}

func TestParseScanCursor(t *testing.T) {
	for _, tt := range parseScanCursorTests {
		out, ok := ParseScanCursor([]byte(tt.in))
		if out != tt.out || ok != tt.ok {
			t.Errorf("ParseScanCursor(%q) = %d, %v; want %d, %v", tt.in, out, ok, tt.out, tt.ok)
		}
	}
	checkUintVectors(t, "scancursor.tsv", "ParseScanCursor", ParseScanCursor)
}

func checkUintVectors(t *testing.T, file, name string, parse func([]byte) (uint64, bool)) {
	t.Helper()
	n := 0
	for _, f := range loadVectors(t, file) {
		out, ok := parse([]byte(f[0]))
		want, _ := strconv.ParseUint(f[2], 10, 64)
		if ok != (f[1] == "1") || out != want {
			t.Errorf("%s(%q) = %d, %v; glibc says %s %s", name, f[0], out, ok, f[1], f[2])
		}
		n++
	}
	t.Logf("%s: %d vectors", file, n)
}

var parseFloatTests = []struct {
	in  string
	out float64
	ok  bool
}{
	{"", 0, false},
	{"0", 0, true},
	{"-0", math.Copysign(0, -1), true},
	{"+0", 0, true},
	{"1", 1, true},
	{"+1", 1, true},
	{"-1.5", -1.5, true},
	{"012", 12, true},
	{".5", 0.5, true},
	{"5.", 5, true},
	{".", 0, false},
	{"-.", 0, false},
	{"e5", 0, false},
	{"1e5", 1e5, true},
	{"1E+5", 1e5, true},
	{"1e-5", 1e-5, true},
	{"1e", 0, false},
	{"1e+", 0, false},
	{"1e5.5", 0, false},
	{" 1", 0, false},
	{"\t1", 0, false},
	{"1 ", 0, false},
	{"1\x00", 0, false},
	{"1_000", 0, false},
	{"1,5", 0, false},
	{"0.1", 0.1, true},
	{"10.50", 10.5, true},
	{"inf", math.Inf(1), true},
	{"-inf", math.Inf(-1), true},
	{"+INF", math.Inf(1), true},
	{"Infinity", math.Inf(1), true},
	{"-iNfInItY", math.Inf(-1), true},
	{"infinit", 0, false},
	{"infinityy", 0, false},
	{"infx", 0, false},
	{"nan", 0, false},
	{"-nan", 0, false},
	{"NaN(123)", 0, false},
	{"0x10", 16, true},
	{"0X1A", 26, true},
	{"0x1p-2", 0.25, true},
	{"0x.8", 0.5, true},
	{"0x8.", 8, true},
	{"-0x1.8p1", -3, true},
	{"0x", 0, false},
	{"0x.", 0, false},
	{"0xp1", 0, false},
	{"0x1p", 0, false},
	{"0x1e", 30, true}, // 'e' is a hex digit
	{"0x1g", 0, false},
	{"0x0p99999999999999999999", 0, true},
	{"1e308", 1e308, true},
	{"1.7976931348623157e308", math.MaxFloat64, true},
	{"1.7976931348623158e308", math.MaxFloat64, true}, // rounds down to max
	{"1.7976931348623159e308", 0, false},              // rounds up to inf: ERANGE
	{"1e309", 0, false},
	{"-1e309", 0, false},
	{"1e99999999999999999999", 0, false},
	{"0x1p1024", 0, false},
	{"0x1.fffffffffffff8p1023", 0, false},
	{"2.2250738585072014e-308", 2.2250738585072014e-308, true},
	{"4.9406564584124654e-324", 5e-324, true}, // smallest subnormal
	{"3e-324", 5e-324, true},
	{"2.4703282292062328e-324", 5e-324, true}, // just above half of it
	{"2.4703282292062327e-324", 0, false},     // half of it exactly-ish: ties to 0, ERANGE
	{"2e-324", 0, false},
	{"1e-400", 0, false},
	{"0e-400", 0, true}, // an exact zero is not an underflow
	{"0.0000e99999999", 0, true},
	{"0x1p-1074", 5e-324, true},
	{"0x1p-1075", 0, false},
	{"0x1.8p-1075", 5e-324, true},
	{"0x1.0000000000000000000000000000000001p-1075", 5e-324, true},
	{"1e-320", 1e-320, true},
	{"123456789012345678901234567890", 123456789012345678901234567890, true},
}

func TestParseFloat(t *testing.T) {
	for _, tt := range parseFloatTests {
		out, ok := ParseFloat([]byte(tt.in))
		if ok != tt.ok || math.Float64bits(out) != math.Float64bits(tt.out) && tt.ok {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v, %v", tt.in, out, ok, tt.out, tt.ok)
		}
	}
}

func TestParseFloatVectors(t *testing.T) {
	n, accepted := 0, 0
	for _, f := range loadVectors(t, "string2d.tsv") {
		out, ok := ParseFloat([]byte(f[0]))
		wantOK := f[1] == "1"
		if ok != wantOK {
			t.Errorf("ParseFloat(%q) = %v, %v; glibc says %s", f[0], out, ok, f[1])
		} else if ok {
			want, _ := strconv.ParseUint(f[2], 16, 64)
			if math.Float64bits(out) != want {
				t.Errorf("ParseFloat(%q) = %#016x (%g); glibc says %#016x (%g)",
					f[0], math.Float64bits(out), out, want, math.Float64frombits(want))
			}
			accepted++
		}
		n++
	}
	t.Logf("%d vectors, %d accepted", n, accepted)
}

func TestAppendGVectors(t *testing.T) {
	n := 0
	for _, f := range loadVectors(t, "printf_g.tsv") {
		u, _ := strconv.ParseUint(f[0], 16, 64)
		v := math.Float64frombits(u)
		prec, _ := strconv.Atoi(f[1])
		if got := string(AppendG(nil, v, prec)); got != f[2] {
			t.Errorf("AppendG(%g, %d) = %q; printf(\"%%.%dg\") = %q", v, prec, got, prec, f[2])
		}
		if got := string(AppendDouble17(nil, v)); got != f[3] {
			t.Errorf("AppendDouble17(%g) = %q; printf(\"%%.17g\") = %q", v, got, f[3])
		}
		if got := string(AppendFloat17(nil, v)); got != f[4] {
			t.Errorf("AppendFloat17(%g) = %q; d2string = %q", v, got, f[4])
		}
		n++
	}
	t.Logf("%d vectors", n)
}

var appendFloat17Tests = []struct {
	in  float64
	out string
}{
	{0, "0"},
	{math.Copysign(0, -1), "-0"},
	{math.Inf(1), "inf"},
	{math.Inf(-1), "-inf"},
	{math.NaN(), "nan"},
	{1, "1"},
	{-1, "-1"},
	{1.5, "1.5"},
	{0.1, "0.10000000000000001"},
	{1e17, "100000000000000000"},
	{1e18, "1000000000000000000"},
	{-1e18, "-1000000000000000000"},
	{1 << 62, "4611686018427387904"},
	{-(1 << 62), "-4611686018427387904"},
	{1<<62 + 1024, "4.6116860184273889e+18"},
	{5e18, "5e+18"},
	{1e100, "1e+100"},
	{123456.789, "123456.789"},
	{1e-5, "1.0000000000000001e-05"},
	{5e-324, "4.9406564584124654e-324"},
}

func TestAppendFloat17(t *testing.T) {
	for _, tt := range appendFloat17Tests {
		want := tt.out
		if got := string(AppendFloat17([]byte("x"), tt.in)); got != "x"+want {
			t.Errorf("AppendFloat17(%g) = %q; want %q", tt.in, got, "x"+want)
		}
	}
}

var appendGTests = []struct {
	in   float64
	prec int
	out  string
}{
	{0, 17, "0"},
	{math.Copysign(0, -1), 17, "-0"},
	{100, 17, "100"},
	{1e16, 17, "10000000000000000"},
	{1e17, 17, "1e+17"},
	{123456789012345680000, 17, "1.2345678901234568e+20"},
	{0.0001, 17, "0.0001"},
	{0.00001, 17, "1.0000000000000001e-05"},
	{1e-300, 17, "1e-300"},
	{1e300, 17, "1.0000000000000001e+300"},
	{0.5, 0, "0.5"},
	{2.5, 1, "2"}, // ties to even
	{3.5, 1, "4"}, // ties to even
	{0.125, 2, "0.12"},
	{9.5, 1, "1e+01"},
	{99999, 5, "99999"},
	{999999, 5, "1e+06"},
}

func TestAppendG(t *testing.T) {
	for _, tt := range appendGTests {
		if got := string(AppendG(nil, tt.in, tt.prec)); got != tt.out {
			t.Errorf("AppendG(%g, %d) = %q; want %q", tt.in, tt.prec, got, tt.out)
		}
	}
}

// TestAppendDouble17NaNSign pins what redis-server 7.0.15 replies for a NaN
// double (Lua "return {double=0/0}"): addReplyDouble prints it with
// "%.17g", and glibc writes the sign bit, which x86's default NaN has set:
// "$4\r\n-nan\r\n" in RESP2, ",-nan\r\n" in RESP3; -(0/0) gives "nan".
func TestAppendDouble17NaNSign(t *testing.T) {
	negNaN := math.Float64frombits(0xFFF8000000000000) // 0.0/0.0 on amd64
	posNaN := math.Float64frombits(0x7FF8000000000000)
	for _, tt := range []struct {
		in   float64
		want string
	}{{negNaN, "-nan"}, {posNaN, "nan"}} {
		if got := string(AppendG(nil, tt.in, 17)); got != tt.want {
			t.Errorf("AppendG(%#x, 17) = %q; want %q", math.Float64bits(tt.in), got, tt.want)
		}
		if got := string(AppendDouble17(nil, tt.in)); got != tt.want {
			t.Errorf("AppendDouble17(%#x) = %q; want %q (printf(\"%%.17g\"))", math.Float64bits(tt.in), got, tt.want)
		}
	}
}

func TestParseIntAllocs(t *testing.T) {
	in := []byte("-1234567890123")
	fl := []byte("1234.5678e-3")
	if n := testing.AllocsPerRun(100, func() {
		ParseInt(in)
		ParseUint(in)
		ParseScanCursor(in)
		ParseFloat(fl)
	}); n != 0 {
		t.Errorf("number parsing allocates %v times per run; want 0", n)
	}
}

func BenchmarkParseInt(b *testing.B) {
	for _, s := range []string{"7", "-1234567890", "9223372036854775807", "12a"} {
		in := []byte(s)
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ParseInt(in)
			}
		})
	}
}

func BenchmarkParseFloat(b *testing.B) {
	for _, s := range []string{"3.25", "1.7976931348623157e308", "0x1.8p3"} {
		in := []byte(s)
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ParseFloat(in)
			}
		})
	}
}

// loadVectors reads testdata/<name>.gz, a tab-separated file whose fields
// in double quotes are Go-quoted strings.
func loadVectors(t testing.TB, name string) [][]string {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		for i, f := range fields {
			if strings.HasPrefix(f, `"`) {
				u, err := strconv.Unquote(f)
				if err != nil {
					t.Fatalf("%s:%d: field %d: %v", name, line, i, err)
				}
				fields[i] = u
			}
		}
		rows = append(rows, fields)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return rows
}
