package rdb

import (
	"bytes"
	"errors"
)

// FUNCTION DUMP / RESTORE payloads (functions.c): per library the
// RDB_OPCODE_FUNCTION2 byte and its code as an RDB string, then the footer
// of a DUMP payload.

// Errors of ParseFunctions, with the texts FUNCTION RESTORE replies
// (after "ERR ").
var (
	ErrFunctionPreGA   = errors.New("Pre-GA function format not supported")
	ErrNotFunction     = errors.New("given type is not a function")
	ErrFunctionPayload = errors.New("Failed loading library payload")
)

// AppendFunction appends one library as an RDB file stores it.
func AppendFunction(b []byte, code string, compress bool) []byte {
	b = append(b, OpFunction2)
	return AppendString(b, code, compress)
}

// DumpFunctions returns FUNCTION DUMP's payload for the libraries' codes.
func DumpFunctions(codes []string) []byte {
	var b []byte
	for _, code := range codes {
		b = AppendFunction(b, code, true)
	}
	return AppendFooter(b)
}

// ParseFunctions checks a FUNCTION RESTORE payload and returns the library
// codes in it. Errors are ErrPayloadFooter, ErrFunctionPreGA,
// ErrNotFunction or ErrFunctionPayload.
func ParseFunctions(p []byte) ([]string, error) {
	body, err := VerifyFooter(p)
	if err != nil {
		return nil, err
	}
	d := newDecoder(bytes.NewReader(body), int64(len(body)))
	d.noCRC = true
	var codes []string
	for d.remaining() > 0 {
		op, _ := d.readByte()
		switch op {
		case OpFunctionPre:
			return nil, ErrFunctionPreGA
		case OpFunction2:
		default:
			return nil, ErrNotFunction
		}
		code, err := d.readString()
		if err != nil {
			return nil, ErrFunctionPayload
		}
		codes = append(codes, string(code))
	}
	return codes, nil
}
