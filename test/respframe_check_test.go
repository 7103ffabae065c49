package test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

func TestReadFrame(t *testing.T) {
	tests := []struct {
		in     string
		render string
	}{
		{"+OK\r\n", "OK"},
		{"-ERR bad\r\n", "(error) ERR bad"},
		{":-42\r\n", "(integer) -42"},
		{"$3\r\nabc\r\n", `"abc"`},
		{"$0\r\n\r\n", `""`},
		{"$-1\r\n", "(nil)"},
		{"$4\r\na\r\nb\r\n", `"a\r\nb"`},
		{"*-1\r\n", "(nil array)"},
		{"*0\r\n", "(empty array)"},
		{"*2\r\n:1\r\n*1\r\n$1\r\nx\r\n", "1) (integer) 1\n2) 1) \"x\""},
		{"_\r\n", "(null)"},
		{",3.5\r\n", "(double) 3.5"},
		{",inf\r\n", "(double) inf"},
		{"#t\r\n", "(true)"},
		{"#f\r\n", "(false)"},
		{"(12345678901234567890\r\n", "(big number) 12345678901234567890"},
		{"!5\r\nERR x\r\n", `(blob error) "ERR x"`},
		{"=8\r\ntxt:a\r\nb\r\n", `(verbatim txt) "a\r\nb"`},
		{"%1\r\n$1\r\nk\r\n:1\r\n", "(map)\n1) \"k\" => (integer) 1"},
		{"~1\r\n$1\r\na\r\n", "(set)\n1) \"a\""},
		{">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n", "(push)\n1) \"message\"\n2) \"x\""},
		{"|1\r\n$3\r\nttl\r\n:5\r\n$1\r\nv\r\n", "(attribute)\n1) \"ttl\" => (integer) 5\n\"v\""},
	}
	for _, tt := range tests {
		// A second frame follows: exactly one must be consumed.
		r := bufio.NewReader(strings.NewReader(tt.in + "+NEXT\r\n"))
		n, err := resptest.ReadFrame(r)
		if err != nil {
			t.Errorf("readFrame(%q): %v", tt.in, err)
			continue
		}
		if string(n.Raw) != tt.in {
			t.Errorf("readFrame(%q): raw %q", tt.in, n.Raw)
		}
		if got := render(n); got != tt.render {
			t.Errorf("render(%q) =\n%s\nwant\n%s", tt.in, got, tt.render)
		}
		next, err := resptest.ReadFrame(r)
		if err != nil || next.Str != "NEXT" {
			t.Errorf("after %q: next frame %+v, %v", tt.in, next, err)
		}
	}
}

func TestReadFrameErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"+OK",                // no CRLF
		"+OK\n",              // LF only
		"?x\r\n",             // unknown type
		":abc\r\n",           // bad integer
		"$3\r\nab\r\n",       // short bulk
		"$3\r\nabcd\r\n",     // payload not followed by CRLF
		"$-2\r\n",            // bad length
		"~-1\r\n",            // a set cannot be null
		"*2\r\n:1\r\n",       // truncated aggregate
		"#x\r\n",             // bad boolean
		"=3\r\ntxt\r\n",      // verbatim without format
		"_x\r\n",             // bad null
		"|1\r\n+a\r\n+b\r\n", // attribute without the reply it precedes
	} {
		r := bufio.NewReader(strings.NewReader(in))
		if n, err := resptest.ReadFrame(r); err == nil {
			t.Errorf("readFrame(%q) = %s, want an error", in, render(n))
		}
	}
}

func TestCompareReplies(t *testing.T) {
	parse := func(s string) node {
		n, err := resptest.ReadFrame(bufio.NewReader(strings.NewReader(s)))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return n
	}
	tests := []struct {
		mode cmpMode
		a, b string
		want bool
	}{
		{cmpExact, "+OK\r\n", "+OK\r\n", true},
		{cmpExact, "$1\r\na\r\n", "+a\r\n", false},
		{cmpSorted, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{cmpSorted, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "~2\r\n$1\r\nb\r\n$1\r\na\r\n", false},
		{cmpSorted, "*2\r\n$1\r\na\r\n$1\r\na\r\n", "*2\r\n$1\r\na\r\n$1\r\nb\r\n", false},
		{cmpSorted, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", "%2\r\n+b\r\n:2\r\n+a\r\n:1\r\n", true},
		{cmpSorted, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", "%2\r\n+b\r\n:1\r\n+a\r\n:2\r\n", false},
		{cmpSorted, ":1\r\n", ":2\r\n", false},
		{cmpShape, "*2\r\n$10\r\n1700000000\r\n$6\r\n123456\r\n", "*2\r\n$10\r\n1700000001\r\n$5\r\n12345\r\n", true},
		{cmpShape, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*1\r\n$1\r\na\r\n", false},
		{cmpShape, "$-1\r\n", "$1\r\na\r\n", false},
		{cmpShape, ":1\r\n", "$1\r\n1\r\n", false},
		{cmpErrCode, "-ERR a\r\n", "-ERR b\r\n", true},
		{cmpErrCode, "-ERR a\r\n", "-WRONGTYPE a\r\n", false},
		{cmpErrCode, "+OK\r\n", "+OK\r\n", false},
		{cmpIgnore, ":1\r\n", "*-1\r\n", true},
		{cmpACLRules, "$15\r\n-@all +get +set\r\n", "$15\r\n-@all +set +get\r\n", true},
		{cmpACLRules, "$15\r\n-@all +get +set\r\n", "$15\r\n-@all +get -set\r\n", false},
		{cmpACLRules, "$17\r\n+@all -@hash -get\r\n", "$17\r\n-get +@all -@hash\r\n", false},
		{cmpACLRules, "$19\r\n-@all +a (~x +b +c)\r\n", "$19\r\n-@all +a (~x +c +b)\r\n", true},
		{cmpACLRules, "$19\r\n-@all +a (~x +b +c)\r\n", "$19\r\n-@all +b (~x +a +c)\r\n", false},
		{cmpACLRules, "*2\r\n:1\r\n$7\r\n+a +b c\r\n", "*2\r\n:1\r\n$7\r\n+b +a c\r\n", true},
		{cmpACLRules, "*1\r\n:1\r\n", "*1\r\n:2\r\n", false},
	}
	for _, tt := range tests {
		if got, why := compareReplies(tt.mode, parse(tt.a), parse(tt.b)); got != tt.want {
			t.Errorf("compare %s %q %q = %v (%s), want %v", tt.mode, tt.a, tt.b, got, why, tt.want)
		}
	}
}
