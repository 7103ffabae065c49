package script

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library (lua-cmsgpack 0.4.0, deps/lua/src/lua_cmsgpack.c):
// MessagePack encoding of Lua values, several values per string.

const msgpackMaxNesting = 16 // LUACMSGPACK_MAX_NESTING

func (vm *VM) cmsgpackLib() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(vm.mpPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return vm.mpUnpack(L, 0, 0) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := optInteger(L, 2, 0)
		L.SetTop(1)
		return vm.mpUnpack(L, 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := checkInteger(L, 2)
		offset := optInteger(L, 3, 0)
		L.SetTop(1)
		return vm.mpUnpack(L, limit, offset)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// mpPack is cmsgpack.pack(...): every argument encoded, concatenated.
func (vm *VM) mpPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = vm.mpEncode(L, b, L.Get(i), 0)
	}
	L.Push(lua.LString(b))
	return 1
}

func (vm *VM) mpEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return mpAppendBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && float64(doubleToInt64(f)) == f {
			return mpAppendInt(b, doubleToInt64(f))
		}
		if float64(float32(f)) == f {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		t := vm.unwrap(x)
		if mpIsArray(t) {
			n := L.ObjLen(x)
			b = mpAppendHeader(b, uint64(n), 0x90, 0xdc, 0xdd)
			for j := 1; j <= n; j++ {
				b = vm.mpEncode(L, b, L.GetTable(x, lua.LNumber(j)), level+1)
			}
			return b
		}
		n := 0
		for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
			n++
		}
		b = mpAppendHeader(b, uint64(n), 0x80, 0xde, 0xdf)
		for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
			b = vm.mpEncode(L, b, k, level+1)
			b = vm.mpEncode(L, b, v, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// mpIsArray is table_is_an_array: only positive integer keys, 1..n.
func mpIsArray(t *lua.LTable) bool {
	count, max := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		if !ok || n <= 0 || float64(doubleToInt32(float64(n))) != float64(n) {
			return false
		}
		if int(n) > max {
			max = int(n)
		}
		count++
	}
	return max == count
}

func mpAppendBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb)
		b = binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return append(b, s...)
}

func mpAppendInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// mpAppendHeader writes an array or map header: fix, 16-bit or 32-bit.
func mpAppendHeader(b []byte, n uint64, fix, c16, c32 byte) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 65535:
		return binary.BigEndian.AppendUint16(append(b, c16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, c32), uint32(n))
}

// mpDecoder reads MessagePack values.
type mpDecoder struct {
	L     *lua.LState
	p     []byte
	err   int // 0 none, 1 EOF, 2 bad format
	stack int // Lua stack slots the C decoder would hold
}

const (
	mpErrEOF = 1
	mpErrFmt = 2
)

// mpUnpack is mp_unpack_full.
func (vm *VM) mpUnpack(L *lua.LState, limit, offset int64) int {
	s := checkString(L, 1)
	if offset < 0 || limit < 0 {
		luaError(L, "Invalid request to unpack with offset of "+itoa(int(int32(offset)))+" and limit of "+itoa(int(int32(len(s))))+".")
	} else if offset > int64(len(s)) {
		luaError(L, "Start offset "+itoa(int(int32(offset)))+" greater than input length "+itoa(int(int32(len(s))))+".")
	}
	decodeAll := limit == 0 && offset == 0
	if decodeAll {
		limit = math.MaxInt32
	}
	d := &mpDecoder{L: L, p: []byte(s[offset:]), stack: L.GetTop()}
	var vals []lua.LValue
	for cnt := int64(0); len(d.p) > 0 && cnt < limit; cnt++ {
		v := d.decode()
		switch d.err {
		case mpErrEOF:
			luaError(L, "Missing bytes in input.")
		case mpErrFmt:
			luaError(L, "Bad data format in input.")
		}
		vals = append(vals, v)
		d.stack++
	}
	n := len(vals)
	if !decodeAll {
		next := int64(len(s) - len(d.p))
		if len(d.p) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
		n++
	}
	for _, v := range vals {
		L.Push(v)
	}
	return n
}

func (d *mpDecoder) need(n int) bool {
	if len(d.p) < n {
		d.err = mpErrEOF
		return false
	}
	return true
}

// mpFieldSize is the width of the big-endian field that follows the type
// byte of the fixed-width numbers and of the 16/32-bit array and map counts.
var mpFieldSize = [256]int{
	0xcc: 1, 0xd0: 1, 0xcd: 2, 0xd1: 2, 0xce: 4, 0xd2: 4, 0xca: 4,
	0xcf: 8, 0xd3: 8, 0xcb: 8, 0xdc: 2, 0xde: 2, 0xdd: 4, 0xdf: 4,
}

// field reads the size-byte big-endian field after the type byte and
// consumes both, or records the truncation and reports false.
func (d *mpDecoder) field(size int) (uint64, bool) {
	if !d.need(1 + size) {
		return 0, false
	}
	var v uint64
	for _, b := range d.p[1 : 1+size] {
		v = v<<8 | uint64(b)
	}
	d.p = d.p[1+size:]
	return v, true
}

func (d *mpDecoder) decode() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	if d.stack+1 > luaMaxCStack {
		luaError(d.L, "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)")
	}
	c := d.p[0]
	switch c {
	case 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3, 0xca, 0xcb:
		v, ok := d.field(mpFieldSize[c])
		if !ok {
			return lua.LNil
		}
		switch c {
		case 0xd0:
			return lua.LNumber(int8(v))
		case 0xd1:
			return lua.LNumber(int16(v))
		case 0xd2:
			return lua.LNumber(int32(v))
		case 0xcf, 0xd3:
			// lua_pushunsigned is lua_pushinteger on 64-bit: a signed cast.
			return lua.LNumber(int64(v))
		case 0xca:
			return lua.LNumber(math.Float32frombits(uint32(v)))
		case 0xcb:
			return lua.LNumber(math.Float64frombits(v))
		}
		return lua.LNumber(v)
	case 0xc0:
		d.p = d.p[1:]
		return lua.LNil
	case 0xc3:
		d.p = d.p[1:]
		return lua.LTrue
	case 0xc2:
		d.p = d.p[1:]
		return lua.LFalse
	case 0xd9:
		if !d.need(2) {
			return lua.LNil
		}
		return d.raw(2, int(d.p[1]))
	case 0xda:
		if !d.need(3) {
			return lua.LNil
		}
		return d.raw(3, int(binary.BigEndian.Uint16(d.p[1:])))
	case 0xdb:
		if !d.need(5) {
			return lua.LNil
		}
		return d.raw(5, int(binary.BigEndian.Uint32(d.p[1:])))
	case 0xdc, 0xdd, 0xde, 0xdf:
		n, ok := d.field(mpFieldSize[c])
		if !ok {
			return lua.LNil
		}
		if c <= 0xdd {
			return d.array(int(n))
		}
		return d.hash(int(n))
	}
	switch {
	case c&0x80 == 0:
		d.p = d.p[1:]
		return lua.LNumber(c)
	case c&0xe0 == 0xe0:
		d.p = d.p[1:]
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return d.raw(1, int(c&0x1f))
	case c&0xf0 == 0x90:
		d.p = d.p[1:]
		return d.array(int(c & 0xf))
	case c&0xf0 == 0x80:
		d.p = d.p[1:]
		return d.hash(int(c & 0xf))
	}
	d.err = mpErrFmt
	return lua.LNil
}

// raw reads a string of n bytes after a header of h bytes.
func (d *mpDecoder) raw(h, n int) lua.LValue {
	if !d.need(h + n) {
		return lua.LNil
	}
	s := lua.LString(d.p[h : h+n])
	d.p = d.p[h+n:]
	return s
}

// array decodes n elements into a table. The stack accounting follows
// mp_decode_to_lua_array: the table, a luaL_checkstack of its own, then
// the index of each element while the element decodes.
func (d *mpDecoder) array(n int) lua.LValue {
	t := d.L.CreateTable(min(n, len(d.p)), 0)
	d.stack++
	if d.stack+1 > luaMaxCStack {
		luaError(d.L, "stack overflow (in function mp_decode_to_lua_array)")
	}
	for i := 1; i <= n; i++ {
		d.stack++
		v := d.decode()
		d.stack--
		if d.err != 0 {
			return lua.LNil
		}
		if v != lua.LNil {
			t.RawSetInt(i, v)
		}
	}
	d.stack--
	return t
}

// hash decodes n pairs into a table (mp_decode_to_lua_hash: the table, and
// the key while its value decodes).
func (d *mpDecoder) hash(n int) lua.LValue {
	t := d.L.CreateTable(0, min(n, len(d.p)))
	d.stack++
	for i := 0; i < n; i++ {
		k := d.decode()
		if d.err != 0 {
			return lua.LNil
		}
		d.stack++
		v := d.decode()
		d.stack--
		if d.err != 0 {
			return lua.LNil
		}
		switch kk := k.(type) {
		case *lua.LNilType:
			raise(d.L, "table index is nil")
		case lua.LNumber:
			if kk != kk {
				raise(d.L, "table index is NaN")
			}
		}
		t.RawSet(k, v)
	}
	d.stack--
	return t
}
