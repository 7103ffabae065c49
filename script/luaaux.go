package script

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1 lauxlib argument checks with their exact error texts, for the
// functions this package provides (gopher-lua's own checks word them
// differently: "bad argument #1 to rep (string expected, got nil)").

// callName returns the name the running Go function was called by and
// whether it was called as a method (obj:name()), as lua_getinfo "n" does.
func callName(L *lua.LState) (string, bool) {
	dbg, ok := L.GetStack(0)
	if !ok {
		return "?", false
	}
	if _, err := L.GetInfo("n", dbg, lua.LNil); err != nil {
		return "?", false
	}
	name := dbg.Name
	if name == "" || name == "(anonymous)" || name == "main chunk" || name == "corountine" || name[0] == '<' {
		return "?", false
	}
	return name, isMethodCall(L, name)
}

// isMethodCall reports whether the Lua function one level up called name
// with OP_SELF (obj:name()) on its current line.
func isMethodCall(L *lua.LState, name string) bool {
	dbg, ok := L.GetStack(1)
	if !ok {
		return false
	}
	fn, err := L.GetInfo("lf", dbg, lua.LNil)
	if err != nil {
		return false
	}
	f, ok := fn.(*lua.LFunction)
	if !ok || f.IsG || f.Proto == nil {
		return false
	}
	p := f.Proto
	for _, c := range p.DbgCalls {
		if c.Name != name || c.Pc < 0 || c.Pc >= len(p.Code) || p.DbgSourcePositions[c.Pc] != dbg.CurrentLine {
			continue
		}
		freg := int(p.Code[c.Pc]>>18) & 0xff
		for pc := c.Pc - 1; pc >= 0; pc-- {
			inst := p.Code[pc]
			if int(inst>>18)&0xff != freg {
				continue
			}
			if int(inst>>26) == lua.OP_SELF {
				return true
			}
			break
		}
	}
	return false
}

// argError raises luaL_argerror's "bad argument #n to 'name' (msg)".
func argError(L *lua.LState, n int, msg string) {
	name, method := callName(L)
	if method {
		n--
		if n == 0 {
			luaError(L, "calling '"+name+"' on bad self ("+msg+")")
		}
	}
	luaError(L, "bad argument #"+strconv.Itoa(n)+" to '"+name+"' ("+msg+")")
}

// luaError is luaL_error: msg with the position of the caller of the
// running Go function, when that caller is a Lua function.
func luaError(L *lua.LState, msg string) {
	L.Error(lua.LString(where(L, 1)+msg), 0)
}

// typeName is luaL_typename: "no value" past the top of the stack.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// typeError raises luaL_typerror's "<tname> expected, got <type>".
func typeError(L *lua.LState, n int, tname string) {
	argError(L, n, tname+" expected, got "+typeName(L, n))
}

// checkAny is luaL_checkany.
func checkAny(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		argError(L, n, "value expected")
	}
	return L.Get(n)
}

// checkNumber is luaL_checknumber: numbers and numeric strings.
func checkNumber(L *lua.LState, n int) float64 {
	f, ok := luaToNumber(L.Get(n))
	if !ok || n > L.GetTop() {
		typeError(L, n, "number")
	}
	return f
}

// checkInteger is luaL_checkinteger: the number truncated as a C cast to
// ptrdiff_t.
func checkInteger(L *lua.LState, n int) int64 { return doubleToInt64(checkNumber(L, n)) }

// checkInt is luaL_checkint: the integer cut to a C int.
func checkInt(L *lua.LState, n int) int { return int(int32(checkInteger(L, n))) }

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInteger(L, n)
}

// checkString is luaL_checklstring: strings and numbers (converted).
func checkString(L *lua.LState, n int) string {
	v := L.Get(n)
	if !isLuaString(v) || n > L.GetTop() {
		typeError(L, n, "string")
	}
	return luaToString(v)
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE).
func checkTable(L *lua.LState, n int) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		typeError(L, n, "table")
	}
	return t
}

// where is luaL_where: "short_src:line: " for a Lua function at level, or
// "" when there is no line information.
func where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// raise raises msg as a string error without position information
// (lua_error on a pushed string).
func raise(L *lua.LState, msg string) {
	L.Error(lua.LString(msg), 0)
}
