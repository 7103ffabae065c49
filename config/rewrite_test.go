package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormatMemory(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1000", 1024: "1kb", 3 << 20: "3mb", 1 << 30: "1gb", 1<<30 + 1: "1073741825"} {
		if got := formatMemory(n); got != want {
			t.Errorf("formatMemory(%d) = %q, want %q", n, got, want)
		}
	}
}

// FuzzRewriteState feeds arbitrary config files to CONFIG REWRITE's reader:
// no panic, and every line of the input is kept, commented or rewritten.
func FuzzRewriteState(f *testing.F) {
	for _, seed := range []string{"", "port 1\n", "# c\n\nhz 10\nhz 20\nsave 1 2\n", "bogus \"x\n", "slaveof a 1\nuser x\n\r\n\t\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "r.conf")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := readRewriteState(path)
		if err != nil {
			t.Fatal(err)
		}
		if text != "" && len(st.lines) != strings.Count(text, "\n")+1 {
			t.Fatalf("%d lines from %q", len(st.lines), text)
		}
		st.rewriteLine("hz", "hz 5", true)
		out := st.content()
		if out != "" && !strings.HasSuffix(out, "\n") {
			t.Fatalf("content %q", out)
		}
	})
}
