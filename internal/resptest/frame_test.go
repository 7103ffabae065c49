package resptest

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

func read(t *testing.T, s string) Node {
	t.Helper()
	n, err := ReadFrame(bufio.NewReader(strings.NewReader(s)))
	if err != nil {
		t.Fatalf("ReadFrame(%q): %v", s, err)
	}
	if string(n.Raw) != s {
		t.Fatalf("ReadFrame(%q): raw %q", s, n.Raw)
	}
	return n
}

func TestValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"+OK\r\n", "OK"},
		{"-ERR no\r\n", "error: ERR no"},
		{":-5\r\n", "int64: -5"},
		{"$-1\r\n", Nil},
		{"*-1\r\n", Nil},
		{"_\r\n", Nil},
		{"$3\r\nabc\r\n", "abc"},
		{"#t\r\n", "bool: true"},
		{"=7\r\ntxt:abc\r\n", "txt:abc"},
		{"*2\r\n$1\r\na\r\n:1\r\n", "[a int64: 1]"},
		{"%1\r\n+k\r\n$1\r\nv\r\n", "[k v]"},
		{"|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n", "v"},
	} {
		if got := show(read(t, tc.in).Value()); got != tc.want {
			t.Errorf("Value(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func show(v any) string {
	switch v := v.(type) {
	case error:
		return "error: " + v.Error()
	case int64:
		return fmt.Sprintf("int64: %d", v)
	case bool:
		return fmt.Sprintf("bool: %v", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

func TestReadFrameRefusesGarbage(t *testing.T) {
	for _, in := range []string{"?\r\n", "$5\r\nab\r\n", ":x\r\n", "*1\r\n", "+OK\n", "$99999999999\r\n"} {
		if _, err := ReadFrame(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("ReadFrame(%q) accepted", in)
		}
	}
}

func TestCommand(t *testing.T) {
	if got := string(Command("SET", "k", "")); got != "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" {
		t.Fatalf("Command = %q", got)
	}
}
