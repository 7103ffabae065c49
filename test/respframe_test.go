package test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// node is one parsed reply frame (or an element of one). Every RESP2 and
// RESP3 type Redis sends is covered; Raw always holds the node's exact bytes
// on the wire, attribute included.
type node struct {
	Kind  byte   // the type byte: + - : $ * _ , # ( ! = % ~ > (an attribute is kept in Attr)
	Str   string // + - ( , and the payload of $ ! = (verbatim keeps its "txt:" prefix)
	Int   int64  // the value of ':'
	Bool  bool   // the value of '#'
	Null  bool   // $-1, *-1 and _
	Elems []node // elements of * ~ >; keys and values in turn for %
	Attr  *node  // a '|' attribute map sent before this reply, if any
	Raw   []byte
}

// maxFrameLen bounds a bulk or aggregate length the reader accepts, so a
// garbled stream fails instead of allocating without limit.
const maxFrameLen = 1 << 30

// readFrame reads exactly one complete reply from r. An attribute is read
// together with the reply that follows it; a push ('>') is a frame of its
// own.
func readFrame(r *bufio.Reader) (node, error) {
	var raw []byte
	n, err := readNode(r, &raw, 0)
	if err != nil {
		return node{}, err
	}
	return n, nil
}

func readNode(r *bufio.Reader, raw *[]byte, depth int) (node, error) {
	if depth > 64 {
		return node{}, errors.New("resp: nesting too deep")
	}
	start := len(*raw)
	line, err := readLine(r, raw)
	if err != nil {
		return node{}, err
	}
	if len(line) == 0 {
		return node{}, errors.New("resp: empty line")
	}
	n := node{Kind: line[0]}
	body := string(line[1:])
	switch n.Kind {
	case '+', '-', '(':
		n.Str = body
	case ',':
		n.Str = body
	case ':':
		if n.Int, err = strconv.ParseInt(body, 10, 64); err != nil {
			return node{}, fmt.Errorf("resp: bad integer %q", body)
		}
	case '_':
		if body != "" {
			return node{}, fmt.Errorf("resp: bad null %q", line)
		}
		n.Null = true
	case '#':
		switch body {
		case "t":
			n.Bool = true
		case "f":
		default:
			return node{}, fmt.Errorf("resp: bad boolean %q", body)
		}
	case '$', '!', '=':
		size, err := frameLen(body)
		if err != nil {
			return node{}, err
		}
		if size < 0 {
			if n.Kind != '$' || size != -1 {
				return node{}, fmt.Errorf("resp: bad length %q", line)
			}
			n.Null = true
			break
		}
		payload := make([]byte, size+2)
		if _, err := io.ReadFull(r, payload); err != nil {
			return node{}, err
		}
		*raw = append(*raw, payload...)
		if payload[size] != '\r' || payload[size+1] != '\n' {
			return node{}, errors.New("resp: bulk payload not followed by CRLF")
		}
		n.Str = string(payload[:size])
		if n.Kind == '=' && (size < 4 || n.Str[3] != ':') {
			return node{}, fmt.Errorf("resp: bad verbatim string %q", n.Str)
		}
	case '*', '~', '>', '%', '|':
		size, err := frameLen(body)
		if err != nil {
			return node{}, err
		}
		if size < 0 {
			if n.Kind != '*' || size != -1 {
				return node{}, fmt.Errorf("resp: bad length %q", line)
			}
			n.Null = true
			break
		}
		count := size
		if n.Kind == '%' || n.Kind == '|' {
			count *= 2
		}
		n.Elems = make([]node, 0, min(count, 1024))
		for i := int64(0); i < count; i++ {
			e, err := readNode(r, raw, depth+1)
			if err != nil {
				return node{}, err
			}
			n.Elems = append(n.Elems, e)
		}
		if n.Kind == '|' {
			attr := n
			attr.Raw = append([]byte(nil), (*raw)[start:]...)
			next, err := readNode(r, raw, depth+1)
			if err != nil {
				return node{}, err
			}
			next.Attr = &attr
			next.Raw = append([]byte(nil), (*raw)[start:]...)
			return next, nil
		}
	default:
		return node{}, fmt.Errorf("resp: unknown type byte %q in %q", n.Kind, line)
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
		if len(line) > maxFrameLen {
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
	if err != nil || n < -1 || n > maxFrameLen {
		return 0, fmt.Errorf("resp: bad length %q", s)
	}
	return n, nil
}

// isError reports whether the reply is an error (simple or blob).
func (n node) isError() bool { return n.Kind == '-' || n.Kind == '!' }

// isAggregate reports whether the reply has elements.
func (n node) isAggregate() bool {
	switch n.Kind {
	case '*', '~', '>', '%':
		return !n.Null
	}
	return false
}

// text returns a scalar reply's value as a string (bulk, status, error,
// integer, double, big number, verbatim without its format prefix).
func (n node) text() string {
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

// encodeCommand encodes args as a RESP multibulk request.
func encodeCommand(args []string) []byte {
	b := make([]byte, 0, 16+len(args)*16)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}
