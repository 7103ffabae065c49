package server

import (
	"bytes"
	"github.com/miniwatchd/miniwatchd/internal/pqsort"
	"strings"
	"sync"
	"unsafe"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// SORT and SORT_RO (Redis 7.0 sort.c sortCommandGeneric). The options are
// parsed first (the first bad one is the reply), then the key is read, the
// elements loaded (only the LIMIT range when nothing is to be sorted and the
// value keeps an order of its own), weighted (the element, or the value a
// BY pattern names), sorted, and sent or stored with their GET patterns.
// STORE makes every lookup a write lookup and writes through
// db.StoreList.

var sortCommands = []commandDef{
	{"sort", cmdSort},
	{"sort_ro", cmdSortRO},
}

var errSortScore = protocol.Error("ERR One or more scores can't be converted into double")

func cmdSort(c *client, args [][]byte)   { sortGeneric(c, args, false) }
func cmdSortRO(c *client, args [][]byte) { sortGeneric(c, args, true) }

// sortElem is one element of the vector to sort (redisSortObject).
type sortElem struct {
	obj    string
	score  float64
	cmp    []byte // the BY value of an ALPHA sort (aliases the db until the sort ends)
	hasCmp bool
}

// sortOptions are SORT's parsed arguments.
type sortOptions struct {
	desc, alpha, dontsort bool
	limitStart, limitCnt  int64
	by                    []byte // nil: sort by the elements themselves
	gets                  [][]byte
	store                 []byte
}

// parseSortOptions parses args[2:]; it replies and reports false on error.
func parseSortOptions(c *client, args [][]byte, readOnly bool) (sortOptions, bool) {
	o := sortOptions{limitCnt: -1}
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := args[j]
		switch {
		case cstrEqualFold(a, "asc"):
			o.desc = false
		case cstrEqualFold(a, "desc"):
			o.desc = true
		case cstrEqualFold(a, "alpha"):
			o.alpha = true
		case cstrEqualFold(a, "limit") && left >= 2:
			s, ok1 := protocol.ParseInt(args[j+1])
			n, ok2 := protocol.ParseInt(args[j+2])
			if !ok1 || !ok2 {
				c.fail(protocol.ErrNotInteger)
				return o, false
			}
			o.limitStart, o.limitCnt = s, n
			j += 2
		case !readOnly && cstrEqualFold(a, "store") && left >= 1:
			o.store = args[j+1]
			j++
		case cstrEqualFold(a, "by") && left >= 1:
			o.by = args[j+1]
			// A BY pattern without '*' (read as a C string) names no key:
			// nothing to weigh, nothing to sort.
			if bytes.IndexByte(cstrBytes(o.by), '*') < 0 {
				o.dontsort = true
			} else if c.srv.cluster.on {
				c.fail(errSortByCluster)
				return o, false
			}
			j++
		case cstrEqualFold(a, "get") && left >= 1:
			if c.srv.cluster.on {
				c.fail(errSortGetCluster)
				return o, false
			}
			o.gets = append(o.gets, args[j+1])
			j++
		default:
			c.fail(protocol.ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// Cluster mode refuses patterns naming other keys (Redis 7.0 sortCommandGeneric).
var (
	errSortByCluster  = protocol.Error("ERR BY option of SORT denied in Cluster mode.")
	errSortGetCluster = protocol.Error("ERR GET option of SORT denied in Cluster mode.")
)

// sortPatternValue is lookupKeyByPattern: the element itself for "#",
// nothing for a pattern without '*', else the string at the key the
// pattern names with its first '*' replaced by elem, or with "->field" the
// field of the hash there.
func sortPatternValue(c *client, pat []byte, elem string, forStore bool, keyBuf *[]byte) ([]byte, bool) {
	if len(pat) > 0 && pat[0] == '#' && (len(pat) == 1 || pat[1] == 0) {
		return sbytesOf(elem), true
	}
	star := bytes.IndexByte(cstrBytes(pat), '*')
	if star < 0 {
		return nil, false
	}
	end := len(pat) // end of the key part of the pattern
	var field []byte
	if f := bytes.Index(cstrBytes(pat[star+1:]), []byte("->")); f >= 0 {
		at := star + 1 + f
		if at+2 < len(pat) && pat[at+2] != 0 {
			field, end = pat[at+2:], at
		}
	}
	k := append((*keyBuf)[:0], pat[:star]...)
	k = append(k, elem...)
	k = append(k, pat[star+1:end]...)
	*keyBuf = k
	return c.db.SortPatternValue(k, field, field != nil, forStore)
}

// sbytesOf views s as bytes without copying; they must not be modified.
func sbytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// isScriptClient reports whether c is the client scripts run commands as.
func (c *client) isScriptClient() bool { return c == c.srv.scripting.sc }

func sortGeneric(c *client, args [][]byte, readOnly bool) {
	o, ok := parseSortOptions(c, args, readOnly)
	if !ok {
		return
	}
	forStore := o.store != nil
	src, err := c.db.LookupSortSource(args[1], forStore)
	if err != nil {
		c.fail(err)
		return
	}
	// A set has no order of its own: unsorted output would differ between
	// a script (or what STORE writes) and its replay, so sort it ALPHA.
	if o.dontsort && src.Set != nil && (forStore || c.isScriptClient()) {
		o.dontsort, o.alpha, o.by = false, true, nil
	}
	var n int64
	switch {
	case src.List != nil:
		n = int64(src.List.Len())
	case src.Set != nil:
		n = int64(src.Set.Len())
	case src.ZSet != nil:
		n = int64(src.ZSet.Len())
	}
	start := min(max(o.limitStart, 0), n)
	cnt := min(max(o.limitCnt, -1), n)
	end := n - 1
	if cnt >= 0 {
		end = start + cnt - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	if end >= n {
		end = n - 1
	}
	sc := sortScratchPool.Get().(*sortScratch)
	defer sc.release()
	vec := loadSortVector(sc.vec[:0], &o, src, &start, &end)
	sc.vec = vec
	var perm []int32 // the sorted order of vec; nil: vec's own
	var keyBuf []byte
	if !o.dontsort {
		convErr := false
		for i := range vec {
			by := sbytesOf(vec[i].obj)
			if o.by != nil {
				v, found := sortPatternValue(c, o.by, vec[i].obj, forStore, &keyBuf)
				if !found {
					continue
				}
				by = v
			}
			if o.alpha {
				if o.by != nil {
					vec[i].cmp, vec[i].hasCmp = by, true
				}
				continue
			}
			vec[i].score, ok = sortWeight(by)
			if !ok {
				convErr = true
			}
		}
		perm = sortVector(sc, vec, &o, forStore, start, end)
		if convErr {
			c.fail(errSortScore)
			return
		}
	}
	rangeLen := end - start + 1
	if rangeLen < 0 {
		rangeLen = 0
	}
	outLen := rangeLen
	if len(o.gets) > 0 {
		outLen = int64(len(o.gets)) * rangeLen
	}
	if perm != nil {
		// Output in sorted order: move the elements of the range into place
		// once (cheaper than indexing through perm twice per element).
		sorted := sc.sorted[:0]
		for j := start; j <= end; j++ {
			sorted = append(sorted, vec[perm[j]])
		}
		sc.sorted = sorted
		vec, end, start = sorted, end-start, 0
	}
	if !forStore {
		c.w.Array(int(outLen))
		for j := start; j <= end; j++ {
			if len(o.gets) == 0 {
				c.w.BulkString(vec[j].obj)
			}
			for _, g := range o.gets {
				if v, found := sortPatternValue(c, g, vec[j].obj, false, &keyBuf); found {
					c.w.Bulk(v)
				} else {
					c.w.Null()
				}
			}
		}
		return
	}
	out := make([]string, 0, outLen)
	for j := start; j <= end; j++ {
		if len(o.gets) == 0 {
			out = append(out, vec[j].obj)
		}
		for _, g := range o.gets {
			v, _ := sortPatternValue(c, g, vec[j].obj, true, &keyBuf)
			out = append(out, string(v))
		}
	}
	c.db.StoreList(o.store, out, db.EvSortStore)
	c.w.Int(outLen)
}

// loadSortVector loads the elements to sort. A list or sorted set with
// nothing to sort loads only the LIMIT range, in its own order (reversed
// for DESC), and start/end are moved to index the loaded vector.
func loadSortVector(vec []sortElem, o *sortOptions, src db.SortSource, start, end *int64) []sortElem {
	switch {
	case src.List != nil && o.dontsort:
		l := src.List
		if *end < *start {
			*start, *end = 0, -1
			return vec
		}
		for i := *start; i <= *end; i++ {
			idx := i
			if o.desc {
				idx = int64(l.Len()) - 1 - i
			}
			vec = append(vec, sortElem{obj: l.At(int(idx))})
		}
		*end -= *start
		*start = 0
		return vec
	case src.List != nil:
		l := src.List
		for i := range l.Len() {
			vec = append(vec, sortElem{obj: l.At(i)})
		}
		return vec
	case src.Set != nil:
		src.Set.Each(func(m []byte) bool {
			vec = append(vec, sortElem{obj: string(m)})
			return true
		})
		return vec
	case src.ZSet != nil && o.dontsort:
		z := src.ZSet
		n := *end - *start + 1
		if n < 0 {
			n = 0
		}
		var nd *db.ZNode
		if o.desc {
			nd = z.ByRank(z.Len() - 1 - int(*start))
		} else {
			nd = z.ByRank(int(*start))
		}
		for ; n > 0 && nd != nil; n-- {
			vec = append(vec, sortElem{obj: nd.Member()})
			if o.desc {
				nd = nd.Prev()
			} else {
				nd = nd.Next()
			}
		}
		*end -= *start
		*start = 0
		return vec
	case src.ZSet != nil:
		src.ZSet.Each(func(nd *db.ZNode) bool {
			vec = append(vec, sortElem{obj: nd.Member()})
			return true
		})
		return vec
	}
	return nil
}

// sortScratch is the reusable memory of one SORT: the vector, and the
// pointer-free keys and permutations the sort moves around.
type sortScratch struct {
	vec, sorted []sortElem
	keys, ktmp  []numKey
	perm, ptmp  []int32
}

var sortScratchPool = sync.Pool{New: func() any { return new(sortScratch) }}

// release clears what refers to values and returns sc to the pool
// (very large vectors are let go).
func (sc *sortScratch) release() {
	if cap(sc.vec) > 1<<16 {
		*sc = sortScratch{}
	} else {
		clear(sc.vec[:cap(sc.vec)])
		clear(sc.sorted[:cap(sc.sorted)])
	}
	sortScratchPool.Put(sc)
}

// numKey is what a numeric sort moves: the score and the element's index.
type numKey struct {
	score float64
	idx   int32
}

// sortVector returns the order of vec as sortCompare sorts it: numbers by
// score, then by the elements' bytes; ALPHA by the BY values (missing ones
// first) or the elements, byte-wise with STORE and as C strings otherwise
// (strcoll in Redis's C.UTF-8 collation, which is strcmp). Equal elements
// keep their order, as with glibc's qsort (msort, a merge sort), except
// with a BY pattern and a partial LIMIT, where Redis's pqsort decides
// (only ALPHA BY can tell: numeric ties are broken by the elements).
func sortVector(sc *sortScratch, vec []sortElem, o *sortOptions, forStore bool, start, end int64) []int32 {
	n := len(vec)
	perm := grow32(sc.perm, n)
	sc.perm = perm
	if !o.alpha {
		keys := sc.keys[:0]
		for i := range vec {
			keys = append(keys, numKey{vec[i].score, int32(i)})
		}
		sc.keys = keys
		sc.ktmp = growKeys(sc.ktmp, n)
		msortNumeric(vec, keys, sc.ktmp, o.desc)
		for i, k := range keys {
			perm[i] = k.idx
		}
		return perm
	}
	for i := range perm {
		perm[i] = int32(i)
	}
	var cmp func(a, b *sortElem) int
	switch {
	case o.by != nil:
		cmp = func(a, b *sortElem) int {
			switch {
			case a.hasCmp && b.hasCmp:
				if forStore {
					return bytes.Compare(a.cmp, b.cmp)
				}
				return bytes.Compare(cstrBytes(a.cmp), cstrBytes(b.cmp))
			case a.hasCmp == b.hasCmp:
				return 0
			case !a.hasCmp:
				return -1
			}
			return 1
		}
	case forStore:
		cmp = func(a, b *sortElem) int { return strings.Compare(a.obj, b.obj) }
	default:
		cmp = func(a, b *sortElem) int { return bytes.Compare(cstrBytes(sbytesOf(a.obj)), cstrBytes(sbytesOf(b.obj))) }
	}
	if o.desc {
		asc := cmp
		cmp = func(a, b *sortElem) int { return asc(b, a) }
	}
	if o.by != nil && (start != 0 || end != int64(n)-1) {
		pqsort.Sort(perm, func(a, b *int32) int { return cmp(&vec[*a], &vec[*b]) }, int(start), int(end))
		return perm
	}
	sc.ptmp = grow32(sc.ptmp, n)
	msortPerm(vec, perm, sc.ptmp, cmp)
	return perm
}

func grow32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

func growKeys(b []numKey, n int) []numKey {
	if cap(b) < n {
		return make([]numKey, n)
	}
	return b[:n]
}

// msortPerm is glibc's msort_with_tmp over the permutation p of vec: sort
// both halves, then merge, taking from the left half while its element is
// not greater. tmp is scratch space as long as p.
func msortPerm(vec []sortElem, p, tmp []int32, cmp func(a, b *sortElem) int) {
	n := len(p)
	if n <= 1 {
		return
	}
	n1 := n / 2
	l, r := p[:n1], p[n1:]
	msortPerm(vec, l, tmp[:n1], cmp)
	msortPerm(vec, r, tmp[n1:], cmp)
	i, j, k := 0, 0, 0
	for i < len(l) && j < len(r) {
		if cmp(&vec[l[i]], &vec[r[j]]) <= 0 {
			tmp[k] = l[i]
			i++
		} else {
			tmp[k] = r[j]
			j++
		}
		k++
	}
	k += copy(tmp[k:], l[i:])
	copy(p, tmp[:k]) // what is left of r is already in place
}

// msortNumeric is msortPerm for a numeric sort, over pointer-free keys,
// with the comparison inlined: by score, then by the elements' bytes
// (reversed for desc).
func msortNumeric(vec []sortElem, b, tmp []numKey, desc bool) {
	n := len(b)
	if n <= 1 {
		return
	}
	n1 := n / 2
	l, r := b[:n1], b[n1:]
	msortNumeric(vec, l, tmp[:n1], desc)
	msortNumeric(vec, r, tmp[n1:], desc)
	i, j, k := 0, 0, 0
	for i < len(l) && j < len(r) {
		var c int
		switch a, b := &l[i], &r[j]; {
		case a.score > b.score:
			c = 1
		case a.score < b.score:
			c = -1
		default:
			c = strings.Compare(vec[a.idx].obj, vec[b.idx].obj)
		}
		if desc {
			c = -c
		}
		if c <= 0 {
			tmp[k] = l[i]
			i++
		} else {
			tmp[k] = r[j]
			j++
		}
		k++
	}
	k += copy(tmp[k:], l[i:])
	copy(b, tmp[:k])
}

// sortWeight reads a numeric SORT weight as Redis's strtod with its ERANGE
// check; integers in string2ll's form (the common case) take a short cut
// with the same result (an int64 converts to the nearest double, as strtod
// rounds).
func sortWeight(b []byte) (float64, bool) {
	if n, ok := protocol.ParseInt(b); ok {
		return float64(n), true
	}
	return protocol.ParseStrtodNoRange(b)
}
