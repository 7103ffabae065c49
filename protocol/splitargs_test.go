package protocol

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"
)

// splitArgsCases hold sdssplitargs behaviour; TestParserMatchesRedis also
// sends each line (without NUL, CR or LF) to redis-server as "ECHO <line>".
var splitArgsCases = []struct {
	in   string
	want []string
	ok   bool
}{
	{"", nil, true},
	{" \t\v\f\r\n", nil, true},
	{"a b  c", []string{"a", "b", "c"}, true},
	{"\t a\tb \r\n", []string{"a", "b"}, true},
	{"a\rb", []string{"a", "b"}, true},
	{"a\vb", []string{"a\vb"}, true}, // \v and \f blank only between arguments
	{"\va\f", []string{"a\f"}, true},
	{"\xff\xfe \x80", []string{"\xff\xfe", "\x80"}, true},
	{`"a b"`, []string{"a b"}, true},
	{`""`, []string{""}, true},
	{`''`, []string{""}, true},
	{`"" ''`, []string{"", ""}, true},
	{`"\x41\x4A\x4a\x00\xfF"`, []string{"AJJ\x00\xff"}, true},
	{`"\x4"`, []string{"x4"}, true},
	{`"\xZZ"`, []string{"xZZ"}, true},
	{`"\x4g"`, []string{"x4g"}, true},
	{`"\n\r\t\b\a\\\"\q\'"`, []string{"\n\r\t\b\a\\\"q'"}, true},
	{`'\''`, []string{"'"}, true},
	{`'\n\x41"'`, []string{`\n\x41"`}, true},
	{`'\\'`, nil, false}, // \\ is literal, then \' escapes the closing quote
	{`'a\\'b'`, []string{`a\'b`}, true},
	{`'a\'b'`, []string{"a'b"}, true},
	{`ab"c d"`, []string{"abc d"}, true},
	{`a'b c'`, []string{"ab c"}, true},
	{`ab"c"d`, nil, false},
	{`"a"'b'`, nil, false},
	{`'a'"b"`, nil, false},
	{"\"a\"\vb", []string{"a", "b"}, true}, // a closing quote may be followed by any isspace
	{"\"a\"\fb", []string{"a", "b"}, true},
	{"\"a\"\r", []string{"a"}, true},
	{`"a" b`, []string{"a", "b"}, true},
	{`x "a"`, []string{"x", "a"}, true},
	{`"abc`, nil, false},
	{`'abc`, nil, false},
	{`"abc\`, nil, false},
	{`"abc\"`, nil, false},
	{`"`, nil, false},
	{`a"`, nil, false},
	{`a "b`, nil, false},
	{`"a\ b"`, []string{"a b"}, true},
	{"a\x00b c", []string{"a"}, true}, // C string: the NUL ends the line
	{"\"a\x00\"", nil, false},
	{`set k "hello world" 'x y' z`, []string{"set", "k", "hello world", "x y", "z"}, true},
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range splitArgsCases {
		got, ok := SplitArgs([]byte(tc.in))
		var gs []string
		for _, a := range got {
			gs = append(gs, string(a))
		}
		if ok != tc.ok || !reflect.DeepEqual(gs, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q, %v", tc.in, gs, ok, tc.want, tc.ok)
		}
	}
}

// TestSplitArgsAliasing checks the documented ownership: plain arguments
// alias the line but cannot be appended over it; quoted ones are copies.
func TestSplitArgsAliasing(t *testing.T) {
	line := []byte(`foo "bar" baz`)
	args, ok := SplitArgs(line)
	if !ok || len(args) != 3 {
		t.Fatalf("%q %v", args, ok)
	}
	if &args[0][0] != &line[0] || &args[2][0] != &line[10] {
		t.Error("plain arguments do not alias the line")
	}
	if &args[1][0] == &line[5] {
		t.Error("quoted argument aliases the line")
	}
	_ = append(args[0], 'X')
	if string(line) != `foo "bar" baz` {
		t.Errorf("append to an argument overwrote the line: %q", line)
	}
}

// reprArg quotes b the way sdscatrepr does, a form SplitArgs reads back.
func reprArg(b []byte) []byte {
	out := []byte{'"'}
	for _, c := range b {
		switch c {
		case '\\', '"':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\a':
			out = append(out, '\\', 'a')
		case '\b':
			out = append(out, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				out = append(out, c)
			} else {
				out = append(out, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
		}
	}
	return append(out, '"')
}

// FuzzSplitArgs checks that SplitArgs never panics and that quoting its
// result with sdscatrepr rules and splitting again gives the same arguments.
func FuzzSplitArgs(f *testing.F) {
	for _, tc := range splitArgsCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		args, ok := SplitArgs(line)
		if !ok {
			return
		}
		var joined []byte
		for i, a := range args {
			if i > 0 {
				joined = append(joined, ' ')
			}
			joined = append(joined, reprArg(a)...)
		}
		again, ok := SplitArgs(joined)
		if !ok || len(again) != len(args) {
			t.Fatalf("%q -> %q -> %q, %v", line, joined, again, ok)
		}
		for i := range args {
			if !bytes.Equal(args[i], again[i]) {
				t.Fatalf("argument %d: %s became %s", i, strconv.Quote(string(args[i])), strconv.Quote(string(again[i])))
			}
		}
	})
}
