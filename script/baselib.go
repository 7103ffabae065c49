package script

import (
	"runtime/metrics"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Base library functions that Redis's Lua 5.1 does differently from
// gopher-lua, or that must see through the read-only proxies.

// baseError is Lua 5.1's error(msg [, level]): a string or number message
// gets the position of the function at level (1 = the caller) in front.
func (vm *VM) baseError(L *lua.LState) int {
	level := int(int32(optInteger(L, 2, 1)))
	v := L.Get(1)
	if isLuaString(v) && level > 0 {
		v = lua.LString(where(L, level) + luaToString(v))
	}
	L.Error(v, 0)
	return 0
}

// baseAssert is Lua 5.1's assert(v [, message]).
func baseAssert(L *lua.LState) int {
	v := checkAny(L, 1)
	if v == lua.LNil || v == lua.LFalse {
		msg := "assertion failed!"
		if L.Get(2) != lua.LNil {
			msg = checkString(L, 2)
		}
		luaError(L, msg)
	}
	return L.GetTop()
}

// baseGcinfo returns the heap size in kilobytes (Lua 5.1's gcinfo).
func baseGcinfo(L *lua.LState) int {
	L.Push(lua.LNumber(heapKB()))
	return 1
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapKB reports the live heap in kilobytes (collectgarbage("count")).
func heapKB() float64 {
	metrics.Read(heapSample)
	if heapSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(heapSample[0].Value.Uint64() / 1024)
}

// baseCollectgarbage is Lua 5.1's collectgarbage. The Go collector runs by
// itself, so the options only report: "count" the heap in kilobytes,
// "step" whether a step of that size would end a cycle, the others 0.
func baseCollectgarbage(L *lua.LState) int {
	opt := "collect"
	if L.Get(1) != lua.LNil {
		opt = checkString(L, 1)
	}
	switch opt {
	case "count":
		L.Push(lua.LNumber(heapKB()))
	case "step":
		// lua_gc(LUA_GCSTEP, n) steps the collector by n KB and answers
		// whether that finished a cycle: a step of at least the heap's
		// size does, a plain step (n = 0) does not.
		n := optInteger(L, 2, 0)
		L.Push(lua.LBool(n > 0 && float64(n) >= heapKB()))
	case "stop", "restart", "collect", "setpause", "setstepmul":
		L.Push(lua.LNumber(0))
	default:
		argError(L, 1, "invalid option '"+opt+"'")
	}
	return 1
}

// baseGetmetatable answers a read-only view for protected tables, and the
// __metatable field when a metatable has one.
func (vm *VM) baseGetmetatable(L *lua.LState) int {
	v := checkAny(L, 1)
	if t, ok := v.(*lua.LTable); ok {
		if m, ok := vm.metaOf[t]; ok {
			L.Push(m)
			return 1
		}
	}
	mt := L.GetMetatable(v)
	if t, ok := mt.(*lua.LTable); ok {
		if p := vm.proxyOf[t]; p != nil {
			L.Push(p)
			return 1
		}
		if f := t.RawGetString("__metatable"); f != lua.LNil {
			mt = f
		}
	}
	L.Push(mt)
	return 1
}

// baseSetmetatable refuses protected tables as Redis's read-only tables do.
func (vm *VM) baseSetmetatable(L *lua.LState) int {
	t2 := L.Get(2).Type()
	t := checkTable(L, 1)
	if t2 != lua.LTNil && t2 != lua.LTTable {
		argError(L, 2, "nil or table expected")
	}
	if vm.isReadonly(t) {
		raise(L, msgReadonly)
	}
	if mt, ok := t.Metatable.(*lua.LTable); ok && mt.RawGetString("__metatable") != lua.LNil {
		luaError(L, "cannot change a protected metatable")
	}
	t.Metatable = L.Get(2)
	L.SetTop(1)
	return 1
}

func (vm *VM) baseRawget(L *lua.LState) int {
	t := checkTable(L, 1)
	k := checkAny(L, 2)
	L.Push(vm.unwrap(t).RawGet(k))
	return 1
}

func (vm *VM) baseRawset(L *lua.LState) int {
	t := checkTable(L, 1)
	k := checkAny(L, 2)
	v := checkAny(L, 3)
	if vm.isReadonly(t) {
		raise(L, msgReadonly)
	}
	if k == lua.LNil {
		raise(L, "table index is nil")
	}
	t.RawSet(k, v)
	L.SetTop(1)
	return 1
}

// baseNext iterates a protected table's contents, not its empty proxy.
func (vm *VM) baseNext(L *lua.LState) int {
	t := checkTable(L, 1)
	k, v := vm.unwrap(t).Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (vm *VM) basePairs(L *lua.LState) int {
	t := checkTable(L, 1)
	L.Push(vm.next)
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

// basePcall is Redis's replacement of pcall (luaRedisPcall): when the error
// is a table with an "err" field, pcall returns that string instead of the
// table, for scripts written before errors became tables.
func (vm *VM) basePcall(L *lua.LState) int {
	argc := L.GetTop()
	if argc == 0 {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a boolean value"))
		return 2
	}
	f := L.Get(1)
	if f.Type() != lua.LTFunction && L.GetMetaField(f, "__call").Type() != lua.LTFunction {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + f.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(argc-1, lua.MultRet, vm.rewordErr); err != nil {
		obj := errorObject(err)
		if t, ok := obj.(*lua.LTable); ok {
			if e := L.GetField(t, "err"); isLuaString(e) {
				obj = e
			}
		}
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// rewordError is the message handler of pcall, xpcall and FUNCTION LOAD:
// it rewords a string error while the frame that raised it is still on the
// stack (runtimeErrorText) and returns any other error object unchanged.
func (vm *VM) rewordError(L *lua.LState) int {
	v := L.Get(1)
	if s, ok := v.(lua.LString); ok && !vm.isMemoryError(v) {
		v = lua.LString(runtimeErrorText(L, 1, string(s)))
	}
	L.Push(v)
	return 1
}

// baseXpcall is xpcall(f, handler): handler receives the error in Lua
// 5.1's words and its first result is the error pcall returns.
func (vm *VM) baseXpcall(L *lua.LState) int {
	fn := checkAny(L, 1)
	h := checkAny(L, 2)
	handler := L.NewFunction(func(L *lua.LState) int {
		v := L.Get(1)
		if vm.isMemoryError(v) {
			// Lua does not call the handler for a memory error.
			L.Push(v)
			return 1
		}
		if s, ok := v.(lua.LString); ok {
			v = lua.LString(runtimeErrorText(L, 1, string(s)))
		}
		L.SetTop(0)
		L.Push(h)
		L.Push(v)
		L.Call(1, 1)
		return 1
	})
	L.SetTop(0)
	L.Push(fn)
	if err := L.PCall(0, lua.MultRet, handler); err != nil {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(errorObject(err))
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// errorObject returns the Lua value of an error gopher-lua returned.
func errorObject(err error) lua.LValue {
	if ae, ok := err.(*lua.ApiError); ok {
		return ae.Object
	}
	return lua.LString(err.Error())
}

// baseTostring is Lua 5.1's tostring: __tostring first, numbers as "%.14g".
func (vm *VM) baseTostring(L *lua.LState) int {
	v := checkAny(L, 1)
	if mm := L.GetMetaField(v, "__tostring"); mm != lua.LNil {
		L.Push(mm)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}
	L.Push(lua.LString(vm.tostring(v)))
	return 1
}

// tostring converts v without metamethods.
func (vm *VM) tostring(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LNumber:
		return luaNumberString(float64(x))
	case lua.LString:
		return string(x)
	case lua.LBool:
		if x {
			return "true"
		}
		return "false"
	case *lua.LNilType:
		return "nil"
	case *lua.LUserData:
		if x == vm.shared.null {
			return "userdata: (nil)"
		}
	}
	s := v.String()
	// gopher-lua prints Go-implemented functions as "function: builtin: 0x.."
	return strings.Replace(s, "builtin: ", "", 1)
}

// baseTonumber is Lua 5.1's tonumber: strtod for base 10 (leading and
// trailing white space, hexadecimal, inf and nan accepted), strtoul
// otherwise.
func baseTonumber(L *lua.LState) int {
	base := int(int32(optInteger(L, 2, 10)))
	if base == 10 {
		v := checkAny(L, 1)
		if f, ok := luaToNumber(v); ok {
			L.Push(lua.LNumber(f))
			return 1
		}
	} else {
		s := cString(checkString(L, 1))
		if base < 2 || base > 36 {
			argError(L, 2, "base out of range")
		}
		if n, m := strtoul(s, base); m > 0 {
			for m < len(s) && isCSpace(s[m]) {
				m++
			}
			if m == len(s) {
				L.Push(lua.LNumber(float64(n)))
				return 1
			}
		}
	}
	L.Push(lua.LNil)
	return 1
}

// baseLoadstring is loadstring(s [, chunkname]): the chunk is compiled with
// the same rewrites as scripts; binary chunks are refused.
func (vm *VM) baseLoadstring(L *lua.LState) int {
	src := checkString(L, 1)
	name := src
	if L.Get(2) != lua.LNil {
		name = checkString(L, 2)
	}
	return vm.pushLoaded(L, src, name)
}

// baseLoad is load(func [, chunkname]): the pieces the reader function
// returns are concatenated and compiled.
func (vm *VM) baseLoad(L *lua.LState) int {
	name := "=(load)"
	if L.Get(2) != lua.LNil {
		name = checkString(L, 2)
	}
	reader, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "function")
	}
	var b strings.Builder
	for {
		L.Push(reader)
		if err := L.PCall(0, 1, nil); err != nil {
			L.Push(lua.LNil)
			L.Push(errorObject(err))
			return 2
		}
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		if !isLuaString(piece) {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		s := luaToString(piece)
		if s == "" {
			break
		}
		b.WriteString(s)
		if b.Len() > maxLoadSize {
			// Lua's parser reads the pieces lazily and stops at the first
			// syntax error; a reader that never ends is cut here.
			break
		}
	}
	return vm.pushLoaded(L, b.String(), name)
}

// maxLoadSize bounds what load reads from its reader function.
const maxLoadSize = 1 << 20

// pushLoaded compiles src and pushes the chunk, or nil and the message.
func (vm *VM) pushLoaded(L *lua.LState, src, name string) int {
	fn, msg := vm.loadChunk(src, name)
	if fn == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(msg))
		return 2
	}
	L.Push(fn)
	return 1
}

// luaConcat implements the `..` operator for compiled chunks (the compiler
// rewrites every concatenation into a call of it): numbers are formatted
// with "%.14g" as Lua 5.1 does, and __concat metamethods are honoured the
// way luaV_concat applies them, from the right.
func (vm *VM) luaConcat(L *lua.LState) int {
	n := L.GetTop()
	if n == 2 {
		a, b := L.Get(1), L.Get(2)
		if sa, ok := a.(lua.LString); ok {
			if sb, ok := b.(lua.LString); ok {
				vm.checkAlloc(L, int64(len(sa)+len(sb)))
				L.Push(sa + sb)
				return 1
			}
		}
	}
	for n > 1 {
		a, b := L.Get(n-1), L.Get(n)
		if !isLuaString(a) || !isLuaString(b) {
			mm := L.GetMetaField(a, "__concat")
			if mm == lua.LNil {
				mm = L.GetMetaField(b, "__concat")
			}
			if mm == lua.LNil {
				bad, at := a, n-1
				if isLuaString(a) {
					bad, at = b, n
				}
				luaError(L, "attempt to concatenate "+concatOperandName(L, at, bad.Type().String()))
			}
			L.Push(mm)
			L.Push(a)
			L.Push(b)
			L.Call(2, 1)
			r := L.Get(-1)
			L.SetTop(n - 2)
			L.Push(r)
			n--
			continue
		}
		// Join the run of strings and numbers that ends at n.
		first := n - 1
		for first > 1 && isLuaString(L.Get(first-1)) {
			first--
		}
		size := int64(0)
		for i := first; i <= n; i++ {
			size += int64(len(luaToString(L.Get(i))))
		}
		vm.checkAlloc(L, size)
		var sb strings.Builder
		sb.Grow(int(size))
		for i := first; i <= n; i++ {
			sb.WriteString(luaToString(L.Get(i)))
		}
		L.SetTop(first - 1)
		L.Push(lua.LString(sb.String()))
		n = first
	}
	L.SetTop(1)
	return 1
}
