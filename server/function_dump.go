package server

import (
	"encoding/binary"
	"strconv"
)

// FUNCTION DUMP / RESTORE payloads, byte for byte as Redis 7.0 writes
// them: per library the RDB_OPCODE_FUNCTION2 byte and the code as an RDB
// string (LZF-compressed when that saves at least 4 bytes), then the RDB
// version (10, little endian) and the CRC-64 (Jones) of everything before
// it, little endian.

const (
	rdbOpcodeFunction2     = 245
	rdbOpcodeFunctionPreGA = 246
	rdbVersion             = 10
)

// dumpFunctions builds the payload of FUNCTION DUMP from library codes.
func dumpFunctions(codes []string) []byte {
	var b []byte
	for _, code := range codes {
		b = append(b, rdbOpcodeFunction2)
		b = appendRDBString(b, []byte(code))
	}
	b = binary.LittleEndian.AppendUint16(b, rdbVersion)
	return binary.LittleEndian.AppendUint64(b, crc64Jones(0, b))
}

// parseFunctionDump checks a FUNCTION RESTORE payload and returns the
// library codes in it, or the error text of the reply (without "ERR ").
func parseFunctionDump(p []byte) ([]string, string) {
	if len(p) < 10 {
		return nil, "DUMP payload version or checksum are wrong"
	}
	ver := binary.LittleEndian.Uint16(p[len(p)-10:])
	if ver > rdbVersion || crc64Jones(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(p[len(p)-8:]) {
		return nil, "DUMP payload version or checksum are wrong"
	}
	body := p[:len(p)-10]
	var codes []string
	for len(body) > 0 {
		typ := body[0]
		body = body[1:]
		switch typ {
		case rdbOpcodeFunctionPreGA:
			return nil, "Pre-GA function format not supported"
		case rdbOpcodeFunction2:
		default:
			return nil, "given type is not a function"
		}
		code, rest, ok := readRDBString(body)
		if !ok {
			return nil, "Failed loading library payload"
		}
		codes = append(codes, string(code))
		body = rest
	}
	return codes, ""
}

// appendRDBLen appends an RDB length (rdbSaveLen).
func appendRDBLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= 0xffffffff:
		b = append(b, 0x80)
		return binary.BigEndian.AppendUint32(b, uint32(n))
	default:
		b = append(b, 0x81)
		return binary.BigEndian.AppendUint64(b, n)
	}
}

// appendRDBString appends s as rdbSaveRawString does: an integer encoding
// for short decimal strings, LZF for strings over 20 bytes that compress,
// the bytes as they are otherwise.
func appendRDBString(b, s []byte) []byte {
	if len(s) <= 11 {
		if v, err := strconv.ParseInt(string(s), 10, 64); err == nil && strconv.FormatInt(v, 10) == string(s) {
			switch {
			case v >= -1<<7 && v < 1<<7:
				return append(b, 0xC0, byte(v))
			case v >= -1<<15 && v < 1<<15:
				return binary.LittleEndian.AppendUint16(append(b, 0xC1), uint16(v))
			case v >= -1<<31 && v < 1<<31:
				return binary.LittleEndian.AppendUint32(append(b, 0xC2), uint32(v))
			}
		}
	}
	if len(s) > 20 {
		if c := lzfCompress(s, len(s)-4); c != nil {
			b = append(b, 0xC3)
			b = appendRDBLen(b, uint64(len(c)))
			b = appendRDBLen(b, uint64(len(s)))
			return append(b, c...)
		}
	}
	b = appendRDBLen(b, uint64(len(s)))
	return append(b, s...)
}

// readRDBLen reads an RDB length; enc reports an encoded-string type byte
// (the length is then the encoding).
func readRDBLen(p []byte) (n uint64, enc bool, rest []byte, ok bool) {
	if len(p) == 0 {
		return 0, false, nil, false
	}
	switch p[0] >> 6 {
	case 0:
		return uint64(p[0] & 0x3f), false, p[1:], true
	case 1:
		if len(p) < 2 {
			return 0, false, nil, false
		}
		return uint64(p[0]&0x3f)<<8 | uint64(p[1]), false, p[2:], true
	case 3:
		return uint64(p[0] & 0x3f), true, p[1:], true
	}
	switch p[0] {
	case 0x80:
		if len(p) < 5 {
			return 0, false, nil, false
		}
		return uint64(binary.BigEndian.Uint32(p[1:])), false, p[5:], true
	case 0x81:
		if len(p) < 9 {
			return 0, false, nil, false
		}
		return binary.BigEndian.Uint64(p[1:]), false, p[9:], true
	}
	return 0, false, nil, false
}

// readRDBString reads an RDB string in any of its encodings.
func readRDBString(p []byte) ([]byte, []byte, bool) {
	n, enc, p, ok := readRDBLen(p)
	if !ok {
		return nil, nil, false
	}
	if !enc {
		if uint64(len(p)) < n {
			return nil, nil, false
		}
		return p[:n], p[n:], true
	}
	switch n {
	case 0:
		if len(p) < 1 {
			return nil, nil, false
		}
		return strconv.AppendInt(nil, int64(int8(p[0])), 10), p[1:], true
	case 1:
		if len(p) < 2 {
			return nil, nil, false
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(p))), 10), p[2:], true
	case 2:
		if len(p) < 4 {
			return nil, nil, false
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(p))), 10), p[4:], true
	case 3:
		clen, _, p, ok := readRDBLen(p)
		if !ok {
			return nil, nil, false
		}
		ulen, _, p, ok := readRDBLen(p)
		if !ok || uint64(len(p)) < clen || ulen > 1<<30 {
			return nil, nil, false
		}
		out := lzfDecompress(p[:clen], int(ulen))
		if out == nil || len(out) != int(ulen) {
			return nil, nil, false
		}
		return out, p[clen:], true
	}
	return nil, nil, false
}

// crc64Table is the table of Redis's crc64: the Jones polynomial
// (0xad93d23594c935a9), reflected, no initial or final inversion.
var crc64Table = func() (t [256]uint64) {
	const poly = 0x95AC9329AC4BC9B5 // 0xad93d23594c935a9 bit-reversed
	for i := range t {
		crc := uint64(i)
		for j := 0; j < 8; j++ {
			if crc&1 == 1 {
				crc = crc>>1 ^ poly
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// crc64Jones is Redis's crc64(crc, p).
func crc64Jones(crc uint64, p []byte) uint64 {
	for _, c := range p {
		crc = crc64Table[byte(crc)^c] ^ crc>>8
	}
	return crc
}

// LZF (liblzf 3.6 as Redis builds it: HLOG 16, VERY_FAST, offsets in the
// hash table, which starts zeroed).
const (
	lzfHLog   = 16
	lzfHSize  = 1 << lzfHLog
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = (1 << 8) + (1 << 3)
)

func lzfIdx(h uint32) uint32 { return ((h >> (3*8 - lzfHLog)) - h*5) & (lzfHSize - 1) }

// lzfCompress compresses in into at most outLen bytes, returning nil when
// the output does not fit (lzf_compress returning 0).
func lzfCompress(in []byte, outLen int) []byte {
	if len(in) == 0 || outLen <= 0 {
		return nil
	}
	htab := make([]uint32, lzfHSize)
	out := make([]byte, outLen)
	ip, op := 0, 0
	inEnd := len(in)
	lit := 0
	op++ // start run
	hval := uint32(in[0])<<8 | uint32(in[1])
	for ip < inEnd-2 {
		hval = hval<<8 | uint32(in[ip+2])
		slot := lzfIdx(hval)
		ref := int(htab[slot])
		htab[slot] = uint32(ip)
		off := ip - ref - 1
		if off >= 0 && off < lzfMaxOff && ref > 0 && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			length := 2
			maxlen := inEnd - ip - length
			if maxlen > lzfMaxRef {
				maxlen = lzfMaxRef
			}
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
				for k := 0; k < 16; k++ {
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
			htab[lzfIdx(hval)] = uint32(ip)
			ip++
			hval = hval<<8 | uint32(in[ip+2])
			htab[lzfIdx(hval)] = uint32(ip)
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

// lzfDecompress expands in to exactly outLen bytes, or returns nil.
func lzfDecompress(in []byte, outLen int) []byte {
	out := make([]byte, 0, outLen)
	ip := 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 {
			ctrl++
			if len(out)+ctrl > outLen || ip+ctrl > len(in) {
				return nil
			}
			out = append(out, in[ip:ip+ctrl]...)
			ip += ctrl
			continue
		}
		length := ctrl >> 5
		ref := len(out) - (ctrl&0x1f)<<8 - 1
		if ip >= len(in) {
			return nil
		}
		if length == 7 {
			length += int(in[ip])
			ip++
			if ip >= len(in) {
				return nil
			}
		}
		ref -= int(in[ip])
		ip++
		if len(out)+length+2 > outLen || ref < 0 {
			return nil
		}
		for k := 0; k < length+2; k++ {
			out = append(out, out[ref+k])
		}
	}
	return out
}
