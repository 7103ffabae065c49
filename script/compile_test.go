package script

import (
	"reflect"
	"testing"
)

func TestParseShebang(t *testing.T) {
	for _, tc := range []struct {
		body  string
		flags Flags
		n     int
		err   string
	}{
		{"return 1", FlagCompat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-oom\nreturn 1", FlagNoWrites | FlagAllowOOM, 31, ""},
		{"#!lua   flags=allow-stale  \n", FlagAllowStale, 27, ""},
		{"#!lua flags=\n", 0, 12, ""},
		{"#!lua flags=no-cluster,allow-cross-slot-keys\n", FlagNoCluster | FlagAllowCrossSlot, 44, ""},
		{"#!lua flags=bogus\nreturn 1", 0, 0, "Unexpected flag in script shebang: bogus"},
		{"#!lua flags=No-Writes\n", 0, 0, "Unexpected flag in script shebang: No-Writes"},
		{"#!notlua\nreturn 1", 0, 0, "Unexpected engine in script shebang: #!notlua"},
		{"#!lua", 0, 0, "Invalid script shebang"},
		{"#!lua foo=bar\n", 0, 0, "Unknown lua shebang option: foo=bar"},
		{"#!lua \"unbalanced\n", 0, 0, "Invalid engine in script shebang"},
	} {
		flags, n, err := ParseShebang([]byte(tc.body))
		if flags != tc.flags || n != tc.n || err != tc.err {
			t.Errorf("ParseShebang(%q) = %v, %d, %q; want %v, %d, %q", tc.body, flags, n, err, tc.flags, tc.n, tc.err)
		}
	}
}

func TestFlagNames(t *testing.T) {
	got := (FlagAllowStale | FlagNoWrites | FlagCompat).Names()
	if want := []string{"no-writes", "allow-stale"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestSHA1Hex(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"return 1", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
	} {
		if got := SHA1Hex([]byte(tc.in)); got != tc.want {
			t.Errorf("SHA1Hex(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return +", "user_script:1: unexpected symbol near '+'"},
		{"x = = 1", "user_script:1: unexpected symbol near '='"},
		{"\n\nreturn (", "user_script:3: unexpected symbol near '<eof>'"},
		{"\x1bLuaQ", "user_script:1: unexpected symbol near 'char(27)'"},
		{"return @", "user_script:1: unexpected symbol near '@'"},
	} {
		_, msg := compileScript(tc.src)
		if msg != tc.want {
			t.Errorf("compileScript(%q): %q, want %q", tc.src, msg, tc.want)
		}
	}
	if _, msg := compileScript("return ..."); msg != "" {
		t.Errorf("a script is a vararg main chunk: %q", msg)
	}
}

func TestLuaMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"user_script:1: bad argument #1 to floor (number expected, got string)", "user_script:1: bad argument #1 to 'floor' (number expected, got string)"},
		{"user_script:1: bad argument #1 to 'x' (y)", "user_script:1: bad argument #1 to 'x' (y)"},
		{"user_script:1: cannot perform add operation between nil and number", "user_script:1: attempt to perform arithmetic on a nil value"},
		{"user_script:1: cannot perform add operation between number and table", "user_script:1: attempt to perform arithmetic on a table value"},
		{"user_script:1: cannot perform sub operation between string and table", "user_script:1: attempt to perform arithmetic on a string value"},
		{"user_script:1: cannot perform sub operation between number and table", "user_script:1: attempt to perform arithmetic on a table value"},
		{"user_script:1: attempt to compare string with thread", "user_script:1: attempt to compare two string values"},
		{"user_script:1: attempt to index a non-table object(nil) with key 'b'", "user_script:1: attempt to index a nil value"},
		{"user_script:1: attempt to compare table with table", "user_script:1: attempt to compare two table values"},
		{"user_script:1: attempt to compare nil with number", "user_script:1: attempt to compare nil with number"},
		{"user_script:1: for statement init must be a number", "user_script:1: 'for' initial value must be a number"},
		{"plain", "plain"},
	} {
		if got := luaMessage(tc.in); got != tc.want {
			t.Errorf("luaMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
