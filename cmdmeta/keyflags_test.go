package cmdmeta

import (
	"strconv"
	"strings"
	"testing"
)

// movableKeys is Redis 7.0's populateCommandMovableKeys for its own
// commands: keys are movable when a key spec does not begin at an index or
// does not find its keys as a range. A getkeys procedure alone does not
// make them movable (SET and BITFIELD have one for their variable flags).
func movableKeys(c *Command) bool {
	for _, ks := range c.KeySpecs {
		if ks.BeginSearch.Type != "index" || ks.FindKeys.Type != "range" {
			return true
		}
	}
	return false
}

// TestMovableKeysDerived checks that every command's recorded movablekeys
// flag is the one Redis derives from its key specs, so a command added to
// the table is flagged as Redis flags it; and that every getkeys procedure
// here belongs to a command of the table.
func TestMovableKeysDerived(t *testing.T) {
	checked := 0
	var walk func(cs []*Command)
	walk = func(cs []*Command) {
		for _, c := range cs {
			walk(c.Subcommands)
			if c.Added {
				continue
			}
			checked++
			if got, want := c.HasFlag("movablekeys"), movableKeys(c); got != want {
				t.Errorf("%s: recorded movablekeys %v, derived from its key specs %v", c.FullName, got, want)
			}
		}
	}
	walk(All())
	if checked < 200 {
		t.Fatalf("only %d commands checked", checked)
	}
	for name := range getKeysProcs {
		if LookupFullName(name) == nil {
			t.Errorf("getkeys procedure for %q, which is not in the table", name)
		}
	}
}

// TestKeyRefsFlags checks the flags of keys found by getkeys procedures.
func TestKeyRefsFlags(t *testing.T) {
	cases := []struct {
		call string
		want string // "pos:flag,flag pos:..."
	}{
		{"set k v", "1:OW,update"},
		{"set k v GET", "1:RW,access,update"},
		{"set k v EX 1 get", "1:RW,access,update"},
		{"set k v GETX", "1:OW,update"},
		{"bitfield k GET u8 0", "1:RO,access"},
		{"bitfield k GET u8 0 INCRBY u8 0 1", "1:RW,access,update"},
		{"bitfield k GET u8", "1:RW,access,update"},
		{"sort k BY x STORE d", "1:RO,access 5:OW,update"},
		{"sort_ro k", "1:RO,access"},
		{"migrate h 1 k 0 10", "3:RW,access,delete"},
		{"get k", "1:RO,access"},
		{"zunionstore d x a", ""},
	}
	for _, tc := range cases {
		fields := strings.Fields(tc.call)
		args := make([][]byte, len(fields))
		for i, f := range fields {
			args[i] = []byte(f)
		}
		c := LookupBytes(args[0])
		if c == nil {
			t.Fatalf("%s: not in the table", fields[0])
		}
		var parts []string
		for _, r := range c.KeyRefs(args) {
			parts = append(parts, strconv.Itoa(r.Pos)+":"+strings.Join(r.Flags, ","))
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("KeyRefs(%q) = %q, want %q", tc.call, got, tc.want)
		}
	}
}
