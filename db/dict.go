package db

import (
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/cespare/xxhash/v2"
)

// This file holds dict, the keyspace hash table, modelled on Redis 7.0
// src/dict.c: chained hashing into power-of-two bucket arrays, and two tables
// while an incremental rehash moves buckets from the old table to the new one
// a few at a time, so that no single command pays for a whole resize.
//
// Chaining is intrusive: the stored node carries its own next pointer, so the
// table adds no allocation per element. Its memory cost is one pointer per
// bucket (between 1 and 2 buckets per element while the load factor stays in
// [0.5, 1]), plus the old table while a rehash is in progress.

const (
	// dictInitialSize is the size of the first table (DICT_HT_INITIAL_SIZE),
	// and the smallest table Shrink produces.
	dictInitialSize = 4
	// dictMinFillPercent is the fill under which NeedsShrink reports true
	// (HASHTABLE_MIN_FILL in Redis server.h).
	dictMinFillPercent = 10
	// dictEmptyVisitsPerStep bounds the empty buckets one rehash step may
	// skip over, as dictRehash's empty_visits = n*10.
	dictEmptyVisitsPerStep = 10
	// dictRehashBatch is the number of steps RehashFor does between clock
	// reads, as dictRehashMilliseconds's dictRehash(d,100).
	dictRehashBatch = 100
	// dictScanMaxExpansions bounds the buckets of the larger table one Scan
	// call visits while rehashing. Redis visits every expansion of the
	// cursor's small-table bucket in one call, which after a large shrink
	// (say 2^20 buckets down to 4) is 2^18 buckets; stopping early keeps a
	// call O(1). Resuming mid-expansion re-emits the small-table bucket, which
	// only adds duplicates, and only when the two tables differ by more than
	// this factor.
	dictScanMaxExpansions = 1024
)

// dictHashSeed is mixed into every hash so that bucket positions differ per
// process and cannot be precomputed by a client (Redis seeds siphash for the
// same reason). It is set once at start-up and never changes, so hashes are
// stable for the life of the process.
var dictHashSeed = rand.Uint64()

// dictHash hashes a key: xxhash of the bytes, then a seeded bijective
// finaliser (xor-shift, odd multiply, xor-shift) so that the low bits used as
// the bucket index depend on the seed and on all 64 bits of the xxhash.
func dictHash(key string) uint64 {
	h := xxhash.Sum64String(key) ^ dictHashSeed
	h ^= h >> 32
	h *= 0xd6e8feb86659fd93
	h ^= h >> 32
	return h
}

// dictNode is implemented by pointer types stored in a dict; chaining is
// intrusive. dictKey must return the same string for as long as the node is
// in a dict. dictNext and setDictNext access a pointer field that belongs to
// the dict while the node is stored in it: a node can be in at most one dict
// per next field, and its owner must not touch that field meanwhile.
type dictNode[T any] interface {
	*T
	dictKey() string
	dictNext() *T
	setDictNext(*T)
}

// dict is a hash table of nodes keyed by dictKey, with incremental
// rehashing, random sampling and a resize-proof scan cursor.
//
// The zero value is an empty dict ready to use. A dict must not be copied
// after first use and is not safe for concurrent use: the engine lock guards
// it. Nodes are never copied; Find and Remove return the stored pointers.
type dict[T any, P dictNode[T]] struct {
	// ht[0] is the main table. ht[1] is non-nil only while rehashing: it is
	// the table being filled, and every insertion goes to it.
	ht [2][]P
	// used[i] counts the nodes in ht[i].
	used [2]int
	// rehashIdx is, while rehashing, the next ht[0] bucket to move; every
	// ht[0] bucket below it is empty. It is meaningless otherwise.
	rehashIdx int
	// paused > 0 stops incremental rehash steps (Redis pauserehash), so
	// that Each and ScanBuckets can let their callback remove the node it
	// was handed without buckets moving under the walk.
	paused int
}

// Len returns the number of nodes stored.
func (d *dict[T, P]) Len() int { return d.used[0] + d.used[1] }

// Buckets returns the total bucket count of both tables (Redis dictSlots).
func (d *dict[T, P]) Buckets() int { return len(d.ht[0]) + len(d.ht[1]) }

// Rehashing reports whether an incremental rehash is in progress.
func (d *dict[T, P]) Rehashing() bool { return d.ht[1] != nil }

// Find returns the node whose key equals key, or nil. Like dictFind it first
// does one incremental rehash step. It neither allocates nor retains key, so
// key may alias a buffer that is reused afterwards.
func (d *dict[T, P]) Find(key string) P {
	if d.Len() == 0 {
		return nil
	}
	if d.ht[1] != nil {
		d.rehashStep()
	}
	h := dictHash(key)
	t := d.ht[0]
	for n := P(t[h&uint64(len(t)-1)]); n != nil; n = n.dictNext() {
		if n.dictKey() == key {
			return n
		}
	}
	if t = d.ht[1]; t != nil {
		for n := P(t[h&uint64(len(t)-1)]); n != nil; n = n.dictNext() {
			if n.dictKey() == key {
				return n
			}
		}
	}
	return nil
}

// Insert stores n, whose key the caller guarantees is absent (inserting a
// duplicate key leaves both nodes stored and Find returning either). As in
// dictAdd it does one rehash step, then grows the table when the load factor
// reaches 1, to the next power of two >= Len()+1; the new node goes at the
// head of its chain. Only growing allocates.
func (d *dict[T, P]) Insert(n P) {
	if d.ht[1] != nil {
		d.rehashStep()
	}
	d.expandIfNeeded()
	i := 0
	if d.ht[1] != nil {
		i = 1
	}
	t := d.ht[i]
	b := dictHash(n.dictKey()) & uint64(len(t)-1)
	n.setDictNext(t[b])
	t[b] = n
	d.used[i]++
}

// Remove unlinks and returns the node whose key equals key, or nil when there
// is none. Like dictGenericDelete it first does one rehash step. The removed
// node's next pointer is cleared. It neither allocates nor retains key.
func (d *dict[T, P]) Remove(key string) P {
	if d.Len() == 0 {
		return nil
	}
	if d.ht[1] != nil {
		d.rehashStep()
	}
	h := dictHash(key)
	for i := range 2 {
		t := d.ht[i]
		if t == nil {
			break
		}
		b := h & uint64(len(t)-1)
		var prev P
		for n := P(t[b]); n != nil; n = n.dictNext() {
			if n.dictKey() != key {
				prev = n
				continue
			}
			if prev == nil {
				t[b] = n.dictNext()
			} else {
				prev.setDictNext(n.dictNext())
			}
			n.setDictNext(nil)
			d.used[i]--
			return n
		}
	}
	return nil
}

// Clear removes every node and drops both tables (Redis dictEmpty). Nodes
// are not visited, so a node still referenced elsewhere keeps its stale next
// pointer until it is inserted again.
func (d *dict[T, P]) Clear() {
	d.ht = [2][]P{}
	d.used = [2]int{}
	d.rehashIdx = 0
}

// NeedsShrink reports whether the table is sparse enough to shrink, as
// Redis's htNeedsResize: more than dictInitialSize buckets and less than 10%
// of them used.
func (d *dict[T, P]) NeedsShrink() bool {
	size := d.Buckets()
	return size > dictInitialSize && d.Len()*100/size < dictMinFillPercent
}

// Shrink starts an incremental rehash into the smallest power of two that
// holds max(Len(), 4) nodes at load factor 1, as dictResize. It does nothing
// while rehashing or when the table already has that size.
func (d *dict[T, P]) Shrink() {
	if d.ht[1] != nil {
		return
	}
	d.expand(max(d.used[0], dictInitialSize))
}

// RehashFor does rehash steps, 100 at a time, until the rehash completes or
// at least budget has elapsed (Redis dictRehashMilliseconds). It returns
// whether a rehash is still in progress. It does nothing while paused.
func (d *dict[T, P]) RehashFor(budget time.Duration) bool {
	if d.ht[1] == nil || d.paused > 0 {
		return d.ht[1] != nil
	}
	start := time.Now()
	for d.rehash(dictRehashBatch) {
		if time.Since(start) >= budget {
			break
		}
	}
	return d.ht[1] != nil
}

// Random returns a random node, or nil when the dict is empty, as
// dictGetRandomKey: it does one rehash step, picks random buckets (over both
// tables while rehashing, skipping the emptied part of the old one) until it
// finds a non-empty one, then a random node of that chain. Nodes in short
// chains are a little likelier than nodes in long ones (eviction's
// allkeys-random uses it, as Redis does; FairRandom is uniform). The
// expected number of probes is Buckets()/Len(), so O(1) while the table is
// kept from being sparse (callers shrink it when NeedsShrink reports true).
func (d *dict[T, P]) Random() P {
	if d.Len() == 0 {
		return nil
	}
	if d.ht[1] != nil {
		d.rehashStep()
	}
	var head P
	for head == nil {
		head = d.randomBucket()
	}
	chain := 0
	for n := head; n != nil; n = n.dictNext() {
		chain++
	}
	n := head
	for k := rand.IntN(chain); k > 0; k-- {
		n = n.dictNext()
	}
	return n
}

// randomBucket returns the chain of a uniformly chosen bucket (nil when it
// is empty): over both tables while rehashing, skipping the emptied part
// of the old one. The dict must have a table.
func (d *dict[T, P]) randomBucket() P {
	t0 := d.ht[0]
	t1 := d.ht[1]
	if t1 == nil {
		return t0[rand.Uint64()&uint64(len(t0)-1)]
	}
	s0 := uint64(len(t0))
	first := uint64(d.rehashIdx)
	h := first + rand.Uint64N(s0+uint64(len(t1))-first)
	if h >= s0 {
		return t1[h-s0]
	}
	return t0[h]
}

// fairChainBound is the chain length FairRandom's rejection sampling
// assumes at most; a node deeper in a longer chain is never picked. At
// the load factors the dict keeps (at most 1), a chain that long is
// rarer than one bucket in a million.
const fairChainBound = 8

// fairRandomExactBuckets bounds the dicts FairRandom walks to an index.
const fairRandomExactBuckets = 256

// FairRandom returns a uniformly random node, or nil when the dict is
// empty. It serves what Redis serves with dictGetFairRandomKey
// (SRANDMEMBER, HRANDFIELD, ZRANDMEMBER, SPOP, RANDOMKEY), but is uniform
// whatever the table's layout: a small dict (at most
// fairRandomExactBuckets buckets) is walked to a uniformly drawn index; a
// larger one draws a bucket and a depth below fairChainBound until the
// depth falls within the bucket's chain, so every node is equally likely.
// Expected probes: Buckets()*fairChainBound/Len() (8-16 at the load
// factors the dict keeps while callers shrink it on NeedsShrink).
func (d *dict[T, P]) FairRandom() P {
	n := d.Len()
	if n == 0 {
		return nil
	}
	if d.Buckets() <= fairRandomExactBuckets {
		return d.nth(rand.IntN(n))
	}
	if d.ht[1] != nil {
		d.rehashStep()
	}
	for {
		depth := rand.IntN(fairChainBound)
		for n := d.randomBucket(); n != nil; n = n.dictNext() {
			if depth == 0 {
				return n
			}
			depth--
		}
	}
}

// nth returns the node at position k (0 <= k < Len()) in table order.
func (d *dict[T, P]) nth(k int) P {
	for _, t := range d.ht {
		for _, n := range t {
			for ; n != nil; n = n.dictNext() {
				if k == 0 {
					return n
				}
				k--
			}
		}
	}
	return nil
}

// Sample appends to dst up to count nodes taken from a random stretch of the
// table and returns the extended slice, as dictGetSomeKeys (used for eviction
// and expiry sampling). Like Redis's it is fast but not uniform: it returns
// runs of neighbouring buckets, it may return fewer than count nodes (never
// more than Len(), and fewer if about count*10 buckets yield too few), and it
// may return the same node twice when a random jump lands on buckets already
// visited. Chains are sampled with reservoir sampling, so a long chain's tail
// is as likely as its head. It does up to count rehash steps first.
func (d *dict[T, P]) Sample(dst []P, count int) []P {
	count = min(count, d.Len())
	if count <= 0 {
		return dst
	}
	for j := 0; j < count && d.ht[1] != nil; j++ {
		if d.paused > 0 {
			break
		}
		d.rehash(1)
	}
	tables := 1
	maxMask := uint64(len(d.ht[0]) - 1)
	if d.ht[1] != nil {
		tables = 2
		maxMask = max(maxMask, uint64(len(d.ht[1])-1))
	}
	base := len(dst)
	stored := 0
	emptyRun := 0
	i := rand.Uint64() & maxMask
	for steps := count * 10; stored < count && steps > 0; steps-- {
		for j := 0; j < tables; j++ {
			if tables == 2 && j == 0 && i < uint64(d.rehashIdx) {
				// ht[0] is empty below rehashIdx; when i is also past
				// the end of ht[1] (shrinking), both are empty here.
				if i >= uint64(len(d.ht[1])) {
					i = uint64(d.rehashIdx)
				} else {
					continue
				}
			}
			t := d.ht[j]
			if i >= uint64(len(t)) {
				continue
			}
			n := t[i]
			if n == nil {
				emptyRun++
				if emptyRun >= 5 && emptyRun > count {
					i = rand.Uint64() & maxMask
					emptyRun = 0
				}
				continue
			}
			emptyRun = 0
			for ; n != nil; n = n.dictNext() {
				if stored < count {
					dst = append(dst, n)
				} else if r := rand.IntN(stored + 1); r < count {
					dst[base+r] = n
				}
				stored++
			}
			if stored >= count {
				return dst
			}
		}
		i = (i + 1) & maxMask
	}
	return dst
}

// Scan calls fn for the nodes of one cursor position and returns the next
// cursor, as dictScan; start with 0 and stop when 0 is returned. Every node
// present from the first call to the last is passed to fn at least once,
// even when the table grows, shrinks or rehashes between calls; nodes may be
// passed more than once. The cursor counts with its bits reversed, so that
// buckets already visited in a smaller or larger table are not revisited.
// While rehashing, one call visits the cursor's bucket in the smaller table
// and up to dictScanMaxExpansions of its expansions in the larger one. Any
// cursor value is safe. fn must not mutate the dict.
func (d *dict[T, P]) Scan(cursor uint64, fn func(P)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	v := cursor
	if d.ht[1] == nil {
		t := d.ht[0]
		m := uint64(len(t) - 1)
		dictEmitChain(t[v&m], fn)
		return dictNextCursor(v, m)
	}
	small, large := d.ht[0], d.ht[1]
	if len(small) > len(large) {
		small, large = large, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(large)-1)
	dictEmitChain(small[v&m0], fn)
	for range dictScanMaxExpansions {
		dictEmitChain(large[v&m1], fn)
		v = dictNextCursor(v, m1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// dictNextCursor increments the reversed bits of cursor v under mask m: the
// bits above m are set so that the carry runs through them and clears them.
func dictNextCursor(v, m uint64) uint64 {
	v |= ^m
	return bits.Reverse64(bits.Reverse64(v) + 1)
}

// dictEmitChain calls fn for each node of the chain at head, reading each
// next pointer before the call.
func dictEmitChain[T any, P dictNode[T]](head P, fn func(P)) {
	for n := head; n != nil; {
		next := P(n.dictNext())
		fn(n)
		n = next
	}
}

// ScanBuckets walks buckets in plain index order from cursor, as Redis 7.0's
// activeExpireCycle walks the expires table: for up to maxBuckets cursor
// positions it calls fn for the nodes in that bucket of each table (both
// while rehashing, the cursor masked to each table's size). It returns the
// next cursor, or 0 when the walk passed the last bucket of the larger table
// (a cycle is complete; a cursor beyond the table also returns 0). A full
// cycle from 0 passes every node that stays in the dict throughout at least
// once, as long as the table does not resize meanwhile. Rehash steps are
// paused during the call, so fn may Remove the node it was given; it must
// not otherwise mutate the dict.
func (d *dict[T, P]) ScanBuckets(cursor uint64, maxBuckets int, fn func(P)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	d.paused++
	defer func() { d.paused-- }()
	t0, t1 := d.ht[0], d.ht[1]
	m0 := uint64(len(t0) - 1)
	end := uint64(max(len(t0), len(t1)))
	for ; maxBuckets > 0; maxBuckets-- {
		if cursor >= end {
			return 0
		}
		if t1 == nil {
			dictEmitChain(t0[cursor&m0], fn)
		} else {
			if b := cursor & m0; b >= uint64(d.rehashIdx) {
				dictEmitChain(t0[b], fn)
			}
			dictEmitChain(t1[cursor&uint64(len(t1)-1)], fn)
		}
		cursor++
	}
	if cursor >= end {
		return 0
	}
	return cursor
}

// Each calls fn for every node until fn returns false. Rehash steps are
// paused during the call, so fn may Remove the node it was given; it must
// not otherwise mutate the dict.
func (d *dict[T, P]) Each(fn func(P) bool) {
	if d.Len() == 0 {
		return
	}
	d.paused++
	defer func() { d.paused-- }()
	start := 0
	if d.ht[1] != nil {
		start = d.rehashIdx
	}
	for i, t := range d.ht {
		if i == 1 {
			start = 0
		}
		for _, head := range t[start:] {
			for n := head; n != nil; {
				next := P(n.dictNext())
				if !fn(n) {
					return
				}
				n = next
			}
		}
	}
}

// rehashStep does one rehash step unless paused (_dictRehashStep).
func (d *dict[T, P]) rehashStep() {
	if d.paused == 0 {
		d.rehash(1)
	}
}

// rehash moves up to n non-empty buckets from ht[0] to ht[1], skipping at
// most n*10 empty buckets, and finishes the rehash when ht[0] is empty
// (dictRehash). It returns whether rehashing is still in progress.
func (d *dict[T, P]) rehash(n int) bool {
	t0, t1 := d.ht[0], d.ht[1]
	if t1 == nil {
		return false
	}
	emptyVisits := n * dictEmptyVisitsPerStep
	m1 := uint64(len(t1) - 1)
	growing := len(t1) > len(t0)
	for ; n > 0 && d.used[0] != 0; n-- {
		for t0[d.rehashIdx] == nil {
			d.rehashIdx++
			emptyVisits--
			if emptyVisits == 0 {
				return true
			}
		}
		idx := d.rehashIdx
		for node := t0[idx]; node != nil; {
			next := P(node.dictNext())
			var b uint64
			if growing {
				b = dictHash(node.dictKey()) & m1
			} else {
				// Shrinking: the larger table's index, masked,
				// is the smaller table's index; no need to hash.
				b = uint64(idx) & m1
			}
			node.setDictNext(t1[b])
			t1[b] = node
			d.used[0]--
			d.used[1]++
			node = next
		}
		t0[idx] = nil
		d.rehashIdx++
	}
	if d.used[0] != 0 {
		return true
	}
	d.ht[0], d.ht[1] = t1, nil
	d.used[0], d.used[1] = d.used[1], 0
	d.rehashIdx = 0
	return false
}

// expandIfNeeded creates the first table or grows at load factor 1
// (_dictExpandIfNeeded). Nothing happens while rehashing.
func (d *dict[T, P]) expandIfNeeded() {
	switch {
	case d.ht[1] != nil:
	case d.ht[0] == nil:
		d.expand(dictInitialSize)
	case d.used[0] >= len(d.ht[0]):
		d.expand(d.used[0] + 1)
	}
}

// expand allocates a table of the smallest power of two >= size (at least
// dictInitialSize) and starts rehashing into it, or installs it directly
// when the current table is empty (_dictExpand). It does nothing while
// rehashing, when size < Len(), or when the size would not change.
func (d *dict[T, P]) expand(size int) {
	if d.ht[1] != nil || d.used[0] > size {
		return
	}
	n := dictTableSize(size)
	if n == len(d.ht[0]) {
		return
	}
	t := make([]P, n)
	if d.used[0] == 0 {
		d.ht[0] = t
		return
	}
	d.ht[1] = t
	d.rehashIdx = 0
}

// dictTableSize returns the smallest power of two >= size, and at least
// dictInitialSize (_dictNextExp).
func dictTableSize(size int) int {
	if size <= dictInitialSize {
		return dictInitialSize
	}
	return 1 << bits.Len(uint(size-1))
}
