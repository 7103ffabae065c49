package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Unit tests of the server-operations helpers; the behaviour is compared
// with redis-server in test/ops_*_test.go.

func TestHistogramLayout(t *testing.T) {
	prev := -1
	for v := int64(1); v < histMaxValue; v += v/97 + 1 {
		i := histCountsIndex(v)
		if i < prev {
			t.Fatalf("index of %d (%d) below the previous one (%d)", v, i, prev)
		}
		prev = i
		lo, hi := histLowestEquivalent(v), histHighestEquivalent(v)
		if v < lo || v > hi || histCountsIndex(lo) != i || histCountsIndex(hi) != i || histCountsIndex(hi+1) != i+1 {
			t.Fatalf("value %d: range [%d, %d], index %d", v, lo, hi, i)
		}
		if got := histValueAtIndex(i); got != lo {
			t.Fatalf("value at index %d = %d, want %d", i, got, lo)
		}
	}
	// Points measured on redis-server 7.0.15 (LATENCY HISTOGRAM and INFO
	// latencystats of one call each).
	for _, c := range []struct {
		ns, usec int64
		p50      int64
	}{{53247, 66, 53247}, {18047, 33, 18047}, {561000, 1056, 561151}, {14000, 16, 14015}} {
		var h cmdHistogram
		h.record(c.ns)
		cdf := h.cdf()
		if len(cdf) != 1 || cdf[0] != [2]int64{c.usec, 1} {
			t.Errorf("%d ns: cdf %v, want [[%d 1]]", c.ns, cdf, c.usec)
		}
		if got := h.percentile(50); got != c.p50 {
			t.Errorf("%d ns: p50 %d, want %d", c.ns, got, c.p50)
		}
	}
}

func TestFormatMemoryAndAtoi(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1000: "1000", 1024: "1kb", 3 << 20: "3mb", 1 << 30: "1gb", 1<<30 + 1: "1073741825"} {
		if got := formatMemory(n); got != want {
			t.Errorf("formatMemory(%d) = %q, want %q", n, got, want)
		}
	}
	for s, want := range map[string]int64{"1": 1, "x": 0, " -12ab": -12, "+7": 7, "": 0} {
		if got := cAtoi([]byte(s)); got != want {
			t.Errorf("cAtoi(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestRedactedArgs(t *testing.T) {
	cases := []struct {
		cmd  string
		args string
		want string // positions redacted, as x
	}{
		{"auth", "AUTH pw", ".x"},
		{"auth", "AUTH u pw", ".xx"},
		{"auth", "AUTH a b c", ""},
		{"hello", "HELLO 3 AUTH u p SETNAME n", "...xx.."},
		{"hello", "HELLO 3 SETNAME n AUTH u p", ".....xx"},
		{"hello", "HELLO 3 bogus AUTH u p", ""},
		{"migrate", "MIGRATE h 1 k 0 10 COPY AUTH p", "........x"},
		{"migrate", "MIGRATE h 1 k 0 10 AUTH2 u p KEYS a", ".......xx.."},
		{"get", "GET k", ""},
	}
	for _, c := range cases {
		var args [][]byte
		for _, f := range strings.Fields(c.args) {
			args = append(args, []byte(f))
		}
		r := redactedArgs(&command{name: c.cmd}, args)
		got := ""
		if r != nil {
			for _, x := range r {
				if x {
					got += "x"
				} else {
					got += "."
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.args, got, c.want)
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
