package rdb

import (
	"math"
	"slices"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Reading one object body (rdbLoadObject), every type and encoding Redis
// 7.0 loads. Collections are checked as Redis checks them: duplicates in
// hashtable encodings always, in compact blobs only with deep
// (sanitize-dump-payload); an empty collection is ErrEmptyKey.

// readObject reads the body of an object of RDB type t.
func (d *decoder) readObject(t byte) (*Value, error) {
	v, err := d.readObjectBody(t)
	if v != nil {
		v.Type = t
	}
	return v, err
}

func (d *decoder) readObjectBody(t byte) (*Value, error) {
	switch t {
	case TypeString:
		s, err := d.readString()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindString, Str: s}, nil
	case TypeList, TypeSet:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		elems := make([]string, 0, min(n, 1024))
		for range n {
			b, err := d.readString()
			if err != nil {
				return nil, err
			}
			elems = append(elems, string(b))
		}
		if t == TypeList {
			return nonEmpty(&Value{Kind: KindList, Elems: elems})
		}
		if hasDup(elems, 1) {
			return nil, d.fail("Duplicate set members detected")
		}
		return nonEmpty(&Value{Kind: KindSet, Elems: elems})
	case TypeZSet, TypeZSet2:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		v := &Value{Kind: KindZSet, Elems: make([]string, 0, min(n, 1024)), Scores: make([]float64, 0, min(n, 1024))}
		for range n {
			m, err := d.readString()
			if err != nil {
				return nil, err
			}
			var score float64
			if t == TypeZSet {
				score, err = d.readDouble()
			} else {
				score, err = d.readBinaryDouble()
			}
			if err != nil {
				return nil, err
			}
			if math.IsNaN(score) {
				return nil, d.fail("Zset with NAN score detected")
			}
			v.Elems = append(v.Elems, string(m))
			v.Scores = append(v.Scores, score)
		}
		if hasDup(v.Elems, 1) {
			return nil, d.fail("Duplicate zset fields detected")
		}
		return nonEmpty(v)
	case TypeHash:
		n, err := d.readCount()
		if err != nil {
			return nil, err
		}
		elems := make([]string, 0, min(2*n, 2048))
		for range 2 * n {
			b, err := d.readString()
			if err != nil {
				return nil, err
			}
			elems = append(elems, string(b))
		}
		if hasDup(elems, 2) {
			return nil, d.fail("Duplicate hash fields detected")
		}
		return nonEmpty(&Value{Kind: KindHash, Elems: elems})
	case TypeListQuicklist, TypeListQuicklist2:
		return d.readQuicklist(t)
	case TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZSetZiplist, TypeHashZiplist,
		TypeHashListpack, TypeZSetListpack, TypeSetListpack:
		blob, err := d.readString()
		if err != nil {
			return nil, err
		}
		v, err := d.decodeBlob(t, blob)
		if err != nil {
			return nil, d.fail("%v", err)
		}
		return nonEmpty(v)
	case TypeStreamListpacks, TypeStreamListpack2, TypeStreamListpack3:
		return d.readStream(t)
	}
	return nil, d.fail("unknown object type %d", t)
}

func nonEmpty(v *Value) (*Value, error) {
	if len(v.Elems) == 0 && len(v.Ints) == 0 {
		return nil, ErrEmptyKey
	}
	return v, nil
}

// readQuicklist reads a quicklist of ziplists (14) or of listpacks and
// plain nodes (18). Empty nodes are skipped, as Redis skips them.
func (d *decoder) readQuicklist(t byte) (*Value, error) {
	n, err := d.readCount()
	if err != nil {
		return nil, err
	}
	v := &Value{Kind: KindList}
	for range n {
		container := uint64(quicklistPacked)
		if t == TypeListQuicklist2 {
			var enc bool
			if container, enc, err = d.readLen(); err != nil {
				return nil, err
			}
			if enc || (container != quicklistPacked && container != quicklistPlain) {
				return nil, d.fail("Quicklist integrity check failed")
			}
		}
		blob, err := d.readString()
		if err != nil {
			return nil, err
		}
		var elems []string
		switch {
		case container == quicklistPlain:
			v.Elems = append(v.Elems, string(blob))
			continue
		case t == TypeListQuicklist:
			elems, err = DecodeZiplist(blob)
		default:
			elems, err = DecodeListpack(blob)
		}
		if err != nil {
			return nil, d.fail("%v", err)
		}
		v.Elems = append(v.Elems, elems...)
	}
	return nonEmpty(v)
}

// decodeBlob decodes the compact blob of an object of type t.
func (d *decoder) decodeBlob(t byte, blob []byte) (*Value, error) {
	var elems []string
	var err error
	switch t {
	case TypeSetIntset:
		ints, err := DecodeIntset(blob)
		if err != nil {
			return nil, err
		}
		return &Value{Kind: KindSet, Ints: ints, Compact: true}, nil
	case TypeHashZipmap:
		elems, err = DecodeZipmap(blob)
	case TypeListZiplist, TypeZSetZiplist, TypeHashZiplist:
		elems, err = DecodeZiplist(blob)
	default:
		elems, err = DecodeListpack(blob)
	}
	if err != nil {
		return nil, err
	}
	switch t {
	case TypeListZiplist:
		return &Value{Kind: KindList, Elems: elems}, nil
	case TypeSetListpack:
		if d.deep && hasDup(elems, 1) {
			return nil, ErrListpack
		}
		return &Value{Kind: KindSet, Elems: elems}, nil
	case TypeHashZipmap, TypeHashZiplist, TypeHashListpack:
		// Converting a zipmap or ziplist always checks for duplicates
		// (ziplistPairsConvertAndValidateIntegrity); a listpack only deeply.
		if len(elems)%2 != 0 || ((d.deep || t != TypeHashListpack) && hasDup(elems, 2)) {
			return nil, ErrListpack
		}
		return &Value{Kind: KindHash, Elems: elems, Compact: t == TypeHashListpack}, nil
	}
	// sorted sets: member, score pairs
	if len(elems)%2 != 0 {
		return nil, ErrListpack
	}
	v := &Value{Kind: KindZSet, Compact: t == TypeZSetListpack}
	v.Elems = make([]string, 0, len(elems)/2)
	v.Scores = make([]float64, 0, len(elems)/2)
	for i := 0; i < len(elems); i += 2 {
		f := zzlStrtod(elems[i+1])
		v.Elems = append(v.Elems, elems[i])
		v.Scores = append(v.Scores, f)
	}
	if (d.deep || t == TypeZSetZiplist) && hasDup(v.Elems, 1) {
		return nil, ErrListpack
	}
	return v, nil
}

// hasDup reports whether elems (every step-th one, from 0) has a repeat.
func hasDup(elems []string, step int) bool {
	if len(elems) <= step {
		return false
	}
	seen := make(map[string]struct{}, len(elems)/step)
	for i := 0; i < len(elems); i += step {
		if _, ok := seen[elems[i]]; ok {
			return true
		}
		seen[elems[i]] = struct{}{}
	}
	return false
}

// IntMembers returns a set's members as strings (decimal for an intset).
func (v *Value) IntMembers() []string {
	if v.Ints == nil {
		return v.Elems
	}
	out := make([]string, len(v.Ints))
	for i, x := range v.Ints {
		out[i] = strconv.FormatInt(x, 10)
	}
	return out
}

// sortZSet orders a sorted set's members by (score, member), as the
// encoder expects them.
func sortZSet(v *Value) {
	idx := make([]int, len(v.Elems))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case v.Scores[a] < v.Scores[b]:
			return -1
		case v.Scores[a] > v.Scores[b]:
			return 1
		}
		if v.Elems[a] < v.Elems[b] {
			return -1
		}
		if v.Elems[a] > v.Elems[b] {
			return 1
		}
		return 0
	})
	e := make([]string, len(idx))
	s := make([]float64, len(idx))
	for i, j := range idx {
		e[i], s[i] = v.Elems[j], v.Scores[j]
	}
	v.Elems, v.Scores = e, s
}

// zzlStrtod reads a score stored in a compact blob as Redis's zzlStrtod
// does: strtod of the text, so a damaged score reads as its longest
// numeric prefix, or 0 (Redis does not check scores on load).
func zzlStrtod(s string) float64 {
	if f, ok := protocol.ParseStrtod([]byte(s)); ok {
		return f
	}
	for n := min(len(s), 128) - 1; n > 0; n-- {
		if f, ok := protocol.ParseStrtod([]byte(s[:n])); ok {
			return f
		}
	}
	return 0
}
