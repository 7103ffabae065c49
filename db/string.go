package db

import "github.com/miniwatchd/miniwatchd/protocol"

// String values (Redis t_string.c's type API). Reads return bytes that alias
// the stored value: callers copy them into a reply before the next write.

// TTLMode says what a string write does to the key's TTL.
type TTLMode uint8

// TTL modes.
const (
	TTLClear TTLMode = iota // drop any TTL (SET, GETSET, MSET)
	TTLKeep                 // keep the TTL (INCR, APPEND, SET KEEPTTL)
	TTLSet                  // set the deadline given with the write (SET EX/PX/EXAT/PXAT, SETEX)
)

// GetString returns the string at key (nil, nil when missing) or
// ErrWrongType. It is a read: it counts hits/misses and refreshes LRU data.
func (d *DB) GetString(key []byte) ([]byte, error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return nil, nil
	}
	if e.typ() != TypeString {
		return nil, protocol.ErrWrongType
	}
	return e.str(), nil
}

// GetStringForWrite is GetString as the first step of a read-modify-write
// command (INCR, APPEND, SETRANGE, GETSET...): it does not count as a read.
func (d *DB) GetStringForWrite(key []byte) ([]byte, bool, error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, false, nil
	}
	if e.typ() != TypeString {
		return nil, true, protocol.ErrWrongType
	}
	return e.str(), true, nil
}

// SetString stores val at key as a string, replacing any value of any type
// (Redis's setKey), and signals with the events evs (the caller's command
// events, e.g. EvSet). mode says what happens to the TTL; with TTLSet the
// deadline is at (unix ms) and an "expire" event follows evs, as SET EX does.
func (d *DB) SetString(key, val []byte, mode TTLMode, at int64, ev Event) {
	d.setString(key, val, mode, at, ev, false)
}

// SetStringNoInt is SetString for a value Redis stores without trying the
// integer encoding (INCRBYFLOAT's createStringObjectFromLongDouble): OBJECT
// ENCODING reports "embstr" (or "raw" past 44 bytes) even for "3".
func (d *DB) SetStringNoInt(key, val []byte, mode TTLMode, at int64, ev Event) {
	d.setString(key, val, mode, at, ev, true)
}

func (d *DB) setString(key, val []byte, mode TTLMode, at int64, ev Event, noInt bool) {
	e := d.lookupWrite(key)
	if e == nil {
		e = newStringEntry(key, val)
		d.insert(e)
	} else {
		before := baseSize(e) + accountedValue(e) // the value may be an aggregate
		e.setStr(val)
		d.accountBase(e, before)
		if mode == TTLClear {
			d.clearDeadline(e)
		}
	}
	if noInt {
		e.meta |= metaNoIntStr
	}
	if mode == TTLSet {
		d.setDeadline(e, at)
		d.signal(e.key(), true, ev, EvExpire)
		return
	}
	d.signal(e.key(), true, ev)
}

// AppendString appends suffix to the string at key, creating it when
// missing, and returns the new length (APPEND). The value switches to an
// in-place growable buffer, so repeated appends are amortised O(1). maxLen
// is proto-max-bulk-len.
func (d *DB) AppendString(key, suffix []byte, maxLen int64) (int, error) {
	e := d.lookupWrite(key)
	if e == nil {
		e = newStringEntry(key, suffix)
		d.insert(e)
		d.signal(e.key(), true, EvAppend)
		return len(suffix), nil
	}
	if e.typ() != TypeString {
		return 0, protocol.ErrWrongType
	}
	cur := e.str()
	if int64(len(cur))+int64(len(suffix)) > maxLen {
		return 0, protocol.ErrStringTooLong
	}
	before := baseSize(e)
	r := e.rawBuffer()
	r.b = append(r.b, suffix...)
	d.accountBase(e, before)
	d.signal(e.key(), true, EvAppend)
	return len(r.b), nil
}

// SetRange overwrites the string at key from offset with val, padding with
// zero bytes, creating the key when missing (SETRANGE). An empty val changes
// nothing and does not signal (spec T-5). It returns the new length.
func (d *DB) SetRange(key []byte, offset int64, val []byte, maxLen int64) (int, error) {
	e := d.lookupWrite(key)
	if e != nil && e.typ() != TypeString {
		return 0, protocol.ErrWrongType
	}
	cur := 0
	if e != nil {
		cur = len(e.str())
	}
	if len(val) == 0 {
		return cur, nil
	}
	if offset > maxLen || offset+int64(len(val)) > maxLen {
		return 0, protocol.ErrStringTooLong
	}
	end := int(offset) + len(val)
	if e == nil {
		buf := make([]byte, end)
		copy(buf[offset:], val)
		e = newEntry(key, TypeString)
		e.setObj(TypeString, &rawString{b: buf})
		e.setRawEncoding(true)
		d.insert(e)
		d.signal(e.key(), true, EvSetRange)
		return end, nil
	}
	before := baseSize(e)
	r := e.rawBuffer()
	if end > len(r.b) {
		r.b = append(r.b, make([]byte, end-len(r.b))...)
	}
	copy(r.b[offset:], val)
	d.accountBase(e, before)
	d.signal(e.key(), true, EvSetRange)
	return len(r.b), nil
}

// rawBuffer converts e's string value to an in-place buffer and returns it.
func (e *entry) rawBuffer() *rawString {
	if r, ok := e.val.(*rawString); ok {
		return r
	}
	cur := e.str()
	b := make([]byte, len(cur), len(cur)+len(cur)/2+16)
	copy(b, cur)
	r := &rawString{b: b}
	e.setObj(TypeString, r)
	e.setRawEncoding(true)
	return r
}

// StringEncoding returns what OBJECT ENCODING reports for a string value v
// (tryObjectEncoding's choice): "int" for a value that string2l accepts
// (unless stored by SetStringNoInt),
// "embstr" up to 44 bytes, "raw" beyond, or for values edited in place.
func stringEncoding(e *entry) string {
	v := e.str()
	if e.rawEncoding() {
		return "raw"
	}
	if len(v) <= 20 && e.meta&metaNoIntStr == 0 {
		if _, ok := protocol.ParseInt(v); ok {
			return "int"
		}
	}
	if len(v) > 44 {
		return "raw"
	}
	return "embstr"
}
