package glob

import "testing"

// stringmatchlenC is the oracle: Redis 7.0.15's util.c stringmatchlen_impl
// transcribed statement by statement, with C's pointers as indices into
// NUL-terminated copies of pattern and string (sds strings carry the NUL,
// and the C code reads it: pattern[1] on the last byte, *pattern after the
// loop) and C's chars as signed. It is written independently of Match and
// shaped like the C code rather than like Go, so a slip in either shows up
// as a disagreement.
func stringmatchlenC(pattern, str []byte, nocase bool) bool {
	pb := append(append([]byte(nil), pattern...), 0)
	sb := append(append([]byte(nil), str...), 0)
	skip := 0
	return stringmatchlenImplC(pb, 0, len(pattern), sb, 0, len(str), nocase, &skip, 0) == 1
}

func cchar(b []byte, i int) int { return int(int8(b[i])) }

func ctolower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func stringmatchlenImplC(pb []byte, pattern, patternLen int, sb []byte, str, stringLen int,
	nocase bool, skipLongerMatches *int, nesting int) int {
	/* Protection against abusive patterns. */
	if nesting > 1000 {
		return 0
	}

	for patternLen != 0 && stringLen != 0 {
		switch cchar(pb, pattern) {
		case '*':
			for patternLen != 0 && cchar(pb, pattern+1) == '*' {
				pattern++
				patternLen--
			}
			if patternLen == 1 {
				return 1 /* match */
			}
			for stringLen != 0 {
				if stringmatchlenImplC(pb, pattern+1, patternLen-1, sb, str, stringLen, nocase, skipLongerMatches, nesting+1) != 0 {
					return 1 /* match */
				}
				if *skipLongerMatches != 0 {
					return 0 /* no match */
				}
				str++
				stringLen--
			}
			/* There was no match for the rest of the pattern starting
			 * from anywhere in the rest of the string. */
			*skipLongerMatches = 1
			return 0 /* no match */
		case '?':
			str++
			stringLen--
		case '[':
			pattern++
			patternLen--
			not := cchar(pb, pattern) == '^'
			if not {
				pattern++
				patternLen--
			}
			match := false
			for {
				if cchar(pb, pattern) == '\\' && patternLen >= 2 {
					pattern++
					patternLen--
					if cchar(pb, pattern) == cchar(sb, str) {
						match = true
					}
				} else if cchar(pb, pattern) == ']' {
					break
				} else if patternLen == 0 {
					pattern--
					patternLen++
					break
				} else if patternLen >= 3 && cchar(pb, pattern+1) == '-' {
					start := cchar(pb, pattern)
					end := cchar(pb, pattern+2)
					c := cchar(sb, str)
					if start > end {
						start, end = end, start
					}
					if nocase {
						start = ctolower(start)
						end = ctolower(end)
						c = ctolower(c)
					}
					pattern += 2
					patternLen -= 2
					if c >= start && c <= end {
						match = true
					}
				} else {
					if !nocase {
						if cchar(pb, pattern) == cchar(sb, str) {
							match = true
						}
					} else {
						if ctolower(cchar(pb, pattern)) == ctolower(cchar(sb, str)) {
							match = true
						}
					}
				}
				pattern++
				patternLen--
			}
			if not {
				match = !match
			}
			if !match {
				return 0 /* no match */
			}
			str++
			stringLen--
		case '\\':
			if patternLen >= 2 {
				pattern++
				patternLen--
			}
			fallthrough
		default:
			if !nocase {
				if cchar(pb, pattern) != cchar(sb, str) {
					return 0 /* no match */
				}
			} else {
				if ctolower(cchar(pb, pattern)) != ctolower(cchar(sb, str)) {
					return 0 /* no match */
				}
			}
			str++
			stringLen--
		}
		pattern++
		patternLen--
		if stringLen == 0 {
			for cchar(pb, pattern) == '*' {
				pattern++
				patternLen--
			}
			break
		}
	}
	if patternLen == 0 && stringLen == 0 {
		return 1
	}
	return 0
}

// FuzzMatch checks Match and MatchFold against stringmatchlenC, the
// transcription of Redis's matcher, for any pattern and string.
func FuzzMatch(f *testing.F) {
	seeds := [][2]string{
		{"*", ""}, {"a*", "abc"}, {"h[ae]llo", "hello"}, {"h[^e]llo", "hallo"}, {"h[a-b]llo", "hbllo"},
		{"h\\*llo", "h*llo"}, {"[abc", "a"}, {"\\", "\\"}, {"[\\", "\\"}, {"[\\]]", "]"}, {"[]", "]"},
		{"*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"[\x01-\xff]", "\x00"},
		{"[Z-a]", "_"}, {"[A-Z]", "q"}, {"?*?", "ab"}, {"a*", "a"}, {"[a-]", "-"}, {"[^]", "x"},
		{"**", ""}, {"a\\", "a\\"}, {"*[", "a["}, {"[a-z", "q"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, str string) {
		if len(pattern) > 4096 || len(str) > 4096 {
			return // the cost is polynomial in both; keep executions fast
		}
		p, s := []byte(pattern), []byte(str)
		if got, want := Match(p, s), stringmatchlenC(p, s, false); got != want {
			t.Fatalf("Match(%q, %q) = %v, stringmatchlen %v", pattern, str, got, want)
		}
		if got, want := MatchFold(p, s), stringmatchlenC(p, s, true); got != want {
			t.Fatalf("MatchFold(%q, %q) = %v, stringmatchlen nocase %v", pattern, str, got, want)
		}
	})
}

// TestMatchNestingLimit: Redis 7.0's matcher gives up (no match) once
// '*' recursion is more than 1000 levels deep, which a pattern of many
// '*'s separated by other bytes reaches on a long enough string.
func TestMatchNestingLimit(t *testing.T) {
	deep := func(stars int) (p, s []byte) {
		for i := 0; i < stars; i++ {
			p = append(p, 'a', '*')
		}
		p = append(p, 'a')
		for i := 0; i <= stars; i++ {
			s = append(s, 'a')
		}
		return p, s
	}
	p, s := deep(1000)
	if !Match(p, s) || !stringmatchlenC(p, s, false) {
		t.Fatal("1000 levels of '*' must still match")
	}
	p, s = deep(1001)
	if Match(p, s) || stringmatchlenC(p, s, false) {
		t.Fatal("1001 levels of '*' must not match (nesting limit)")
	}
}
