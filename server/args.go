package server

import (
	"bytes"
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Command argument parsing shared by the families: Redis's
// getXxxFromObjectOrReply family (object.c, util.c string2ll) and options
// compared as C strings (strcasecmp stops at a NUL byte).

// errIntRange is getRangeLongFromObjectOrReply's error for a long outside
// a C int.
var errIntRange = protocol.Error("ERR value is out of range, value must between -2147483648 and 2147483647")

// intArg is getIntFromObjectOrReply without a custom message: a Redis
// integer that is not a long is ErrNotInteger, one outside a C int is
// errIntRange.
func intArg(b []byte) (int64, protocol.Error) {
	n, ok := protocol.ParseInt(b)
	if !ok {
		return 0, protocol.ErrNotInteger
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, errIntRange
	}
	return n, ""
}

// parseInt32 is getIntFromObject: a Redis integer that fits in a C int.
func parseInt32(b []byte) (int64, bool) {
	n, ok := protocol.ParseInt(b)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// errOutOfRange is the plain out-of-range error (HRANDFIELD and
// ZRANDMEMBER WITHVALUES/WITHSCORES with a count whose double overflows).
var errOutOfRange = protocol.Error("ERR value is out of range")

// parseRangeLong is getRangeLongFromObjectOrReply: an integer (string2ll)
// in [lo, hi]. When msg is set it is the error for both failures, as in
// Redis; otherwise a non-integer gives ErrNotInteger and an integer out of
// range "value is out of range, value must between <lo> and <hi>".
func parseRangeLong(arg []byte, lo, hi int64, msg protocol.Error) (int64, error) {
	n, ok := protocol.ParseInt(arg)
	if !ok {
		if msg != "" {
			return 0, msg
		}
		return 0, protocol.ErrNotInteger
	}
	if n < lo || n > hi {
		if msg != "" {
			return 0, msg
		}
		return 0, protocol.Error("ERR value is out of range, value must between " +
			strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
	}
	return n, nil
}

// parsePositiveLong is getPositiveLongFromObjectOrReply: an integer >= 0;
// msg (default "value is out of range, must be positive") covers both
// failures.
func parsePositiveLong(arg []byte, msg protocol.Error) (int64, error) {
	if msg == "" {
		msg = protocol.ErrNotPositive
	}
	return parseRangeLong(arg, 0, math.MaxInt64, msg)
}

// parseLong is getLongFromObjectOrReply without a custom message.
func parseLong(arg []byte) (int64, error) {
	n, ok := protocol.ParseInt(arg)
	if !ok {
		return 0, protocol.ErrNotInteger
	}
	return n, nil
}

// parseRandomCount parses the count of HRANDFIELD, SRANDMEMBER and
// ZRANDMEMBER: any integer but LLONG_MIN (CVE-2023-25155's fix).
func parseRandomCount(arg []byte) (int64, error) {
	return parseRangeLong(arg, -math.MaxInt64, math.MaxInt64, "")
}

// cstrEqualFold compares an option as Redis does with strcasecmp: the
// argument is read up to its first NUL byte.
func cstrEqualFold(arg []byte, opt string) bool {
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	return bytes.EqualFold(arg, []byte(opt))
}

// cstrBytes cuts b at its first NUL, as C's "%s" prints it.
func cstrBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
