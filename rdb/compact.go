package rdb

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
)

// The older compact blobs Redis 7.0 still loads (ziplist, zipmap) and the
// intset (intset.c), which 7.0 also writes.

var (
	// ErrZiplist is a ziplist blob that does not parse.
	ErrZiplist = errors.New("invalid ziplist")
	// ErrZipmap is a zipmap blob that does not parse.
	ErrZipmap = errors.New("invalid zipmap")
	// ErrIntset is an intset blob that does not parse.
	ErrIntset = errors.New("invalid intset")
)

// DecodeZiplist returns the elements of ziplist zl (ziplist.c), the
// encoding of RDB files written before Redis 7.
func DecodeZiplist(zl []byte) ([]string, error) {
	if len(zl) < 11 || int64(binary.LittleEndian.Uint32(zl)) != int64(len(zl)) || zl[len(zl)-1] != 0xff {
		return nil, ErrZiplist
	}
	hdrCount := int(binary.LittleEndian.Uint16(zl[8:]))
	out := make([]string, 0, min(hdrCount, len(zl)/2))
	p := 10
	end := len(zl) - 1
	for p < end {
		if zl[p] == 0xfe { // previous entry length: 1 or 5 bytes
			p += 5
		} else {
			p++
		}
		if p >= end {
			return nil, ErrZiplist
		}
		b := zl[p]
		var elem string
		switch {
		case b>>6 == 0: // 00pppppp
			n := int(b & 0x3f)
			if n > end-p-1 {
				return nil, ErrZiplist
			}
			elem, p = string(zl[p+1:p+1+n]), p+1+n
		case b>>6 == 1: // 01pppppp qqqqqqqq (big endian)
			if p+2 > end {
				return nil, ErrZiplist
			}
			n := int(b&0x3f)<<8 | int(zl[p+1])
			if n > end-p-2 {
				return nil, ErrZiplist
			}
			elem, p = string(zl[p+2:p+2+n]), p+2+n
		case b == 0x80: // 10000000 + 4 bytes big endian
			if p+5 > end {
				return nil, ErrZiplist
			}
			n := int64(binary.BigEndian.Uint32(zl[p+1:]))
			if n > int64(end-p-5) {
				return nil, ErrZiplist
			}
			elem, p = string(zl[p+5:p+5+int(n)]), p+5+int(n)
		default:
			width := 0
			switch b {
			case 0xc0:
				width = 2
			case 0xd0:
				width = 4
			case 0xe0:
				width = 8
			case 0xf0:
				width = 3
			case 0xfe:
				width = 1
			default:
				if b < 0xf1 || b > 0xfd { // 1111xxxx: 0..12 inline
					return nil, ErrZiplist
				}
				elem, p = strconv.Itoa(int(b&0x0f)-1), p+1
			}
			if width > 0 {
				if p+1+width > end {
					return nil, ErrZiplist
				}
				elem, p = strconv.FormatInt(signedLE(zl[p+1:p+1+width]), 10), p+1+width
			}
		}
		out = append(out, elem)
	}
	if p != end || (hdrCount != 65535 && hdrCount != len(out)) {
		return nil, ErrZiplist
	}
	return out, nil
}

// DecodeZipmap returns the fields and values, interleaved, of zipmap zm
// (zipmap.c, hashes of Redis 2.x RDB files).
func DecodeZipmap(zm []byte) ([]string, error) {
	if len(zm) < 2 || zm[len(zm)-1] != 0xff {
		return nil, ErrZipmap
	}
	p := 1
	end := len(zm) - 1
	readLen := func() (int, bool) {
		if p >= end {
			return 0, false
		}
		b := zm[p]
		if b < 254 {
			p++
			return int(b), true
		}
		if b == 254 && p+5 <= end {
			n := int64(binary.LittleEndian.Uint32(zm[p+1:]))
			p += 5
			return int(n), n <= int64(end)
		}
		return 0, false
	}
	var out []string
	for p < end {
		klen, ok := readLen()
		if !ok || klen > end-p {
			return nil, ErrZipmap
		}
		out = append(out, string(zm[p:p+klen]))
		p += klen
		vlen, ok := readLen()
		if !ok || p >= end {
			return nil, ErrZipmap
		}
		free := int(zm[p])
		p++
		if vlen > end-p || free > end-p-vlen {
			return nil, ErrZipmap
		}
		out = append(out, string(zm[p:p+vlen]))
		p += vlen + free
	}
	if p != end {
		return nil, ErrZipmap
	}
	return out, nil
}

// DecodeIntset returns the members of intset is, checking that they are
// ascending and distinct as intsetValidateIntegrity does.
func DecodeIntset(is []byte) ([]int64, error) {
	if len(is) < 8 {
		return nil, ErrIntset
	}
	width := int64(binary.LittleEndian.Uint32(is))
	n := int64(binary.LittleEndian.Uint32(is[4:]))
	if (width != 2 && width != 4 && width != 8) || 8+n*width != int64(len(is)) {
		return nil, ErrIntset
	}
	out := make([]int64, n)
	w := int(width)
	for i := range out {
		out[i] = signedLE(is[8+i*w : 8+(i+1)*w])
		if i > 0 && out[i] <= out[i-1] {
			return nil, ErrIntset
		}
	}
	return out, nil
}

// AppendIntset appends the intset of the ascending, distinct ints, with
// the narrowest width that holds them all (_intsetValueEncoding).
func AppendIntset(b []byte, ints []int64) []byte {
	width := 2
	if len(ints) > 0 {
		lo, hi := ints[0], ints[len(ints)-1]
		if !slices.IsSorted(ints) {
			lo, hi = slices.Min(ints), slices.Max(ints)
		}
		for _, v := range [2]int64{lo, hi} {
			switch {
			case v < -2147483648 || v > 2147483647:
				width = 8
			case (v < -32768 || v > 32767) && width < 4:
				width = 4
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ints)))
	for _, v := range ints {
		switch width {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}
