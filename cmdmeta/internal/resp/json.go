package resp

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The compact JSON form of a Node:
//
//	"+text"  simple string      "$text"  bulk string      "-text"  error
//	",text"  double (as text)   "(text"  big number       "=txt:.." verbatim
//	123      integer            null     null             true/false boolean
//	["*", e1, e2, ...]   array     ["~", ...] set     [">", ...] push
//	["%", k1, v1, k2, v2, ...]     map (pairs flattened)
//
// A RESP2 null array (Str "*") is written as ["*null"]; other nulls as null.

// AppendJSON appends the compact JSON form of n to b. It fails on strings
// that are not valid UTF-8, which JSON cannot carry byte-exactly.
func AppendJSON(b []byte, n *Node) ([]byte, error) {
	var err error
	switch n.Kind {
	case SimpleString, BulkString, Error, Double, BigNumber, Verbatim:
		return appendJSONString(b, byte(n.Kind), n.Str)
	case Integer:
		return strconv.AppendInt(b, n.Int, 10), nil
	case Null:
		if n.Str == "*" {
			return append(b, `["*null"]`...), nil
		}
		return append(b, "null"...), nil
	case Boolean:
		return strconv.AppendBool(b, n.Bool), nil
	case Array, Map, Set, Push:
		b = append(b, '[', '"', byte(n.Kind), '"')
		for i := range n.Elems {
			b = append(b, ',')
			if b, err = AppendJSON(b, &n.Elems[i]); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("resp: cannot encode kind %q", byte(n.Kind))
}

// AppendJSONString appends s as a JSON string.
func AppendJSONString(b []byte, s string) ([]byte, error) {
	return appendJSONString(b, 0, s)
}

func appendJSONString(b []byte, prefix byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("resp: string %q is not valid UTF-8", s)
	}
	b = append(b, '"')
	if prefix != 0 {
		b = append(b, prefix)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20 || c == 0x7f:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"'), nil
}

// Decoder reads JSON text held in a string. Strings without escapes are
// returned as substrings of the input, so decoding embedded data allocates
// little beyond the Node slices.
type Decoder struct {
	s   string
	pos int
	// stack collects the children of the aggregates being decoded; each
	// aggregate then gets an exactly sized copy of its own.
	stack []Node
	// arena is where the exactly sized copies come from: a few large
	// allocations (chunks) instead of one per aggregate.
	arena  []Node
	chunks [][]Node // every chunk allocated, whole, for Recycle
	next   int      // the chunk after the one arena is in
}

// Recycle makes the decoder read s from its start, the nodes it decodes
// taking the memory of those it decoded so far: the caller must not use
// any Node (or Elems) it got from this decoder before. Strings stay valid.
func (d *Decoder) Recycle(s string) {
	for _, c := range d.chunks[:d.next] {
		clear(c)
	}
	d.s, d.pos, d.arena, d.next = s, 0, nil, 0
}

// alloc returns n Nodes from the arena, with capacity n so that an append
// to them copies instead of overwriting the next aggregate's.
func (d *Decoder) alloc(n int) []Node {
	if n > len(d.arena) {
		if d.next < len(d.chunks) && len(d.chunks[d.next]) >= n {
			d.arena = d.chunks[d.next]
		} else {
			// A chunk sized for the text (about one Node per 16 bytes
			// of JSON), between 16 and 1024 Nodes.
			d.arena = make([]Node, max(min(max(len(d.s)/16, 16), 1024), n))
			d.chunks = append(d.chunks[:d.next], d.arena)
		}
		d.next++
	}
	s := d.arena[:n:n]
	d.arena = d.arena[n:]
	return s
}

// NewDecoder returns a Decoder over s.
func NewDecoder(s string) *Decoder { return &Decoder{s: s} }

func (d *Decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("resp json: offset %d: %s", d.pos, fmt.Sprintf(format, args...))
}

func (d *Decoder) ws() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end).
func (d *Decoder) peek() byte {
	d.ws()
	if d.pos >= len(d.s) {
		return 0
	}
	return d.s[d.pos]
}

func (d *Decoder) expect(c byte) error {
	if d.peek() != c {
		return d.errorf("expected %q", c)
	}
	d.pos++
	return nil
}

// End reports an error unless only white space is left.
func (d *Decoder) End() error {
	if d.peek() != 0 {
		return d.errorf("trailing data")
	}
	return nil
}

// Object reads a JSON object, calling fn for each key; fn must consume the
// value (for example with Node, String or Skip).
func (d *Decoder) Object(fn func(key string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		key, err := d.String()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.errorf("expected ',' or '}'")
		}
	}
}

// Array reads a JSON array, calling fn once per element; fn must consume it.
func (d *Decoder) Array(fn func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.errorf("expected ',' or ']'")
		}
	}
}

// Skip reads and discards one JSON value.
func (d *Decoder) Skip() error {
	switch c := d.peek(); {
	case c == '{':
		return d.Object(func(string) error { return d.Skip() })
	case c == '[':
		return d.Array(d.Skip)
	case c == '"':
		_, err := d.String()
		return err
	default:
		start := d.pos
		for d.pos < len(d.s) && !isDelim(d.s[d.pos]) {
			d.pos++
		}
		if start == d.pos {
			return d.errorf("expected a value")
		}
		return nil
	}
}

// Raw reads one JSON value and returns its text, for a later decoder.
func (d *Decoder) Raw() (string, error) {
	d.ws()
	start := d.pos
	if err := d.Skip(); err != nil {
		return "", err
	}
	return d.s[start:d.pos], nil
}

func isDelim(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// Int reads a JSON integer.
func (d *Decoder) Int() (int64, error) {
	d.ws()
	start := d.pos
	for d.pos < len(d.s) && !isDelim(d.s[d.pos]) {
		d.pos++
	}
	v, err := strconv.ParseInt(d.s[start:d.pos], 10, 64)
	if err != nil {
		return 0, d.errorf("bad integer %q", d.s[start:d.pos])
	}
	return v, nil
}

// String reads a JSON string.
func (d *Decoder) String() (string, error) {
	if err := d.expect('"'); err != nil {
		return "", err
	}
	start := d.pos
	for d.pos < len(d.s) {
		switch c := d.s[d.pos]; {
		case c == '"':
			d.pos++
			return d.s[start : d.pos-1], nil
		case c == '\\':
			return d.stringSlow(start)
		case c < 0x20:
			return "", d.errorf("control character in string")
		}
		d.pos++
	}
	return "", d.errorf("unterminated string")
}

func (d *Decoder) stringSlow(start int) (string, error) {
	buf := []byte(d.s[start:d.pos])
	for d.pos < len(d.s) {
		c := d.s[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.s) {
			break
		}
		esc := d.s[d.pos+1]
		d.pos += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf("bad \\u escape")
			}
			if r >= 0xd800 && r < 0xdc00 && d.pos+1 < len(d.s) && d.s[d.pos] == '\\' && d.s[d.pos+1] == 'u' {
				d.pos += 2
				lo, ok := d.hex4()
				if !ok || lo < 0xdc00 || lo >= 0xe000 {
					return "", d.errorf("bad surrogate pair")
				}
				r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.errorf("bad escape \\%c", esc)
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *Decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(d.s[d.pos:d.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(v), true
}

var errEmptyString = errors.New("resp json: empty string is not a typed node")

// Node reads one Node in the compact form described at AppendJSON.
func (d *Decoder) Node() (Node, error) {
	return d.node(0)
}

func (d *Decoder) node(depth int) (Node, error) {
	if depth > maxDepth {
		return Node{}, d.errorf("nesting too deep")
	}
	switch c := d.peek(); {
	case c == '"':
		s, err := d.String()
		if err != nil {
			return Node{}, err
		}
		if s == "" {
			return Node{}, errEmptyString
		}
		switch k := Kind(s[0]); k {
		case SimpleString, BulkString, Error, Double, BigNumber, Verbatim:
			return Node{Kind: k, Str: s[1:]}, nil
		}
		return Node{}, d.errorf("unknown string type %q", s[0])
	case c == '[':
		d.pos++
		head, err := d.String()
		if err != nil {
			return Node{}, err
		}
		if head == "*null" {
			return Node{Kind: Null, Str: "*"}, d.expect(']')
		}
		if len(head) != 1 || !Kind(head[0]).IsAggregate() {
			return Node{}, d.errorf("unknown aggregate type %q", head)
		}
		n := Node{Kind: Kind(head[0])}
		base := len(d.stack)
		for d.peek() == ',' {
			d.pos++
			e, err := d.node(depth + 1)
			if err != nil {
				d.stack = d.stack[:base]
				return Node{}, err
			}
			d.stack = append(d.stack, e)
		}
		if len(d.stack) > base {
			n.Elems = d.alloc(len(d.stack) - base)
			copy(n.Elems, d.stack[base:])
			clear(d.stack[base:])
			d.stack = d.stack[:base]
		}
		if err := d.expect(']'); err != nil {
			return Node{}, err
		}
		if n.Kind == Map && len(n.Elems)%2 != 0 {
			return Node{}, d.errorf("map with an odd number of elements")
		}
		return n, nil
	case c == 'n':
		return Node{Kind: Null}, d.literal("null")
	case c == 't':
		return Node{Kind: Boolean, Bool: true}, d.literal("true")
	case c == 'f':
		return Node{Kind: Boolean}, d.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		v, err := d.Int()
		return Node{Kind: Integer, Int: v}, err
	}
	return Node{}, d.errorf("expected a node")
}

func (d *Decoder) literal(word string) error {
	if len(d.s)-d.pos < len(word) || d.s[d.pos:d.pos+len(word)] != word {
		return d.errorf("expected %s", word)
	}
	d.pos += len(word)
	return nil
}
