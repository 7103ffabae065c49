package aof

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Decoders of the compact encodings an RDB file stores as blobs: listpack
// (Redis 7), ziplist (older files) and intset. Each returns the elements
// as strings (integers in decimal, as Redis reads them back).

var (
	errListpack = errors.New("invalid listpack")
	errZiplist  = errors.New("invalid ziplist")
	errIntset   = errors.New("invalid intset")
)

// decodeListpack returns the elements of listpack lp (listpack.c).
func decodeListpack(lp []byte) ([][]byte, error) {
	if len(lp) < 7 || int(binary.LittleEndian.Uint32(lp)) != len(lp) || lp[len(lp)-1] != 0xff {
		return nil, errListpack
	}
	var out [][]byte
	p := 6
	for {
		if p >= len(lp) {
			return nil, errListpack
		}
		b := lp[p]
		if b == 0xff {
			break
		}
		var elem []byte
		var hdr, size int // encoding header bytes, payload bytes
		switch {
		case b&0x80 == 0: // 0xxxxxxx: 7-bit unsigned
			hdr, elem = 1, strconv.AppendInt(nil, int64(b&0x7f), 10)
		case b&0xc0 == 0x80: // 10xxxxxx: string up to 63 bytes
			hdr, size = 1, int(b&0x3f)
		case b&0xe0 == 0xc0: // 110xxxxx: 13-bit signed
			if p+1 >= len(lp) {
				return nil, errListpack
			}
			v := int64(b&0x1f)<<8 | int64(lp[p+1])
			if v >= 1<<12 {
				v -= 1 << 13
			}
			hdr, elem = 2, strconv.AppendInt(nil, v, 10)
		case b&0xf0 == 0xe0: // 1110xxxx: string up to 4095 bytes
			if p+1 >= len(lp) {
				return nil, errListpack
			}
			hdr, size = 2, int(b&0x0f)<<8|int(lp[p+1])
		case b == 0xf0: // 32-bit string length
			if p+5 > len(lp) {
				return nil, errListpack
			}
			hdr, size = 5, int(binary.LittleEndian.Uint32(lp[p+1:]))
		case b >= 0xf1 && b <= 0xf4: // 16, 24, 32, 64-bit signed
			width := [...]int{2, 3, 4, 8}[b-0xf1]
			if p+1+width > len(lp) {
				return nil, errListpack
			}
			hdr, elem = 1+width, strconv.AppendInt(nil, signedLE(lp[p+1:p+1+width]), 10)
		default:
			return nil, errListpack
		}
		if elem == nil {
			if size < 0 || p+hdr+size > len(lp) {
				return nil, errListpack
			}
			elem = lp[p+hdr : p+hdr+size]
		}
		entry := hdr + size
		p += entry + backlenSize(entry)
		out = append(out, elem)
	}
	if n := binary.LittleEndian.Uint16(lp[4:]); n != 65535 && int(n) != len(out) {
		return nil, errListpack
	}
	return out, nil
}

// backlenSize is the size of the back-length that follows a listpack entry
// of n bytes (lpEncodeBacklen).
func backlenSize(n int) int {
	switch {
	case n <= 127:
		return 1
	case n < 16383:
		return 2
	case n < 2097151:
		return 3
	case n < 268435455:
		return 4
	}
	return 5
}

// signedLE reads a little-endian two's complement integer of len(b) bytes.
func signedLE(b []byte) int64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	shift := 64 - 8*uint(len(b))
	return int64(u<<shift) >> shift
}

// decodeZiplist returns the elements of ziplist zl (ziplist.c), the
// encoding of RDB files written before Redis 7.
func decodeZiplist(zl []byte) ([][]byte, error) {
	if len(zl) < 11 || int(binary.LittleEndian.Uint32(zl)) != len(zl) || zl[len(zl)-1] != 0xff {
		return nil, errZiplist
	}
	var out [][]byte
	p := 10
	for {
		if p >= len(zl) {
			return nil, errZiplist
		}
		if zl[p] == 0xff {
			break
		}
		if zl[p] == 0xfe { // previous entry length: 1 or 5 bytes
			p += 5
		} else {
			p++
		}
		if p >= len(zl) {
			return nil, errZiplist
		}
		b := zl[p]
		var elem []byte
		switch {
		case b>>6 == 0: // 00pppppp
			n := int(b & 0x3f)
			if p+1+n > len(zl) {
				return nil, errZiplist
			}
			elem, p = zl[p+1:p+1+n], p+1+n
		case b>>6 == 1: // 01pppppp qqqqqqqq (big endian)
			if p+2 > len(zl) {
				return nil, errZiplist
			}
			n := int(b&0x3f)<<8 | int(zl[p+1])
			if p+2+n > len(zl) {
				return nil, errZiplist
			}
			elem, p = zl[p+2:p+2+n], p+2+n
		case b == 0x80: // 10000000 + 4 bytes big endian
			if p+5 > len(zl) {
				return nil, errZiplist
			}
			n := int(binary.BigEndian.Uint32(zl[p+1:]))
			if n < 0 || p+5+n > len(zl) {
				return nil, errZiplist
			}
			elem, p = zl[p+5:p+5+n], p+5+n
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
				if b >= 0xf1 && b <= 0xfd { // 1111xxxx: 0..12 inline
					elem, p = strconv.AppendInt(nil, int64(b&0x0f)-1, 10), p+1
				} else {
					return nil, errZiplist
				}
			}
			if width > 0 {
				if p+1+width > len(zl) {
					return nil, errZiplist
				}
				elem, p = strconv.AppendInt(nil, signedLE(zl[p+1:p+1+width]), 10), p+1+width
			}
		}
		out = append(out, elem)
	}
	return out, nil
}

// decodeIntset returns the members of intset is (intset.c).
func decodeIntset(is []byte) ([][]byte, error) {
	if len(is) < 8 {
		return nil, errIntset
	}
	width := int(binary.LittleEndian.Uint32(is))
	n := int(binary.LittleEndian.Uint32(is[4:]))
	if (width != 2 && width != 4 && width != 8) || n < 0 || 8+n*width != len(is) {
		return nil, errIntset
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = strconv.AppendInt(nil, signedLE(is[8+i*width:8+(i+1)*width]), 10)
	}
	return out, nil
}
