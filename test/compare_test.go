package test

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// cmpMode says how two servers' replies to one command are compared.
type cmpMode int

const (
	// cmpExact requires byte-equal replies (the default).
	cmpExact cmpMode = iota
	// cmpSorted compares the elements of an aggregate reply as a multiset
	// (map entries as pairs): for replies whose order Redis leaves
	// unspecified (KEYS, SMEMBERS, ...). The header must still match.
	cmpSorted
	// cmpShape requires the same type and length: same type byte, same
	// null-ness, and for aggregates the same count and the same shape
	// element by element (for TIME, RANDOMKEY, ...).
	cmpShape
	// cmpErrCode requires two errors with the same first word.
	cmpErrCode
	// cmpIgnore reads both replies and compares nothing (CLIENT ID, ports).
	cmpIgnore
	// cmpACLRules compares like cmpExact, except that in every string the
	// runs of single-command ACL rules ("+get -config|set", after the
	// categories of a selector) are compared as multisets: Redis emits
	// them in its command dict's order, which each process's hash seed
	// sets (ACLDescribeSelectorCommandRules).
	cmpACLRules
	// cmpGeoDist compares like cmpExact, except that a distance replied
	// with four decimals (WITHDIST, GEODIST) may differ by one in its last
	// digit: the README's known difference (glibc's sin, cos and asin
	// behind redis-server are a ulp off now and then; ours are correctly
	// rounded, and a ulp can cross a rounding boundary of the fourth
	// decimal).
	cmpGeoDist
)

var cmpModeNames = map[string]cmpMode{
	"exact": cmpExact, "sorted": cmpSorted, "shape": cmpShape,
	"errcode": cmpErrCode, "ignore": cmpIgnore, "aclrules": cmpACLRules,
	"geodist": cmpGeoDist,
}

func (m cmpMode) String() string {
	for name, v := range cmpModeNames {
		if v == m {
			return name
		}
	}
	return fmt.Sprintf("cmpMode(%d)", int(m))
}

// compareReplies reports whether want (redis-server's reply) and got
// (ours) agree under mode, and if not, why.
func compareReplies(mode cmpMode, want, got node) (bool, string) {
	switch mode {
	case cmpIgnore:
		return true, ""
	case cmpExact:
		if bytes.Equal(want.Raw, got.Raw) {
			return true, ""
		}
		return false, "replies differ"
	case cmpSorted:
		if !want.IsAggregate() || !got.IsAggregate() {
			if bytes.Equal(want.Raw, got.Raw) {
				return true, ""
			}
			return false, "replies differ (not aggregates, compared exactly)"
		}
		if want.Kind != got.Kind || len(want.Elems) != len(got.Elems) {
			return false, "aggregate type or length differs"
		}
		if !equalStrings(sortedElems(want), sortedElems(got)) {
			return false, "elements differ (compared sorted)"
		}
		return true, ""
	case cmpShape:
		if why := shapeDiff(want, got, "reply"); why != "" {
			return false, why
		}
		return true, ""
	case cmpACLRules:
		if why := aclRulesDiff(want, got, "reply"); why != "" {
			return false, why
		}
		return true, ""
	case cmpGeoDist:
		if why := geoDistDiff(want, got, "reply"); why != "" {
			return false, why
		}
		return true, ""
	case cmpErrCode:
		if !want.IsError() || !got.IsError() {
			return false, "expected two errors"
		}
		if errCode(want) != errCode(got) {
			return false, "error codes differ"
		}
		return true, ""
	}
	return false, "unknown comparison mode"
}

// sortedElems returns the raw bytes of an aggregate's elements (map
// entries as key+value) in sorted order.
func sortedElems(n node) []string {
	step := 1
	if n.Kind == '%' {
		step = 2
	}
	out := make([]string, 0, len(n.Elems)/step)
	for i := 0; i+step-1 < len(n.Elems); i += step {
		var b []byte
		for j := i; j < i+step; j++ {
			b = append(b, n.Elems[j].Raw...)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// shapeDiff describes the first difference in type or length, or "".
func shapeDiff(want, got node, path string) string {
	if want.Kind != got.Kind {
		return fmt.Sprintf("%s: type %q vs %q", path, want.Kind, got.Kind)
	}
	if want.Null != got.Null {
		return path + ": null vs not null"
	}
	if len(want.Elems) != len(got.Elems) {
		return fmt.Sprintf("%s: %d vs %d elements", path, len(want.Elems), len(got.Elems))
	}
	for i := range want.Elems {
		if d := shapeDiff(want.Elems[i], got.Elems[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// errCode is the first word of an error reply.
func errCode(n node) string {
	code, _, _ := strings.Cut(n.Str, " ")
	return code
}

// aclRulesDiff describes the first difference under cmpACLRules, or "".
func aclRulesDiff(want, got node, path string) string {
	if want.Kind != got.Kind || want.Null != got.Null || len(want.Elems) != len(got.Elems) {
		return path + ": " + shapeDiff(want, got, path) + " (or values differ)"
	}
	if len(want.Elems) == 0 {
		if want.IsAggregate() {
			return ""
		}
		str := want.Kind == '$' || want.Kind == '+' || want.Kind == '-'
		if (str && (len(want.Str) != len(got.Str) || normalizeACLRules(want.Str) != normalizeACLRules(got.Str))) || (!str && !bytes.Equal(want.Raw, got.Raw)) {
			return fmt.Sprintf("%s: %q vs %q (single-command rules compared as sets)", path, want.Str, got.Str)
		}
		return ""
	}
	for i := range want.Elems {
		if d := aclRulesDiff(want.Elems[i], got.Elems[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// geoDistDiff is cmpGeoDist's comparison: "" when want and got are equal
// but for four-decimal distances one unit of the last digit apart.
func geoDistDiff(want, got node, path string) string {
	if want.Kind != got.Kind || want.Null != got.Null || len(want.Elems) != len(got.Elems) {
		return path + ": " + shapeDiff(want, got, path) + " (or values differ)"
	}
	if len(want.Elems) == 0 {
		if bytes.Equal(want.Raw, got.Raw) || want.IsAggregate() {
			return ""
		}
		if want.Kind == '$' && lastDecimalApart(want.Str, got.Str) {
			return ""
		}
		return fmt.Sprintf("%s: %q vs %q", path, want.Str, got.Str)
	}
	for i := range want.Elems {
		if d := geoDistDiff(want.Elems[i], got.Elems[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// lastDecimalApart reports whether a and b are numbers written with four
// decimals (digits, a point, four digits) exactly one unit of the last
// digit apart, as "4699428.5908" and "4699428.5909".
func lastDecimalApart(a, b string) bool {
	units := func(s string) (int64, bool) {
		i := strings.IndexByte(s, '.')
		if i < 1 || len(s)-i != 5 {
			return 0, false
		}
		n, err := strconv.ParseInt(s[:i]+s[i+1:], 10, 64)
		return n, err == nil && !strings.ContainsAny(s, "+- ")
	}
	x, ok1 := units(a)
	y, ok2 := units(b)
	return ok1 && ok2 && (x-y == 1 || y-x == 1)
}

// normalizeACLRules sorts each run of single-command rules (words
// starting with + or - but not +@ or -@) of an ACL rule string; selector
// parentheses end a run.
func normalizeACLRules(s string) string {
	words := strings.Fields(strings.NewReplacer("(", "( ", ")", " )").Replace(s))
	single := func(w string) bool {
		return len(w) > 1 && (w[0] == '+' || w[0] == '-') && w[1] != '@'
	}
	for i := 0; i < len(words); {
		if !single(words[i]) {
			i++
			continue
		}
		j := i
		for j < len(words) && single(words[j]) {
			j++
		}
		sort.Strings(words[i:j])
		i = j
	}
	return strings.Join(words, " ")
}

// TestGeoDistCompare: cmpGeoDist lets a four-decimal distance differ by one
// unit of its last digit and nothing else.
func TestGeoDistCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		ok   bool
	}{
		{"4699428.5908", "4699428.5909", true},
		{"3402940.0566", "3402940.0565", true},
		{"0.9999", "1.0000", true},
		{"4699428.5908", "4699428.5910", false},
		{"4699428.5908", "4699428.590", false},
		{"m12", "m13", false},
		{"12.5", "12.6", false},
		{"-1.0001", "-1.0002", false},
	} {
		want := node{Kind: '$', Str: tc.a, Raw: []byte(tc.a)}
		got := node{Kind: '$', Str: tc.b, Raw: []byte(tc.b)}
		agg := func(n node) node {
			return node{Kind: '*', Elems: []node{{Kind: '$', Str: "m1", Raw: []byte("m1")}, n}, Raw: append([]byte("*"), n.Raw...)}
		}
		if ok, why := compareReplies(cmpGeoDist, agg(want), agg(got)); ok != tc.ok {
			t.Errorf("%q vs %q: %v (%s), want %v", tc.a, tc.b, ok, why, tc.ok)
		}
	}
	m1 := node{Kind: '$', Str: "m1", Raw: []byte("m1")}
	m2 := node{Kind: '$', Str: "m2", Raw: []byte("m2")}
	if ok, _ := compareReplies(cmpGeoDist, node{Kind: '*', Elems: []node{m1}, Raw: []byte("a")}, node{Kind: '*', Elems: []node{m2}, Raw: []byte("b")}); ok {
		t.Error("members that differ compared equal")
	}
}
