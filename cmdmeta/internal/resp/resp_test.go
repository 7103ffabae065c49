package resp

import (
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// sample holds every kind a Node can have.
var sample = Node{Kind: Array, Elems: []Node{
	{Kind: SimpleString, Str: "OK"},
	{Kind: BulkString, Str: "with \"quotes\", \\, \r\n, \t, \x01 and ünïcödé 𝄞"},
	{Kind: BulkString, Str: ""},
	{Kind: Integer, Int: -42},
	{Kind: Null},
	{Kind: Null, Str: "*"},
	{Kind: Boolean, Bool: true},
	{Kind: Boolean},
	{Kind: Double, Str: "3.5"},
	{Kind: BigNumber, Str: "123456789012345678901234567890"},
	{Kind: Verbatim, Str: "txt:hello"},
	{Kind: Error, Str: "ERR bad"},
	{Kind: Map, Elems: []Node{{Kind: BulkString, Str: "k"}, {Kind: Set, Elems: []Node{{Kind: SimpleString, Str: "a"}}}}},
	{Kind: Set},
	{Kind: Push, Elems: []Node{{Kind: Integer, Int: 1}}},
	{Kind: Array},
}}

func TestJSONRoundTrip(t *testing.T) {
	b, err := AppendJSON(nil, &sample)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(string(b))
	got, err := d.Node()
	if err != nil || d.End() != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if !Equal(&got, &sample) {
		t.Errorf("round trip changed the tree:\n%s", b)
	}
}

func TestJSONDecodesEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"$a\"b"`, `a"b`}, {`"$\u00e9\/"`, "é/"}, {`"$\ud834\udd1e"`, "𝄞"},
		{`"$\b\f\n\r\t"`, "\b\f\n\r\t"}, {`"$plain"`, "plain"},
	} {
		n, err := NewDecoder(tc.in).Node()
		if err != nil || n.Kind != BulkString || n.Str != tc.want {
			t.Errorf("%s: got %+v, %v; want %q", tc.in, n, err, tc.want)
		}
	}
}

func TestJSONRejectsBadInput(t *testing.T) {
	for _, in := range []string{
		``, `"`, `"x"`, `""`, `["?"]`, `["%","$k"]`, `[1]`, `["*",`, `["*" 1]`, `"$\x"`,
		`"$\u12"`, `"$\ud834\u0041"`, `nul`, `tru`, `1.5`, `{}`, "\"$a\x01\"",
		strings.Repeat(`["*",`, 100) + strings.Repeat(`]`, 100),
	} {
		if n, err := NewDecoder(in).Node(); err == nil {
			t.Errorf("%q decoded to %+v", in, n)
		}
	}
	if _, err := AppendJSON(nil, &Node{Kind: BulkString, Str: "\xff"}); err == nil {
		t.Error("invalid UTF-8 was encoded")
	}
}

func TestJSONTruncationsDoNotPanic(t *testing.T) {
	b, _ := AppendJSON(nil, &sample)
	for i := range b {
		NewDecoder(string(b[:i])).Node()
	}
}

func TestWriteAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		proto int
		want  string
	}{
		{3, "*3\r\n%1\r\n$1\r\nk\r\n~2\r\n+a\r\n:1\r\n#t\r\n,1.5\r\n"},
		{2, "*3\r\n*2\r\n$1\r\nk\r\n*2\r\n+a\r\n:1\r\n:1\r\n$3\r\n1.5\r\n"},
	} {
		n := Node{Kind: Array, Elems: []Node{
			{Kind: Map, Elems: []Node{{Kind: BulkString, Str: "k"}, {Kind: Set, Elems: []Node{{Kind: SimpleString, Str: "a"}, {Kind: Integer, Int: 1}}}}},
			{Kind: Boolean, Bool: true},
			{Kind: Double, Str: "1.5"},
		}}
		w := protocol.Writer{Proto: tc.proto}
		Write(&w, &n)
		if string(w.Buf) != tc.want {
			t.Errorf("RESP%d: got %q, want %q", tc.proto, w.Buf, tc.want)
		}
		back, rest, err := Parse(w.Buf)
		if err != nil || len(rest) != 0 {
			t.Fatalf("RESP%d: parse: %v, %d bytes left", tc.proto, err, len(rest))
		}
		if tc.proto == 3 && !Equal(&back, &n) {
			t.Errorf("RESP3 tree did not survive write and read")
		}
	}
}

func TestReaderKinds(t *testing.T) {
	in := "$-1\r\n*-1\r\n_\r\n=9\r\ntxt:hello\r\n!3\r\nERR\r\n|1\r\n+a\r\n+b\r\n:7\r\n(12\r\n"
	r := NewReader(strings.NewReader(in))
	want := []Node{
		{Kind: Null, Str: "$"}, {Kind: Null, Str: "*"}, {Kind: Null},
		{Kind: Verbatim, Str: "txt:hello"}, {Kind: Error, Str: "ERR"},
		{Kind: Integer, Int: 7}, // the attribute before it is dropped
		{Kind: BigNumber, Str: "12"},
	}
	for i, w := range want {
		n, _, err := r.Read()
		if err != nil || !Equal(&n, &w) {
			t.Errorf("reply %d: got %+v, %v; want %+v", i, n, err, w)
		}
	}
	for _, bad := range []string{"?\r\n", ":x\r\n", "$5\r\nab\r\n", "*2\r\n:1\r\n", "+ok\n", "#x\r\n", "$2\r\nabcd"} {
		if n, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q parsed to %+v", bad, n)
		}
	}
}

func TestNodeGet(t *testing.T) {
	m := Node{Kind: Map, Elems: []Node{{Kind: BulkString, Str: "a"}, {Kind: Integer, Int: 1}, {Kind: SimpleString, Str: "b"}, {Kind: Integer, Int: 2}}}
	if v := m.Get("a"); v == nil || v.Int != 1 {
		t.Errorf("Get(a) = %+v", v)
	}
	if v := m.Get("b"); v == nil || v.Int != 2 {
		t.Errorf("Get(b) = %+v", v)
	}
	var nilNode *Node
	if m.Get("c") != nil || nilNode.Get("a") != nil || (&Node{Kind: Array}).Get("a") != nil {
		t.Error("Get found a missing key")
	}
}

// A recycled decoder decodes text after text into the memory of the
// previous trees, each tree whole; a tree's Elems never reach into the
// next aggregate's (capacity = length).
func TestDecoderRecycle(t *testing.T) {
	b, err := AppendJSON(nil, &sample)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder("")
	var first *Node
	for i := 0; i < 3; i++ {
		d.Recycle(string(b))
		got, err := d.Node()
		if err != nil || d.End() != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if !Equal(&got, &sample) {
			t.Fatalf("round %d: the tree differs", i)
		}
		for _, e := range got.Elems {
			if cap(e.Elems) != len(e.Elems) {
				t.Fatalf("round %d: Elems of capacity %d, length %d", i, cap(e.Elems), len(e.Elems))
			}
		}
		if i == 0 {
			first = &got.Elems[0]
		} else if &got.Elems[0] != first {
			t.Errorf("round %d: the tree is not in the recycled memory", i)
		}
	}
	d.Recycle(`["*","$short"]`)
	if n, err := d.Node(); err != nil || len(n.Elems) != 1 || n.Elems[0].Str != "short" {
		t.Fatalf("a shorter text after recycling: %v, %v", n, err)
	}
}
