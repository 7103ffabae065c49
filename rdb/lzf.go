package rdb

import (
	"errors"
	"sync"
)

// LZF as Redis builds liblzf 3.6 (lzfP.h: HLOG 16, VERY_FAST, ULTRA_FAST
// off, hash slots holding offsets). Redis compresses strings of more than
// 20 bytes when rdbcompression is on and the result saves at least 4 bytes
// (rdbSaveLzfStringObject); loading expands them.

// ErrLZF is a compressed string that does not expand to its stated length.
var ErrLZF = errors.New("invalid LZF compressed string")

const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

// lzfState is a compressor's hash table. Each slot holds a generation in its
// high 32 bits and an input offset in its low 32, so a slot written by an
// earlier call reads as empty without clearing 512 KiB per call (liblzf
// with a zeroed table, the output FUNCTION DUMP and DUMP produce).
type lzfState struct {
	gen  uint64
	htab [lzfHSize]uint64
}

var lzfPool = sync.Pool{New: func() any { return new(lzfState) }}

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }

// LZFCompress compresses in into at most outLen bytes and returns the
// compressed bytes, or nil when they do not fit (lzf_compress returning 0).
func LZFCompress(in []byte, outLen int) []byte {
	if len(in) < 2 || outLen <= 0 {
		return nil
	}
	st := lzfPool.Get().(*lzfState)
	defer lzfPool.Put(st)
	st.gen++
	if st.gen >= 1<<32 {
		st.gen = 1
		clear(st.htab[:])
	}
	gen := st.gen << 32
	get := func(slot uint32) int {
		v := st.htab[slot]
		if v&^(1<<32-1) != gen {
			return 0
		}
		return int(uint32(v))
	}
	put := func(slot uint32, pos int) { st.htab[slot] = gen | uint64(pos) }

	out := make([]byte, outLen)
	ip, op := 0, 0
	inEnd := len(in)
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := get(slot)
		put(slot, ip)
		off := ip - ref - 1
		if off >= 0 && off < lzfMaxOff && ref > 0 && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			length := 2
			maxlen := min(inEnd-ip-length, lzfMaxRef)
			if op+3+1 >= outLen {
				nolit := 0
				if lit == 0 {
					nolit = 1
				}
				if op-nolit+3+1 >= outLen {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1) // stop run
			if lit == 0 {
				op--
			}
			matched := false
			if maxlen > 16 {
				for range 16 {
					length++
					if in[ref+length] != in[ip+length] {
						matched = true
						break
					}
				}
			}
			if !matched {
				for {
					length++
					if !(length < maxlen && in[ref+length] == in[ip+length]) {
						break
					}
				}
			}
			length -= 2
			ip++
			if length < 7 {
				out[op] = byte(off>>8 + length<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(length - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++ // start run
			ip += length + 1
			if ip >= inEnd-2 {
				break
			}
			ip -= 2
			hval = uint32(in[ip])<<8 | uint32(in[ip+1])
			hval = hval<<8 | uint32(in[ip+2])
			put(lzfIdx(hval), ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			put(lzfIdx(hval), ip)
			ip++
			continue
		}
		if op >= outLen {
			return nil
		}
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > outLen {
		return nil
	}
	for ip < inEnd {
		lit++
		out[op] = in[ip]
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1) // end run
	if lit == 0 {
		op--
	}
	return out[:op]
}

// LZFDecompress expands in, which must produce exactly n bytes
// (lzf_decompress). It never writes or allocates more than n bytes.
func LZFDecompress(in []byte, n int) ([]byte, error) {
	if n < 0 {
		return nil, ErrLZF
	}
	out := make([]byte, 0, n)
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 { // literal run of ctrl+1 bytes
			run := ctrl + 1
			if ip+run > len(in) || len(out)+run > n {
				return nil, ErrLZF
			}
			out = append(out, in[ip:ip+run]...)
			ip += run
			continue
		}
		length := ctrl >> 5 // back reference
		if length == 7 {
			if ip >= len(in) {
				return nil, ErrLZF
			}
			length += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, ErrLZF
		}
		ref := len(out) - ((ctrl & 0x1f) << 8) - 1 - int(in[ip])
		ip++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, ErrLZF
		}
		for i := 0; i < length; i++ { // byte by byte: the copy may overlap
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, ErrLZF
	}
	return out, nil
}
