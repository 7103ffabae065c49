package script

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The standard libraries as Redis's Lua 5.1 has them: gopher-lua's
// functions, with Lua 5.1's versions where gopher-lua differs in results
// (byte-wise case mapping, "%.14g" numbers, C printf formats, Redis's random
// generator) and the functions gopher-lua lacks (table.foreach, foreachi,
// setn).

// copyTable returns a new table with the entries of t.
func copyTable(L *lua.LState, t *lua.LTable) *lua.LTable {
	out := L.NewTable()
	t.ForEach(func(k, v lua.LValue) { out.RawSet(k, v) })
	return out
}

func (vm *VM) stringLib(std *lua.LTable) *lua.LTable {
	L := vm.L
	t := copyTable(L, std)
	t.RawSetString("__index", lua.LNil)
	for _, name := range []string{"find", "match", "gmatch", "gsub"} {
		t.RawSetString(name, L.NewFunction(guardPattern(std.RawGetString(name).(*lua.LFunction), name == "find")))
	}
	gsub := t.RawGetString("gsub").(*lua.LFunction)
	t.RawSetString("gsub", L.NewFunction(func(L *lua.LState) int {
		switch r := L.Get(3).(type) {
		case lua.LNumber: // a string to Lua's gsub, which gopher-lua's refuses
			L.Replace(3, lua.LString(luaNumberString(float64(r))))
		case lua.LString, *lua.LFunction, *lua.LTable:
		default:
			argError(L, 3, "string/function/table expected")
		}
		return gsub.GFunction(L)
	}))
	if gfind := std.RawGetString("gfind"); gfind != lua.LNil {
		t.RawSetString("gfind", t.RawGetString("gmatch"))
	}
	for name, fn := range map[string]lua.LGFunction{
		"byte":   strByte,
		"format": vm.strFormat,
		"lower":  func(L *lua.LState) int { L.Push(lua.LString(mapBytes(checkString(L, 1), toLowerByte))); return 1 },
		"upper":  func(L *lua.LState) int { L.Push(lua.LString(mapBytes(checkString(L, 1), toUpperByte))); return 1 },
		"rep":    vm.strRep,
		"len":    func(L *lua.LState) int { L.Push(lua.LNumber(len(checkString(L, 1)))); return 1 },
		"dump":   strDump,
		"char":   strChar,
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

func toLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func toUpperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func mapBytes(s string, f func(byte) byte) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = f(c)
	}
	return string(b)
}

// maxPattern bounds the length of a pattern: gopher-lua's matcher recurses
// per pattern item, and a pattern of millions of items would exhaust the
// Go stack (a fatal error, not a Lua one).
const maxPattern = 1 << 14

// guardPattern wraps a string function whose second argument is a pattern
// (find: unless it searches plainly, as it does when asked to or when the
// pattern has no special character).
func guardPattern(fn *lua.LFunction, find bool) lua.LGFunction {
	return func(L *lua.LState) int {
		if p, ok := L.Get(2).(lua.LString); ok && len(p) > maxPattern {
			plain := find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(string(p), "^$*+?.([%-"))
			if !plain {
				luaError(L, "pattern too complex")
			}
		}
		if len(fn.Upvalues) == 0 {
			// Called in this frame, not through L.Call: an error it
			// raises then comes from one C function, as in Redis, and the
			// error handler finds the script's line one level up.
			return fn.GFunction(L)
		}
		top := L.GetTop() // gmatch reads its upvalue: call it as itself
		L.Insert(fn, 1)
		L.Call(top, lua.MultRet)
		return L.GetTop()
	}
}

// posrelat is Lua 5.1's relative string position.
func posrelat(pos int64, n int) int64 {
	if pos < 0 {
		pos += int64(n) + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// strByte is string.byte(s [, i [, j]]), refusing more results than the
// Lua stack holds as Lua 5.1 does.
func strByte(L *lua.LState) int {
	s := checkString(L, 1)
	posi := posrelat(optInteger(L, 2, 1), len(s))
	pose := posrelat(optInteger(L, 3, posi), len(s))
	if posi <= 0 {
		posi = 1
	}
	if pose > int64(len(s)) {
		pose = int64(len(s))
	}
	if posi > pose {
		return 0
	}
	n := int(pose - posi + 1)
	if L.GetTop()+n > luaMaxCStack {
		luaError(L, "stack overflow (string slice too long)")
	}
	for i := posi; i <= pose; i++ {
		L.Push(lua.LNumber(s[i-1]))
	}
	return n
}

// strRep is string.rep(s, n).
func (vm *VM) strRep(L *lua.LState) int {
	s := checkString(L, 1)
	n := int64(checkInt(L, 2)) // luaL_checkint: string.rep('x', 2^32) is ""
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	vm.checkAlloc(L, int64(len(s))*n)
	L.Push(lua.LString(strings.Repeat(s, int(n))))
	return 1
}

// strChar is string.char(...).
func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := checkInt(L, i)
		if c < 0 || c > 255 {
			argError(L, i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strDump is string.dump(f): a Lua 5.1 binary chunk header. Redis refuses
// to load binary chunks, so the rest does not matter.
func strDump(L *lua.LState) int {
	f, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		typeError(L, 1, "function")
	}
	if f.IsG {
		luaError(L, "unable to dump given function")
	}
	L.Push(lua.LString("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"))
	return 1
}

func (vm *VM) tableLib(std *lua.LTable) *lua.LTable {
	L := vm.L
	t := copyTable(L, std)
	for name, fn := range map[string]lua.LGFunction{
		"concat":   vm.tabConcat,
		"insert":   vm.tabInsert,
		"foreach":  tabForeach,
		"foreachi": tabForeachi,
		"setn":     func(L *lua.LState) int { checkTable(L, 1); luaError(L, "'setn' is obsolete"); return 0 },
		"getn":     func(L *lua.LState) int { L.Push(lua.LNumber(checkTable(L, 1).Len())); return 1 },
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// tabConcat is table.concat(t [, sep [, i [, j]]]) with numbers as "%.14g".
func (vm *VM) tabConcat(L *lua.LState) int {
	t := checkTable(L, 1)
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = checkString(L, 2)
	}
	i := optInteger(L, 3, 1)
	last := int64(t.Len())
	if L.Get(4) != lua.LNil {
		last = checkInteger(L, 4)
	}
	var b strings.Builder
	for ; i <= last; i++ {
		v := t.RawGetInt(int(i))
		if !isLuaString(v) {
			luaError(L, "invalid value ("+v.Type().String()+") at index "+itoa(int(i))+" in table for 'concat'")
		}
		piece := luaToString(v)
		if b.Len() == 0 {
			vm.checkAlloc(L, concatSize(t, len(sep), i, last))
		}
		b.WriteString(piece)
		if i != last {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// concatSize is the length of table.concat's result for t[i..last] joined
// by a separator of sepLen bytes, counting only the string and number
// values up to the first other one (where table.concat raises).
func concatSize(t *lua.LTable, sepLen int, i, last int64) int64 {
	var n int64
	for j := i; j <= last; j++ {
		v := t.RawGetInt(int(j))
		if !isLuaString(v) {
			break
		}
		n += int64(len(luaToString(v)))
		if j != last {
			n += int64(sepLen)
		}
		if n > maxLuaString {
			break
		}
	}
	return n
}

// tabInsert is table.insert(t, [pos,] v); read-only tables refuse it.
func (vm *VM) tabInsert(L *lua.LState) int {
	t := checkTable(L, 1)
	e := t.Len() + 1
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = checkInt(L, 2)
		if pos > e {
			e = pos
		}
	default:
		luaError(L, "wrong number of arguments to 'insert'")
	}
	if vm.isReadonly(t) {
		raise(L, msgReadonly)
	}
	for i := e; i > pos; i-- {
		t.RawSetInt(i, t.RawGetInt(i-1))
	}
	t.RawSetInt(pos, L.Get(L.GetTop()))
	return 0
}

// tabForeach is Lua 5.1's deprecated table.foreach(t, f).
func tabForeach(L *lua.LState) int {
	t := checkTable(L, 1)
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		typeError(L, 2, "function")
	}
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tabForeachi is Lua 5.1's deprecated table.foreachi(t, f).
func tabForeachi(L *lua.LState) int {
	t := checkTable(L, 1)
	f, ok := L.Get(2).(*lua.LFunction)
	if !ok {
		typeError(L, 2, "function")
	}
	n := t.Len()
	for i := 1; i <= n; i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(t.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// baseUnpack is unpack(t [, i [, j]]), refusing more results than the Lua
// stack holds ("too many results to unpack"), as Lua 5.1 does.
func baseUnpack(L *lua.LState) int {
	t := checkTable(L, 1)
	i := int64(int32(optInteger(L, 2, 1)))
	var e int64
	if L.Get(3) == lua.LNil {
		e = int64(L.ObjLen(t))
	} else {
		e = int64(checkInt(L, 3))
	}
	if i > e {
		return 0
	}
	n := e - i + 1
	if n <= 0 || n > math.MaxInt32 || int64(L.GetTop())+n > luaMaxCStack {
		luaError(L, "too many results to unpack")
	}
	for ; i <= e; i++ {
		L.Push(t.RawGetInt(int(i)))
	}
	return int(n)
}

// baseSelect is select(n, ...) and select('#', ...).
func baseSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := checkInt(L, 1)
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		argError(L, 1, "index out of range")
	}
	return n - i
}

func (vm *VM) mathLib(std *lua.LTable) *lua.LTable {
	L := vm.L
	t := copyTable(L, std)
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	t.RawSetString("random", L.NewFunction(vm.mathRandom))
	t.RawSetString("randomseed", L.NewFunction(vm.mathRandomseed))
	t.RawSetString("max", L.NewFunction(func(L *lua.LState) int { return mathMinMax(L, 1) }))
	t.RawSetString("min", L.NewFunction(func(L *lua.LState) int { return mathMinMax(L, -1) }))
	t.RawSetString("log", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(math.Log(checkNumber(L, 1))))
		return 1
	}))
	return t
}

// coroutineLib wraps create and wrap so that coroutines run under the
// VM's interrupt hook (a coroutine is a Lua state of its own in
// gopher-lua; without the hook an endless loop in one could not be
// killed).
func (vm *VM) coroutineLib(std *lua.LTable) *lua.LTable {
	L := vm.L
	t := copyTable(L, std)
	create := std.RawGetString("create").(*lua.LFunction)
	stdResume := std.RawGetString("resume").(*lua.LFunction)
	resume := L.NewFunction(func(L *lua.LState) int {
		th, ok := L.Get(1).(*lua.LState)
		if !ok {
			argError(L, 1, "coroutine expected")
		}
		// auxresume's text for a coroutine that is not suspended.
		state := ""
		switch {
		case th.Dead:
			state = "dead"
		case th == L:
			state = "running"
		default:
			for p := L.Parent; p != nil; p = p.Parent {
				if p == th {
					state = "normal"
					break
				}
			}
		}
		if state != "" {
			L.Push(lua.LFalse)
			L.Push(lua.LString("cannot resume " + state + " coroutine"))
			return 2
		}
		return stdResume.GFunction(L)
	})
	t.RawSetString("resume", resume)
	newThread := func(L *lua.LState) *lua.LState {
		f, ok := L.Get(1).(*lua.LFunction)
		if !ok || f.IsG {
			argError(L, 1, "Lua function expected")
		}
		L.Push(create)
		L.Push(f)
		L.Call(1, 1)
		th := L.Get(-1).(*lua.LState)
		L.Pop(1)
		th.SetContext(&vm.hook)
		return th
	}
	t.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		L.Push(newThread(L))
		return 1
	}))
	yield := std.RawGetString("yield").(*lua.LFunction)
	t.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if L.Parent == nil || yieldsAcrossGo(L) {
			// lua_yield outside a coroutine or under a C function such as
			// pcall: raised in C, so without a position.
			L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
		}
		return yield.GFunction(L)
	}))
	t.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		th := newThread(L)
		L.Push(L.NewClosure(func(L *lua.LState) int {
			n := L.GetTop()
			L.Insert(th, 1)
			L.Insert(resume, 1)
			L.Call(n+1, lua.MultRet)
			if L.Get(1) == lua.LFalse {
				e := L.Get(2)
				if isLuaString(e) {
					e = lua.LString(where(L, 1) + luaToString(e))
				}
				L.Error(e, 0)
			}
			L.Remove(1)
			return L.GetTop()
		}, th))
		return 1
	}))
	return t
}

// yieldsAcrossGo reports whether a Go function (pcall, a builtin calling
// back into Lua) lies between coroutine.yield and the body of the running
// coroutine, where Lua 5.1 cannot yield.
func yieldsAcrossGo(L *lua.LState) bool {
	for lvl := 1; lvl < 1<<16; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			return false
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return false
		}
		if dbg.What == "G" {
			return true
		}
	}
	return false
}

// mathMinMax is math.max (sign 1) and math.min (sign -1).
func mathMinMax(L *lua.LState, sign float64) int {
	n := L.GetTop()
	best := checkNumber(L, 1)
	for i := 2; i <= n; i++ {
		v := checkNumber(L, i)
		if (v-best)*sign > 0 {
			best = v
		}
	}
	L.Push(lua.LNumber(best))
	return 1
}
