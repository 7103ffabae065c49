package test

import (
	"slices"
	"strings"
	"testing"
)

// TestDiffACLLogEntries compares ACL LOG entries field by field with
// redis-server 7.0.15, in RESP2 and RESP3: count, reason, context,
// object and username exactly, age-seconds by type, and client-info by
// its field names and the fields that do not depend on the process (name,
// flags, db, subscriptions, multi, cmd, user, resp). Denials come from a
// command, a key and a channel at top level, a key inside MULTI, a key
// and a command in a script, a failed AUTH, and a repeated denial (count
// 2, moved to the head).
func TestDiffACLLogEntries(t *testing.T) {
	bothProtocols(t, func(t *testing.T, proto int) {
		p := newDiffPairProto(t, proto)
		p.taint()
		a, b := p.Conn("A"), p.Conn("B")
		a.Do("ACL", "LOG", "RESET")
		a.Do("ACL", "SETUSER", "u", "on", ">p", "~k*", "&c*", "+@all", "-get")
		b.Do("AUTH", "u", "p")
		b.Do("CLIENT", "SETNAME", "logged")
		b.Do("GET", "k1")
		b.Do("SET", "zz", "v")
		b.Do("PUBLISH", "x", "m")
		b.Do("MULTI")
		b.Do("SET", "yy", "v")
		b.Do("EXEC")
		b.Do("EVAL", "return redis.pcall('set','ww','v')", "0")
		b.Do("EVAL", "return redis.pcall('get','k1')", "0")
		b.Do("AUTH", "u", "wrong")
		b.Do("auth", "nouser", "wrong")
		b.Do("HELLO", "2", "AUTH", "u", "bad")
		b.Do("MULTI")
		b.Do("AUTH", "u", "bad")
		b.Do("EXEC")
		b.Do("GET", "k1")
		want, got := a.DoMode(cmpShape, "ACL", "LOG")
		if len(want.Elems) != len(got.Elems) {
			t.Fatalf("%d entries vs %d", len(want.Elems), len(got.Elems))
		}
		for i := range want.Elems {
			we, ge := want.Elems[i], got.Elems[i]
			for j := 0; j+1 < len(we.Elems); j += 2 {
				key := we.Elems[j].Str
				if ge.Elems[j].Str != key {
					t.Fatalf("entry %d field %d: %q vs %q", i, j/2, key, ge.Elems[j].Str)
				}
				wv, gv := we.Elems[j+1], ge.Elems[j+1]
				switch key {
				case "age-seconds":
				case "client-info":
					if w, g := stableClientInfo(wv.Str), stableClientInfo(dropOurClientFields(gv.Str)); w != g {
						t.Errorf("entry %d client-info:\n  redis-server %s\n  miniwatchd   %s", i, w, g)
					}
				default:
					if string(wv.Raw) != string(gv.Raw) {
						t.Errorf("entry %d %s: %q vs %q", i, key, wv.Raw, gv.Raw)
					}
				}
			}
		}
		a.Do("ACL", "LOG", "2", "extra")
		a.Do("ACL", "LOG", "RESET")
		a.Do("ACL", "LOG")
	})
}

// dropOurClientFields removes the fields miniwatchd adds after Redis
// 7.0.15's last one (ourExtraClientFields, client_test.go).
func dropOurClientFields(s string) string {
	if selfCheck() {
		return s
	}
	var out []string
	for _, f := range strings.Fields(s) {
		name, _, _ := strings.Cut(f, "=")
		if !slices.Contains(ourExtraClientFields, name) {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}

// stableClientInfo keeps CLIENT LIST's field names, with the values of
// the fields the same in any two processes running the same commands.
func stableClientInfo(s string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		name, _, _ := strings.Cut(f, "=")
		switch name {
		case "name", "flags", "db", "sub", "psub", "ssub", "multi", "cmd", "user", "resp", "redir":
			out = append(out, f)
		default:
			out = append(out, name+"=?")
		}
	}
	return strings.Join(out, " ")
}

// TestDiffACLSlowlogRedaction: ACL SETUSER's rules are redacted in SLOWLOG
// (aclCommand redacts every argument after the user name first, so failed
// SETUSERs too), and ACL DRYRUN / GETUSER are logged as they are.
func TestDiffACLSlowlogRedaction(t *testing.T) {
	bothProtocols(t, func(t *testing.T, proto int) {
		p := newDiffPairProto(t, proto)
		p.taint()
		a := p.Conn("A")
		a.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
		a.Do("SLOWLOG", "RESET")
		a.Do("ACL", "SETUSER", "sl", "on", ">secret", "~*")
		a.Do("ACL", "SETUSER", "sl", ">other", "bad")
		a.Do("ACL", "SETUSER", "s l", ">x")
		a.Do("ACL", "SETUSER", "sl")
		a.Do("ACL", "DRYRUN", "sl", "get", "k")
		a.Do("ACL", "GETUSER", "sl")
		a.Do("ACL", "DELUSER", "sl")
		want, got := a.DoMode(cmpIgnore, "SLOWLOG", "GET", "-1")
		w, g := slowlogView(t, want), slowlogView(t, got)
		if strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Fatalf("SLOWLOG GET differs:\n--- redis-server:\n%s\n--- miniwatchd:\n%s", strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
	})
}
