package watch

import (
	"hash/maphash"
	"sort"
	"strings"
	"unsafe"
)

// HotKeys is a bounded heavy-hitters summary of the watched keys whose
// touches aborted transactions (the Space-Saving algorithm, Metwally et al.
// 2005): at most Cap entries; a key not in the summary replaces the entry
// with the smallest count and inherits that count as its error bound, so
// every key that caused more than N/Cap of N aborts is in it, and each
// entry's count overestimates the truth by at most its Err. Each entry keeps
// the same kind of summary, TallySize wide, of the commands and of the client
// names that broke it.
//
// Memory is bounded: keys are kept up to MaxHotKeyLen bytes and names up to
// MaxHotNameLen bytes (longer ones are cut and marked by their full length;
// identity uses a hash of the whole key), so the summary never holds more
// than MaxBytes(). Add is O(log Cap) and allocates only while the summary
// fills (and to copy a cut key or name).
//
// Not safe for concurrent use (the server calls it under the engine lock).
type HotKeys struct {
	cap   int
	heap  []*HotKey // min-heap by Count
	index map[hotID]*HotKey
	seed  maphash.Seed
	total int64 // aborts added since the last reset
}

// Limits of what one entry keeps.
const (
	MaxHotKeyLen  = 256
	MaxHotNameLen = 64
	TallySize     = 4
)

type hotID struct {
	db int
	h  uint64
}

// HotKey is one entry of the summary.
type HotKey struct {
	id     hotID
	Key    string // the key, cut to MaxHotKeyLen bytes
	KeyLen int    // the key's full length
	DB     int
	Count  int64 // aborts caused (an overestimate by at most Err)
	Err    int64
	Cmds   Tally // breaking commands
	Names  Tally // breaking clients' names
	hidx   int
}

// Tally is a tiny Space-Saving summary of names.
type Tally [TallySize]TallyItem

// TallyItem is one name of a Tally and its count (an overestimate by at
// most Err).
type TallyItem struct {
	Name     string
	Count    int64
	Err      int64
	occupied bool
}

func (t *Tally) add(name string) {
	min := 0
	for i := range t {
		it := &t[i]
		if it.occupied && it.Name == name {
			it.Count++
			return
		}
		if !it.occupied {
			*it = TallyItem{Name: cut(name, MaxHotNameLen), Count: 1, occupied: true}
			return
		}
		if it.Count < t[min].Count {
			min = i
		}
	}
	m := &t[min]
	*m = TallyItem{Name: cut(name, MaxHotNameLen), Count: m.Count + 1, Err: m.Count, occupied: true}
}

// Items returns the tally's names, most frequent first.
func (t *Tally) Items() []TallyItem {
	var out []TallyItem
	for _, it := range t {
		if it.occupied {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

func (t *Tally) bytes() int64 {
	var n int64
	for _, it := range t {
		n += int64(len(it.Name))
	}
	return n
}

// cut returns s, or a copy of its first n bytes (so a long string's memory
// is not retained).
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.Clone(s[:n])
}

// NewHotKeys returns a summary of at most size entries (size >= 0; 0 keeps
// nothing).
func NewHotKeys(size int) *HotKeys {
	return &HotKeys{cap: max(size, 0), index: make(map[hotID]*HotKey), seed: maphash.MakeSeed()}
}

// Cap returns the summary's size.
func (h *HotKeys) Cap() int { return h.cap }

// Len returns the number of entries.
func (h *HotKeys) Len() int { return len(h.heap) }

// Total returns the number of aborts added since the last reset.
func (h *HotKeys) Total() int64 { return h.total }

// Reset empties the summary.
func (h *HotKeys) Reset() {
	clear(h.heap)
	h.heap = h.heap[:0]
	clear(h.index)
	h.total = 0
}

// Per-entry fixed cost: the entry, its heap slot, its map entry (key,
// pointer and bucket overhead).
const hotEntryBytes = int64(unsafe.Sizeof(HotKey{})) + 8 + 48

// MaxBytes is the most memory the summary can hold: Cap entries, each with
// a key of at most MaxHotKeyLen bytes and 2*TallySize names of at most
// MaxHotNameLen bytes (command names are the command table's own strings,
// counted anyway).
func (h *HotKeys) MaxBytes() int64 {
	return int64(h.cap) * (hotEntryBytes + MaxHotKeyLen + 2*TallySize*MaxHotNameLen)
}

// Bytes is the memory the summary holds now (by the same estimate).
func (h *HotKeys) Bytes() int64 {
	var n int64
	for _, e := range h.heap {
		n += hotEntryBytes + int64(len(e.Key)) + e.Cmds.bytes() + e.Names.bytes()
	}
	return n
}

// Add counts one abort caused by a touch of key in db, by command cmd of a
// client named name.
func (h *HotKeys) Add(db int, key, cmd, name string) {
	if h.cap == 0 {
		return
	}
	h.total++
	id := hotID{db: db, h: maphash.String(h.seed, key)}
	e := h.index[id]
	switch {
	case e != nil:
		e.Count++
	case len(h.heap) < h.cap:
		e = &HotKey{id: id, Key: cut(key, MaxHotKeyLen), KeyLen: len(key), DB: db, Count: 1, hidx: len(h.heap)}
		h.heap = append(h.heap, e)
		h.index[id] = e
		h.up(e.hidx)
	default:
		e = h.heap[0] // the smallest count: replaced, its count inherited
		delete(h.index, e.id)
		*e = HotKey{id: id, Key: cut(key, MaxHotKeyLen), KeyLen: len(key), DB: db, Count: e.Count + 1, Err: e.Count}
		h.index[id] = e
	}
	e.Cmds.add(cmd)
	e.Names.add(name)
	h.down(e.hidx)
}

// Top returns up to n entries (all when n <= 0), the highest count first.
func (h *HotKeys) Top(n int) []*HotKey {
	out := append([]*HotKey(nil), h.heap...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Err < out[j].Err
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

func (h *HotKeys) less(i, j int) bool { return h.heap[i].Count < h.heap[j].Count }

func (h *HotKeys) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.heap[i].hidx = i
	h.heap[j].hidx = j
}

func (h *HotKeys) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *HotKeys) down(i int) {
	n := len(h.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}
