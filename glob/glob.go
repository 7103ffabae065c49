// Package glob is Redis's glob-style matcher (util.c stringmatchlen), shared
// by KEYS, SCAN MATCH, PSUBSCRIBE and CONFIG GET. It is a byte-for-byte port:
// '*', '?', '[...]' with '^' negation, ranges and '\' escapes, bytes compared
// as C's signed char, and the same protection against abusive patterns
// (recursion deeper than 1000 levels does not match).
package glob

// Match reports whether str matches pattern.
func Match(pattern, str []byte) bool { return match(pattern, str, false) }

// MatchString is Match for strings.
func MatchString(pattern, str string) bool {
	return match([]byte(pattern), []byte(str), false)
}

// MatchFold is Match ignoring ASCII case (CONFIG GET patterns).
func MatchFold(pattern, str []byte) bool { return match(pattern, str, true) }

func match(pattern, str []byte, nocase bool) bool {
	skip := false
	return matchImpl(pattern, str, nocase, &skip, 0)
}

func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// sc returns b[i] as C's signed char, or 0 past the end (the NUL terminator
// that Redis's sds strings carry).
func sc(b []byte, i int) int {
	if i >= len(b) {
		return 0
	}
	return int(int8(b[i]))
}

func matchImpl(p, s []byte, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	pi, plen := 0, len(p)
	si, slen := 0, len(s)
	for plen > 0 && slen > 0 {
		switch sc(p, pi) {
		case '*':
			for plen > 0 && sc(p, pi+1) == '*' {
				pi++
				plen--
			}
			if plen == 1 {
				return true
			}
			for slen > 0 {
				if matchImpl(p[pi+1:pi+plen], s[si:si+slen], nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				si++
				slen--
			}
			*skipLonger = true
			return false
		case '?':
			si++
			slen--
		case '[':
			pi++
			plen--
			not := sc(p, pi) == '^'
			if not {
				pi++
				plen--
			}
			matched := false
			for {
				if sc(p, pi) == '\\' && plen >= 2 {
					pi++
					plen--
					if sc(p, pi) == sc(s, si) {
						matched = true
					}
				} else if sc(p, pi) == ']' {
					break
				} else if plen == 0 {
					pi--
					plen++
					break
				} else if plen >= 3 && sc(p, pi+1) == '-' {
					start, end, c := sc(p, pi), sc(p, pi+2), sc(s, si)
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = lower(start), lower(end), lower(c)
					}
					pi += 2
					plen -= 2
					if c >= start && c <= end {
						matched = true
					}
				} else {
					if !nocase {
						if sc(p, pi) == sc(s, si) {
							matched = true
						}
					} else if lower(sc(p, pi)) == lower(sc(s, si)) {
						matched = true
					}
				}
				pi++
				plen--
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			si++
			slen--
		case '\\':
			if plen >= 2 {
				pi++
				plen--
			}
			fallthrough
		default:
			if !nocase {
				if sc(p, pi) != sc(s, si) {
					return false
				}
			} else if lower(sc(p, pi)) != lower(sc(s, si)) {
				return false
			}
			si++
			slen--
		}
		pi++
		plen--
		if slen == 0 {
			for plen > 0 && sc(p, pi) == '*' {
				pi++
				plen--
			}
			break
		}
	}
	return plen == 0 && slen == 0
}
