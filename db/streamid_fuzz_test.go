package db

import "testing"

// FuzzParseStreamID: the ID parser takes client bytes; it must never panic,
// and an ID it accepts must print back to an ID it parses to the same value.
func FuzzParseStreamID(f *testing.F) {
	for _, s := range []string{"0", "0-0", "1-1", "-", "+", "1-*", "18446744073709551615-18446744073709551615",
		"18446744073709551616", "-1", " 1", "+1", "1-2-3", "01-02", "1\x00-2", "", "*", "(1-1"} {
		f.Add([]byte(s), false, true)
	}
	f.Fuzz(func(t *testing.T, arg []byte, strict, star bool) {
		id, _, err := ParseStreamID(arg, 0, strict, star)
		if err != nil {
			return
		}
		back, seqGiven, err := ParseStreamID(id.Append(nil), 7, true, false)
		if err != nil || back != id || !seqGiven {
			t.Fatalf("%q parsed to %v, which prints as %q and parses to %v (%v)", arg, id, id.Append(nil), back, err)
		}
	})
}
