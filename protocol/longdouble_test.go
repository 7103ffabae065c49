package protocol

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// ld builds a LongDouble from the 20 hex digits the vectors use: the
// sign-and-exponent word, then the significand.
func ld(t testing.TB, hex string) LongDouble {
	t.Helper()
	se, err1 := strconv.ParseUint(hex[:4], 16, 16)
	mant, err2 := strconv.ParseUint(hex[4:], 16, 64)
	if len(hex) != 20 || err1 != nil || err2 != nil {
		t.Fatalf("bad long double %q", hex)
	}
	return longDoubleFromBits80(uint16(se), mant)
}

func ldHex(x LongDouble) string {
	se, mant := x.bits80()
	return fmt.Sprintf("%04x%016x", se, mant)
}

var parseLongDoubleTests = []struct {
	in  string
	out string // bits, or "" when refused
}{
	{"", ""},
	{"0", "00000000000000000000"},
	{"-0", "80000000000000000000"},
	{"1", "3fff8000000000000000"},
	{"-1", "bfff8000000000000000"},
	{"+1", "3fff8000000000000000"},
	{"012", "4002c000000000000000"},
	{"0.1", "3ffbcccccccccccccccd"},
	{"0.2", "3ffccccccccccccccccd"},
	{"0.3", "3ffd999999999999999a"},
	{"10.50", "4002a800000000000000"},
	{"5.0e3", "400b9c40000000000000"},
	{" 1", ""},
	{"1 ", ""},
	{"1\x00", ""},
	{"nan", ""},
	{"-nan", ""},
	{"inf", "7fff8000000000000000"},
	{"-Infinity", "ffff8000000000000000"},
	{"0x10", "40038000000000000000"},
	{"0x1p-3", "3ffc8000000000000000"},
	{"0x", ""},
	{"1e", ""},
	{".", ""},
	// 1e4000 is finite in long double; 1e5000 overflows.
	{"1e4000", "73e6d1ba8323fe558c61"},
	{"1e5000", ""},
	{"-1e5000", ""},
	{"1.18973149535723176502e+4932", "7ffeffffffffffffffff"}, // LDBL_MAX
	{"1.18973149535723176509e+4932", ""},                     // rounds to inf
	{"1.7e308", "43fef2168983b9dbb274"},
	// Subnormals are kept; what rounds to zero is refused.
	{"3.6451995318824746025e-4951", "00000000000000000001"},
	{"0x1p-16445", "00000000000000000001"},
	{"0x1p-16446", ""},
	{"0x1.0000001p-16446", "00000000000000000001"},
	{"1e-4940", "00000000000663278e62"},
	{"1e-5000", ""},
	{"0e-99999", "00000000000000000000"},
	{"3.3621031431120935063e-4932", "00018000000000000000"}, // LDBL_MIN
	// Fast path edges: 19 and 20 significant digits, 5^27 and 5^28.
	{"9999999999999999999", "403e8ac7230489e7ffff"},
	{"99999999999999999999", "4041ad78ebc5ac620000"},
	{"1e27", "4058cecb8f27f4200f3a"},
	{"1e28", "405c813f3978f8940984"},
	{"1e-27", "3fa59e74d1b791e07e48"},
	{"1e-28", "3fa1fd87b5f28300ca0e"},
}

func TestParseLongDouble(t *testing.T) {
	for _, tt := range parseLongDoubleTests {
		got, ok := ParseLongDouble([]byte(tt.in))
		switch {
		case ok != (tt.out != ""):
			t.Errorf("ParseLongDouble(%q) = %s, %v; want ok=%v", tt.in, ldHex(got), ok, tt.out != "")
		case ok && got != ld(t, tt.out):
			t.Errorf("ParseLongDouble(%q) = %s; want %s", tt.in, ldHex(got), tt.out)
		}
	}
	long := []byte("1." + strings.Repeat("0", maxLongDoubleChars-3))
	if x, ok := ParseLongDouble(long); !ok || x != LongDoubleFromInt64(1) {
		t.Errorf("ParseLongDouble of 1.000... in %d bytes = %s, %v; want 1, true", len(long), x, ok)
	}
	if _, ok := ParseLongDouble(append(long, '0')); ok {
		t.Errorf("ParseLongDouble of %d bytes accepted; string2ld refuses it", len(long)+1)
	}
}

func TestParseLongDoubleVectors(t *testing.T) {
	n, accepted := 0, 0
	for _, f := range loadVectors(t, "string2ld.tsv") {
		got, ok := ParseLongDouble([]byte(f[0]))
		if ok != (f[1] == "1") {
			t.Errorf("ParseLongDouble(%.80q) = %s, %v; glibc says %s", f[0], ldHex(got), ok, f[1])
		} else if ok {
			if want := ld(t, f[2]); got != want {
				t.Errorf("ParseLongDouble(%.80q) = %s; glibc says %s", f[0], ldHex(got), f[2])
			}
			accepted++
		}
		n++
	}
	t.Logf("%d vectors, %d accepted", n, accepted)
}

// TestDecimalFastPath checks the 64-bit fast path of decimal parsing against
// the exact big.Int path on inputs at its edges.
func TestDecimalFastPath(t *testing.T) {
	seed := uint64(12345)
	next := func() uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed
	}
	for i := 0; i < 20000; i++ {
		digits := strconv.FormatUint(next()>>(next()%64), 10)
		if len(digits) > 19 {
			digits = digits[:19]
		}
		e := int(next()%55) - 27
		in := digits + "e" + strconv.Itoa(e)
		var s floatSyntax
		if !s.scan([]byte(in)) {
			t.Fatalf("scan(%q) failed", in)
		}
		if !s.nonzero {
			continue
		}
		fast, fastOK := s.decimalLD()
		slow, slowOK := slowDecimalLD(in)
		if fast != slow || fastOK != slowOK {
			t.Fatalf("%s: fast path %s %v, exact %s %v", in, ldHex(fast), fastOK, ldHex(slow), slowOK)
		}
	}
}

// slowDecimalLD converts a decimal with big.Float at a precision far above
// what any 19-digit, |e| <= 27 input needs, then rounds to 64 bits.
func slowDecimalLD(in string) (LongDouble, bool) {
	r, ok := new(big.Rat).SetString(in)
	if !ok {
		return LongDouble{}, false
	}
	num, den := r.Num(), r.Denom()
	// num/den * 2^s with s chosen so that the quotient has >= 130 bits.
	s := 130 + den.BitLen() - num.BitLen()
	if s < 0 {
		s = 0
	}
	q, rem := new(big.Int).QuoRem(new(big.Int).Lsh(num, uint(s)), den, new(big.Int))
	hi, lo, sticky, shift := top128(q)
	return parsedLD(false, hi, lo, sticky || rem.Sign() != 0, shift-int64(s))
}

var addTests = []struct {
	a, b, sum string // decimal inputs, %.17Lf-human result
}{
	{"0", "0.1", "0.1"},
	{"0.1", "0.2", "0.3"},
	{"10.50", "0.1", "10.6"},
	{"10.6", "5.0e3", "5010.60000000000000009"},
	{"5.0e3", "2.0e2", "5200"},
	{"1.7e308", "1.7e308", "340000000000000000006273556050395193590540427779388267466087171526404912102411641988123739177800600673957047683771263425322806997836001586961457274820033393094901317200013624802610872515245814124760542925564488876540887382670905522638137419003805178364056052028734561012664811529831035124023358619554802565120"},
	{"-0", "-0", "0"},
	{"0", "-0.000000000000000001", "0"},
	{"1", "-1", "0"},
	{"1", "1e-4940", "1"},
	{"3", "-0.5", "2.5"},
	{"1e19", "1", "10000000000000000001"},
	{"1e20", "1", "100000000000000000000"}, // 1 is below half an ulp
}

// addHexTests are sums at the rounding edges, printed with %La.
var addHexTests = []struct{ a, b, sum string }{
	// 1 - 2^-65 would be a tie between 1 - 2^-64 and 1; the extra 2^-128
	// of b, shifted out of the 128-bit sum, makes it round down.
	{"1", "-0x8.000000000000001p-68", "0xf.fffffffffffffffp-4"},
	{"1", "-0x8p-68", "0x8p-3"},                                // a tie: to even
	{"1", "0x8p-67", "0x8p-3"},                                 // a tie: to even
	{"1", "0x8.000000000000001p-67", "0x8.000000000000001p-3"}, // above the tie
	{"0xf.fffffffffffffffp+16380", "0x8p+16316", "inf"},        // rounds up past LDBL_MAX
	{"0xf.fffffffffffffffp+16380", "0xf.fffffffffffffffp+16315", "0xf.fffffffffffffffp+16380"},
}

func TestLongDoubleAdd(t *testing.T) {
	for _, tt := range addHexTests {
		a, ok1 := ParseLongDouble([]byte(tt.a))
		b, ok2 := ParseLongDouble([]byte(tt.b))
		if !ok1 || !ok2 {
			t.Fatalf("cannot parse %q or %q", tt.a, tt.b)
		}
		for _, sum := range []LongDouble{a.Add(b), b.Add(a)} {
			if got := string(AppendLongDouble(nil, sum, LDStrHex)); got != tt.sum {
				t.Errorf("%s + %s = %s; want %s", tt.a, tt.b, got, tt.sum)
			}
		}
	}
	for _, tt := range addTests {
		a, ok1 := ParseLongDouble([]byte(tt.a))
		b, ok2 := ParseLongDouble([]byte(tt.b))
		if !ok1 || !ok2 {
			t.Fatalf("cannot parse %q or %q", tt.a, tt.b)
		}
		if got := string(AppendLongDouble(nil, a.Add(b), LDStrHuman)); got != tt.sum {
			t.Errorf("%s + %s = %s; want %s", tt.a, tt.b, got, tt.sum)
		}
	}
	max, _ := ParseLongDouble([]byte("1.18973149535723176502e+4932"))
	inf, _ := ParseLongDouble([]byte("inf"))
	ninf, _ := ParseLongDouble([]byte("-inf"))
	for _, tt := range []struct {
		name string
		x    LongDouble
		want bool
	}{
		{"max+max", max.Add(max), true},
		{"max+0", max.Add(LongDouble{}), false},
		{"inf+1", inf.Add(LongDoubleFromInt64(1)), true},
		{"inf-inf", inf.Add(ninf), true},
		{"nan+1", inf.Add(ninf).Add(LongDoubleFromInt64(1)), true},
		{"1+2", LongDoubleFromInt64(1).Add(LongDoubleFromInt64(2)), false},
	} {
		if got := tt.x.IsInfOrNaN(); got != tt.want {
			t.Errorf("%s: IsInfOrNaN() = %v; want %v", tt.name, got, tt.want)
		}
	}
	if got := string(AppendLongDouble(nil, inf.Add(ninf), LDStrAuto)); got != "-nan" {
		t.Errorf("inf-inf prints %q; want the x87 default NaN, -nan", got)
	}
}

func TestLongDoubleAddVectors(t *testing.T) {
	n := 0
	for _, f := range loadVectors(t, "ldadd.tsv") {
		a, b := ld(t, f[0]), ld(t, f[1])
		for _, sum := range []LongDouble{a.Add(b), b.Add(a)} {
			if f[2] == "nan" {
				if _, mant, _, class := sum.unpack(); class != ldClassNaN || mant>>62 != 3 {
					t.Errorf("%s + %s = %s; want a quiet NaN", f[0], f[1], ldHex(sum))
				}
			} else if want := ld(t, f[2]); sum != want {
				t.Errorf("%s + %s = %s; glibc says %s (%s + %s = %s)", f[0], f[1], ldHex(sum), f[2], a, b, want)
			}
		}
		n++
	}
	t.Logf("%d vectors", n)
}

var appendLongDoubleTests = []struct {
	bits             string
	auto, human, hex string
}{
	{"00000000000000000000", "0", "0", "0x0p+0"},
	{"80000000000000000000", "-0", "0", "-0x0p+0"},
	{"3fff8000000000000000", "1", "1", "0x8p-3"},
	{"bfff8000000000000000", "-1", "-1", "-0x8p-3"},
	{"3ffd999999999999999a", "0.3", "0.3", "0x9.99999999999999ap-5"},
	{"7fff8000000000000000", "inf", "inf", "inf"},
	{"ffff8000000000000000", "-inf", "-inf", "-inf"},
	{"7fffc000000000000000", "nan", "nan", "nan"},
	{"ffffc000000000000000", "-nan", "-nan", "-nan"},
	{"00000000000000000001", "3.6451995318824746e-4951", "0", "0x0.000000000000001p-16385"},
	{"3fed8000000000000000", "3.814697265625e-06", "0.00000381469726562", "0x8p-21"}, // a tie at %.17Lf: to even
	{"3fee8000000000000000", "7.62939453125e-06", "0.00000762939453125", "0x8p-20"},
	{"bfc98000000000000000", "-5.5511151231257827e-17", "-0.00000000000000006", "-0x8p-57"},
	{"40418000000000000000", "7.3786976294838206e+19", "73786976294838206464", "0x8p+63"},
	{"7ffeffffffffffffffff", "1.1897314953572318e+4932", "", "0xf.fffffffffffffffp+16380"},
}

func TestAppendLongDouble(t *testing.T) {
	for _, tt := range appendLongDoubleTests {
		x := ld(t, tt.bits)
		for _, c := range []struct {
			mode LDMode
			want string
		}{{LDStrAuto, tt.auto}, {LDStrHuman, tt.human}, {LDStrHex, tt.hex}} {
			if c.want == "" {
				continue
			}
			if got := string(AppendLongDouble([]byte("x"), x, c.mode)); got != "x"+c.want {
				t.Errorf("AppendLongDouble(%s, %d) = %q; want %q", tt.bits, c.mode, got, "x"+c.want)
			}
		}
	}
}

func TestAppendLongDoubleVectors(t *testing.T) {
	n := 0
	for _, f := range loadVectors(t, "ld2string.tsv") {
		x := ld(t, f[0])
		for i, mode := range []LDMode{LDStrAuto, LDStrHuman, LDStrHex} {
			if got := string(AppendLongDouble(nil, x, mode)); got != f[1+i] {
				t.Errorf("AppendLongDouble(%s, %d) = %.100q; glibc says %.100q", f[0], mode, got, f[1+i])
			}
		}
		want, _ := strconv.ParseUint(f[4], 16, 64)
		if got := x.Float64(); math.Float64bits(got) != want {
			t.Errorf("(%s).Float64() = %#016x; glibc says %#016x", f[0], math.Float64bits(got), want)
		}
		if f64 := math.Float64frombits(want); !math.IsNaN(f64) {
			// The way back is exact.
			if back := LongDoubleFromFloat64(f64); back.Float64() != f64 {
				t.Errorf("LongDoubleFromFloat64(%g) = %s does not convert back", f64, back)
			}
		}
		n++
	}
	t.Logf("%d vectors", n)
}

func TestLongDoubleFromInt64(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 3, 1 << 62, math.MaxInt64, math.MinInt64, -123456789} {
		x := LongDoubleFromInt64(n)
		want, _ := ParseLongDouble(AppendInt(nil, n))
		if x != want {
			t.Errorf("LongDoubleFromInt64(%d) = %s; want %s", n, ldHex(x), ldHex(want))
		}
		if got := string(AppendLongDouble(nil, x, LDStrHuman)); got != strconv.FormatInt(n, 10) {
			t.Errorf("LongDoubleFromInt64(%d) prints %q", n, got)
		}
	}
}

// incrByFloat is INCRBYFLOAT's arithmetic as Redis 7.0 does it, returning
// the stored text or the error reply.
func incrByFloat(value, incr []byte) string {
	v, ok1 := ParseLongDouble(value)
	inc, ok2 := ParseLongDouble(incr)
	if !ok1 || !ok2 {
		return "ERR value is not a valid float"
	}
	v = v.Add(inc)
	if v.IsInfOrNaN() {
		return "ERR increment would produce NaN or Infinity"
	}
	return string(AppendLongDouble(nil, v, LDStrHuman))
}

func TestIncrByFloat(t *testing.T) {
	// Checked against redis-server 7.0.15.
	for _, tt := range []struct{ value, incr, want string }{
		{"0", "0.1", "0.1"},
		{"0.1", "0.2", "0.3"},
		{"10.50", "0.1", "10.6"},
		{"10.6", "5.0e3", "5010.60000000000000009"},
		{"5.0e3", "2.0e2", "5200"},
		{"17", "0x1p-3", "17.125"},
		{"1", "0x10", "17"},
		{"-0", "-0", "0"},
		{"0", "-0.000000000000000001", "0"},
		{"1", "1e-4940", "1"},
		{"1", "1e-5000", "ERR value is not a valid float"},
		{"1", "1e5000", "ERR value is not a valid float"},
		{"1", "nan", "ERR value is not a valid float"},
		{"1", " 1", "ERR value is not a valid float"},
		{"1", "1 ", "ERR value is not a valid float"},
		{"1", "", "ERR value is not a valid float"},
		{"abc", "1", "ERR value is not a valid float"},
		{"1", "inf", "ERR increment would produce NaN or Infinity"},
		{"1.1e4932", "1.1e4932", "ERR increment would produce NaN or Infinity"},
	} {
		if got := incrByFloat([]byte(tt.value), []byte(tt.incr)); got != tt.want {
			t.Errorf("SET k %q; INCRBYFLOAT k %q = %q; want %q", tt.value, tt.incr, got, tt.want)
		}
	}
	got := incrByFloat([]byte("0"), []byte("1e4000"))
	if want := "999999999999999999996546387309962378493249258350695763130150833304326194330634235548182164186550927986276445207312367354021760221736759234417212588195052799996142858243435475450187095821429074130114301467044502626084944345627533374234082255914622044077450269914711681830777556677357120649203631296339"; !strings.HasPrefix(got, want) || len(got) != 4000 {
		t.Errorf("INCRBYFLOAT k 1e4000 = %.300q... (%d bytes); want %.300q... (4000 bytes)", got, len(got), want)
	}
}

func TestIncrByFloatVectors(t *testing.T) {
	n := 0
	for _, f := range loadVectors(t, "incrbyfloat.tsv") {
		want := f[2]
		switch want {
		case "!float":
			want = "ERR value is not a valid float"
		case "!naninf":
			want = "ERR increment would produce NaN or Infinity"
		}
		if got := incrByFloat([]byte(f[0]), []byte(f[1])); got != want {
			t.Errorf("SET k %.80q; INCRBYFLOAT k %.80q = %.100q; glibc says %.100q", f[0], f[1], got, want)
		}
		n++
	}
	t.Logf("%d vectors", n)
}

func BenchmarkIncrByFloat(b *testing.B) {
	value, incr := []byte("10.5"), []byte("0.1")
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		v, _ := ParseLongDouble(value)
		inc, _ := ParseLongDouble(incr)
		buf = AppendLongDouble(buf[:0], v.Add(inc), LDStrHuman)
	}
}
