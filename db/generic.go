package db

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Generic key operations (Redis db.c and expire.c's commands' type API).

// object is implemented by every aggregate value type and by rawString.
type object interface {
	// dup returns a deep copy (COPY).
	dup() object
}

func (r *rawString) dup() object {
	return &rawString{b: append([]byte(nil), r.b...)}
}

// Exists reports whether key exists (EXISTS: a read lookup that does not
// refresh the LRU data).
func (d *DB) Exists(key []byte) bool {
	return d.lookup(bstr(key), lookupRead|lookupNoTouch) != nil
}

// TypeOf returns the type of key's value, TypeNone when missing (TYPE).
func (d *DB) TypeOf(key []byte) Type {
	e := d.lookup(bstr(key), lookupRead|lookupNoTouch)
	if e == nil {
		return TypeNone
	}
	return e.typ()
}

// Delete removes key and reports whether it existed (DEL, UNLINK). A stale
// key is expired first, so deleting it reports false (spec X-3).
func (d *DB) Delete(key []byte) bool {
	e := d.lookup(bstr(key), lookupNoTouch)
	if e == nil {
		return false
	}
	k := e.key()
	d.unlink(e)
	d.signal(k, false, EvDel)
	return true
}

// Deadline returns key's deadline in unix ms: -1 without TTL, -2 when the
// key is missing (TTL, PTTL, EXPIRETIME, PEXPIRETIME).
func (d *DB) Deadline(key []byte) int64 {
	e := d.lookup(bstr(key), lookupRead|lookupNoTouch)
	if e == nil {
		return -2
	}
	return d.deadline(e)
}

// DeadlineForWrite is Deadline as the first step of a write (EXPIRE's
// NX/XX/GT/LT checks): no read statistics, no LRU refresh.
func (d *DB) DeadlineForWrite(key []byte) int64 {
	e := d.lookup(bstr(key), lookupNoTouch)
	if e == nil {
		return -2
	}
	return d.deadline(e)
}

// Expire gives key the deadline at (unix ms) and reports whether the key
// exists. A deadline not after the current time deletes the key instead, as
// expireGenericCommand does (event "del" rather than "expire").
func (d *DB) Expire(key []byte, at int64) bool {
	e := d.lookup(bstr(key), lookupNoTouch)
	if e == nil {
		return false
	}
	k := e.key()
	if at <= d.ks.nowMs {
		d.unlink(e)
		d.signal(k, false, EvDel)
		return true
	}
	d.setDeadline(e, at)
	d.signal(k, true, EvExpire)
	return true
}

// Persist removes key's TTL and reports whether it had one (PERSIST,
// GETEX PERSIST).
func (d *DB) Persist(key []byte) bool {
	e := d.lookup(bstr(key), lookupNoTouch)
	if e == nil || !d.clearDeadline(e) {
		return false
	}
	d.signal(e.key(), true, EvPersist)
	return true
}

// Rename moves src's value and TTL to dst, replacing dst unless nx (RENAME,
// RENAMENX). It returns ErrNoSuchKey when src is missing, and false when nx
// and dst exists. Renaming a key onto itself changes nothing.
func (d *DB) Rename(src, dst []byte, nx bool) (bool, error) {
	e := d.lookup(bstr(src), lookupNoTouch)
	if e == nil {
		return false, protocol.ErrNoSuchKey
	}
	if string(src) == string(dst) {
		return !nx, nil
	}
	when := d.deadline(e)
	if old := d.lookup(bstr(dst), lookupNoTouch); old != nil {
		if nx {
			return false, nil
		}
		d.unlink(old)
	}
	srcKey := e.key()
	d.unlink(e)
	n := moveEntry(e, string(dst))
	d.insert(n)
	if when >= 0 {
		d.setDeadline(n, when)
	}
	d.signal(srcKey, false, EvRenameFrom)
	d.signal(n.key(), true, EvRenameTo)
	return true, nil
}

// moveEntry returns a new entry named key holding e's value and access data
// (the value object itself moves, as Redis moves the robj).
func moveEntry(e *entry, key string) *entry {
	var n *entry
	if e.val == nil {
		n = newStringEntry(key, e.str())
	} else {
		n = newEntry(key, TypeNone)
		n.val = e.val
	}
	n.copyMeta(e.meta &^ metaHasTTL)
	return n
}

// Move moves key with its TTL to database to (MOVE). It reports false when
// the key is missing here or exists there.
func (d *DB) Move(key []byte, to *DB) bool {
	e := d.lookup(bstr(key), lookupNoTouch)
	if e == nil {
		return false
	}
	when := d.deadline(e)
	if to.lookup(bstr(key), lookupNoTouch) != nil {
		return false
	}
	k := e.key()
	d.unlink(e)
	n := moveEntry(e, k)
	to.insert(n)
	if when >= 0 {
		to.setDeadline(n, when)
	}
	d.signal(k, false, EvMoveFrom)
	to.signal(k, true, EvMoveTo)
	return true
}

// Copy copies src's value and TTL to dstKey in database to (COPY). It
// reports false when src is missing, or dstKey exists and !replace. The
// caller rejects copying a key onto itself.
func (d *DB) Copy(src []byte, to *DB, dstKey []byte, replace bool) bool {
	e := d.lookup(bstr(src), lookupRead)
	if e == nil {
		return false
	}
	when := d.deadline(e)
	if old := to.lookup(bstr(dstKey), 0); old != nil {
		if !replace {
			return false
		}
		to.unlink(old)
	}
	var n *entry
	if e.val == nil {
		n = newStringEntry(dstKey, e.str())
	} else {
		n = newEntry(dstKey, TypeNone)
		n.val = e.val.(object).dup()
	}
	n.copyMeta(e.meta & (metaTypeMask | metaRawStr | metaNoIntStr))
	to.insert(n)
	if when >= 0 {
		to.setDeadline(n, when)
	}
	to.signal(n.key(), true, EvCopyTo)
	return true
}

// RandomKey returns a random key, expiring the stale ones it meets
// (RANDOMKEY, Redis's dbRandomKey); ok is false when the db is empty.
func (d *DB) RandomKey() (key string, ok bool) {
	for {
		e := d.data.main.FairRandom()
		if e == nil {
			return "", false
		}
		if e.hasTTL() && d.removeIfStale(e) {
			continue
		}
		return e.key(), true
	}
}

// ScanOptions are SCAN's filters.
type ScanOptions struct {
	Count   int    // COUNT, >= 1 (default 10)
	Pattern []byte // MATCH; nil or "*" matches everything
	Type    []byte // TYPE; nil for any
}

// Scan runs one SCAN step from cursor and returns the next cursor and the
// keys to reply with, filtered as Redis's scanGenericCommand does: pattern
// first, then type (a read lookup that may expire the key), then expiry
// (which deletes stale keys through the expiry path).
func (d *DB) Scan(cursor uint64, opt ScanOptions, keys []string) (uint64, []string) {
	count := opt.Count
	if count < 1 {
		count = 10
	}
	maxIter := count * 10
	start := len(keys)
	for {
		cursor = d.data.main.Scan(cursor, func(e *entry) { keys = append(keys, e.key()) })
		if cursor == 0 || maxIter == 0 || len(keys)-start >= count {
			break
		}
		maxIter--
	}
	usePattern := opt.Pattern != nil && !(len(opt.Pattern) == 1 && opt.Pattern[0] == '*')
	out := keys[:start]
	for _, k := range keys[start:] {
		if usePattern && !glob.Match(opt.Pattern, sbytes(k)) {
			continue
		}
		if opt.Type != nil {
			e := d.lookup(k, lookupRead|lookupNoTouch)
			t := TypeNone
			if e != nil {
				t = e.typ()
			}
			if !strings.EqualFold(string(opt.Type), t.String()) {
				continue
			}
		}
		if e := d.data.main.Find(k); e == nil || (e.hasTTL() && d.removeIfStale(e)) {
			continue
		}
		out = append(out, k)
	}
	return cursor, out
}

// Keys calls fn for every key matching pattern that is not past its
// deadline (KEYS: stale keys are skipped but not deleted).
func (d *DB) Keys(pattern []byte, fn func(key string)) {
	all := len(pattern) == 1 && pattern[0] == '*'
	d.data.main.Each(func(e *entry) bool {
		k := e.key()
		if all || glob.Match(pattern, sbytes(k)) {
			if !d.stale(e) {
				fn(k)
			}
		}
		return true
	})
}

// Touch refreshes the access data of key and reports whether it exists
// (TOUCH).
func (d *DB) Touch(key []byte) bool { return d.lookup(bstr(key), lookupRead) != nil }

// ObjectInfo is what OBJECT reports about a key.
type ObjectInfo struct {
	Encoding      string
	IdleMs        int64
	Freq          uint32
	SharedInteger bool // an "int" string in [0, 10000): Redis shares these objects
}

// Object returns OBJECT's view of key without touching its access data;
// ok is false when the key is missing.
func (d *DB) Object(key []byte) (ObjectInfo, bool) {
	e := d.lookup(bstr(key), lookupNoTouch|lookupRead|lookupNoNotify)
	if e == nil {
		return ObjectInfo{}, false
	}
	info := ObjectInfo{
		Encoding: encodingOf(e),
		IdleMs:   d.ks.idleMillis(e),
		Freq:     d.ks.lfuCounter(e),
	}
	if info.Encoding == "int" {
		n, _ := protocol.ParseInt(e.str())
		info.SharedInteger = n >= 0 && n < 10000
	}
	return info, true
}

// encoder is implemented by aggregate values to answer OBJECT ENCODING.
type encoder interface{ encoding() string }

func encodingOf(e *entry) string {
	if e.typ() == TypeString {
		return stringEncoding(e)
	}
	if enc, ok := e.val.(encoder); ok {
		return enc.encoding()
	}
	return "unknown"
}

// KeyIsExpired reports whether key exists and is past its deadline, without
// deleting it or touching anything (Redis's keyIsExpired; WATCH's stale bit
// and EXEC's deadline check use it).
func (d *DB) KeyIsExpired(key []byte) bool {
	e := d.data.main.Find(bstr(key))
	return e != nil && d.stale(e)
}
