package protocol

import (
	"math"
	"strconv"

	"github.com/tidwall/redcon"
)

// Writer appends RESP2 or RESP3 reply frames to Buf. It never writes to a
// socket and never allocates except to grow Buf, so a command handler can
// build its whole reply without syscalls. The zero value writes RESP2.
//
// Methods that have no RESP2 counterpart (maps, sets, doubles, booleans,
// pushes, verbatim strings, big numbers) degrade exactly as Redis 7.0 does
// for a RESP2 client: maps become flat arrays, sets and pushes become arrays,
// doubles become bulk strings, booleans become integers.
type Writer struct {
	Buf   []byte
	Proto int // 2 or 3; anything but 3 means RESP2
}

// Resp3 reports whether the writer emits RESP3 frames.
func (w *Writer) Resp3() bool { return w.Proto == 3 }

// Len reports the number of bytes buffered.
func (w *Writer) Len() int { return len(w.Buf) }

// Reset empties the buffer, keeping its capacity.
func (w *Writer) Reset() { w.Buf = w.Buf[:0] }

// Raw appends bytes that are already RESP encoded.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }

// RawString appends a string that is already RESP encoded.
func (w *Writer) RawString(s string) { w.Buf = append(w.Buf, s...) }

// OK appends +OK.
func (w *Writer) OK() { w.Buf = append(w.Buf, "+OK\r\n"...) }

// Queued appends +QUEUED.
func (w *Writer) Queued() { w.Buf = append(w.Buf, "+QUEUED\r\n"...) }

// Status appends a simple string; CR and LF are replaced by spaces.
func (w *Writer) Status(s string) { w.Buf = redcon.AppendString(w.Buf, s) }

// Error appends an error reply. msg is the text after '-', for example
// "ERR syntax error" or "WRONGTYPE Operation against ...". As in Redis's
// addReplyErrorLength, a message that does not start with an upper-case
// error code gets none added here: callers pass complete texts (see errors.go).
// CR and LF are replaced by spaces so the reply stays one line.
func (w *Writer) Error(msg string) { w.Buf = redcon.AppendError(w.Buf, msg) }

// Int appends an integer reply.
func (w *Writer) Int(n int64) { w.Buf = redcon.AppendInt(w.Buf, n) }

// Bulk appends a bulk string.
func (w *Writer) Bulk(b []byte) { w.Buf = AppendBulk(w.Buf, b) }

// BulkString appends a bulk string.
func (w *Writer) BulkString(s string) { w.Buf = AppendBulkString(w.Buf, s) }

// BulkInt appends the decimal form of n as a bulk string.
func (w *Writer) BulkInt(n int64) { w.Buf = AppendBulkInt(w.Buf, n) }

// Null appends a null bulk string: $-1 in RESP2, _ in RESP3 (addReplyNull).
func (w *Writer) Null() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "$-1\r\n"...)
}

// NullArray appends a null array: *-1 in RESP2, _ in RESP3
// (addReplyNullArray). An aborted EXEC replies with this.
func (w *Writer) NullArray() {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
		return
	}
	w.Buf = append(w.Buf, "*-1\r\n"...)
}

// Array appends an array header of n elements.
func (w *Writer) Array(n int) { w.Buf = appendHeader(w.Buf, '*', int64(n)) }

// Map appends a map header of n key/value pairs (RESP2: an array of 2n).
func (w *Writer) Map(n int) {
	if w.Proto == 3 {
		w.Buf = appendHeader(w.Buf, '%', int64(n))
		return
	}
	w.Buf = appendHeader(w.Buf, '*', int64(2*n))
}

// Set appends a set header of n elements (RESP2: an array).
func (w *Writer) Set(n int) {
	if w.Proto == 3 {
		w.Buf = appendHeader(w.Buf, '~', int64(n))
		return
	}
	w.Buf = appendHeader(w.Buf, '*', int64(n))
}

// Push appends a push header of n elements (RESP2: an array).
func (w *Writer) Push(n int) {
	if w.Proto == 3 {
		w.Buf = appendHeader(w.Buf, '>', int64(n))
		return
	}
	w.Buf = appendHeader(w.Buf, '*', int64(n))
}

// Attribute appends an attribute header (RESP3 only; RESP2 writes nothing,
// and the caller must skip the attribute's contents).
func (w *Writer) Attribute(n int) { w.Buf = appendHeader(w.Buf, '|', int64(n)) }

// Bool appends a boolean: #t/#f in RESP3, :1/:0 in RESP2.
func (w *Writer) Bool(b bool) {
	switch {
	case w.Proto == 3 && b:
		w.Buf = append(w.Buf, "#t\r\n"...)
	case w.Proto == 3:
		w.Buf = append(w.Buf, "#f\r\n"...)
	case b:
		w.Buf = append(w.Buf, ":1\r\n"...)
	default:
		w.Buf = append(w.Buf, ":0\r\n"...)
	}
}

// Double appends a double as Redis 7.0's addReplyDouble does: "%.17g"
// (inf and -inf spelled out), a bulk string in RESP2 and a ',' frame in RESP3.
func (w *Writer) Double(f float64) {
	var tmp [40]byte
	s := AppendDouble17(tmp[:0], f)
	if w.Proto == 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Buf = AppendBulk(w.Buf, s)
}

// HumanDouble appends a double formatted for humans (Redis's
// addReplyHumanLongDouble): a bulk string in RESP2, a ',' frame in RESP3.
// s is the already formatted text.
func (w *Writer) HumanDouble(s []byte) {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Buf = AppendBulk(w.Buf, s)
}

// BigNumber appends a big number: '(' in RESP3, a bulk string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.Proto == 3 {
		w.Buf = append(w.Buf, '(')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Buf = AppendBulkString(w.Buf, s)
}

// Verbatim appends a verbatim string with a three-letter format ("txt" or
// "mkd"): '=' in RESP3, a plain bulk string in RESP2.
func (w *Writer) Verbatim(format, s string) {
	if w.Proto == 3 {
		w.Buf = appendHeader(w.Buf, '=', int64(len(s)+4))
		w.Buf = append(w.Buf, format...)
		w.Buf = append(w.Buf, ':')
		w.Buf = append(w.Buf, s...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Buf = AppendBulkString(w.Buf, s)
}

// Deferred is a placeholder for an aggregate header whose length is known
// only after its elements are written (Redis's addReplyDeferredLen).
type Deferred struct{ pos int }

// DeferLen reserves the position of an aggregate header.
func (w *Writer) DeferLen() Deferred { return Deferred{pos: len(w.Buf)} }

// SetArrayLen writes an array header of n elements at d.
func (w *Writer) SetArrayLen(d Deferred, n int) { w.insertHeader(d, '*', int64(n)) }

// SetMapLen writes a map header of n pairs at d (RESP2: array of 2n).
func (w *Writer) SetMapLen(d Deferred, n int) {
	if w.Proto == 3 {
		w.insertHeader(d, '%', int64(n))
		return
	}
	w.insertHeader(d, '*', int64(2*n))
}

// SetSetLen writes a set header of n elements at d (RESP2: array).
func (w *Writer) SetSetLen(d Deferred, n int) {
	if w.Proto == 3 {
		w.insertHeader(d, '~', int64(n))
		return
	}
	w.insertHeader(d, '*', int64(n))
}

func (w *Writer) insertHeader(d Deferred, kind byte, n int64) {
	var tmp [24]byte
	h := appendHeader(tmp[:0], kind, n)
	w.Buf = append(w.Buf, h...) // grow by len(h)
	copy(w.Buf[d.pos+len(h):], w.Buf[d.pos:len(w.Buf)-len(h)])
	copy(w.Buf[d.pos:], h)
}

// AppendDouble17 appends f as C's printf("%.17g") prints it, with "inf" and
// "-inf" spelled as Redis spells them and NaN as "nan" or "-nan" by its sign
// bit (x86's default NaN is negative).
func AppendDouble17(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return AppendG(b, f, 17)
}

// AppendG appends f formatted like C's printf("%.<prec>g").
func AppendG(b []byte, f float64, prec int) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		switch {
		case math.IsInf(f, 1):
			return append(b, "inf"...)
		case math.IsInf(f, -1):
			return append(b, "-inf"...)
		}
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	}
	if prec == 0 {
		prec = 1
	}
	// C's %g: use exponent form when exp < -4 or exp >= prec, where exp is
	// the decimal exponent after rounding to prec significant digits; then
	// strip trailing zeros (and a trailing decimal point).
	var tmp [64]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', prec-1, 64)
	// e looks like [-]d.ddddde[+-]dd
	ei := len(e) - 1
	for e[ei] != 'e' {
		ei--
	}
	exp, _ := strconv.Atoi(string(e[ei+1:]))
	if exp < -4 || exp >= prec {
		mant := trimZeros(e[:ei])
		b = append(b, mant...)
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	fx := strconv.AppendFloat(tmp[:0], f, 'f', prec-1-exp, 64)
	return append(b, trimZeros(fx)...)
}

func trimZeros(s []byte) []byte {
	dot := -1
	for i, c := range s {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return s
	}
	end := len(s)
	for end > dot+1 && s[end-1] == '0' {
		end--
	}
	if end == dot+1 {
		end = dot
	}
	return s[:end]
}
