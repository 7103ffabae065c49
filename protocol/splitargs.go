package protocol

import "bytes"

// SplitArgs splits a line into arguments exactly as Redis 7.0.15's
// sdssplitargs (sds.c) does for inline requests and configuration files:
//
//   - Arguments are separated by blanks (C isspace: space, \t, \n, \v, \f,
//     \r). Inside an unquoted argument only space, \t, \n and \r end it, so
//     "a\vb" is one argument.
//   - "double quotes" understand \xHH (two hex digits), \n, \r, \t, \b, \a;
//     any other escaped byte stands for itself (\" \\ \q -> " \ q).
//   - 'single quotes' understand only \' ; every other byte is literal.
//   - A quote may open in the middle of an argument (ab"c d" is `abc d`), but
//     a closing quote must be followed by a blank or the end of the line.
//   - The line ends at its first NUL byte, as the C string it is in Redis.
//
// ok is false for unbalanced quotes or a closing quote followed by something
// else (Redis's "unbalanced quotes"). A blank line gives no arguments and ok
// true. Arguments without quotes alias line; the others are fresh copies.
func SplitArgs(line []byte) (args [][]byte, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	args, _, ok = appendSplitArgs(nil, nil, line)
	if !ok {
		return nil, false
	}
	return args, true
}

// appendSplitArgs is sdssplitargs over a line without NUL bytes. It appends
// the arguments to args; arguments written without quotes alias line, the
// others are appended to store and alias it. On failure args and store hold
// partial results the caller must drop.
func appendSplitArgs(args [][]byte, store []byte, line []byte) ([][]byte, []byte, bool) {
	n := len(line)
	// at is *p in C: the end of the slice reads as the terminating NUL.
	at := func(i int) byte {
		if i < n {
			return line[i]
		}
		return 0
	}
	i := 0
	for {
		for i < n && isCSpace(line[i]) {
			i++
		}
		if i >= n {
			return args, store, true
		}

		// Fast path: a token without quotes is a slice of line.
		start := i
		for i < n && !endsPlainToken(line[i]) {
			i++
		}
		if i >= n || (line[i] != '"' && line[i] != '\'') {
			args = append(args, line[start:i:i])
			if i < n {
				i++ // the terminator, as "if (*p) p++" does
			}
			continue
		}

		// A quote opens: copy what came before it and continue byte by byte.
		tok := len(store)
		store = append(store, line[start:i]...)
		inq, insq, done := false, false, false
		for !done {
			c := at(i)
			switch {
			case inq:
				switch {
				case c == '\\' && at(i+1) == 'x' && isHexDigit(at(i+2)) && isHexDigit(at(i+3)):
					store = append(store, hexDigitValue(at(i+2))<<4|hexDigitValue(at(i+3)))
					i += 3
				case c == '\\' && at(i+1) != 0:
					i++
					store = append(store, unescapeDouble(line[i]))
				case c == '"':
					if next := at(i + 1); next != 0 && !isCSpace(next) {
						return args, store, false
					}
					done = true
				case c == 0:
					return args, store, false // unterminated quotes
				default:
					store = append(store, c)
				}
			case insq:
				switch {
				case c == '\\' && at(i+1) == '\'':
					i++
					store = append(store, '\'')
				case c == '\'':
					if next := at(i + 1); next != 0 && !isCSpace(next) {
						return args, store, false
					}
					done = true
				case c == 0:
					return args, store, false // unterminated quotes
				default:
					store = append(store, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					store = append(store, c)
				}
			}
			if at(i) != 0 {
				i++
			}
		}
		args = append(args, store[tok:len(store):len(store)])
	}
}

// endsPlainToken reports the bytes that stop the fast path of an unquoted
// token: its terminators and the quotes.
func endsPlainToken(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '\''
}

// isCSpace is C isspace in the "C" locale, which Redis uses for LC_CTYPE.
func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func isHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexDigitValue(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// unescapeDouble maps the byte after a backslash inside double quotes.
func unescapeDouble(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}
