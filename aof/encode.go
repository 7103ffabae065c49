package aof

import "strconv"

// AppendCommand appends args to dst as the log stores a command: a RESP
// array of bulk strings (Redis's catAppendOnlyGenericCommand).
func AppendCommand(dst []byte, args ...[]byte) []byte {
	dst = appendHeader(dst, '*', len(args))
	for _, a := range args {
		dst = appendHeader(dst, '$', len(a))
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// AppendCommandStrings is AppendCommand for string arguments.
func AppendCommandStrings(dst []byte, args ...string) []byte {
	dst = appendHeader(dst, '*', len(args))
	for _, a := range args {
		dst = appendHeader(dst, '$', len(a))
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// AppendSelect appends "SELECT db" as Redis's feedAppendOnlyFile writes it.
func AppendSelect(dst []byte, db int) []byte {
	var num [20]byte
	n := strconv.AppendInt(num[:0], int64(db), 10)
	dst = append(dst, "*2\r\n$6\r\nSELECT\r\n"...)
	dst = appendHeader(dst, '$', len(n))
	dst = append(dst, n...)
	return append(dst, '\r', '\n')
}

// Prebuilt commands the server writes around transactions.
var (
	multiCommand = []byte("*1\r\n$5\r\nMULTI\r\n")
	execCommand  = []byte("*1\r\n$4\r\nEXEC\r\n")
)

// AppendMulti appends MULTI; AppendExec appends EXEC.
func AppendMulti(dst []byte) []byte { return append(dst, multiCommand...) }

// AppendExec appends EXEC (see AppendMulti).
func AppendExec(dst []byte) []byte { return append(dst, execCommand...) }

func appendHeader(dst []byte, kind byte, n int) []byte {
	dst = append(dst, kind)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, '\r', '\n')
}

// Builders for commands written piece by piece (the rewrite of a large
// value): an array header, then its bulk strings.

// AppendArray appends the header of a command of n arguments.
func AppendArray(dst []byte, n int) []byte { return appendHeader(dst, '*', n) }

// AppendBulk appends one argument.
func AppendBulk(dst, b []byte) []byte {
	dst = appendHeader(dst, '$', len(b))
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// AppendBulkString appends one argument given as a string.
func AppendBulkString(dst []byte, s string) []byte {
	dst = appendHeader(dst, '$', len(s))
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendBulkInt appends one argument, the decimal form of n.
func AppendBulkInt(dst []byte, n int64) []byte {
	var num [20]byte
	return AppendBulk(dst, strconv.AppendInt(num[:0], n, 10))
}
