package db

import "unsafe"

// List is a list value (Redis's quicklist): a double-ended queue of
// elements kept in a ring buffer, so pushes and pops at both ends are
// amortised O(1), indexing is O(1), and inserting or removing in the middle
// moves the shorter side. Callers outside the package only read it; every
// change goes through the (*DB) list operations, which end in signal.
type List struct {
	buf      []string // ring; len(buf) is zero or a power of two
	head     int      // index in buf of element 0
	n        int      // number of elements
	strBytes int64    // allocated bytes of the elements' contents
	memAccount
}

// minListCap is the ring size of a new list.
const minListCap = 4

// Len returns the number of elements.
func (l *List) Len() int { return l.n }

// At returns element i, 0 <= i < Len().
func (l *List) At(i int) string { return l.buf[(l.head+i)&(len(l.buf)-1)] }

// Index returns the element at a Redis list index (negative indexes count
// from the tail, -1 being the last element); ok is false when the index is
// out of range (LINDEX).
func (l *List) Index(i int64) (v string, ok bool) {
	if i < 0 {
		i += int64(l.n)
	}
	if i < 0 || i >= int64(l.n) {
		return "", false
	}
	return l.At(int(i)), true
}

// RangeBounds converts LRANGE/LTRIM start and stop indexes into the first
// index and the number of elements they select (Redis's addListRangeReply
// and ltrimCommand arithmetic); n is 0 for an empty range.
func (l *List) RangeBounds(start, stop int64) (first, n int) {
	llen := int64(l.n)
	if start < 0 {
		start += llen
	}
	if stop < 0 {
		stop += llen
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= llen {
		return 0, 0
	}
	if stop >= llen {
		stop = llen - 1
	}
	return int(start), int(stop - start + 1)
}

func (l *List) dup() object {
	c := &List{buf: make([]string, len(l.buf)), n: l.n, strBytes: l.strBytes}
	for i := 0; i < l.n; i++ {
		c.buf[i] = l.At(i)
	}
	return c
}

// encoding is what OBJECT ENCODING reports: Redis 7.0 always stores lists
// as quicklists.
func (l *List) encoding() string { return "quicklist" }

// memUsage estimates the list's heap bytes in O(1): the struct, the ring
// of string headers and the elements' contents.
func (l *List) memUsage() int64 {
	return int64(unsafe.Sizeof(List{})) + allocSize(len(l.buf)*int(unsafe.Sizeof(""))) + l.strBytes
}

func (l *List) added(v string)   { l.strBytes += allocSize(len(v)) }
func (l *List) removed(v string) { l.strBytes -= allocSize(len(v)) }

// grow makes room for at least extra more elements.
func (l *List) grow(extra int) {
	need := l.n + extra
	if need <= len(l.buf) {
		return
	}
	size := max(len(l.buf), minListCap)
	for size < need {
		size *= 2
	}
	l.resize(size)
}

// resize moves the elements into a new ring of size (a power of two, at
// least l.n), linearised from index 0.
func (l *List) resize(size int) {
	nb := make([]string, size)
	l.copyOut(nb)
	l.buf, l.head = nb, 0
}

// copyOut copies the elements, in order, to the start of dst.
func (l *List) copyOut(dst []string) {
	if l.n == 0 {
		return
	}
	end := l.head + l.n
	if end <= len(l.buf) {
		copy(dst, l.buf[l.head:end])
		return
	}
	k := copy(dst, l.buf[l.head:])
	copy(dst[k:], l.buf[:end-len(l.buf)])
}

// shrink releases memory once the list uses a quarter of its ring or less.
func (l *List) shrink() {
	if len(l.buf) > 64 && l.n <= len(l.buf)/4 {
		l.resize(len(l.buf) / 2)
	}
}

func (l *List) slot(i int) *string { return &l.buf[(l.head+i)&(len(l.buf)-1)] }

func (l *List) pushFront(v string) {
	l.grow(1)
	l.head = (l.head - 1) & (len(l.buf) - 1)
	l.buf[l.head] = v
	l.n++
	l.added(v)
}

func (l *List) pushBack(v string) {
	l.grow(1)
	*l.slot(l.n) = v
	l.n++
	l.added(v)
}

// pop removes and returns the first (left) or last element; the list must
// not be empty.
func (l *List) pop(left bool) string {
	var p *string
	if left {
		p = l.slot(0)
		l.head = (l.head + 1) & (len(l.buf) - 1)
	} else {
		p = l.slot(l.n - 1)
	}
	v := *p
	*p = ""
	l.n--
	l.removed(v)
	if l.n == 0 {
		l.head = 0
	}
	return v
}

// set replaces element i.
func (l *List) set(i int, v string) {
	p := l.slot(i)
	l.removed(*p)
	*p = v
	l.added(v)
}

// linearize lays the elements out as buf[:n] and returns that slice.
func (l *List) linearize() []string {
	if l.head+l.n > len(l.buf) {
		l.resize(len(l.buf))
	} else if l.head != 0 {
		copy(l.buf, l.buf[l.head:l.head+l.n])
		clear(l.buf[max(l.n, l.head) : l.head+l.n])
		l.head = 0
	}
	return l.buf[:l.n]
}

// insert puts v at index i (0 <= i <= n), shifting the elements after it.
func (l *List) insert(i int, v string) {
	l.grow(1)
	s := l.linearize()
	s = append(s, "")
	copy(s[i+1:], s[i:])
	s[i] = v
	l.n++
	l.added(v)
}

// deleteRange removes n elements starting at index first.
func (l *List) deleteRange(first, n int) {
	if n <= 0 {
		return
	}
	switch {
	case first == 0:
		for range n {
			l.pop(true)
		}
	case first+n == l.n:
		for range n {
			l.pop(false)
		}
	default:
		s := l.linearize()
		for _, v := range s[first : first+n] {
			l.removed(v)
		}
		copy(s[first:], s[first+n:])
		clear(s[l.n-n:])
		l.n -= n
	}
	l.shrink()
}

// removeMatches deletes elements equal to v (LREM): all of them when
// limit <= 0, otherwise the first limit from the head (fromTail false) or
// from the tail. It returns how many were removed.
func (l *List) removeMatches(v []byte, limit int64, fromTail bool) int64 {
	s := l.linearize()
	var removed int64
	keep := func(e string) bool {
		if (limit <= 0 || removed < limit) && e == string(v) {
			removed++
			l.removed(e)
			return false
		}
		return true
	}
	if !fromTail {
		w := 0
		for _, e := range s {
			if keep(e) {
				s[w] = e
				w++
			}
		}
		clear(s[w:])
		l.n = w
	} else {
		w := len(s)
		for i := len(s) - 1; i >= 0; i-- {
			if keep(s[i]) {
				w--
				s[w] = s[i]
			}
		}
		copy(s, s[w:])
		clear(s[len(s)-w:])
		l.n = len(s) - w
	}
	l.shrink()
	return removed
}
