package geo

import "math"

// Correctly rounded sin, cos and asin. Redis computes distances with
// glibc's libm, whose results are (to within a few thousandths of an ulp)
// the correctly rounded ones; Go's math.Sin, math.Cos and math.Asin are off
// by up to an ulp, which shows in STOREDIST scores and at radius
// boundaries. These evaluate in double-double arithmetic (about 100 bits)
// and round once.

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func ddMulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	r := ddAdd(a, ddMulF(dd{-q1, 0}, b))
	q2 := r.hi / b
	return quickTwoSum(q1, q2)
}

// pio2 is pi/2 in three parts (sum accurate to about 160 bits).
var pio2 = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}

// invFact[n] is 1/n! as a double-double.
var invFact = func() [28]dd {
	var f [28]dd
	f[0] = dd{1, 0}
	for n := 1; n < len(f); n++ {
		f[n] = ddDivF(f[n-1], float64(n))
	}
	return f
}()

// reduce returns r = x - k*pi/2 in double-double and k mod 4, for the
// moderate arguments geo computes with (|x| below a few thousand).
func reduce(x float64) (dd, int) {
	k := math.Round(x / pio2[0])
	e := twoProd(k, pio2[0])
	r := ddAdd(dd{x, 0}, dd{-e.hi, -e.lo})
	r = ddAdd(r, ddMulF(dd{-pio2[1], -pio2[2]}, k))
	return r, int(int64(k) & 3)
}

// sinPoly and cosPoly evaluate the Taylor series of sin and cos at r,
// |r| <= pi/4, to about 2^-100.
func sinPoly(r dd) dd {
	r2 := ddMul(r, r)
	acc := invFact[25]
	for n := 23; n >= 1; n -= 2 {
		acc = ddMul(acc, r2)
		c := invFact[n]
		if (n/2)%2 == 1 {
			c = dd{-c.hi, -c.lo}
		}
		acc = ddAdd(acc, c)
	}
	return ddMul(acc, r)
}

func cosPoly(r dd) dd {
	r2 := ddMul(r, r)
	acc := neg(invFact[26])
	for n := 24; n >= 0; n -= 2 {
		acc = ddMul(acc, r2)
		c := invFact[n]
		if (n/2)%2 == 1 {
			c = dd{-c.hi, -c.lo}
		}
		acc = ddAdd(acc, c)
	}
	return acc
}

func neg(a dd) dd { return dd{-a.hi, -a.lo} }

func sinDD(x float64) dd {
	r, k := reduce(x)
	switch k {
	case 0:
		return sinPoly(r)
	case 1:
		return cosPoly(r)
	case 2:
		return neg(sinPoly(r))
	default:
		return neg(cosPoly(r))
	}
}

func cosDD(x float64) dd {
	r, k := reduce(x)
	switch k {
	case 0:
		return cosPoly(r)
	case 1:
		return neg(sinPoly(r))
	case 2:
		return neg(cosPoly(r))
	default:
		return sinPoly(r)
	}
}

// The fast evaluations below keep the leading terms of the series in
// double-double and sum the small tail in double arithmetic: their relative
// error is below 2^-62. A result is returned when that bound cannot change
// its rounding (Ziv's test); otherwise the full series decides.
const fastRelErr = 0x1p-60

// sinPolyFast is sinPoly with the terms from r^7 on in double arithmetic.
func sinPolyFast(r dd) dd {
	r2 := ddMul(r, r)
	t := r2.hi
	p := invFactF[25]
	for n := 23; n >= 7; n -= 2 {
		p = p*t + sgnFact(n)
	}
	acc := ddAdd(sgnFactDD(5), dd{t * p, 0})
	acc = ddAdd(sgnFactDD(3), ddMul(r2, acc))
	acc = ddAdd(dd{1, 0}, ddMul(r2, acc))
	return ddMul(r, acc)
}

// cosPolyFast is cosPoly with the terms from r^8 on in double arithmetic.
func cosPolyFast(r dd) dd {
	r2 := ddMul(r, r)
	t := r2.hi
	p := -invFactF[26]
	for n := 24; n >= 8; n -= 2 {
		p = p*t + sgnFact(n)
	}
	acc := ddAdd(sgnFactDD(6), dd{t * p, 0})
	acc = ddAdd(sgnFactDD(4), ddMul(r2, acc))
	acc = ddAdd(sgnFactDD(2), ddMul(r2, acc))
	return ddAdd(dd{1, 0}, ddMul(r2, acc))
}

// invFactF[n] is 1/n! rounded to a double.
var invFactF = func() (f [28]float64) {
	for i := range f {
		f[i] = invFact[i].hi
	}
	return f
}()

// sgnFact is the Taylor coefficient of r^n in sin or cos: (-1)^(n/2) / n!.
func sgnFact(n int) float64 {
	if (n/2)%2 == 1 {
		return -invFactF[n]
	}
	return invFactF[n]
}

func sgnFactDD(n int) dd {
	if (n/2)%2 == 1 {
		return neg(invFact[n])
	}
	return invFact[n]
}

func sinFastDD(x float64) dd {
	r, k := reduce(x)
	switch k {
	case 0:
		return sinPolyFast(r)
	case 1:
		return cosPolyFast(r)
	case 2:
		return neg(sinPolyFast(r))
	default:
		return neg(cosPolyFast(r))
	}
}

func cosFastDD(x float64) dd {
	r, k := reduce(x)
	switch k {
	case 0:
		return cosPolyFast(r)
	case 1:
		return neg(sinPolyFast(r))
	case 2:
		return neg(cosPolyFast(r))
	default:
		return sinPolyFast(r)
	}
}

// roundSafe returns v's rounding when an error of rel*|v| cannot change it.
func roundSafe(v dd, rel float64) (float64, bool) {
	a := math.Abs(v.hi)
	if a == 0 || math.Float64bits(a)&(1<<52-1) == 0 || math.IsInf(a, 0) {
		return 0, false // zero or a power of two: decide slowly
	}
	ulp := math.Nextafter(a, math.Inf(1)) - a
	if math.Abs(v.lo)+rel*a < ulp/2 {
		return v.hi, true
	}
	return 0, false
}

// Sin is sin(x) correctly rounded (for the arguments geo uses).
func Sin(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || x != x || math.Abs(x) > 1e6 {
		return math.Sin(x)
	}
	if v, ok := roundSafe(sinFastDD(x), fastRelErr); ok {
		return v
	}
	return sinDD(x).hi
}

// Cos is cos(x) correctly rounded (for the arguments geo uses).
func Cos(x float64) float64 {
	if math.IsInf(x, 0) || x != x || math.Abs(x) > 1e6 {
		return math.Cos(x)
	}
	if v, ok := roundSafe(cosFastDD(x), fastRelErr); ok {
		return v
	}
	return cosDD(x).hi
}

// Asin is asin(x) correctly rounded: math.Asin refined by one Newton step
// in double-double, except near |x| = 1 where the step is ill-conditioned.
func Asin(x float64) float64 {
	y0 := math.Asin(x)
	if x == 0 || math.Abs(x) > 0.99999 || x != x {
		return y0
	}
	s, c := sinFastDD(y0), cosFastDD(y0)
	// The error of s moves the step by about fastRelErr*tan(y0) relative.
	if v, ok := roundSafe(asinStep(x, y0, s, c), fastRelErr*math.Max(1, math.Abs(s.hi/c.hi/y0))*4); ok {
		return v
	}
	return asinStep(x, y0, sinDD(y0), cosDD(y0)).hi
}

func asinStep(x, y0 float64, s, c dd) dd {
	diff := ddAdd(s, dd{-x, 0})
	delta := (diff.hi + diff.lo) / c.hi
	return ddAdd(dd{y0, 0}, dd{-delta, 0})
}
