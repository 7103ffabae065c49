package watch

import "hash/maphash"

// table is a db's watched_keys index: an open-addressing hash table (linear
// probing, backward-shift deletion, no tombstones) from a key to its entry.
// Each slot is one word, the key hash's low 32 bits and 1 + the entry's
// index; entries live in fixed chunks, so an entry never moves and growing
// the index copies 8 bytes per key, never the entries. At one watcher per
// key this costs about 14 bytes of slots (load between 3/8 and 3/4) and 32
// of entry, against about 100 for a Go map[string]entry of a million keys.
//
// Growing (or shrinking below 1/8 full) rebuilds the slots in one go, from
// the stored hash bits: O(keys), about 10 ns per key, in the WATCH (or the
// unwatch) that crosses the threshold. When the last key goes, a big
// table's memory is released; a small one's is kept for the next WATCH.
type table struct {
	slots  []uint64
	chunks []*[chunkLen]entry
	free   int32  // 1 + the first unused entry below top (their more fields chain them); 0: none
	top    uint32 // entries below this index were handed out
	n      int    // keys in the table
	seed   maphash.Seed
	owner  *Keys // relinks the records of a moved entry
	// hold defers shrinking, which may move entries, while Touch holds
	// one.
	hold bool
}

const (
	chunkBits   = 9
	chunkLen    = 1 << chunkBits
	minSlots    = 8
	slotIdxMask = 1<<32 - 1
)

func (t *table) hash(key string) uint32 {
	if t.slots == nil && t.chunks == nil {
		t.seed = maphash.MakeSeed()
	}
	return uint32(maphash.String(t.seed, key))
}

// keptSlots is the most slots (and keptChunks the most chunks) an emptied
// table keeps for its next keys; a bigger one is released.
const (
	keptSlots  = 1024
	keptChunks = 1
)

// reset empties the table (every slot is already zero, every entry too).
func (t *table) reset() {
	t.top, t.free = 0, 0
	if len(t.slots) > keptSlots || len(t.chunks) > keptChunks {
		*t = table{}
	}
}

// entry returns entry i (valid until the key is deleted).
func (t *table) entry(i uint32) *entry { return &t.chunks[i>>chunkBits][i&(chunkLen-1)] }

// find returns the index of key's entry.
func (t *table) find(key string) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	i, _, ok := t.findHashed(key, t.hash(key))
	return i, ok
}

// findHashed is find for a key whose hash is h; it returns h too.
func (t *table) findHashed(key string, h uint32) (uint32, uint32, bool) {
	if t.n == 0 {
		return 0, h, false
	}
	mask := uint32(len(t.slots) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		s := t.slots[p]
		if s == 0 {
			return 0, h, false
		}
		if uint32(s>>32) == h {
			if i := uint32(s&slotIdxMask) - 1; t.entry(i).key == key {
				return i, h, true
			}
		}
	}
}

// insert adds key, whose hash is h and which must not be in the table,
// with a zero entry and returns the entry's index.
func (t *table) insert(key string, h uint32) uint32 {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.resize(max(minSlots, len(t.slots)*2))
	}
	var i uint32
	if t.free != 0 {
		i = uint32(t.free - 1)
		t.free = t.entry(i).more
	} else {
		if t.top == uint32(len(t.chunks))*chunkLen {
			t.chunks = append(t.chunks, new([chunkLen]entry))
		}
		i = t.top
		t.top++
	}
	*t.entry(i) = entry{key: key} // a reused entry's more was a free link
	t.place(uint64(h)<<32 | uint64(i+1))
	t.n++
	return i
}

func (t *table) place(s uint64) {
	mask := uint32(len(t.slots) - 1)
	p := uint32(s>>32) & mask
	for t.slots[p] != 0 {
		p = (p + 1) & mask
	}
	t.slots[p] = s
}

// delete removes the key of entry i, whose hash is h.
func (t *table) delete(i, h uint32) {
	e := t.entry(i)
	mask := uint32(len(t.slots) - 1)
	want := uint64(h)<<32 | uint64(i+1)
	p := h & mask
	for t.slots[p] != want {
		p = (p + 1) & mask
	}
	// Backward shift: move up every later slot of the run that may live
	// at p.
	for q := (p + 1) & mask; t.slots[q] != 0; q = (q + 1) & mask {
		home := uint32(t.slots[q]>>32) & mask
		if (q-home)&mask >= (q-p)&mask {
			t.slots[p] = t.slots[q]
			p = q
		}
	}
	t.slots[p] = 0
	*e = entry{}
	t.n--
	if t.n == 0 {
		t.reset()
		return
	}
	e.more = t.free
	t.free = int32(i + 1)
	t.maybeShrink()
}

// maybeShrink shrinks a table below 1/8 full to half full and, when less
// than a quarter of the entries handed out are in use, compacts the
// entries (so entry memory stays within 4 times what the keys use, and a
// mass unwatch moves few entries: about 9% of them from a million down).
func (t *table) maybeShrink() {
	if t.hold || len(t.slots) <= minSlots || t.n*8 >= len(t.slots) {
		return
	}
	if 4*t.n < int(t.top) {
		t.compact()
	}
	t.resize(max(minSlots, len(t.slots)/4))
}

// compact moves every entry at index n or above into a free one below n
// (relinking its records) and releases the chunks left empty, so a table
// that held many keys gives their memory back as they go, not only when
// the last one does. A live entry always has a first watcher (fc != nil).
func (t *table) compact() {
	j := uint32(0)
	for p, s := range t.slots {
		if s == 0 {
			continue
		}
		i := uint32(s&slotIdxMask) - 1
		if i < uint32(t.n) {
			continue
		}
		for t.entry(j).fc != nil {
			j++
		}
		*t.entry(j) = *t.entry(i)
		*t.entry(i) = entry{}
		t.owner.relink(j)
		t.slots[p] = s&^slotIdxMask | uint64(j+1)
		j++
	}
	t.top, t.free = uint32(t.n), 0
	nc := (t.n + chunkLen - 1) / chunkLen
	clear(t.chunks[nc:])
	t.chunks = t.chunks[:nc]
}

// resize rebuilds the slots with size slots (a power of two).
func (t *table) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
}

// each calls fn with every key's entry index.
func (t *table) each(fn func(i uint32)) {
	for _, s := range t.slots {
		if s != 0 {
			fn(uint32(s&slotIdxMask) - 1)
		}
	}
}
