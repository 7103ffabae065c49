package glob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"*", "", false}, // Redis's loop never runs for an empty string with a non-empty pattern... see below
		{"*", "a", true},
		{"a*", "a", true},
		{"a*", "abc", true},
		{"*c", "abc", true},
		{"*b*", "abc", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"h[ae]llo", "hello", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hallo", true},
		{"h[a-b]llo", "hcllo", false},
		{"h\\*llo", "h*llo", true},
		{"h\\*llo", "hello", false},
		{"[abc", "a", true},
		{"[abc", "d", false},
		{"\\", "\\", true},
		{"a\\", "a\\", true},
		{"", "", true},
		{"", "a", false},
		{"abc", "abc", true},
		{"abc", "abcd", false},
		{"abc*", "ab", false},
		{"a**b", "axxb", true},
		{"*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"[\\]]", "]", true},
		{"[]", "]", false},
	}
	for _, tt := range tests {
		if got := MatchString(tt.pat, tt.s); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
	}
}

func TestMatchFold(t *testing.T) {
	if !MatchFold([]byte("MAXMEM*"), []byte("maxmemory")) {
		t.Fatal("case-insensitive match failed")
	}
	if Match([]byte("MAXMEM*"), []byte("maxmemory")) {
		t.Fatal("case-sensitive match must fail")
	}
}

func TestSignedCharRanges(t *testing.T) {
	// Bytes >= 0x80 are negative as C chars: [\x01-\xff] is the range -1..1.
	if !Match([]byte("[\x01-\xff]"), []byte{0x00}) {
		t.Fatal("0x00 lies between -1 and 1 as signed chars")
	}
	if Match([]byte("[\x01-\xff]"), []byte{0x80}) {
		t.Fatal("0x80 (-128) is outside -1..1")
	}
}
