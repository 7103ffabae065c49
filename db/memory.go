package db

// Memory accounting: an estimate of the heap bytes each key occupies, kept
// incrementally as keys are inserted, changed and removed (no scans). It
// drives maxmemory eviction and INFO used_memory, the way Redis uses its
// allocator's counter.
//
// What is counted per key: the entry (48 bytes), its tail holding the key
// and inline value (entrytail.go) or their own allocation rounded up to the
// allocator's size class, the bucket slot in the table, an expires-table
// entry when the key has a TTL, and the value object for aggregates and
// in-place strings. Aggregates report their own size in
// O(1) through sizer; the part already added to the total is remembered in
// the object (memAccount), so a later change only adds the difference.
//
// The estimate is of live data only: the Go heap also holds garbage not yet
// collected, which is why the process's RSS runs above it (see README).

const (
	entryBytes    = 48 // sizeof(entry)
	bucketBytes   = 8  // one slot of the table per key at load factor 1
	expEntryBytes = 32 // expEntry (24) rounded to its size class, plus its bucket slot
)

// sizer is implemented by values that know their own heap size in O(1).
type sizer interface {
	memUsage() int64   // bytes of the value, excluding the entry
	accounted() *int64 // what the keyspace total currently includes for it
}

// memAccount is embedded by aggregate values to remember what was added to
// the keyspace total for them.
type memAccount struct{ acc int64 }

func (m *memAccount) accounted() *int64 { return &m.acc }

// allocSize rounds n up to the Go allocator's size class (approximately:
// exact classes up to 128 bytes, then 1/8 steps).
func allocSize(n int) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 8:
		return 8
	case n <= 16:
		return 16
	case n <= 128:
		return int64((n + 15) &^ 15)
	}
	step := 1
	for step*8 < n {
		step <<= 1
	}
	return int64((n + step - 1) / step * step)
}

// baseSize is the part of e's size that does not depend on an aggregate:
// entry, key (+ inline value), bucket, TTL entry, raw string buffer.
func baseSize(e *entry) int64 {
	n := int64(entryBytes+bucketBytes) + kvBytes(e)
	if e.hasTTL() {
		n += expEntryBytes
	}
	if r, ok := e.val.(*rawString); ok {
		n += 32 + allocSize(cap(r.b))
	}
	return n
}

// accountInsert adds a new key to the total.
func (d *DB) accountInsert(e *entry) {
	n := baseSize(e)
	if s, ok := e.val.(sizer); ok {
		m := s.memUsage()
		*s.accounted() = m
		n += m
	}
	d.data.used += n
}

// accountRemove takes a key out of the total.
func (d *DB) accountRemove(e *entry) {
	n := baseSize(e)
	if s, ok := e.val.(sizer); ok {
		n += *s.accounted()
	}
	d.data.used -= n
}

// accountValueChange folds the change in size of e's aggregate value into
// the total (called by signal for every modified key).
func (d *DB) accountValueChange(e *entry) {
	if s, ok := e.val.(sizer); ok {
		m := s.memUsage()
		acc := s.accounted()
		d.data.used += m - *acc
		*acc = m
	}
}

// accountBase wraps a change to e's base size (string value, TTL): call it
// with the size before the change, after changing.
func (d *DB) accountBase(e *entry, before int64) { d.data.used += baseSize(e) - before }

// UsedMemory returns the estimated bytes of all keys in the database.
func (d *DB) UsedMemory() int64 { return d.data.used }

// UsedMemory returns the estimated bytes of every key of every database.
func (ks *Keyspace) UsedMemory() int64 {
	var n int64
	for _, d := range ks.dbs {
		n += d.data.used
	}
	return n
}

// KeyMemory returns MEMORY USAGE's estimate for key (0, false when missing).
func (d *DB) KeyMemory(key []byte) (int64, bool) {
	e := d.data.main.Find(bstr(key)) // like Redis: no lazy expiry here
	if e == nil {
		return 0, false
	}
	n := baseSize(e)
	if s, ok := e.val.(sizer); ok {
		n += s.memUsage()
	}
	return n, true
}
