package server

import (
	"maps"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/config"
)

// FuzzACLRules applies the words of an input as ACL SETUSER rules
// (selectors merged as SETUSER merges them) and checks that nothing
// panics and that ACL LIST's spelling of the result, applied to a new
// user, gives the same permissions and the same spelling: the round trip
// ACL SAVE / ACL LOAD and CONFIG REWRITE rely on.
func FuzzACLRules(f *testing.F) {
	for _, seed := range []string{
		"on >p ~k* %R~r* %W~w* &ch* -@all +@string +config|get",
		"+@all -get +@string -@dangerous",
		"-@all +@read +@write -@keyspace +ping +select|0 +debug|object",
		"(~x +get) (%R~y &c +@string -append ) clearselectors (&* +@pubsub)",
		"allcommands -@slow nopass resetpass #2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"%R %R~ ~ %rw~y & reset skip-sanitize-payload",
		"+config -config|set +config|set (+client|kill",
	} {
		f.Add(seed)
	}
	s := &Server{cfg: config.DefaultConfig()}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		merged, _, ok := aclMergeSelectorArgs(strings.Split(in, " "))
		if !ok {
			return
		}
		u := s.newUnlinkedACLUser("fz")
		for _, r := range merged {
			u.setLocked(s, r)
		}
		if hasParenPattern(u) {
			return // Redis's spelling is ambiguous there too: "(~a) +get)"
		}
		desc := u.describe(s)
		back := s.newUnlinkedACLUser("fz")
		rules, _, ok := aclMergeSelectorArgs(strings.Split(desc, " "))
		if !ok {
			t.Fatalf("description %q: unmatched parenthesis", desc)
		}
		for _, r := range rules {
			if e := back.setLocked(s, r); e != "" {
				t.Fatalf("description %q: rule %q: %s", desc, r, e)
			}
		}
		if d := back.describe(s); d != desc {
			t.Fatalf("round trip of %q:\n  %s\n  %s", in, desc, d)
		}
		orig, again := u.allSelectors(), back.allSelectors()
		if len(orig) != len(again) {
			t.Fatalf("round trip of %q: %d selectors, then %d", in, len(orig), len(again))
		}
		for i := range orig {
			if !maps.Equal(orig[i].allowed, again[i].allowed) || orig[i].future != again[i].future {
				t.Fatalf("round trip of %q: selector %d's commands differ", in, i)
			}
		}
	})
}

// hasParenPattern reports whether a pattern or first argument of u holds a
// parenthesis, which ACL LIST writes as it is, so that reading it back
// splits selectors elsewhere (in Redis as here).
func hasParenPattern(u *aclUser) bool {
	for _, sel := range u.allSelectors() {
		for _, k := range sel.keys {
			if strings.ContainsAny(k.pattern, "()") {
				return true
			}
		}
		for _, c := range sel.chans {
			if strings.ContainsAny(c, "()") {
				return true
			}
		}
		for _, fa := range sel.firstArgs {
			for _, a := range fa {
				if strings.ContainsAny(a, "()") {
					return true
				}
			}
		}
	}
	return false
}
