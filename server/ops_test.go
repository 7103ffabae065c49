package server

import (
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
