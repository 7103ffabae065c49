package test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// SLOWLOG against redis-server: with slowlog-log-slower-than 0 every call
// is logged; the entries' arguments (32-argument and 128-byte cuts,
// redacted passwords), client names and order must be Redis's, the
// commands of EXEC and of scripts included. Times, durations and ports
// differ and are compared by kind only.

// slowlogView renders SLOWLOG GET's reply without the values that depend
// on timing or ports: id deltas, args, peer kind and name.
func slowlogView(t *testing.T, n node) []string {
	t.Helper()
	var out []string
	for i, e := range n.Elems {
		if len(e.Elems) != 6 {
			t.Fatalf("entry %d has %d fields", i, len(e.Elems))
		}
		var args []string
		for _, a := range e.Elems[3].Elems {
			args = append(args, fmt.Sprintf("%q", a.Str))
		}
		delta := int64(0)
		if i > 0 {
			delta = n.Elems[i-1].Elems[0].Int - e.Elems[0].Int
		}
		peer := e.Elems[4].Str
		if strings.HasPrefix(peer, "127.0.0.1:") {
			peer = "127.0.0.1:PORT"
		}
		out = append(out, fmt.Sprintf("d%d %s peer=%q name=%q", delta, strings.Join(args, " "), peer, e.Elems[5].Str))
	}
	return out
}

func TestOpsSlowlogEntries(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			a := p.Conn("A")
			a.Do("CONFIG", "SET", "slowlog-max-len", "100")
			a.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
			a.Do("SLOWLOG", "RESET")
			a.Do("CLIENT", "SETNAME", "slowpoke")
			a.Do("SET", "k", strings.Repeat("x", 200))
			mset := []string{"MSET"}
			for i := 0; i < 20; i++ {
				mset = append(mset, fmt.Sprintf("k%d", i), "v")
			}
			a.Do(mset...)
			a.Do("AUTH", "secret")
			a.Do("AUTH", "user", "secret")
			a.Do("CONFIG", "SET", "masterauth", "hidden")
			a.Do("MULTI")
			a.Do("INCR", "n")
			a.Do("GET", "n")
			a.Do("EXEC")
			a.Do("EVAL", "return redis.call('incr', KEYS[1])", "1", "n")
			a.Do("SLOWLOG", "LEN")
			want, got := a.DoMode(cmpIgnore, "SLOWLOG", "GET", "-1")
			w, g := slowlogView(t, want), slowlogView(t, got)
			if strings.Join(w, "\n") != strings.Join(g, "\n") {
				t.Fatalf("SLOWLOG GET differs:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", strings.Join(w, "\n"), strings.Join(g, "\n"))
			}
			a.Do("CONFIG", "SET", "slowlog-max-len", "3")
			a.Do("SLOWLOG", "LEN")
			a.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
			a.Do("SLOWLOG", "RESET")
			a.Do("SLOWLOG", "LEN")
		})
	}
}

// TestOpsLatencyDoctor compares LATENCY DOCTOR's report after a slow
// command, with the measured milliseconds normalised.
func TestOpsLatencyDoctor(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			a := p.Conn("A")
			a.Do("CONFIG", "SET", "latency-monitor-threshold", "20")
			a.Do("LATENCY", "RESET")
			a.Do("LATENCY", "DOCTOR")
			a.Do("DEBUG", "SLEEP", "0.05")
			want, got := a.DoMode(cmpIgnore, "LATENCY", "DOCTOR")
			ms := regexp.MustCompile(`\d+ms`)
			w, g := ms.ReplaceAllString(want.Str, "Nms"), ms.ReplaceAllString(got.Str, "Nms")
			if w != g || want.Kind != got.Kind {
				t.Fatalf("LATENCY DOCTOR differs:\n--- redis-server (%c):\n%s\n--- miniwatchd (%c):\n%s", want.Kind, w, got.Kind, g)
			}
			a.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
			want, got = a.DoMode(cmpIgnore, "LATENCY", "DOCTOR")
			if w, g := ms.ReplaceAllString(want.Str, "Nms"), ms.ReplaceAllString(got.Str, "Nms"); w != g {
				t.Fatalf("LATENCY DOCTOR (slow log off) differs:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", w, g)
			}
		})
	}
}

// TestOpsLatencyGraph compares LATENCY GRAPH (the sparkline) after two
// spikes a second apart, with the measured milliseconds normalised.
func TestOpsLatencyGraph(t *testing.T) {
	p := newDiffPairProto(t, 3)
	p.taint()
	a := p.Conn("A")
	a.Do("CONFIG", "SET", "latency-monitor-threshold", "5")
	a.Do("LATENCY", "RESET")
	a.Do("LATENCY", "GRAPH", "command")
	a.Do("DEBUG", "SLEEP", "0.06")
	time.Sleep(1100 * time.Millisecond)
	a.Do("DEBUG", "SLEEP", "0.01")
	want, got := a.DoMode(cmpIgnore, "LATENCY", "GRAPH", "command")
	ms := regexp.MustCompile(`\d+ ms`)
	w, g := ms.ReplaceAllString(want.Str, "N ms"), ms.ReplaceAllString(got.Str, "N ms")
	if w != g || want.Kind != got.Kind {
		t.Fatalf("LATENCY GRAPH differs:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", w, g)
	}
	a.Do("LATENCY", "GRAPH", "nosuch")
	a.Do("LATENCY", "GRAPH")
}

// TestOpsLatencyHistogram compares LATENCY HISTOGRAM and INFO latencystats:
// the commands reported, their call counts and the percentile names (the
// measured values are timing).
func TestOpsLatencyHistogram(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			a := p.Conn("A")
			a.Do("CONFIG", "RESETSTAT")
			for i := 0; i < 5; i++ {
				a.Do("SET", "k", fmt.Sprint(i))
			}
			a.Do("GET", "k")
			a.DoMode(cmpIgnore, "CLIENT", "ID")
			a.Do("MULTI")
			a.Do("INCR", "n")
			a.Do("EXEC")
			view := func(n node) string {
				var out []string
				for i := 0; i+1 < len(n.Elems); i += 2 { // name, details (a map, or a flat array in RESP2)
					d := n.Elems[i+1]
					calls := int64(-1)
					for j := 0; j+1 < len(d.Elems); j += 2 {
						if d.Elems[j].Str == "calls" {
							calls = d.Elems[j+1].Int
						}
					}
					out = append(out, fmt.Sprintf("%s calls=%d", n.Elems[i].Str, calls))
				}
				return strings.Join(out, "; ")
			}
			for _, args := range [][]string{{"set", "get", "client", "nosuch"}, {"exec", "incr"}, {"nosuch"}} {
				want, got := a.DoMode(cmpIgnore, append([]string{"LATENCY", "HISTOGRAM"}, args...)...)
				if want.Kind != got.Kind || view(want) != view(got) {
					t.Fatalf("LATENCY HISTOGRAM %v:\n  redis-server: %s\n  miniwatchd:   %s", args, view(want), view(got))
				}
			}
			a.Do("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99.9 100")
			want, got := a.DoMode(cmpIgnore, "INFO", "latencystats")
			stats := func(s string) string {
				var ls []string
				for _, l := range strings.Split(s, "\r\n") {
					ls = append(ls, regexp.MustCompile(`=[0-9.]+`).ReplaceAllString(l, "=N"))
				}
				sort.Strings(ls)
				return strings.Join(ls, "\n")
			}
			if stats(want.Str) != stats(got.Str) {
				t.Fatalf("INFO latencystats:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", stats(want.Str), stats(got.Str))
			}
			a.Do("CONFIG", "SET", "latency-tracking", "no")
			a.Do("CONFIG", "RESETSTAT")
			a.Do("SET", "k", "v")
			a.Do("LATENCY", "HISTOGRAM", "set")
		})
	}
}
