package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFixture(t *testing.T) {
	lines, err := parseFixture([]byte("SET a \"x y\\n\"\r\n\n  # a comment\n3 INCR n\nSET 'b' 'it\\'s'\nRPUSH l \"\\x41\" 'B'\n42\nexit\nSET never run\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		got = append(got, strings.Repeat("+", l.repeat-1)+strings.Join(bytesToStrings(l.args), "|"))
	}
	want := []string{"SET|a|x y\n", "++INCR|n", "SET|b|it's", "RPUSH|l|A|B", "42"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("parsed %q, want %q", got, want)
	}
	for _, bad := range []string{"SET a \"open\n", "0 PING\n", "-1 PING\n", "99999999999999999999 PING\n", "SET 'a'b c\n"} {
		if _, err := parseFixture([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "line 1: ") {
			t.Errorf("%q: %v, want a line 1 error", bad, err)
		}
	}
}

func bytesToStrings(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}

func FuzzParseFixture(f *testing.F) {
	f.Add([]byte("SET a \"x\\x00y\"\n3 INCR n\n# c\nquit\n"))
	f.Add([]byte("'unbalanced\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := parseFixture(data)
		if err != nil {
			return
		}
		for _, l := range lines {
			if len(l.args) == 0 || l.repeat < 1 || l.repeat > 1<<20 || l.line < 1 {
				t.Fatalf("bad line %+v", l)
			}
		}
	})
}

func writeFixture(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFixtureAtStart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.LoadFixture = writeFixture(t, "SELECT 2\nMULTI\nSET k \"hello world\"\n2 RPUSH l x\nEXEC\nSELECT 0\nHSET h f v\n")
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := dialTest(t, s)
	if got := c.do("HGET", "h", "f"); got != "$1\r\nv\r\n" {
		t.Fatalf("HGET in db 0: %q", got)
	}
	c.do("SELECT", "2")
	if got := c.do("GET", "k"); got != "$11\r\nhello world\r\n" {
		t.Fatalf("GET in db 2: %q", got)
	}
	if got := c.do("LRANGE", "l", "0", "-1"); got != "*2\r\n$1\r\nx\r\n$1\r\nx\r\n" {
		t.Fatalf("LRANGE: %q", got)
	}
	if got := c.do("CONFIG", "GET", "load"); !strings.Contains(got, "fixture.txt") {
		t.Fatalf("CONFIG GET load: %q", got)
	}

	cfg.LoadFixture = writeFixture(t, "SET a 1\n\nINCR a\nLPUSH a x\n")
	if _, err := Start(cfg); err == nil || !strings.Contains(err.Error(), "line 4: WRONGTYPE Operation against a key holding the wrong kind of value") {
		t.Fatalf("a failing fixture: %v", err)
	}
}

func TestDebugLoadFixture(t *testing.T) {
	s := startTestServer(t)
	w, c := dialTest(t, s), dialTest(t, s)
	w.do("WATCH", "k")
	path := writeFixture(t, "SET k 1\n5 INCR k\n")
	if got := c.do("DEBUG", "LOAD-FIXTURE", path); got != ":6\r\n" {
		t.Fatalf("LOAD-FIXTURE: %q", got)
	}
	if got := c.do("GET", "k"); got != "$1\r\n6\r\n" {
		t.Fatalf("GET: %q", got)
	}
	w.do("MULTI")
	w.do("GET", "k")
	if got := w.do("EXEC"); got != "*-1\r\n" { // the fixture's write broke the WATCH
		t.Fatalf("EXEC: %q", got)
	}
	if got := c.do("DEBUG", "LOAD-FIXTURE", path+".missing"); !strings.HasPrefix(got, "-ERR fixture can't read ") {
		t.Fatalf("missing file: %q", got)
	}
}
