package protocol

import (
	"math"
	"math/big"
)

// ParseTimeoutSeconds parses the timeout of a blocking command (BLPOP,
// BLMOVE, BZPOPMIN, ...) as Redis 7.0's getTimeoutFromObjectOrReply with
// UNIT_SECONDS does: b is read as a long double (ParseLongDouble, so "inf",
// hex floats and tiny exponents are accepted), multiplied by 1000 in long
// double precision and rounded up to an integer number of milliseconds
// ((long long)ceill(ftval * 1000.0)), so any positive timeout waits at least
// 1 ms and a negative one above -1 ms is 0 (wait forever). A result outside
// the int64 range, or an infinity, gives math.MinInt64, the x87 conversion's
// "integer indefinite" value, which the caller rejects as negative. ok is
// false when b is not a number.
func ParseTimeoutSeconds(b []byte) (ms int64, ok bool) {
	x, ok := ParseLongDouble(b)
	if !ok {
		return 0, false
	}
	neg, mant, e2, class := x.unpack()
	if class != ldFinite {
		return math.MinInt64, true
	}
	if mant == 0 {
		return 0, true
	}
	// mant * 2^e2 * 1000, rounded to the 64-bit significand as the x87 unit
	// does, then rounded up to an integer.
	f := new(big.Float).SetPrec(ldPrec).SetMode(big.ToNearestEven)
	f.SetMantExp(new(big.Float).SetUint64(mant), int(e2))
	f.Mul(f, big.NewFloat(1000))
	if neg {
		f.Neg(f)
	}
	i, acc := f.Int(nil) // truncates toward zero
	if acc == big.Below {
		i.Add(i, big.NewInt(1)) // a positive non-integer: ceil
	}
	if !i.IsInt64() {
		return math.MinInt64, true
	}
	return i.Int64(), true
}
