package geo

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigSin computes sin(x) to 200 bits with its Taylor series (|x| < 4).
func bigSinCos(x float64, cos bool) float64 {
	const prec = 256
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	x2 := new(big.Float).SetPrec(prec).Mul(bx, bx)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	start := 1
	if !cos {
		term.Set(bx)
		start = 2
	}
	sum := new(big.Float).SetPrec(prec).Set(term)
	for n := start; n < 120; n += 2 {
		term.Mul(term, x2)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(n*(n+1))))
		term.Neg(term)
		sum.Add(sum, term)
	}
	f, _ := sum.Float64()
	return f
}

func TestSinCosCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		x := (r.Float64()*2 - 1) * 3.2
		if got, want := Sin(x), bigSinCos(x, false); got != want {
			t.Fatalf("Sin(%v) = %v, want %v", x, got, want)
		}
		if got, want := Cos(x), bigSinCos(x, true); got != want {
			t.Fatalf("Cos(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestAsinInverts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		x := r.Float64() * 0.9999
		y := Asin(x)
		// y must be the double nearest the true asin: its neighbours'
		// sines are farther from x.
		dy := sinDD(y)
		up, down := sinDD(math.Nextafter(y, 2)), sinDD(math.Nextafter(y, -2))
		e := math.Abs(dy.hi - x + dy.lo)
		if math.Abs(up.hi-x+up.lo) < e || math.Abs(down.hi-x+down.lo) < e {
			t.Fatalf("Asin(%v) = %v is not the nearest", x, y)
		}
	}
}
