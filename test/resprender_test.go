package test

import (
	"fmt"
	"strconv"
	"strings"
)

// render shows a reply the way redis-cli does, with the RESP3 types named,
// followed by nothing else; failures print render(n) and the raw bytes.
func render(n node) string {
	var b strings.Builder
	renderInto(&b, n, "")
	return strings.TrimRight(b.String(), "\n")
}

func renderInto(b *strings.Builder, n node, indent string) {
	if n.Attr != nil {
		renderInto(b, *n.Attr, indent)
		b.WriteString(indent)
	}
	switch n.Kind {
	case '+':
		b.WriteString(n.Str + "\n")
	case '-':
		b.WriteString("(error) " + n.Str + "\n")
	case '!':
		b.WriteString("(blob error) " + strconv.Quote(n.Str) + "\n")
	case ':':
		fmt.Fprintf(b, "(integer) %d\n", n.Int)
	case ',':
		b.WriteString("(double) " + n.Str + "\n")
	case '(':
		b.WriteString("(big number) " + n.Str + "\n")
	case '#':
		if n.Bool {
			b.WriteString("(true)\n")
		} else {
			b.WriteString("(false)\n")
		}
	case '_':
		b.WriteString("(null)\n")
	case '$':
		if n.Null {
			b.WriteString("(nil)\n")
			return
		}
		b.WriteString(strconv.Quote(n.Str) + "\n")
	case '=':
		b.WriteString("(verbatim " + n.Str[:3] + ") " + strconv.Quote(n.Str[4:]) + "\n")
	case '*', '~', '>', '%', '|':
		if n.Null {
			b.WriteString("(nil array)\n")
			return
		}
		name := map[byte]string{'*': "array", '~': "set", '>': "push", '%': "map", '|': "attribute"}[n.Kind]
		if len(n.Elems) == 0 {
			b.WriteString("(empty " + name + ")\n")
			return
		}
		if n.Kind != '*' {
			b.WriteString("(" + name + ")\n" + indent)
		}
		step := 1
		if n.Kind == '%' || n.Kind == '|' {
			step = 2
		}
		width := len(strconv.Itoa(len(n.Elems) / step))
		for i := 0; i < len(n.Elems); i += step {
			if i > 0 {
				b.WriteString(indent)
			}
			label := fmt.Sprintf("%*d) ", width, i/step+1)
			b.WriteString(label)
			inner := indent + strings.Repeat(" ", len(label))
			if step == 2 {
				var k strings.Builder
				renderInto(&k, n.Elems[i], inner)
				b.WriteString(strings.TrimRight(k.String(), "\n") + " => ")
			}
			renderInto(b, n.Elems[i+step-1], inner)
		}
	default:
		fmt.Fprintf(b, "(unknown %q)\n", n.Kind)
	}
}

// quoteRaw shows raw reply bytes on one line, CRLFs visible, cut after
// limit bytes.
func quoteRaw(b []byte, limit int) string {
	if len(b) > limit {
		return strconv.Quote(string(b[:limit])) + fmt.Sprintf(" ... (%d bytes)", len(b))
	}
	return strconv.Quote(string(b))
}
