package protocol

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"
)

// appendRequest encodes args as a multibulk request.
func appendRequest(b []byte, args []string) []byte {
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

// FuzzParser feeds arbitrary bytes to the Parser and checks that:
//   - it never panics;
//   - the result does not depend on how the bytes are cut into reads (for
//     inputs under the 64KB line limit, where Redis does not depend on it
//     either);
//   - every command parsed, re-encoded as a multibulk request, parses back
//     to the same arguments with nothing left over.
func FuzzParser(f *testing.F) {
	for _, tc := range parserCases {
		if len(tc.in) <= 4096 {
			f.Add([]byte(tc.in), uint8(1), tc.unauth)
		}
	}
	f.Add([]byte(mb("SET", "k", "v")+"PING\r\n*0\r\n"), uint8(3), false)
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"+"ECHO \"\\x41\" 'b'\n"), uint8(7), true)

	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, unauth bool) {
		whole := parseStream(&Parser{Unauthenticated: unauth}, bytes.NewReader(data))
		if len(data) <= inlineMaxSize {
			n := max(int(chunk), 1)
			cut := parseStream(&Parser{Unauthenticated: unauth}, &chunkReader{data: data, n: n})
			if !reflect.DeepEqual(whole, cut) {
				t.Fatalf("reads of %d bytes: %s %q; one read: %s %q", n, short(cut.cmds), cut.err, short(whole.cmds), whole.err)
			}
		}

		var enc []byte
		var want [][]string
		for _, c := range whole.cmds {
			if len(c) > 0 {
				enc = appendRequest(enc, c)
				want = append(want, c)
			}
		}
		p := &Parser{}
		again := parseStream(p, bytes.NewReader(enc))
		if again.err != "" || !reflect.DeepEqual(again.cmds, want) || p.Buffered() != 0 {
			t.Fatalf("re-encoded %s parsed as %s %q, %d bytes left", short(want), short(again.cmds), again.err, p.Buffered())
		}
	})
}

// FuzzQuickLenLine checks that the fast path for count and length lines
// agrees with the general one (strchr-like search, then string2ll) whenever
// it accepts a line.
func FuzzQuickLenLine(f *testing.F) {
	for _, s := range []string{"$3\r\n", "*12\r\nx", "$0\r\n", "$01\r\n", "$-1\r\n", "$123456789012345678\r\n", "$1234567890123456789\r\n", "$1\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || (data[0] != '*' && data[0] != '$') {
			return // the parser only asks about lines that start so
		}
		n, adv, ok := quickLenLine(data)
		if !ok {
			return
		}
		p := &Parser{buf: data}
		cr := p.lineEnd('\r')
		if cr < 0 || cr > len(data)-2 {
			t.Fatalf("%q: fast path took a line the general path waits on", data)
		}
		m, ok2 := ParseInt(data[1:cr])
		if !ok2 || m != n || adv != cr+2 {
			t.Fatalf("%q: fast path %d (advance %d), general %d %v (advance %d)", data, n, adv, m, ok2, cr+2)
		}
	})
}
