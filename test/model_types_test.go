package test

// Randomized model tests: random operations on hashes, sets and sorted sets
// sent to miniwatchd and applied to a plain in-memory model, every reply
// checked against the model's. Small encoding thresholds make values cross
// between the compact and general encodings all the time.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// modelOps is the number of random operations per family.
func modelOps() int {
	if n, err := strconv.Atoi(os.Getenv("MODEL_OPS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 1000
	}
	return 6000
}

// modelRun holds the connection and the random source of one model test.
type modelRun struct {
	t   *testing.T
	c   *respConn
	rng *rand.Rand
	op  int
	cmd []string
}

// newModelRun leases a miniwatchd (not reused afterwards: the test changes
// its configuration) and sets tiny encoding thresholds.
func newModelRun(t *testing.T, seed uint64) *modelRun {
	srv := leaseServer(t, ours)
	srv.taint()
	m := &modelRun{t: t, c: srv.dial(t), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	t.Logf("seed %d", seed)
	for _, kv := range [][2]string{
		{"hash-max-listpack-entries", "6"}, {"hash-max-listpack-value", "6"},
		{"set-max-intset-entries", "6"}, {"zset-max-listpack-entries", "6"}, {"zset-max-listpack-value", "6"},
	} {
		m.do("CONFIG", "SET", kv[0], kv[1])
	}
	return m
}

func modelSeed() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("MODEL_SEED"), 10, 64); err == nil {
		return s
	}
	return rand.Uint64()
}

func (m *modelRun) do(args ...string) node {
	m.t.Helper()
	m.cmd = args
	n, err := m.c.Do(args...)
	if err != nil {
		m.t.Fatalf("op %d %q: %v", m.op, args, err)
	}
	return n
}

func (m *modelRun) failf(format string, a ...any) {
	m.t.Helper()
	m.t.Fatalf("op %d %q: %s", m.op, m.cmd, fmt.Sprintf(format, a...))
}

func (m *modelRun) wantInt(n node, want int) {
	m.t.Helper()
	if n.Kind != ':' || n.Int != int64(want) {
		m.failf("got %s, want :%d", fmtNode(n), want)
	}
}

func (m *modelRun) wantOK(n node) {
	m.t.Helper()
	if n.Kind != '+' || n.Str != "OK" {
		m.failf("got %s, want +OK", fmtNode(n))
	}
}

// wantBulk checks a bulk reply; nil wants a null.
func (m *modelRun) wantBulk(n node, want *string) {
	m.t.Helper()
	switch {
	case want == nil && !(n.Kind == '$' && n.Null):
		m.failf("got %s, want null", fmtNode(n))
	case want != nil && (n.Kind != '$' || n.Null || n.Str != *want):
		m.failf("got %s, want %q", fmtNode(n), *want)
	}
}

func strs(n node) []string {
	out := make([]string, len(n.Elems))
	for i, e := range n.Elems {
		out[i] = e.Str
	}
	return out
}

// wantList checks an array of bulk strings in order.
func (m *modelRun) wantList(n node, want []string) {
	m.t.Helper()
	if n.Kind != '*' || !slices.Equal(strs(n), want) {
		m.failf("got %s, want %q", fmtNode(n), want)
	}
}

// wantUnordered checks an array of bulk strings as a multiset.
func (m *modelRun) wantUnordered(n node, want []string) {
	m.t.Helper()
	got := strs(n)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if n.Kind != '*' || !slices.Equal(got, want) {
		m.failf("got %q, want %q (any order)", got, want)
	}
}

func (m *modelRun) pick(list ...string) string { return list[m.rng.IntN(len(list))] }

func sortedKeys[V any](mp map[string]V) []string {
	out := make([]string, 0, len(mp))
	for k := range mp {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func ptr(s string) *string { return &s }

// TestModelHash runs random hash operations against a map of maps.
func TestModelHash(t *testing.T) {
	m := newModelRun(t, modelSeed())
	model := map[string]map[string]string{}
	keys := []string{"h0", "h1", "h2"}
	fields := []string{"a", "b", "c", "d", "e", "f", "g", "h", "long-field-name"}
	value := func() string {
		switch m.rng.IntN(4) {
		case 0:
			return strconv.Itoa(m.rng.IntN(200) - 100)
		case 1:
			return strings.Repeat("x", m.rng.IntN(10))
		case 2:
			return strconv.FormatFloat(float64(m.rng.IntN(40))/4, 'f', -1, 64)
		}
		return m.pick("v", "w", "")
	}
	for m.op = 0; m.op < modelOps(); m.op++ {
		k := m.pick(keys...)
		h := model[k]
		f := m.pick(fields...)
		switch m.rng.IntN(12) {
		case 0, 1:
			n := 1 + m.rng.IntN(3)
			args := []string{"HSET", k}
			created := 0
			if h == nil {
				h = map[string]string{}
				model[k] = h
			}
			for range n {
				ff, v := m.pick(fields...), value()
				if _, ok := h[ff]; !ok {
					created++
				}
				h[ff] = v
				args = append(args, ff, v)
			}
			m.wantInt(m.do(args...), created)
		case 2:
			v := value()
			_, exists := h[f]
			m.wantInt(m.do("HSETNX", k, f, v), b2int(!exists))
			if !exists {
				if h == nil {
					h = map[string]string{}
					model[k] = h
				}
				h[f] = v
			}
		case 3:
			f2 := m.pick(fields...)
			n := 0
			for _, x := range []string{f, f2} {
				if _, ok := h[x]; ok {
					delete(h, x)
					n++
				}
			}
			m.wantInt(m.do("HDEL", k, f, f2), n)
			if h != nil && len(h) == 0 {
				delete(model, k)
			}
		case 4:
			incr := m.rng.IntN(21) - 10
			r := m.do("HINCRBY", k, f, strconv.Itoa(incr))
			cur, ok := h[f]
			n, err := strconv.ParseInt(cur, 10, 64)
			if ok && (err != nil || strconv.FormatInt(n, 10) != cur) {
				if r.Kind != '-' || r.Str != "ERR hash value is not an integer" {
					m.failf("got %s, want not-an-integer error", fmtNode(r))
				}
				break
			}
			m.wantInt(r, int(n)+incr)
			if h == nil {
				h = map[string]string{}
				model[k] = h
			}
			h[f] = strconv.Itoa(int(n) + incr)
		case 5:
			v, ok := h[f]
			if ok {
				m.wantBulk(m.do("HGET", k, f), &v)
			} else {
				m.wantBulk(m.do("HGET", k, f), nil)
			}
		case 6:
			m.wantInt(m.do("HLEN", k), len(h))
		case 7:
			r := m.do("HGETALL", k)
			got := map[string]string{}
			for i := 0; i+1 < len(r.Elems); i += 2 {
				got[r.Elems[i].Str] = r.Elems[i+1].Str
			}
			if len(r.Elems) != 2*len(h) || fmt.Sprint(got) != fmt.Sprint(map[string]string(h)) {
				m.failf("got %v, want %v", got, h)
			}
		case 8:
			_, ok := h[f]
			m.wantInt(m.do("HEXISTS", k, f), b2int(ok))
		case 9:
			m.wantInt(m.do("HSTRLEN", k, f), len(h[f]))
		case 10:
			r := m.do("HRANDFIELD", k, "-3")
			if len(h) == 0 {
				m.wantList(r, nil)
				break
			}
			for _, x := range strs(r) {
				if _, ok := h[x]; !ok || len(r.Elems) != 3 {
					m.failf("got %s for %v", fmtNode(r), h)
				}
			}
		case 11:
			if m.rng.IntN(10) == 0 {
				m.wantInt(m.do("DEL", k), b2int(h != nil))
				delete(model, k)
			} else {
				m.wantUnordered(m.do("HKEYS", k), sortedKeys(h))
			}
		}
	}
}

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestModelSet runs random set operations against a map of sets.
func TestModelSet(t *testing.T) {
	m := newModelRun(t, modelSeed())
	model := map[string]map[string]bool{}
	keys := []string{"s0", "s1", "s2", "s3"}
	member := func() string {
		if m.rng.IntN(3) == 0 {
			return m.pick("a", "b", "c", "d", "-0", "01", "")
		}
		return strconv.Itoa(m.rng.IntN(12) - 2)
	}
	list := func(s map[string]bool) []string { return sortedKeys(s) }
	for m.op = 0; m.op < modelOps(); m.op++ {
		k := m.pick(keys...)
		s := model[k]
		x := member()
		switch m.rng.IntN(13) {
		case 0, 1:
			y := member()
			n := 0
			if s == nil {
				s = map[string]bool{}
				model[k] = s
			}
			for _, e := range []string{x, y} {
				if !s[e] {
					s[e] = true
					n++
				}
			}
			m.wantInt(m.do("SADD", k, x, y), n)
		case 2:
			y := member()
			n := 0
			for _, e := range []string{x, y} {
				if s[e] {
					delete(s, e)
					n++
				}
			}
			m.wantInt(m.do("SREM", k, x, y), n)
			if s != nil && len(s) == 0 {
				delete(model, k)
			}
		case 3:
			m.wantInt(m.do("SISMEMBER", k, x), b2int(s[x]))
		case 4:
			m.wantInt(m.do("SCARD", k), len(s))
		case 5:
			m.wantUnordered(m.do("SMEMBERS", k), list(s))
		case 6:
			r := m.do("SPOP", k)
			if len(s) == 0 {
				m.wantBulk(r, nil)
				break
			}
			if r.Kind != '$' || !s[r.Str] {
				m.failf("popped %s, not in %v", fmtNode(r), list(s))
			}
			delete(s, r.Str)
			if len(s) == 0 {
				delete(model, k)
			}
		case 7:
			dst := m.pick(keys...)
			r := m.do("SMOVE", k, dst, x)
			if !s[x] {
				m.wantInt(r, 0)
				break
			}
			m.wantInt(r, 1)
			if dst == k {
				break
			}
			delete(s, x)
			if len(s) == 0 {
				delete(model, k)
			}
			if model[dst] == nil {
				model[dst] = map[string]bool{}
			}
			model[dst][x] = true
		case 8, 9:
			a, b := m.pick(keys...), m.pick(keys...)
			res := map[string]bool{}
			var cmd string
			switch m.rng.IntN(3) {
			case 0:
				cmd = "SINTERSTORE"
				for e := range model[a] {
					if model[b][e] {
						res[e] = true
					}
				}
			case 1:
				cmd = "SUNIONSTORE"
				for e := range model[a] {
					res[e] = true
				}
				for e := range model[b] {
					res[e] = true
				}
			default:
				cmd = "SDIFFSTORE"
				for e := range model[a] {
					if !model[b][e] {
						res[e] = true
					}
				}
			}
			m.wantInt(m.do(cmd, k, a, b), len(res))
			if len(res) == 0 {
				delete(model, k)
			} else {
				model[k] = res
			}
		case 10:
			other := m.pick(keys...)
			n := 0
			for e := range s {
				if model[other][e] {
					n++
				}
			}
			m.wantInt(m.do("SINTERCARD", "2", k, other), n)
		case 11:
			count := m.rng.IntN(8) + 1
			r := m.do("SRANDMEMBER", k, strconv.Itoa(count))
			got := strs(r)
			seen := map[string]bool{}
			for _, e := range got {
				if !s[e] || seen[e] {
					m.failf("got %q from %v", got, list(s))
				}
				seen[e] = true
			}
			if len(got) != min(count, len(s)) {
				m.failf("got %d members, want %d", len(got), min(count, len(s)))
			}
		case 12:
			r := m.do("SPOP", k, strconv.Itoa(m.rng.IntN(4)))
			for _, e := range strs(r) {
				if !s[e] {
					m.failf("popped %q, not in %v", e, list(s))
				}
				delete(s, e)
			}
			if s != nil && len(s) == 0 {
				delete(model, k)
			}
		}
	}
}

// zmodel is a sorted set model: member to score.
type zmodel map[string]float64

type zpair struct {
	member string
	score  float64
}

func (z zmodel) sorted() []zpair {
	out := make([]zpair, 0, len(z))
	for m, s := range z {
		out = append(out, zpair{m, s})
	}
	slices.SortFunc(out, func(a, b zpair) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return strings.Compare(a.member, b.member)
	})
	return out
}

func fmtScore(f float64) string { return string(protocol.AppendDouble17(nil, f)) }

// TestModelZSet runs random sorted set operations against maps of scores.
func TestModelZSet(t *testing.T) {
	m := newModelRun(t, modelSeed())
	model := map[string]zmodel{}
	keys := []string{"z0", "z1", "z2"}
	members := []string{"a", "b", "c", "d", "e", "f", "g", "h", "longmember"}
	score := func() float64 { return float64(m.rng.IntN(21)-10) / 2 }
	for m.op = 0; m.op < modelOps(); m.op++ {
		k := m.pick(keys...)
		z := model[k]
		mem := m.pick(members...)
		switch m.rng.IntN(16) {
		case 0, 1, 2:
			flags := []string{}
			nx, xx, gt, lt, ch := false, false, false, false, false
			switch m.rng.IntN(6) {
			case 1:
				nx = true
				flags = append(flags, "NX")
			case 2:
				xx = true
				flags = append(flags, "XX")
			case 3:
				gt = true
				flags = append(flags, "GT")
			case 4:
				lt = true
				flags = append(flags, "LT")
			}
			if m.rng.IntN(2) == 0 {
				ch = true
				flags = append(flags, "CH")
			}
			s := score()
			args := append(append([]string{"ZADD", k}, flags...), fmtScore(s), mem)
			cur, exists := z[mem]
			added, changed := 0, 0
			switch {
			case exists && !nx && !(gt && s <= cur) && !(lt && s >= cur):
				if s != cur {
					changed = 1
				}
			case !exists && !xx:
				added = 1
			}
			want := added
			if ch {
				want += changed
			}
			m.wantInt(m.do(args...), want)
			if added+changed > 0 {
				if z == nil {
					z = zmodel{}
					model[k] = z
				}
				z[mem] = s
			}
		case 3:
			incr := score()
			r := m.do("ZINCRBY", k, fmtScore(incr), mem)
			if z == nil {
				z = zmodel{}
				model[k] = z
			}
			z[mem] += incr
			m.wantBulk(r, ptr(fmtScore(z[mem])))
		case 4:
			other := m.pick(members...)
			n := 0
			for _, x := range []string{mem, other} {
				if _, ok := z[x]; ok {
					delete(z, x)
					n++
				}
			}
			m.wantInt(m.do("ZREM", k, mem, other), n)
			if z != nil && len(z) == 0 {
				delete(model, k)
			}
		case 5:
			if s, ok := z[mem]; ok {
				m.wantBulk(m.do("ZSCORE", k, mem), ptr(fmtScore(s)))
			} else {
				m.wantBulk(m.do("ZSCORE", k, mem), nil)
			}
		case 6:
			rev := m.rng.IntN(2) == 0
			cmd := "ZRANK"
			if rev {
				cmd = "ZREVRANK"
			}
			r := m.do(cmd, k, mem)
			sorted := z.sorted()
			idx := slices.IndexFunc(sorted, func(p zpair) bool { return p.member == mem })
			if idx < 0 {
				m.wantBulk(r, nil)
				break
			}
			if rev {
				idx = len(sorted) - 1 - idx
			}
			m.wantInt(r, idx)
		case 7:
			start, stop := m.rng.IntN(12)-6, m.rng.IntN(12)-6
			r := m.do("ZRANGE", k, strconv.Itoa(start), strconv.Itoa(stop), "WITHSCORES")
			sorted := z.sorted()
			n := len(sorted)
			if start < 0 {
				start += n
			}
			if stop < 0 {
				stop += n
			}
			start = max(start, 0)
			var want []string
			if start <= stop && start < n {
				for _, p := range sorted[start:min(stop+1, n)] {
					want = append(want, p.member, fmtScore(p.score))
				}
			}
			m.wantList(r, want)
		case 8:
			lo, hi := score(), score()
			offset, count := m.rng.IntN(3), m.rng.IntN(5)-1
			r := m.do("ZRANGEBYSCORE", k, "("+fmtScore(lo), fmtScore(hi), "LIMIT", strconv.Itoa(offset), strconv.Itoa(count))
			var want []string
			for _, p := range z.sorted() {
				if p.score > lo && p.score <= hi {
					want = append(want, p.member)
				}
			}
			want = want[min(offset, len(want)):]
			if count >= 0 {
				want = want[:min(count, len(want))]
			}
			m.wantList(r, want)
		case 9:
			lo, hi := score(), score()
			n := 0
			for _, s := range z {
				if s >= lo && s <= hi {
					n++
				}
			}
			m.wantInt(m.do("ZCOUNT", k, fmtScore(lo), fmtScore(hi)), n)
		case 10:
			lo, hi := m.pick(members...), m.pick(members...)
			r := m.do("ZREMRANGEBYSCORE", k, fmtScore(float64(len(lo))-3), fmtScore(float64(len(hi))-3))
			n := 0
			for x, s := range z {
				if s >= float64(len(lo))-3 && s <= float64(len(hi))-3 {
					delete(z, x)
					n++
				}
			}
			m.wantInt(r, n)
			if z != nil && len(z) == 0 {
				delete(model, k)
			}
		case 11:
			start, stop := m.rng.IntN(8)-4, m.rng.IntN(8)-4
			r := m.do("ZREMRANGEBYRANK", k, strconv.Itoa(start), strconv.Itoa(stop))
			sorted := z.sorted()
			n := len(sorted)
			if start < 0 {
				start += n
			}
			if stop < 0 {
				stop += n
			}
			start = max(start, 0)
			removed := 0
			if start <= stop && start < n {
				for _, p := range sorted[start:min(stop+1, n)] {
					delete(z, p.member)
					removed++
				}
			}
			m.wantInt(r, removed)
			if z != nil && len(z) == 0 {
				delete(model, k)
			}
		case 12:
			count := m.rng.IntN(3) + 1
			maxSide := m.rng.IntN(2) == 0
			cmd := "ZPOPMIN"
			if maxSide {
				cmd = "ZPOPMAX"
			}
			r := m.do(cmd, k, strconv.Itoa(count))
			sorted := z.sorted()
			if maxSide {
				slices.Reverse(sorted)
			}
			var want []string
			for _, p := range sorted[:min(count, len(sorted))] {
				want = append(want, p.member, fmtScore(p.score))
				delete(z, p.member)
			}
			m.wantList(r, want)
			if z != nil && len(z) == 0 {
				delete(model, k)
			}
		case 13:
			a, b := m.pick(keys...), m.pick(keys...)
			res := zmodel{}
			inter := m.rng.IntN(2) == 0
			cmd := "ZUNIONSTORE"
			if inter {
				cmd = "ZINTERSTORE"
				for x, s := range model[a] {
					if t, ok := model[b][x]; ok {
						res[x] = s + 2*t
					}
				}
			} else {
				for x, s := range model[a] {
					res[x] = s
				}
				for x, s := range model[b] {
					res[x] += 2 * s
				}
			}
			m.wantInt(m.do(cmd, k, "2", a, b, "WEIGHTS", "1", "2"), len(res))
			if len(res) == 0 {
				delete(model, k)
			} else {
				model[k] = res
			}
		case 14:
			m.wantInt(m.do("ZCARD", k), len(z))
		case 15:
			r := m.do("ZRANGE", k, "+inf", "-inf", "BYSCORE", "REV")
			sorted := z.sorted()
			slices.Reverse(sorted)
			var want []string
			for _, p := range sorted {
				want = append(want, p.member)
			}
			m.wantList(r, want)
		}
		if z := model[k]; z != nil {
			for _, s := range z {
				if math.IsNaN(s) {
					m.failf("model produced NaN")
				}
			}
		}
	}
}

// TestModelZSetLex runs random lexicographic range operations on sorted
// sets whose members all score 0.
func TestModelZSetLex(t *testing.T) {
	m := newModelRun(t, modelSeed())
	model := map[string]bool{}
	letters := "abcdefghij"
	member := func() string {
		n := 1 + m.rng.IntN(3)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[m.rng.IntN(len(letters))]
		}
		return string(b)
	}
	bound := func() (string, func(string) bool, func(string) bool) {
		switch m.rng.IntN(6) {
		case 0:
			return "-", func(string) bool { return true }, func(string) bool { return false }
		case 1:
			return "+", func(string) bool { return false }, func(string) bool { return true }
		}
		v := member()
		if m.rng.IntN(2) == 0 {
			return "(" + v, func(x string) bool { return x > v }, func(x string) bool { return x < v }
		}
		return "[" + v, func(x string) bool { return x >= v }, func(x string) bool { return x <= v }
	}
	for m.op = 0; m.op < modelOps(); m.op++ {
		minArg, aboveMin, _ := bound()
		maxArg, _, belowMax := bound()
		var in []string
		for _, x := range sortedKeys(model) {
			if aboveMin(x) && belowMax(x) {
				in = append(in, x)
			}
		}
		switch m.rng.IntN(5) {
		case 0, 1:
			x := member()
			m.wantInt(m.do("ZADD", "lex", "0", x), b2int(!model[x]))
			model[x] = true
		case 2:
			m.wantList(m.do("ZRANGEBYLEX", "lex", minArg, maxArg), in)
		case 3:
			m.wantInt(m.do("ZLEXCOUNT", "lex", minArg, maxArg), len(in))
		case 4:
			if m.rng.IntN(3) != 0 {
				slices.Reverse(in)
				m.wantList(m.do("ZREVRANGEBYLEX", "lex", maxArg, minArg), in)
				break
			}
			m.wantInt(m.do("ZREMRANGEBYLEX", "lex", minArg, maxArg), len(in))
			for _, x := range in {
				delete(model, x)
			}
		}
	}
}
