package db

import "unsafe"

// An entry and the bytes of its kv share one allocation when they fit: the
// entry is the head of an object whose tail is a byte buffer, sized so that
// the object fills one of the Go allocator's size classes from 64 to 256
// bytes (entryBytes + 16, 32, ... 208). A lookup then reads the key from the
// cache lines it already loaded for the entry, and a key costs one object
// instead of two.
//
// Layout of a tail: byte 0 holds the tail's length; from byte 1 on it holds
// the key, followed by the inline string value when kv is in the tail. The
// key bytes are written once, when the entry is made, and never change, so
// e.key() stays valid for the entry's life. The value bytes after the key
// are overwritten in place by setStr when the new value fits, which is why
// e.str() must not be kept past the next write to the key (its documented
// contract). A value too long for the tail goes to an allocation of its own
// and kv points there; the tail keeps the key for a later shorter value.
//
// metaTail marks an entry that was allocated with a tail; only such an entry
// may have memory read past its end.

const (
	tailStep = 16
	// tailMax is the largest tail: 48+208 = 256 bytes, the last size class
	// in 16-byte steps (the next ones step by 32).
	tailMax = 208
)

// tailed is an entry followed by its tail (T is a byte array).
type tailed[T any] struct {
	e    entry
	tail T
}

// tailAllocs[i] allocates an entry with a tail of (i+1)*tailStep bytes.
var tailAllocs = [tailMax / tailStep]func() *entry{
	func() *entry { return &new(tailed[[16]byte]).e },
	func() *entry { return &new(tailed[[32]byte]).e },
	func() *entry { return &new(tailed[[48]byte]).e },
	func() *entry { return &new(tailed[[64]byte]).e },
	func() *entry { return &new(tailed[[80]byte]).e },
	func() *entry { return &new(tailed[[96]byte]).e },
	func() *entry { return &new(tailed[[112]byte]).e },
	func() *entry { return &new(tailed[[128]byte]).e },
	func() *entry { return &new(tailed[[144]byte]).e },
	func() *entry { return &new(tailed[[160]byte]).e },
	func() *entry { return &new(tailed[[176]byte]).e },
	func() *entry { return &new(tailed[[192]byte]).e },
	func() *entry { return &new(tailed[[208]byte]).e },
}

// allocEntry returns a new entry whose kv has n bytes, and those bytes for
// the caller to fill (key first) before the entry is used. klen, the type
// and the rest of meta are left to the caller.
func allocEntry(n int) (*entry, []byte) {
	if n >= tailMax {
		buf := make([]byte, n)
		return &entry{kv: unsafe.String(unsafe.SliceData(buf), n)}, buf
	}
	i := n / tailStep // the tail holds its length byte and n bytes
	e := tailAllocs[i]()
	p := unsafe.Add(unsafe.Pointer(e), entryBytes)
	*(*byte)(p) = byte((i + 1) * tailStep)
	buf := unsafe.Slice((*byte)(unsafe.Add(p, 1)), n)
	e.kv = unsafe.String(unsafe.SliceData(buf), n)
	e.meta = metaTail
	return e, buf
}

// tail returns the usable bytes of e's tail (key first), or nil when e has
// none.
func (e *entry) tail() []byte {
	if e.meta&metaTail == 0 {
		return nil
	}
	p := unsafe.Add(unsafe.Pointer(e), entryBytes)
	return unsafe.Slice((*byte)(unsafe.Add(p, 1)), int(*(*byte)(p))-1)
}

// kvInTail reports whether e's kv is stored in t, e's tail.
func (e *entry) kvInTail(t []byte) bool {
	return t != nil && unsafe.StringData(e.kv) == unsafe.SliceData(t)
}

// kvBytes is the heap e's key and inline value take beside the 48 bytes of
// the entry: its tail, and kv's own allocation when kv is not in the tail.
func kvBytes(e *entry) int64 {
	t := e.tail()
	if t == nil {
		return allocSize(len(e.kv))
	}
	n := int64(len(t) + 1)
	if !e.kvInTail(t) {
		n += allocSize(len(e.kv))
	}
	return n
}
