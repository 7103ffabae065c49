package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The bit library (Lua BitOp 1.0.2, deps/lua/src/lua_bit.c): 32-bit
// operations on numbers, results as signed 32-bit integers.

func (vm *VM) bitLib() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	binop := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			b := bitArg(L, 1)
			for i := L.GetTop(); i > 1; i-- {
				b = op(b, bitArg(L, i))
			}
			return bitRet(L, b)
		}
	}
	shift := func(op func(b, n uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			b := bitArg(L, 1)
			n := bitArg(L, 2) & 31
			return bitRet(L, op(b, n))
		}
	}
	for name, fn := range map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return bitRet(L, bitArg(L, 1)) },
		"bnot":    func(L *lua.LState) int { return bitRet(L, ^bitArg(L, 1)) },
		"band":    binop(func(a, b uint32) uint32 { return a & b }),
		"bor":     binop(func(a, b uint32) uint32 { return a | b }),
		"bxor":    binop(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  shift(func(b, n uint32) uint32 { return b << n }),
		"rshift":  shift(func(b, n uint32) uint32 { return b >> n }),
		"arshift": shift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) }),
		"rol":     shift(func(b, n uint32) uint32 { return b<<n | b>>(32-n) }),
		"ror":     shift(func(b, n uint32) uint32 { return b<<(32-n) | b>>n }),
		"bswap": func(L *lua.LState) int {
			b := bitArg(L, 1)
			return bitRet(L, b>>24|b>>8&0xff00|(b&0xff00)<<8|b<<24)
		},
		"tohex": bitTohex,
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// bitArg converts argument i as barg does: the number plus 2^52+2^51,
// whose low 32 mantissa bits are the integer value modulo 2^32.
func bitArg(L *lua.LState, i int) uint32 {
	v := L.Get(i)
	n, isNum := luaToNumber(v)
	b := uint32(math.Float64bits(n + 6755399441055744.0))
	if b == 0 && (!isNum || i > L.GetTop()) {
		typeError(L, i, "number")
	}
	return b
}

func bitRet(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

// bitTohex is bit.tohex(x [, n]): n hex digits, upper case when n < 0.
func bitTohex(L *lua.LState) int {
	b := bitArg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2))
	}
	digits := "0123456789abcdef"
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 || n < 0 { // n < 0: -INT32_MIN, which Redis reads past its buffer for
		n = 8
	}
	buf := make([]byte, n)
	for i := int(n) - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
