package test

import (
	"fmt"
	"strconv"
	"strings"
)

// token is one word of a step line.
type token struct {
	text   string
	quoted bool
}

// splitArgs splits a line the way redis-cli does (sdssplitargs): words
// separated by blanks; "double quotes" with \n \r \t \b \a \\ \" \xHH
// escapes; 'single quotes' with \' only. A closing quote must be followed
// by a blank or the end.
func splitArgs(s string) ([]token, error) {
	var out []token
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		var b strings.Builder
		quoted := false
		switch s[i] {
		case '"':
			quoted = true
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unbalanced double quotes")
				}
				c := s[i]
				if c == '"' {
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 'r':
						b.WriteByte('\r')
					case 't':
						b.WriteByte('\t')
					case 'b':
						b.WriteByte('\b')
					case 'a':
						b.WriteByte('\a')
					case 'x':
						if i+2 < len(s) {
							if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
								b.WriteByte(byte(v))
								i += 2
								break
							}
						}
						b.WriteByte('x')
					default:
						b.WriteByte(s[i])
					}
					i++
					continue
				}
				b.WriteByte(c)
				i++
			}
		case '\'':
			quoted = true
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unbalanced single quotes")
				}
				c := s[i]
				if c == '\'' {
					i++
					break
				}
				if c == '\\' && i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				b.WriteByte(c)
				i++
			}
		default:
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				b.WriteByte(s[i])
				i++
			}
		}
		if quoted && i < len(s) && s[i] != ' ' && s[i] != '\t' {
			return nil, fmt.Errorf("closing quote must be followed by a space")
		}
		out = append(out, token{b.String(), quoted})
	}
}
