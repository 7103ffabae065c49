package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 64

// Reader parses RESP2 and RESP3 replies into Nodes and keeps the raw bytes
// of the last reply it read.
type Reader struct {
	br  *bufio.Reader
	raw []byte
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Parse parses exactly one reply from b and returns it with the bytes that
// follow it.
func Parse(b []byte) (Node, []byte, error) {
	r := NewReader(bytes.NewReader(b))
	n, raw, err := r.Read()
	if err != nil {
		return Node{}, nil, err
	}
	return n, b[len(raw):], nil
}

// Read reads one complete reply. The returned raw bytes are exactly the
// bytes of that reply as they came off the wire; they stay valid until the
// next call to Read.
//
// Nulls come back as Kind Null with Str "" for RESP3 '_', "$" for RESP2's
// null bulk string ($-1) and "*" for RESP2's null array (*-1).
// Attributes ('|') are read and dropped. An error reply is a Node of Kind
// Error, not a Go error.
func (r *Reader) Read() (Node, []byte, error) {
	r.raw = r.raw[:0]
	n, err := r.read(0)
	return n, r.raw, err
}

func (r *Reader) line() ([]byte, error) {
	start := len(r.raw)
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.raw = append(r.raw, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		break
	}
	l := r.raw[start:]
	if len(l) < 3 || l[len(l)-2] != '\r' {
		return nil, fmt.Errorf("resp: malformed line %q", l)
	}
	return l[:len(l)-2], nil
}

func (r *Reader) read(depth int) (Node, error) {
	if depth > maxDepth {
		return Node{}, errors.New("resp: nesting too deep")
	}
	l, err := r.line()
	if err != nil {
		return Node{}, err
	}
	kind, body := Kind(l[0]), string(l[1:])
	switch kind {
	case SimpleString, Error, Double, BigNumber:
		return Node{Kind: kind, Str: body}, nil
	case Integer:
		v, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return Node{}, fmt.Errorf("resp: bad integer %q", body)
		}
		return Node{Kind: Integer, Int: v}, nil
	case Null:
		return Node{Kind: Null}, nil
	case Boolean:
		if body != "t" && body != "f" {
			return Node{}, fmt.Errorf("resp: bad boolean %q", body)
		}
		return Node{Kind: Boolean, Bool: body == "t"}, nil
	case BulkString, Verbatim, '!':
		size, err := strconv.Atoi(body)
		if err != nil || size < -1 {
			return Node{}, fmt.Errorf("resp: bad length %q", body)
		}
		if size == -1 {
			return Node{Kind: Null, Str: "$"}, nil
		}
		start := len(r.raw)
		r.raw = append(r.raw, make([]byte, size+2)...)
		if _, err := io.ReadFull(r.br, r.raw[start:]); err != nil {
			return Node{}, err
		}
		if r.raw[len(r.raw)-2] != '\r' || r.raw[len(r.raw)-1] != '\n' {
			return Node{}, errors.New("resp: bulk string not terminated by CRLF")
		}
		s := string(r.raw[start : start+size])
		if kind == '!' {
			return Node{Kind: Error, Str: s}, nil
		}
		return Node{Kind: kind, Str: s}, nil
	case Array, Map, Set, Push, '|':
		count, err := strconv.Atoi(body)
		if err != nil || count < -1 {
			return Node{}, fmt.Errorf("resp: bad length %q", body)
		}
		if count == -1 {
			return Node{Kind: Null, Str: "*"}, nil
		}
		if kind == Map || kind == '|' {
			count *= 2
		}
		elems := make([]Node, count)
		for i := range elems {
			if elems[i], err = r.read(depth + 1); err != nil {
				return Node{}, err
			}
		}
		if kind == '|' { // attribute: drop it, the reply follows
			return r.read(depth + 1)
		}
		return Node{Kind: kind, Elems: elems}, nil
	}
	return Node{}, fmt.Errorf("resp: unknown type byte %q", l[0])
}
