package rdb

import (
	"encoding/binary"
	"math"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The primitives of rdb.c's writer: lengths, strings and doubles.

// AppendLen appends an RDB length (rdbSaveLen): 6 bits, 14 bits, or a
// marker byte and 32 or 64 bits big endian.
func AppendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|len14<<6, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, len32), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, len64), n)
}

// AppendString appends s as rdbSaveRawString does: an integer encoding for
// a short decimal integer in int32 range (in string2ll's strict form), LZF
// when compress is set, s is longer than 20 bytes and compression saves at
// least 4 bytes, else the length and the bytes.
func AppendString[S string | []byte](b []byte, s S, compress bool) []byte {
	if len(s) <= 11 && len(s) > 0 {
		if v, ok := protocol.ParseInt([]byte(s)); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
			return appendIntEncoded(b, v)
		}
	}
	if compress && len(s) > 20 {
		if c := LZFCompress([]byte(s), len(s)-4); c != nil {
			b = append(b, lenEnc<<6|encLZF)
			b = AppendLen(b, uint64(len(c)))
			b = AppendLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = AppendLen(b, uint64(len(s)))
	return append(b, s...)
}

// appendIntEncoded appends v (in int32 range) as RDB_ENC_INT8/16/32
// (rdbEncodeInteger).
func appendIntEncoded(b []byte, v int64) []byte {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return append(b, lenEnc<<6|encInt8, byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(b, lenEnc<<6|encInt16), uint16(v))
	}
	return binary.LittleEndian.AppendUint32(append(b, lenEnc<<6|encInt32), uint32(v))
}

// AppendBinaryDouble appends f as rdbSaveBinaryDoubleValue (8 bytes, little
// endian IEEE 754).
func AppendBinaryDouble(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// AppendMillis appends an absolute time in milliseconds (rdbSaveMillisecondTime).
func AppendMillis(b []byte, ms int64) []byte {
	return binary.LittleEndian.AppendUint64(b, uint64(ms))
}
