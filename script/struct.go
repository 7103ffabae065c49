package script

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library (Roberto Ierusalimschy's struct.c as Redis 7.0 ships
// it, deps/lua/src/lua_struct.c): pack, unpack and size on an x86-64
// layout (native little endian, long and size_t of 8 bytes, int of 4,
// maximum alignment 8).

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

func (vm *VM) structLib() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// structFmt walks a format string.
type structFmt struct {
	L      *lua.LState
	s      string
	i      int
	little bool
	align  int
}

func newStructFmt(L *lua.LState, s string) *structFmt {
	return &structFmt{L: L, s: cString(s), little: true, align: 1}
}

func (f *structFmt) more() bool { return f.i < len(f.s) }

func (f *structFmt) next() byte {
	c := f.s[f.i]
	f.i++
	return c
}

// getnum reads an optional decimal count.
func (f *structFmt) getnum(def int) int {
	if !f.more() || !isDigit(f.s[f.i]) {
		return def
	}
	a := 0
	for f.more() && isDigit(f.s[f.i]) {
		d := int(f.s[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			luaError(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

// optsize is the size of option opt (0 for those that need no alignment).
func (f *structFmt) optsize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T':
		return 8
	case 'f':
		return 4
	case 'd':
		return 8
	case 'x':
		return 1
	case 'c':
		return f.getnum(1)
	case 'i', 'I':
		sz := f.getnum(4)
		if sz > structMaxIntSize {
			luaError(f.L, "integral size "+itoa(sz)+" is larger than limit of 32")
		}
		return sz
	}
	return 0
}

// toalign is gettoalign.
func (f *structFmt) toalign(n int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > f.align {
		size = f.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// control handles the endianness and alignment options (controloptions).
func (f *structFmt) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.little = false
	case '<':
		f.little = true
	case '!':
		a := f.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			luaError(f.L, "alignment "+itoa(a)+" is not a power of 2")
		}
		f.align = a
	default:
		argError(f.L, 1, "invalid format option '"+string(opt)+"'")
	}
}

func structPack(L *lua.LState) int {
	f := newStructFmt(L, checkString(L, 1))
	arg := 2
	L.Push(lua.LNil) // the mark b_pack pushes: a missing argument reads as nil
	var b []byte
	total := 0
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pad := f.toalign(total, opt, size)
		total += pad
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			n := checkNumber(L, arg)
			arg++
			var v uint64
			if n < 0 {
				v = uint64(doubleToInt64(n))
			} else {
				v = doubleToUint64(n)
			}
			buf := make([]byte, size)
			for i := 0; i < size; i++ {
				j := i
				if !f.little {
					j = size - 1 - i
				}
				buf[j] = byte(v)
				v >>= 8
			}
			b = append(b, buf...)
		case 'x':
			b = append(b, 0)
		case 'f':
			v := math.Float32bits(float32(checkNumber(L, arg)))
			arg++
			if f.little {
				b = binary.LittleEndian.AppendUint32(b, v)
			} else {
				b = binary.BigEndian.AppendUint32(b, v)
			}
		case 'd':
			v := math.Float64bits(checkNumber(L, arg))
			arg++
			if f.little {
				b = binary.LittleEndian.AppendUint64(b, v)
			} else {
				b = binary.BigEndian.AppendUint64(b, v)
			}
		case 'c', 's':
			s := checkString(L, arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			f.control(opt)
		}
		total += size
	}
	L.Push(lua.LString(b))
	return 1
}

func structUnpack(L *lua.LState) int {
	f := newStructFmt(L, checkString(L, 1))
	data := checkString(L, 2)
	ld := len(data)
	pos := int(optInteger(L, 3, 1)) - 1
	if pos < 0 || pos > ld {
		argError(L, 3, "offset must be 1 or greater")
	}
	L.SetTop(2)
	n := 0
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pos += f.toalign(pos, opt, size)
		if size > ld || pos > ld-size {
			argError(L, 2, "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			L.Push(lua.LNumber(structInteger(data[pos:pos+size], f.little, opt >= 'a')))
			n++
		case 'x':
		case 'f':
			var v uint32
			if f.little {
				v = binary.LittleEndian.Uint32([]byte(data[pos:]))
			} else {
				v = binary.BigEndian.Uint32([]byte(data[pos:]))
			}
			L.Push(lua.LNumber(math.Float32frombits(v)))
			n++
		case 'd':
			var v uint64
			if f.little {
				v = binary.LittleEndian.Uint64([]byte(data[pos:]))
			} else {
				v = binary.BigEndian.Uint64([]byte(data[pos:]))
			}
			L.Push(lua.LNumber(math.Float64frombits(v)))
			n++
		case 'c':
			if size == 0 {
				prev, ok := luaToNumber(L.Get(-1))
				if n == 0 || !ok {
					luaError(L, "format 'c0' needs a previous size")
				}
				size = int(doubleToInt64(prev))
				L.Pop(1)
				n--
				if size < 0 || size > ld || pos > ld-size {
					argError(L, 2, "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
			n++
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				luaError(L, "unfinished string in data")
			}
			size = e + 1
			L.Push(lua.LString(data[pos : pos+e]))
			n++
		default:
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

// structInteger reads an integer of len(b) bytes (getinteger).
func structInteger(b string, little, signed bool) float64 {
	var l uint64
	size := len(b)
	for i := 0; i < size; i++ {
		j := i
		if little {
			j = size - 1 - i
		}
		l = l<<8 | uint64(b[j])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structSize(L *lua.LState) int {
	f := newStructFmt(L, checkString(L, 1))
	pos := 0
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pos += f.toalign(pos, opt, size)
		if opt == 's' {
			argError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "option 'c0' has no fixed size")
		}
		if !(opt >= '0' && opt <= '9' || opt >= 'a' && opt <= 'z' || opt >= 'A' && opt <= 'Z') {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
