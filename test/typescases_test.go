package test

// Table-driven differential cases for the hash, set and sorted set
// families (diff_hash_test.go, diff_set_test.go, diff_zset_test.go), run
// through the shared diffPair in RESP2 and RESP3. A case is a list of
// command lines written as in redis-cli, each prefixed with a comparison
// mode when it is not compared exactly. Besides the shared modes there are
// modes for the replies these families add: flat RESP2 pair lists in an
// unspecified order, and SCAN-family replies.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tpMode says how a reply is compared.
type tpMode int

const (
	tpExact       tpMode = iota // byte-equal
	tpSorted                    // cmpSorted: elements as a multiset (map entries as pairs)
	tpSortedPairs               // a flat list of pairs, as a multiset of pairs (RESP2 HGETALL)
	tpShape                     // cmpShape: same types and lengths
	tpIgnore                    // cmpIgnore
	tpScan                      // a one-call SCAN reply: cursor exact, elements sorted
	tpScanPairs                 // the same with the elements taken as pairs
)

var tpModeNames = [...]string{"exact", "sorted", "sortedpairs", "shape", "ignore", "scan", "scanpairs"}

func (m tpMode) String() string { return tpModeNames[m] }

// tpDo sends a command on c and compares the replies by mode.
func tpDo(c *diffConn, mode tpMode, args ...string) (want, got node) {
	c.p.t.Helper()
	switch mode {
	case tpExact:
		return c.DoMode(cmpExact, args...)
	case tpSorted:
		return c.DoMode(cmpSorted, args...)
	case tpShape:
		return c.DoMode(cmpShape, args...)
	case tpIgnore:
		return c.DoMode(cmpIgnore, args...)
	}
	want, got = c.DoMode(cmpIgnore, args...)
	if ok, why := tpCompare(mode, want, got); !ok {
		c.p.t.Fatalf("%s%s> %s   [compare: %s, RESP%d]\n%s\n--- redis-server: %s\n--- miniwatchd:   %s",
			c.p.prefix(), c.name, formatCommand(args), mode, c.p.proto, why, fmtNode(want), fmtNode(got))
	}
	return want, got
}

// tpCompare implements the modes the shared comparator lacks.
func tpCompare(mode tpMode, want, got node) (bool, string) {
	switch mode {
	case tpScan, tpScanPairs:
		if len(want.Elems) != 2 || len(got.Elems) != 2 {
			return compareReplies(cmpExact, want, got)
		}
		if ok, why := compareReplies(cmpExact, want.Elems[0], got.Elems[0]); !ok {
			return false, "cursor: " + why
		}
		if mode == tpScan {
			return compareReplies(cmpSorted, want.Elems[1], got.Elems[1])
		}
		return tpCompare(tpSortedPairs, want.Elems[1], got.Elems[1])
	case tpSortedPairs:
		if want.Kind != got.Kind || len(want.Elems) != len(got.Elems) || want.Null != got.Null {
			return false, "type or length differs"
		}
		width := 2
		if len(want.Elems) > 0 && len(want.Elems[0].Elems) > 0 {
			width = 1 // RESP3 nests each pair in an array of its own
		}
		if !slices.Equal(tpGroups(want, width), tpGroups(got, width)) {
			return false, "elements differ (compared as sorted pairs)"
		}
		return true, ""
	}
	return false, "unknown mode " + mode.String()
}

func tpGroups(n node, width int) []string {
	var out []string
	for i := 0; i+width <= len(n.Elems); i += width {
		var b []byte
		for _, e := range n.Elems[i : i+width] {
			b = append(b, e.Raw...)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

// tpScanAll runs a SCAN-family command on key to completion on both
// servers (extra options after the cursor) and compares the elements
// collected, as a set of elements or of (key, value) pairs.
func tpScanAll(c *diffConn, pairs bool, cmd, key string, extra ...string) {
	t := c.p.t
	t.Helper()
	collect := func(conn *respConn) ([]string, error) {
		seen := map[string]bool{}
		cursor := "0"
		for i := 0; ; i++ {
			n, err := conn.Do(append([]string{cmd, key, cursor}, extra...)...)
			if err != nil {
				return nil, err
			}
			if n.Kind == '-' {
				return []string{"error: " + n.Str}, nil
			}
			if len(n.Elems) != 2 {
				return nil, fmt.Errorf("bad scan reply %s", fmtNode(n))
			}
			width := 1
			if pairs {
				width = 2
			}
			items := n.Elems[1].Elems
			for j := 0; j+width <= len(items); j += width {
				var b []string
				for _, e := range items[j : j+width] {
					b = append(b, e.Str)
				}
				seen[strings.Join(b, "\x00")] = true
			}
			cursor = n.Elems[0].Str
			if cursor == "0" || i > 100000 {
				break
			}
		}
		out := make([]string, 0, len(seen))
		for k := range seen {
			out = append(out, k)
		}
		slices.Sort(out)
		return out, nil
	}
	want, werr := collect(c.redis)
	got, gerr := collect(c.ours)
	if werr != nil || gerr != nil {
		t.Fatalf("%s%s %s: %v / %v", c.p.prefix(), cmd, key, werr, gerr)
	}
	if !slices.Equal(want, got) {
		t.Fatalf("%s%s %s %q: full iterations differ\n  redis-server: %q\n  miniwatchd:   %q", c.p.prefix(), cmd, key, extra, want, got)
	}
}

// tpStep is one command of a case.
type tpStep struct {
	mode tpMode
	args []string
}

// tpCase is a named sequence of commands run on an empty keyspace.
type tpCase struct {
	name  string
	steps []tpStep
}

// tpEncodingDefaults restores Redis's default encoding thresholds.
var tpEncodingDefaults = []string{"CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64",
	"set-max-intset-entries", "512", "zset-max-listpack-entries", "128", "zset-max-listpack-value", "64"}

// tpRunCases runs cases in both protocols, each on a flushed keyspace with
// the default encoding thresholds, and logs how many commands it compared.
// The servers' configuration changes, so they are not reused afterwards.
func tpRunCases(t *testing.T, cases []tpCase) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			c := p.Conn("A")
			n := 0
			for _, tc := range cases {
				p.where = tc.name
				c.DoMode(cmpIgnore, "FLUSHALL")
				c.DoMode(cmpExact, tpEncodingDefaults...)
				for _, st := range tc.steps {
					tpDo(c, st.mode, st.args...)
					n++
				}
			}
			t.Logf("RESP%d: %d cases, %d commands compared", proto, len(cases), n)
		})
	}
}

// tpCmds builds steps from command lines: words split on spaces, '...'
// quoting a word (possibly empty, or with spaces; \xHH inside is a byte),
// and an optional leading "~sorted ", "~pairs ", "~shape ", "~ignore ",
// "~scan " or "~scanpairs " choosing the comparison.
func tpCmds(lines ...string) []tpStep {
	prefixes := map[string]tpMode{"~sorted ": tpSorted, "~pairs ": tpSortedPairs, "~shape ": tpShape,
		"~ignore ": tpIgnore, "~scan ": tpScan, "~scanpairs ": tpScanPairs}
	steps := make([]tpStep, 0, len(lines))
	for _, l := range lines {
		mode := tpExact
		for p, m := range prefixes {
			if strings.HasPrefix(l, p) {
				mode, l = m, l[len(p):]
				break
			}
		}
		steps = append(steps, tpStep{mode: mode, args: tpSplit(l)})
	}
	return steps
}

func tpSplit(l string) []string {
	var out []string
	for i := 0; i < len(l); {
		if l[i] == ' ' {
			i++
			continue
		}
		if l[i] == '\'' {
			var b []byte
			j := i + 1
			for ; j < len(l) && l[j] != '\''; j++ {
				if l[j] == '\\' && j+3 < len(l) && l[j+1] == 'x' {
					if v, err := strconv.ParseUint(l[j+2:j+4], 16, 8); err == nil {
						b = append(b, byte(v))
						j += 3
						continue
					}
				}
				b = append(b, l[j])
			}
			out = append(out, string(b))
			i = j + 1
			continue
		}
		j := strings.IndexByte(l[i:], ' ')
		if j < 0 {
			j = len(l) - i
		}
		out = append(out, l[i:i+j])
		i += j
	}
	return out
}
