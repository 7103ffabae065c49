package db

import "github.com/miniwatchd/miniwatchd/rdb"

// Values in and out of the RDB codec: DUMP and SAVE read keys as
// rdb.Values (ValueOf), RESTORE and loading build keys from them (Restore,
// LoadKey). Building a value never touches the keyspace; the key is then
// added through insert and, for RESTORE, ends in signal like every write.

// EvRestore is RESTORE's keyspace event.
var EvRestore = Event{ClassGeneric, "restore"}

// ValueOf converts a key's value, as persistence sees it, into the codec's
// form with the encoding Redis would save it with. The strings alias the
// stored data: encode them before the next write.
func ValueOf(kv KeyView) *rdb.Value {
	switch kv.Type {
	case TypeString:
		return &rdb.Value{Kind: rdb.KindString, Str: kv.Str}
	case TypeList:
		l := kv.Obj.(*List)
		v := &rdb.Value{Kind: rdb.KindList, Elems: make([]string, l.Len())}
		for i := range v.Elems {
			v.Elems[i] = l.At(i)
		}
		return v
	case TypeSet:
		s := kv.Obj.(*Set)
		if s.ht == nil {
			return &rdb.Value{Kind: rdb.KindSet, Compact: true, Ints: s.ints}
		}
		v := &rdb.Value{Kind: rdb.KindSet, Elems: make([]string, 0, s.Len())}
		s.ht.Each(func(m *setMember) bool {
			v.Elems = append(v.Elems, m.m)
			return true
		})
		return v
	case TypeHash:
		h := kv.Obj.(*Hash)
		v := &rdb.Value{Kind: rdb.KindHash, Compact: h.ht == nil, Elems: make([]string, 0, 2*h.Len())}
		h.Each(func(f, val string) bool {
			v.Elems = append(v.Elems, f, val)
			return true
		})
		return v
	case TypeZSet:
		z := kv.Obj.(*ZSet)
		v := &rdb.Value{Kind: rdb.KindZSet, Compact: z.listpack, Elems: make([]string, 0, z.Len()), Scores: make([]float64, 0, z.Len())}
		for n := z.zsl.first(); n != nil; n = n.Next() {
			v.Elems = append(v.Elems, n.member)
			v.Scores = append(v.Scores, n.score)
		}
		return v
	case TypeStream:
		return &rdb.Value{Kind: rdb.KindStream, Stream: streamValue(kv.Obj.(*Stream))}
	}
	return nil
}

// newObject builds the stored form of v with the encodings Redis 7.0's
// rdbLoadObject ends with under the current limits.
func (ks *Keyspace) newObject(key []byte, v *rdb.Value) *entry {
	lim := &ks.limits
	switch v.Kind {
	case rdb.KindString:
		return newStringEntry(key, v.Str)
	case rdb.KindList:
		l := &List{}
		l.grow(len(v.Elems))
		for _, s := range v.Elems {
			l.pushBack(s)
		}
		return objEntry(key, TypeList, l)
	case rdb.KindSet:
		var s *Set
		if v.Ints != nil {
			s = &Set{}
			for _, x := range v.Ints {
				s.addInt(x, lim)
			}
		} else {
			s = newSetFor([]byte(v.Elems[0]))
			for _, m := range v.Elems {
				s.add([]byte(m), lim)
			}
		}
		return objEntry(key, TypeSet, s)
	case rdb.KindHash:
		h := &Hash{}
		if int64(len(v.Elems)/2) > lim.HashMaxListpackEntries {
			h.convert()
		}
		if v.FromBlob() && h.ht == nil {
			// A ziplist or listpack stays one whatever its values' lengths.
			for i := 0; i+1 < len(v.Elems); i += 2 {
				f, val := []byte(v.Elems[i]), []byte(v.Elems[i+1])
				if j := h.lpIndex(bstr(f)); j >= 0 {
					h.strBytes -= allocSize(len(h.lp[j].kv))
					h.lp[j] = newHashEntry(f, val)
					h.strBytes += allocSize(len(h.lp[j].kv))
					continue
				}
				h.lp = append(h.lp, newHashEntry(f, val))
				h.strBytes += allocSize(len(f) + len(val))
			}
			return objEntry(key, TypeHash, h)
		}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			h.set([]byte(v.Elems[i]), []byte(v.Elems[i+1]), lim)
		}
		return objEntry(key, TypeHash, h)
	case rdb.KindZSet:
		z := newZSet(false)
		z.dict.expand(len(v.Elems))
		maxLen := 0
		for i, m := range v.Elems {
			if z.dict.Find(m) != nil {
				continue // a duplicate the shallow check let through: the first stays
			}
			z.insertNew(v.Scores[i], m)
			maxLen = max(maxLen, len(m))
		}
		if v.FromBlob() {
			maxLen = 0 // a ziplist or listpack stays one whatever its members' lengths
		}
		z.toListpackIfSmall(maxLen, lim)
		return objEntry(key, TypeZSet, z)
	case rdb.KindStream:
		return objEntry(key, TypeStream, newStreamFrom(v.Stream))
	}
	return nil
}

func objEntry(key []byte, t Type, v any) *entry {
	e := newEntry(key, t)
	e.setObj(t, v)
	return e
}

// ExistsForWrite reports whether key exists, looked up as a write looks it
// up (a stale key is expired first; no hit or miss is counted).
func (d *DB) ExistsForWrite(key []byte) bool { return d.lookupWrite(key) != nil }

// LookupView returns key's value for a read command (DUMP): it counts a
// hit or miss and expires a stale key, as lookupKeyRead does.
func (d *DB) LookupView(key []byte) (KeyView, bool) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return KeyView{}, false
	}
	return d.view(e), true
}

// RestoreOptions are RESTORE's: an absolute deadline (unix ms, -1 for
// none), and IDLETIME (seconds) or FREQ, -1 when not given.
type RestoreOptions struct {
	Deadline int64
	IdleSecs int64
	Freq     int
}

// Restore adds key with value v (RESTORE, after the caller checked BUSYKEY
// and the payload): an existing key is replaced when replace is set. A
// deadline already past adds nothing; it then signals a deletion only when
// an old key was replaced. It reports whether an old key was deleted and
// whether the new key was added.
func (d *DB) Restore(key []byte, v *rdb.Value, o RestoreOptions, replace bool) (deleted, added bool) {
	if replace {
		if old := d.lookupWrite(key); old != nil {
			d.unlink(old)
			deleted = true
		}
	}
	if o.Deadline >= 0 && o.Deadline <= d.ks.nowMs {
		if deleted {
			d.signal(string(key), false, EvDel)
		}
		return deleted, false
	}
	e := d.ks.newObject(key, v)
	d.insert(e)
	if o.Deadline >= 0 {
		d.setDeadline(e, o.Deadline)
	}
	d.ks.setAccess(e, o.IdleSecs, o.Freq)
	d.signal(e.key(), true, EvRestore)
	return deleted, true
}

// LoadKey adds a key read from an RDB file at start (rdbLoad's dbAddRDBLoad):
// no signal, as nothing can watch yet. A key already present is replaced.
// A deadline already past is still loaded, as a master loads it; expiry
// removes it later.
func (d *DB) LoadKey(key []byte, v *rdb.Value, o RestoreOptions) {
	if old := d.data.main.Find(bstr(key)); old != nil {
		d.unlink(old)
	}
	e := d.ks.newObject(key, v)
	d.insert(e)
	if o.Deadline >= 0 {
		d.setDeadline(e, o.Deadline)
	}
	d.ks.setAccess(e, o.IdleSecs, o.Freq)
}

// Reserve sizes an empty database's tables for keys keys, expires of them
// with a TTL (RDB's RESIZEDB hint, as rdbLoad's dictExpand), so loading
// does not rehash. Bounded, since the hint comes from the file.
func (d *DB) Reserve(keys, expires uint64) {
	const most = 1 << 26
	if d.data.main.Len() == 0 && keys > 0 {
		d.data.main.expand(int(min(keys, most)))
	}
	if d.data.expires.Len() == 0 && expires > 0 {
		d.data.expires.expand(int(min(expires, most)))
	}
}

// setAccess is objectSetLRUOrLFU: FREQ under an LFU policy, IDLETIME
// otherwise (-1 leaves the fresh access data).
func (ks *Keyspace) setAccess(e *entry, idleSecs int64, freq int) {
	if ks.lfu {
		if freq >= 0 {
			e.setLRU(ks.lfuMinutes()<<8 | uint32(freq))
		}
		return
	}
	if idleSecs < 0 {
		return
	}
	clock := int64(ks.LRUClock())
	abs := clock - idleSecs*1000/lruClockResolution
	if abs < 0 {
		abs = (clock + lruClockMax/2) % lruClockMax
	}
	e.setLRU(uint32(abs))
}

// AccessMeta returns what SAVE writes before a key under an LRU policy
// (idle seconds) or an LFU policy (the counter); -1 for the other.
func (ks *Keyspace) AccessMeta(key string, d *DB, lru bool) (idleSecs int64, freq int) {
	e := d.data.main.Find(key)
	if e == nil {
		return -1, -1
	}
	if ks.lfu {
		return -1, int(ks.lfuCounter(e))
	}
	if lru {
		return ks.idleMillis(e) / 1000, -1
	}
	return -1, -1
}
