package test

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
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
)

var cmpModeNames = map[string]cmpMode{
	"exact": cmpExact, "sorted": cmpSorted, "shape": cmpShape,
	"errcode": cmpErrCode, "ignore": cmpIgnore, "aclrules": cmpACLRules,
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
