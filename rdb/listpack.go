package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Listpacks (Redis 7 listpack.c): the blob of small hashes, sorted sets
// and quicklist nodes. Layout: total bytes (uint32 LE), element count
// (uint16 LE, 65535 when it does not fit), entries, 0xFF. Each entry is an
// encoding header, its data and a back-length.

// ErrListpack is a listpack blob that does not parse.
var ErrListpack = errors.New("invalid listpack")

const lpHeaderSize = 6

// ListpackBuilder appends elements to a listpack as lpAppend does (a
// string that is a strict decimal integer is stored as an integer).
type ListpackBuilder struct {
	b []byte
	n int
}

// Reset starts a new, empty listpack reusing the buffer.
func (lb *ListpackBuilder) Reset() {
	lb.b = append(lb.b[:0], 0, 0, 0, 0, 0, 0)
	lb.n = 0
}

// Len returns the number of elements appended.
func (lb *ListpackBuilder) Len() int { return lb.n }

// Size returns the listpack's total bytes once finished (lpBytes).
func (lb *ListpackBuilder) Size() int { return len(lb.b) + 1 }

// Append adds one element.
func (lb *ListpackBuilder) Append(s string) {
	if len(lb.b) == 0 {
		lb.Reset()
	}
	start := len(lb.b)
	if v, ok := protocol.ParseInt([]byte(s)); ok {
		lb.b = appendLPInt(lb.b, v)
	} else {
		switch n := len(s); {
		case n < 64:
			lb.b = append(lb.b, 0x80|byte(n))
		case n < 4096:
			lb.b = append(lb.b, 0xe0|byte(n>>8), byte(n))
		default:
			lb.b = binary.LittleEndian.AppendUint32(append(lb.b, 0xf0), uint32(n))
		}
		lb.b = append(lb.b, s...)
	}
	lb.b = appendBacklen(lb.b, uint64(len(lb.b)-start))
	lb.n++
}

// AppendInt adds an integer element (lpAppendInteger).
func (lb *ListpackBuilder) AppendInt(v int64) {
	if len(lb.b) == 0 {
		lb.Reset()
	}
	start := len(lb.b)
	lb.b = appendLPInt(lb.b, v)
	lb.b = appendBacklen(lb.b, uint64(len(lb.b)-start))
	lb.n++
}

// Bytes finishes the listpack (header and terminator) and returns it; the
// bytes stay valid until the next Reset or Append.
func (lb *ListpackBuilder) Bytes() []byte {
	if len(lb.b) == 0 {
		lb.Reset()
	}
	out := append(lb.b, 0xff)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	n := lb.n
	if n >= 65535 {
		n = 65535
	}
	binary.LittleEndian.PutUint16(out[4:], uint16(n))
	return out
}

// appendLPInt appends the integer encodings of lpEncodeIntegerGetType.
func appendLPInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v)
		if v < 0 {
			u = uint64((1 << 13) + v)
		}
		return append(b, byte(u>>8)|0xc0, byte(u))
	case v >= -32768 && v <= 32767:
		return binary.LittleEndian.AppendUint16(append(b, 0xf1), uint16(v))
	case v >= -8388608 && v <= 8388607:
		u := uint32(v)
		return append(b, 0xf2, byte(u), byte(u>>8), byte(u>>16))
	case v >= -2147483648 && v <= 2147483647:
		return binary.LittleEndian.AppendUint32(append(b, 0xf3), uint32(v))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xf4), uint64(v))
}

// appendBacklen appends the back-length of an entry of l bytes
// (lpEncodeBacklen).
func appendBacklen(b []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte((l>>7)&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte((l>>21)&127)|128, byte((l>>14)&127)|128, byte((l>>7)&127)|128, byte(l&127)|128)
}

// backlenSize is the size of the back-length of an entry of n bytes.
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

// DecodeListpack returns the elements of listpack lp (integers in
// decimal). Every length is checked against the blob, the back-lengths
// and, when the header has it, the element count.
func DecodeListpack(lp []byte) ([]string, error) {
	if len(lp) < lpHeaderSize+1 || int64(binary.LittleEndian.Uint32(lp)) != int64(len(lp)) || lp[len(lp)-1] != 0xff {
		return nil, ErrListpack
	}
	hdrCount := int(binary.LittleEndian.Uint16(lp[4:]))
	out := make([]string, 0, min(hdrCount, len(lp)/2))
	p := lpHeaderSize
	end := len(lp) - 1
	for p < end {
		b := lp[p]
		var elem string
		var hdr, size int // encoding header bytes, payload bytes
		isInt := true
		switch {
		case b&0x80 == 0: // 0xxxxxxx: 7-bit unsigned
			hdr, elem = 1, strconv.Itoa(int(b&0x7f))
		case b&0xc0 == 0x80: // 10xxxxxx: string up to 63 bytes
			hdr, size, isInt = 1, int(b&0x3f), false
		case b&0xe0 == 0xc0: // 110xxxxx: 13-bit signed
			if p+2 > end {
				return nil, ErrListpack
			}
			v := int64(b&0x1f)<<8 | int64(lp[p+1])
			if v >= 1<<12 {
				v -= 1 << 13
			}
			hdr, elem = 2, strconv.FormatInt(v, 10)
		case b&0xf0 == 0xe0: // 1110xxxx: string up to 4095 bytes
			if p+2 > end {
				return nil, ErrListpack
			}
			hdr, size, isInt = 2, int(b&0x0f)<<8|int(lp[p+1]), false
		case b == 0xf0: // 32-bit string length
			if p+5 > end {
				return nil, ErrListpack
			}
			hdr, size, isInt = 5, int(binary.LittleEndian.Uint32(lp[p+1:])), false
		case b >= 0xf1 && b <= 0xf4: // 16, 24, 32, 64-bit signed
			width := [...]int{2, 3, 4, 8}[b-0xf1]
			if p+1+width > end {
				return nil, ErrListpack
			}
			hdr, elem = 1+width, strconv.FormatInt(signedLE(lp[p+1:p+1+width]), 10)
		default:
			return nil, ErrListpack
		}
		if !isInt {
			if size < 0 || size > end-p-hdr {
				return nil, ErrListpack
			}
			elem = string(lp[p+hdr : p+hdr+size])
		} else {
			size = hdr - 1
			hdr = 1
		}
		entry := hdr + size
		bl := backlenSize(entry)
		if p+entry+bl > end || !backlenMatches(lp[p+entry:p+entry+bl], entry) {
			return nil, ErrListpack
		}
		p += entry + bl
		out = append(out, elem)
	}
	if p != end || (hdrCount != 65535 && hdrCount != len(out)) {
		return nil, ErrListpack
	}
	return out, nil
}

// backlenMatches reports whether bl is the back-length of an entry of n
// bytes.
func backlenMatches(bl []byte, n int) bool {
	var tmp [5]byte
	want := appendBacklen(tmp[:0], uint64(n))
	return string(want) == string(bl)
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
