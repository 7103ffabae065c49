package protocol

import (
	"bytes"
	"reflect"
	"testing"
)

// sdssplitargsC is the oracle for inline requests: Redis 7.0.15's sds.c
// sdssplitargs transcribed statement by statement over a NUL-terminated
// copy of line (C reads the terminator), with C's isspace in the C locale.
// ok false is the NULL return (unbalanced quotes, or a closing quote not
// followed by a space).
func sdssplitargsC(line []byte) (argv [][]byte, ok bool) {
	buf := append(append([]byte(nil), line...), 0)
	p := 0
	at := func(i int) byte { return buf[i] } // the C code never reads past the NUL
	isHex := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	hexVal := func(c byte) byte {
		switch {
		case c >= '0' && c <= '9':
			return c - '0'
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10
		}
		return c - 'A' + 10
	}
	var vector [][]byte
	for {
		/* skip blanks */
		for at(p) != 0 && numIsSpace(at(p)) {
			p++
		}
		if at(p) == 0 {
			/* Even on empty input string return something not NULL. */
			return vector, true
		}
		/* get a token */
		inq, insq, done := false, false, false
		current := []byte{}
		for !done {
			if inq {
				if at(p) == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)) {
					current = append(current, hexVal(at(p+2))*16+hexVal(at(p+3)))
					p += 3
				} else if at(p) == '\\' && at(p+1) != 0 {
					p++
					var c byte
					switch at(p) {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					default:
						c = at(p)
					}
					current = append(current, c)
				} else if at(p) == '"' {
					/* closing quote must be followed by a space or nothing at all. */
					if at(p+1) != 0 && !numIsSpace(at(p+1)) {
						return nil, false
					}
					done = true
				} else if at(p) == 0 {
					/* unterminated quotes */
					return nil, false
				} else {
					current = append(current, at(p))
				}
			} else if insq {
				if at(p) == '\\' && at(p+1) == '\'' {
					p++
					current = append(current, '\'')
				} else if at(p) == '\'' {
					/* closing quote must be followed by a space or nothing at all. */
					if at(p+1) != 0 && !numIsSpace(at(p+1)) {
						return nil, false
					}
					done = true
				} else if at(p) == 0 {
					/* unterminated quotes */
					return nil, false
				} else {
					current = append(current, at(p))
				}
			} else {
				switch at(p) {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					current = append(current, at(p))
				}
			}
			if at(p) != 0 {
				p++
			}
		}
		/* add the token to the vector */
		vector = append(vector, current)
	}
}

// FuzzInline checks inline requests against Redis: SplitArgs against
// sdssplitargsC for any line, and the Parser, given a line and "\n" (or
// "\r\n"), against processInlineBuffer (the line up to the terminator, a
// '\r' before '\n' dropped, split by sdssplitargs; NULL is "unbalanced
// quotes").
func FuzzInline(f *testing.F) {
	for _, tc := range splitArgsCases {
		f.Add([]byte(tc.in), false)
	}
	for _, s := range []string{"SET k v", `SET "a b" 'c\'d'`, `"\x41\x4g"`, `"a"b`, `'a'b`, `"unterminated`,
		"a\vb c", "\t\r \f", `"\"`, `'\'`, `"\\"`, "x \x80\xff y", `""`, `'' ''`, "a\rb"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, crlf bool) {
		want, wok := sdssplitargsC(bytes.Split(line, []byte{0})[0])
		got, ok := SplitArgs(line)
		if ok != wok || ok && !reflect.DeepEqual(normArgs(got), normArgs(want)) {
			t.Fatalf("SplitArgs(%q) = %q, %v; sdssplitargs %q, %v", line, got, ok, want, wok)
		}

		// The Parser sees a request only up to a '\n' that no NUL hides
		// (strchr), and takes a line starting with '*' as multibulk.
		if len(line) == 0 || line[0] == '*' || bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, 0) >= 0 {
			return
		}
		req := append([]byte(nil), line...)
		if crlf {
			req = append(req, '\r')
		}
		req = append(req, '\n')
		res := parseStream(&Parser{}, bytes.NewReader(req))
		cut := line
		if !crlf && len(cut) > 0 && cut[len(cut)-1] == '\r' {
			cut = cut[:len(cut)-1]
		}
		want, wok = sdssplitargsC(cut)
		switch {
		case !wok:
			if res.err != ErrUnbalancedQuotes.Error() {
				t.Fatalf("%q: parser %q %q, Redis: unbalanced quotes", req, res.cmds, res.err)
			}
		case res.err != "" || len(res.cmds) != 1:
			t.Fatalf("%q: parser %q %q, Redis: one command %q", req, res.cmds, res.err, want)
		case !reflect.DeepEqual(res.cmds[0], normArgs(want)):
			t.Fatalf("%q: parser %q, Redis %q", req, res.cmds[0], want)
		}
	})
}

func normArgs(a [][]byte) []string {
	out := []string{}
	for _, b := range a {
		out = append(out, string(b))
	}
	return out
}
