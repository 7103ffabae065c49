package db

import (
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Score and lexicographic ranges of sorted sets (Redis t_zset.c's
// zrangespec and zlexrangespec, with their parsers and range lookups).

// ScoreRange is a score interval: [Min, Max] with either end open when
// MinEx or MaxEx is set.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// ParseScoreRange parses ZRANGEBYSCORE-style bounds as zslParseRange does:
// a leading '(' makes a bound exclusive, and the rest is read with a bare
// strtod (so "", " 1", "1e999" and "0x10" are accepted; NaN is not).
func ParseScoreRange(min, max []byte) (ScoreRange, bool) {
	var r ScoreRange
	var ok bool
	if r.Min, r.MinEx, ok = parseScoreBound(min); !ok {
		return r, false
	}
	if r.Max, r.MaxEx, ok = parseScoreBound(max); !ok {
		return r, false
	}
	return r, true
}

func parseScoreBound(b []byte) (float64, bool, bool) {
	ex := len(b) > 0 && b[0] == '('
	if ex {
		b = b[1:]
	}
	f, ok := protocol.ParseStrtod(b)
	return f, ex, ok
}

func (r *ScoreRange) gteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

func (r *ScoreRange) lteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// empty reports whether the range can hold nothing.
func (r *ScoreRange) empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// lexBound is one end of a LexRange.
type lexBound struct {
	kind int8 // lexValue, lexMinusInf ("-") or lexPlusInf ("+")
	ex   bool
	s    string
}

const (
	lexValue int8 = iota
	lexMinusInf
	lexPlusInf
)

// LexRange is a lexicographic interval of members, as ZRANGEBYLEX takes it.
type LexRange struct {
	min, max lexBound
}

// ParseLexRange parses ZRANGEBYLEX-style bounds as zslParseLexRange does:
// "-" and "+" (alone, as C strings) are the infinities, "(x" excludes and
// "[x" includes x; anything else is refused.
func ParseLexRange(min, max []byte) (LexRange, bool) {
	var r LexRange
	var ok bool
	if r.min, ok = parseLexBound(min); !ok {
		return r, false
	}
	if r.max, ok = parseLexBound(max); !ok {
		return r, false
	}
	return r, true
}

func parseLexBound(b []byte) (lexBound, bool) {
	if len(b) == 0 {
		return lexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return lexBound{}, false
		}
		if b[0] == '+' {
			return lexBound{kind: lexPlusInf, ex: true}, true
		}
		return lexBound{kind: lexMinusInf, ex: true}, true
	case '(':
		return lexBound{ex: true, s: string(b[1:])}, true
	case '[':
		return lexBound{s: string(b[1:])}, true
	}
	return lexBound{}, false
}

// cmpLex compares two bounds as sdscmplex does: the infinities are below
// and above everything, and equal to themselves.
func cmpLex(a, b *lexBound) int {
	if a.kind == b.kind && a.kind != lexValue {
		return 0
	}
	if a.kind == lexMinusInf || b.kind == lexPlusInf {
		return -1
	}
	if a.kind == lexPlusInf || b.kind == lexMinusInf {
		return 1
	}
	switch {
	case a.s < b.s:
		return -1
	case a.s > b.s:
		return 1
	}
	return 0
}

func (r *LexRange) gteMin(member string) bool {
	v := lexBound{s: member}
	c := cmpLex(&v, &r.min)
	if r.min.ex {
		return c > 0
	}
	return c >= 0
}

func (r *LexRange) lteMax(member string) bool {
	v := lexBound{s: member}
	c := cmpLex(&v, &r.max)
	if r.max.ex {
		return c < 0
	}
	return c <= 0
}

func (r *LexRange) empty() bool {
	c := cmpLex(&r.min, &r.max)
	return c > 0 || (c == 0 && (r.min.ex || r.max.ex))
}

// FirstInRange returns the lowest node within r, or nil (zslFirstInRange).
func (z *ZSet) FirstInRange(r *ScoreRange) *ZNode {
	if r.empty() || z.zsl.tail == nil || !r.gteMin(z.zsl.tail.score) || !r.lteMax(z.zsl.first().score) {
		return nil
	}
	n := z.zsl.firstMatching(func(x *ZNode) bool { return r.gteMin(x.score) })
	if n == nil || !r.lteMax(n.score) {
		return nil
	}
	return n
}

// LastInRange returns the highest node within r, or nil (zslLastInRange).
func (z *ZSet) LastInRange(r *ScoreRange) *ZNode {
	if r.empty() || z.zsl.tail == nil || !r.gteMin(z.zsl.tail.score) || !r.lteMax(z.zsl.first().score) {
		return nil
	}
	n := z.zsl.lastMatching(func(x *ZNode) bool { return r.lteMax(x.score) })
	if n == nil || !r.gteMin(n.score) {
		return nil
	}
	return n
}

// FirstInLexRange returns the lowest node within r, or nil. Lexicographic
// ranges assume every member has the same score; when they do not, Redis's
// answer depends on the encoding: a listpack is scanned from the head
// (zzlFirstInLexRange), a skiplist searched top-down (zslFirstInLexRange).
// Both are reproduced, so a listpack-encoded set answers as Redis does.
func (z *ZSet) FirstInLexRange(r *LexRange) *ZNode {
	if r.empty() || z.zsl.tail == nil || !r.gteMin(z.zsl.tail.member) || !r.lteMax(z.zsl.first().member) {
		return nil
	}
	var n *ZNode
	if z.listpack {
		for n = z.zsl.first(); n != nil && !r.gteMin(n.member); n = n.Next() {
		}
	} else {
		n = z.zsl.firstMatching(func(x *ZNode) bool { return r.gteMin(x.member) })
	}
	if n == nil || !r.lteMax(n.member) {
		return nil
	}
	return n
}

// LastInLexRange returns the highest node within r, or nil; a listpack is
// scanned from the tail (see FirstInLexRange).
func (z *ZSet) LastInLexRange(r *LexRange) *ZNode {
	if r.empty() || z.zsl.tail == nil || !r.gteMin(z.zsl.tail.member) || !r.lteMax(z.zsl.first().member) {
		return nil
	}
	var n *ZNode
	if z.listpack {
		for n = z.zsl.tail; n != nil && !r.lteMax(n.member); n = n.Prev() {
		}
	} else {
		n = z.zsl.lastMatching(func(x *ZNode) bool { return r.lteMax(x.member) })
	}
	if n == nil || !r.gteMin(n.member) {
		return nil
	}
	return n
}

// Contains reports whether score is within r.
func (r *ScoreRange) Contains(score float64) bool { return r.gteMin(score) && r.lteMax(score) }

// AboveMin reports whether score is not below r's lower end.
func (r *ScoreRange) AboveMin(score float64) bool { return r.gteMin(score) }

// BelowMax reports whether score is not above r's upper end.
func (r *ScoreRange) BelowMax(score float64) bool { return r.lteMax(score) }

// AboveMin reports whether member is not below r's lower end.
func (r *LexRange) AboveMin(member string) bool { return r.gteMin(member) }

// BelowMax reports whether member is not above r's upper end.
func (r *LexRange) BelowMax(member string) bool { return r.lteMax(member) }

// Count returns the number of members with a score within r (ZCOUNT), in
// O(log n) from the ranks of the first and last of them.
func (z *ZSet) Count(r *ScoreRange) int {
	first := z.FirstInRange(r)
	if first == nil {
		return 0
	}
	last := z.LastInRange(r)
	return z.zsl.rank(last.score, last.member) - z.zsl.rank(first.score, first.member) + 1
}

// LexCount returns the number of members within r (ZLEXCOUNT): for a
// listpack, the run from the first member in range, as Redis counts it.
func (z *ZSet) LexCount(r *LexRange) int {
	first := z.FirstInLexRange(r)
	if first == nil {
		return 0
	}
	if z.listpack {
		n := 0
		for x := first; x != nil && r.lteMax(x.member); x = x.Next() {
			n++
		}
		return n
	}
	last := z.LastInLexRange(r)
	return z.zsl.rank(last.score, last.member) - z.zsl.rank(first.score, first.member) + 1
}
