// Package resptest is the RESP client the tests share: a reader of one
// complete RESP2/RESP3 reply frame (every type Redis sends, attributes
// included, with the exact bytes kept), a raw connection that sends
// commands and reads frames, and conversions of a frame to plain Go values.
// The server's, the AOF's and the black-box tests use it instead of a
// reader of their own. Requests are encoded by protocol's one encoder.
package resptest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Node is one parsed reply frame (or an element of one). Every RESP2 and
// RESP3 type Redis sends is covered; Raw always holds the node's exact bytes
// on the wire, attribute included.
type Node struct {
	Kind  byte   // the type byte: + - : $ * _ , # ( ! = % ~ > (an attribute is kept in Attr)
	Str   string // + - ( , and the payload of $ ! = (verbatim keeps its "txt:" prefix)
	Int   int64  // the value of ':'
	Bool  bool   // the value of '#'
	Null  bool   // $-1, *-1 and _
	Elems []Node // elements of * ~ >; keys and values in turn for %
	Attr  *Node  // a '|' attribute map sent before this reply, if any
	Raw   []byte
}

// MaxFrameLen bounds a bulk or aggregate length the reader accepts, so a
// garbled stream fails instead of allocating without limit.
const MaxFrameLen = 1 << 30

// MaxDepth bounds the nesting of aggregates: deep enough for what Lua
// scripts return (nested tables, cmsgpack round trips), shallow enough that
// a garbled stream fails before the recursion grows without limit.
const MaxDepth = 10000

// ReadFrame reads exactly one complete reply from r. An attribute is read
// together with the reply that follows it; a push ('>') is a frame of its
// own.
func ReadFrame(r *bufio.Reader) (Node, error) {
	var raw []byte
	n, err := readNode(r, &raw, 0)
	if err != nil {
		return Node{}, err
	}
	return n, nil
}

func readNode(r *bufio.Reader, raw *[]byte, depth int) (Node, error) {
	if depth > MaxDepth {
		return Node{}, errors.New("resp: nesting too deep")
	}
	start := len(*raw)
	line, err := readLine(r, raw)
	if err != nil {
		return Node{}, err
	}
	if len(line) == 0 {
		return Node{}, errors.New("resp: empty line")
	}
	n := Node{Kind: line[0]}
	body := string(line[1:])
	switch n.Kind {
	case '+', '-', '(':
		n.Str = body
	case ',':
		n.Str = body
	case ':':
		if n.Int, err = strconv.ParseInt(body, 10, 64); err != nil {
			return Node{}, fmt.Errorf("resp: bad integer %q", body)
		}
	case '_':
		if body != "" {
			return Node{}, fmt.Errorf("resp: bad null %q", line)
		}
		n.Null = true
	case '#':
		switch body {
		case "t":
			n.Bool = true
		case "f":
		default:
			return Node{}, fmt.Errorf("resp: bad boolean %q", body)
		}
	case '$', '!', '=':
		size, err := frameLen(body)
		if err != nil {
			return Node{}, err
		}
		if size < 0 {
			if n.Kind != '$' || size != -1 {
				return Node{}, fmt.Errorf("resp: bad length %q", line)
			}
			n.Null = true
			break
		}
		payload := make([]byte, size+2)
		if _, err := io.ReadFull(r, payload); err != nil {
			return Node{}, err
		}
		*raw = append(*raw, payload...)
		if payload[size] != '\r' || payload[size+1] != '\n' {
			return Node{}, errors.New("resp: bulk payload not followed by CRLF")
		}
		n.Str = string(payload[:size])
		if n.Kind == '=' && (size < 4 || n.Str[3] != ':') {
			return Node{}, fmt.Errorf("resp: bad verbatim string %q", n.Str)
		}
	case '*', '~', '>', '%', '|':
		size, err := frameLen(body)
		if err != nil {
			return Node{}, err
		}
		if size < 0 {
			if n.Kind != '*' || size != -1 {
				return Node{}, fmt.Errorf("resp: bad length %q", line)
			}
			n.Null = true
			break
		}
		count := size
		if n.Kind == '%' || n.Kind == '|' {
			count *= 2
		}
		n.Elems = make([]Node, 0, min(count, 1024))
		for i := int64(0); i < count; i++ {
			e, err := readNode(r, raw, depth+1)
			if err != nil {
				return Node{}, err
			}
			n.Elems = append(n.Elems, e)
		}
		if n.Kind == '|' {
			attr := n
			attr.Raw = append([]byte(nil), (*raw)[start:]...)
			next, err := readNode(r, raw, depth+1)
			if err != nil {
				return Node{}, err
			}
			next.Attr = &attr
			next.Raw = append([]byte(nil), (*raw)[start:]...)
			return next, nil
		}
	default:
		return Node{}, fmt.Errorf("resp: unknown type byte %q in %q", n.Kind, line)
	}
	n.Raw = append([]byte(nil), (*raw)[start:]...)
	return n, nil
}

// readLine reads up to and including CRLF, appends it to raw and returns
// the line without CRLF.
func readLine(r *bufio.Reader, raw *[]byte) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) > MaxFrameLen {
			return nil, errors.New("resp: line too long")
		}
	}
	*raw = append(*raw, line...)
	if !bytes.HasSuffix(line, []byte("\r\n")) {
		return nil, fmt.Errorf("resp: line not terminated by CRLF: %q", line)
	}
	return line[:len(line)-2], nil
}

func frameLen(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < -1 || n > MaxFrameLen {
		return 0, fmt.Errorf("resp: bad length %q", s)
	}
	return n, nil
}

// IsError reports whether the reply is an error (simple or blob).
func (n Node) IsError() bool { return n.Kind == '-' || n.Kind == '!' }

// IsAggregate reports whether the reply has elements.
func (n Node) IsAggregate() bool {
	switch n.Kind {
	case '*', '~', '>', '%':
		return !n.Null
	}
	return false
}

// Text returns a scalar reply's value as a string (bulk, status, error,
// integer, double, big number, verbatim without its format prefix).
func (n Node) Text() string {
	switch n.Kind {
	case ':':
		return strconv.FormatInt(n.Int, 10)
	case '=':
		return n.Str[4:]
	case '#':
		if n.Bool {
			return "t"
		}
		return "f"
	}
	return n.Str
}

// ReadRaw reads one complete reply from r, as ReadFrame does, and returns
// its bytes on the wire.
func ReadRaw(r *bufio.Reader) ([]byte, error) {
	n, err := ReadFrame(r)
	return n.Raw, err
}
