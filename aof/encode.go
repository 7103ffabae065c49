package aof

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The log stores commands in RESP, encoded by protocol's one encoder (Redis's
// catAppendOnlyGenericCommand writes the same bytes as its reply writer).
// These are the AOF's names for it.

// AppendCommand appends args to dst as the log stores a command: a RESP
// array of bulk strings (Redis's catAppendOnlyGenericCommand).
func AppendCommand(dst []byte, args ...[]byte) []byte { return protocol.AppendCommand(dst, args...) }

// AppendCommandStrings is AppendCommand for string arguments.
func AppendCommandStrings(dst []byte, args ...string) []byte {
	return protocol.AppendCommand(dst, args...)
}

// AppendSelect appends "SELECT db" as Redis's feedAppendOnlyFile writes it.
func AppendSelect(dst []byte, db int) []byte {
	var num [20]byte
	dst = append(dst, "*2\r\n$6\r\nSELECT\r\n"...)
	return protocol.AppendBulk(dst, strconv.AppendInt(num[:0], int64(db), 10))
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

// Builders for commands written piece by piece (the rewrite of a large
// value): an array header, then its bulk strings.

// AppendArray appends the header of a command of n arguments.
func AppendArray(dst []byte, n int) []byte { return protocol.AppendArrayLen(dst, n) }

// AppendBulk appends one argument.
func AppendBulk(dst, b []byte) []byte { return protocol.AppendBulk(dst, b) }

// AppendBulkString appends one argument given as a string.
func AppendBulkString(dst []byte, s string) []byte { return protocol.AppendBulkString(dst, s) }

// AppendBulkInt appends one argument, the decimal form of n.
func AppendBulkInt(dst []byte, n int64) []byte { return protocol.AppendBulkInt(dst, n) }
