package db

import (
	"github.com/miniwatchd/miniwatchd/hll"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// HyperLogLog values (Redis hyperloglog.c's commands): an HLL is a string
// whose bytes package hll reads and writes. Every write converts the value
// to an owned raw buffer first (Redis's dbUnshareStringValue, which makes
// OBJECT ENCODING "raw"), even when nothing else changes.

// Errors of the HyperLogLog commands, with Redis's texts.
var (
	ErrNotHLL     = protocol.Error("WRONGTYPE Key is not a valid HyperLogLog string value.")
	ErrInvalidHLL = protocol.Error("INVALIDOBJ Corrupted HLL object detected")
	ErrNoSuchHLL  = protocol.Error("ERR The specified key does not exist")
)

// EvPFAdd is raised by PFADD and PFMERGE.
var EvPFAdd = Event{ClassString, "pfadd"}

// hllEntry checks that e holds a valid HLL (isHLLObjectOrReply).
func hllEntry(e *entry) error {
	if e.typ() != TypeString {
		return protocol.ErrWrongType
	}
	if !hll.IsValid(e.str()) {
		return ErrNotHLL
	}
	return nil
}

// newHLLEntry inserts an empty sparse HLL at key and returns it.
func (d *DB) newHLLEntry(key []byte) *entry {
	e := newEntry(key, TypeString)
	e.setObj(TypeString, &rawString{b: hll.New()})
	e.setRawEncoding(true)
	d.insert(e)
	return e
}

// PFAdd adds elems to the HLL at key, creating it when missing (PFADD),
// and reports whether a register changed or the key was created. It
// signals once, with "pfadd", only then. A corrupted sparse value stops it
// with ErrInvalidHLL and no signal, with the registers already raised kept,
// as Redis does. sparseMax is hll-sparse-max-bytes.
func (d *DB) PFAdd(key []byte, elems [][]byte, sparseMax int64) (bool, error) {
	e := d.lookupWrite(key)
	updated := 0
	var before int64
	if e == nil {
		e = d.newHLLEntry(key)
		before = baseSize(e)
		updated++
	} else {
		if err := hllEntry(e); err != nil {
			return false, err
		}
		before = baseSize(e)
	}
	r := e.rawBuffer()
	for _, ele := range elems {
		var ret int
		r.b, ret = hll.Add(r.b, ele, sparseMax)
		if ret < 0 {
			d.accountBase(e, before)
			return false, ErrInvalidHLL
		}
		updated += ret
	}
	d.accountBase(e, before)
	if updated == 0 {
		return false, nil
	}
	hll.InvalidateCache(r.b)
	d.signal(e.key(), true, EvPFAdd)
	d.ks.Stats.Dirty += int64(updated) - 1 // Redis counts each change
	return true, nil
}

// PFCount returns the cardinality of the HLL at key (PFCOUNT of one key),
// a read lookup. With a stale cache it computes the estimate and writes it
// into the value's header, which is a modification: it signals (without a
// keyspace event) and reports cacheWritten, as Redis's pfcountCommand
// calls signalModifiedKey and counts a change.
func (d *DB) PFCount(key []byte) (card int64, cacheWritten bool, err error) {
	e := d.lookup(bstr(key), lookupRead)
	if e == nil {
		return 0, false, nil
	}
	if err := hllEntry(e); err != nil {
		return 0, false, err
	}
	before := baseSize(e)
	r := e.rawBuffer()
	d.accountBase(e, before)
	if c, ok := hll.CachedCard(r.b); ok {
		return int64(c), false, nil
	}
	c, invalid := hll.Count(r.b)
	if invalid {
		return 0, false, ErrInvalidHLL
	}
	hll.SetCachedCard(r.b, c)
	d.signal(e.key(), true)
	return int64(c), true, nil
}

// PFCountUnion returns the cardinality of the union of the HLLs at keys
// (PFCOUNT of several keys), read lookups; missing keys count as empty.
// It changes nothing.
func (d *DB) PFCountUnion(keys [][]byte) (int64, error) {
	var max [hll.Registers]uint8
	if err := d.mergeHLLs(keys, &max, nil); err != nil {
		return 0, err
	}
	return int64(hll.CountRegisters(&max)), nil
}

// mergeHLLs raises max to the registers of every HLL at keys (read
// lookups), reporting through anyDense whether one was dense.
func (d *DB) mergeHLLs(keys [][]byte, max *[hll.Registers]uint8, anyDense *bool) error {
	for _, k := range keys {
		e := d.lookup(bstr(k), lookupRead)
		if e == nil {
			continue
		}
		if err := hllEntry(e); err != nil {
			return err
		}
		b := e.str()
		if anyDense != nil && hll.Encoding(b) == hll.Dense {
			*anyDense = true
		}
		if hll.Merge(max, b) != nil {
			return ErrInvalidHLL
		}
	}
	return nil
}

// PFMerge stores the union of the HLLs at srcs and of dst's own into dst
// (PFMERGE dst src...: Redis reads dst as a source too, so keys is the
// command's key list starting with dst), creating dst when missing. It
// always signals dst once with "pfadd". The result is dense when any input
// was. sparseMax is hll-sparse-max-bytes.
func (d *DB) PFMerge(keys [][]byte, sparseMax int64) error {
	var max [hll.Registers]uint8
	anyDense := false
	if err := d.mergeHLLs(keys, &max, &anyDense); err != nil {
		return err
	}
	dst := keys[0]
	e := d.lookupWrite(dst)
	if e == nil {
		e = d.newHLLEntry(dst)
	}
	before := baseSize(e)
	r := e.rawBuffer()
	if anyDense {
		dense, err := hll.SparseToDense(r.b)
		if err != nil {
			d.accountBase(e, before)
			return ErrInvalidHLL
		}
		r.b = dense
	}
	for j, v := range max {
		if v != 0 {
			r.b, _ = hll.SetRegister(r.b, j, v, sparseMax)
		}
	}
	hll.InvalidateCache(r.b)
	d.accountBase(e, before)
	d.signal(e.key(), true, EvPFAdd)
	return nil
}

// PFDebug looks the HLL at key up for PFDEBUG (a write lookup) and returns
// its bytes, which alias the stored value until the next write. With
// toDense a sparse value is converted first and converted reports it: that
// counts as a change (so the command propagates) but, as in Redis, touches
// no watcher and raises no event.
func (d *DB) PFDebug(key []byte, toDense bool) (val []byte, converted bool, err error) {
	e := d.lookupWrite(key)
	if e == nil {
		return nil, false, ErrNoSuchHLL
	}
	if err := hllEntry(e); err != nil {
		return nil, false, err
	}
	before := baseSize(e)
	r := e.rawBuffer()
	defer d.accountBase(e, before)
	if toDense && hll.Encoding(r.b) == hll.Sparse {
		dense, err := hll.SparseToDense(r.b)
		if err != nil {
			return nil, false, ErrInvalidHLL
		}
		r.b = dense
		d.ks.Stats.Dirty++
		converted = true
	}
	return r.b, converted, nil
}
