package script

import (
	lua "github.com/yuin/gopher-lua"
)

// Sandbox texts (Redis's modified Lua and script_lua.c).
const (
	msgReadonly    = "Attempt to modify a readonly table"
	msgNoGlobalFmt = "Script attempted to access nonexistent global variable '"
)

// openLibraries builds the global environment of Redis 7.0.15 (spec L-4):
// the allowed base functions (several replaced by Redis-exact versions),
// string, table, math, coroutine, cjson, cmsgpack, bit, struct and redis,
// every table reachable from _G behind a read-only proxy, and a globals
// metatable that raises on unknown names.
func (vm *VM) openLibraries() {
	L := vm.L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	std := L.G.Global

	vm.roErr = L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgReadonly)
		return 0
	})
	vm.concat = L.NewFunction(vm.luaConcat)
	vm.errfunc = L.NewFunction(vm.errorHandler)
	vm.rewordErr = L.NewFunction(vm.rewordError)
	vm.next = L.NewFunction(vm.baseNext)

	g := L.NewTable()
	vm.g = g
	for _, name := range []string{"ipairs", "rawequal", "type"} {
		g.RawSetString(name, std.RawGetString(name))
	}
	g.RawSetString("_VERSION", lua.LString("Lua 5.1"))
	for name, fn := range map[string]lua.LGFunction{
		"assert":         baseAssert,
		"collectgarbage": baseCollectgarbage,
		"error":          vm.baseError,
		"gcinfo":         baseGcinfo,
		"getmetatable":   vm.baseGetmetatable,
		"load":           vm.baseLoad,
		"loadstring":     vm.baseLoadstring,
		"pairs":          vm.basePairs,
		"pcall":          vm.basePcall,
		"xpcall":         vm.baseXpcall,
		"rawget":         vm.baseRawget,
		"rawset":         vm.baseRawset,
		"setmetatable":   vm.baseSetmetatable,
		"select":         baseSelect,
		"tonumber":       baseTonumber,
		"unpack":         baseUnpack,
		"tostring":       vm.baseTostring,
	} {
		g.RawSetString(name, L.NewFunction(fn))
	}
	g.RawSetString("next", vm.next)

	g.RawSetString("string", vm.protect(vm.stringLib(std.RawGetString("string").(*lua.LTable))))
	g.RawSetString("table", vm.protect(vm.tableLib(std.RawGetString("table").(*lua.LTable))))
	g.RawSetString("math", vm.protect(vm.mathLib(std.RawGetString("math").(*lua.LTable))))
	g.RawSetString("coroutine", vm.protect(vm.coroutineLib(std.RawGetString("coroutine").(*lua.LTable))))
	g.RawSetString("cjson", vm.protect(vm.cjsonLib()))
	g.RawSetString("cmsgpack", vm.protect(vm.cmsgpackLib()))
	g.RawSetString("bit", vm.protect(vm.bitLib()))
	g.RawSetString("struct", vm.protect(vm.structLib()))

	// The metatable of strings: its __index is the (protected) string
	// library; getmetatable("") answers a protected view of it.
	smt := L.NewTable()
	smt.RawSetString("__index", g.RawGetString("string"))
	L.SetMetatable(lua.LString(""), smt)
	vm.protect(smt)

	// Unknown globals raise (luaSetErrorMetatable).
	gm := L.NewTable()
	gm.RawSetString("__index", L.NewFunction(protectedTableError))
	g.Metatable = gm

	vm.gproxy = vm.protect(g)
	vm.gmeta = vm.gproxy.Metatable.(*lua.LTable)
	// getmetatable(_G) shows the error metatable, read-only, as in Redis.
	vm.metaOf[vm.gproxy] = vm.protect(gm)
	g.RawSetString("_G", vm.gproxy)

	if vm.mode == modeEval {
		g.RawSetString("redis", vm.protect(vm.redisLib()))
		g.RawSetString("__redis__err__handler", L.NewFunction(vm.userErrorHandler))
	} else {
		g.RawSetString("redis", vm.protect(vm.redisLib()))
		vm.loadAPI = vm.loadAPITable()
	}

	L.Env = vm.gproxy
	L.G.Global = vm.gproxy
	L.SetTop(0)
}

// protect returns the read-only proxy of t, creating it on first use. The
// proxy is an empty table whose metatable reads through to t and raises on
// every write (Redis marks the table itself read-only; gopher-lua has no
// such flag, and __newindex alone would not catch writes to existing keys).
func (vm *VM) protect(t *lua.LTable) *lua.LTable {
	if p := vm.proxyOf[t]; p != nil {
		return p
	}
	p := vm.L.NewTable()
	mt := vm.L.CreateTable(0, 2)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", vm.roErr)
	p.Metatable = mt
	vm.backing[p] = t
	vm.proxyOf[t] = p
	vm.metaOf[p] = lua.LNil
	return p
}

// unwrap returns the table a proxy guards, or t itself.
func (vm *VM) unwrap(t *lua.LTable) *lua.LTable {
	if b := vm.backing[t]; b != nil {
		return b
	}
	return t
}

// isReadonly reports whether t is a read-only proxy or a table one guards.
func (vm *VM) isReadonly(t *lua.LTable) bool {
	return vm.backing[t] != nil || vm.proxyOf[t] != nil
}

// protectedTableError is the __index of the globals: reading an unknown
// global raises (luaProtectedTableError).
func protectedTableError(L *lua.LState) int {
	if L.GetTop() != 2 {
		L.RaiseError("Wrong number of arguments to luaProtectedTableError")
	}
	k := L.Get(2)
	if k.Type() != lua.LTString && k.Type() != lua.LTNumber {
		L.RaiseError("Second argument to luaProtectedTableError must be a string or number")
	}
	L.RaiseError("%s", msgNoGlobalFmt+luaToString(k)+"'")
	return 0
}

// setGlobal sets a global in the backing table (KEYS, ARGV).
func (vm *VM) setGlobal(name string, v lua.LValue) { vm.g.RawSetString(name, v) }
