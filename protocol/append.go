package protocol

import "strconv"

// The one RESP encoder of the tree: append-style functions that the reply
// Writer, the pub/sub and tracking message frames and the AOF writer all
// build on (Redis has one writer too, networking.c's addReply* family, which
// feedAppendOnlyFile's catAppendOnlyGenericCommand mirrors). They append to
// the caller's buffer and allocate only when it must grow.

// AppendArrayLen appends the header of an array of n elements ("*n\r\n").
func AppendArrayLen(b []byte, n int) []byte { return appendHeader(b, '*', int64(n)) }

// AppendBulk appends s as a bulk string ("$len\r\ns\r\n").
func AppendBulk(b, s []byte) []byte { return appendBulk(b, s) }

// AppendBulkString is AppendBulk for a string.
func AppendBulkString(b []byte, s string) []byte { return appendBulk(b, s) }

// AppendBulkInt appends the decimal form of n as a bulk string.
func AppendBulkInt(b []byte, n int64) []byte {
	var tmp [20]byte
	return appendBulk(b, strconv.AppendInt(tmp[:0], n, 10))
}

// AppendCommand appends args as a command is sent or logged: an array of
// bulk strings (the AOF's and MULTI/EXEC propagation's form).
func AppendCommand[T string | []byte](b []byte, args ...T) []byte {
	b = appendHeader(b, '*', int64(len(args)))
	for _, a := range args {
		b = appendBulk(b, a)
	}
	return b
}

func appendBulk[T string | []byte](b []byte, s T) []byte {
	b = appendHeader(b, '$', int64(len(s)))
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// appendHeader appends a type byte, n and CRLF: the header of arrays, maps,
// sets, pushes and bulk strings.
func appendHeader(b []byte, kind byte, n int64) []byte {
	if n >= 0 && n <= 9 {
		return append(b, kind, byte('0'+n), '\r', '\n')
	}
	b = append(b, kind)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '\r', '\n')
}
