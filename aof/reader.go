package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// maxLine is the longest line (argument count, bulk length or annotation)
// the reader accepts, Redis's AOF_ANNOTATION_LINE_MAX_LEN.
const maxLine = 1024

// TruncatedError reports a file that ends in the middle of a command, as a
// crash during a write leaves it. Offset is where that command starts: the
// end of the last complete command, where Redis truncates the file when
// aof-load-truncated is yes.
type TruncatedError struct {
	Offset int64
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("unexpected end of file: the last command, at byte offset %d, is incomplete", e.Offset)
}

// FormatError reports bytes that are not a command: a corrupt file.
// Offset is the byte offset of the offending line or argument.
type FormatError struct {
	Offset int64
	Reason string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("bad file format at byte offset %d: %s", e.Offset, e.Reason)
}

// Reader reads the commands of one AOF file in order, as Redis's
// loadSingleAppendOnlyFile does: "*<argc>" then argc times "$<len>",
// the bytes and CRLF; lines that start with '#' between commands are
// annotations (aof-timestamp-enabled) and are skipped. Unlike Redis it also
// checks the CRLF after each argument, so more corruption is caught as such.
type Reader struct {
	br    *bufio.Reader
	off   int64 // bytes consumed
	size  int64 // file size, -1 if unknown
	line  []byte
	arena []byte
	ends  []int
	args  [][]byte
}

// NewReader returns a reader of the commands in r. size is the number of
// bytes r holds (-1 if unknown): a bulk length beyond it is reported as a
// truncated command without allocating it.
func NewReader(r io.Reader, size int64) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{br: br, size: size}
}

// newReaderAt continues reading br, which has already consumed off bytes of
// the file (the RDB preamble of an old-style AOF).
func newReaderAt(br *bufio.Reader, off, size int64) *Reader {
	return &Reader{br: br, off: off, size: size}
}

// Offset returns how many bytes were consumed: after Next returned a
// command, the offset just past it.
func (r *Reader) Offset() int64 { return r.off }

// Next returns the next command. The arguments alias the reader's buffers
// until the next call. At the clean end of the file it returns io.EOF; a
// file ending inside a command gives *TruncatedError, bytes that are not a
// command *FormatError; other errors are I/O errors.
func (r *Reader) Next() ([][]byte, error) {
	start := r.off
	var line []byte
	var err error
	for {
		line, err = r.readLine(start)
		if err != nil {
			if err == io.EOF && r.off == start {
				return nil, io.EOF
			}
			return nil, err
		}
		if line[0] != '#' {
			break
		}
		start = r.off // an annotation: skip it
	}
	if line[0] != '*' {
		return nil, &FormatError{start, fmt.Sprintf("expected '*', found %q", clip(line))}
	}
	argc, ok := parseCount(line[1:])
	if !ok || argc < 1 {
		return nil, &FormatError{start, fmt.Sprintf("invalid argument count %q", clip(line))}
	}
	r.arena = r.arena[:0]
	r.ends = r.ends[:0]
	for j := 0; j < argc; j++ {
		at := r.off
		line, err := r.readLine(start)
		if err != nil {
			return nil, err
		}
		if line[0] != '$' {
			return nil, &FormatError{at, fmt.Sprintf("expected '$', found %q", clip(line))}
		}
		n, ok := parseCount(line[1:])
		if !ok {
			return nil, &FormatError{at, fmt.Sprintf("invalid bulk length %q", clip(line))}
		}
		if r.size >= 0 && int64(n)+2 > r.size-r.off {
			return nil, &TruncatedError{start}
		}
		base := len(r.arena)
		r.arena = append(r.arena, make([]byte, n+2)...)
		if _, err := io.ReadFull(r.br, r.arena[base:]); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return nil, &TruncatedError{start}
			}
			return nil, err
		}
		r.off += int64(n) + 2
		if r.arena[base+n] != '\r' || r.arena[base+n+1] != '\n' {
			return nil, &FormatError{at + int64(len(line)) + 2 + int64(n), "argument not followed by CRLF"}
		}
		r.arena = r.arena[:base+n]
		r.ends = append(r.ends, len(r.arena))
	}
	r.args = r.args[:0]
	prev := 0
	for _, end := range r.ends {
		r.args = append(r.args, r.arena[prev:end:end])
		prev = end
	}
	return r.args, nil
}

// readLine reads one CRLF-terminated line and returns it without the CRLF.
// cmdStart is the offset of the command being read, for a truncation error.
func (r *Reader) readLine(cmdStart int64) ([]byte, error) {
	r.line = r.line[:0]
	at := r.off
	for {
		b, err := r.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if len(r.line) == 0 && at == cmdStart {
					return nil, io.EOF
				}
				return nil, &TruncatedError{cmdStart}
			}
			return nil, err
		}
		r.off++
		if b == '\n' {
			break
		}
		if len(r.line) >= maxLine {
			return nil, &FormatError{at, "line too long"}
		}
		r.line = append(r.line, b)
	}
	n := len(r.line)
	if n < 2 || r.line[n-1] != '\r' {
		return nil, &FormatError{at, fmt.Sprintf("line %q does not end with CRLF or is empty", clip(r.line))}
	}
	return r.line[:n-1], nil
}

// parseCount parses a non-negative decimal that fits an int32 (Redis's
// argument counts and lengths are C ints or longs; anything larger in a
// log is corruption): digits only, leading zeros allowed, at most 10.
func parseCount(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 || b[0] < '0' || b[0] > '9' {
		return 0, false
	}
	v, rest, _ := protocol.Strtoll(b, 10)
	if len(rest) != 0 || bytes.IndexByte(b, 0) >= 0 || v > 1<<31-1 {
		return 0, false // not all digits (Strtoll stops at a NUL as at any other byte)
	}
	return int(v), true
}

// clip shortens b for an error message.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
