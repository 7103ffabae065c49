package script

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestFrameLayout fails when gopher-lua's private frame layout (read by
// luaframe.go) changes: error texts would lose their variable names.
func TestFrameLayout(t *testing.T) {
	if !frameLayoutOK {
		t.Fatal("gopher-lua's lua.Debug no longer has frame *callFrame with an int Pc: update luaframe.go")
	}
	L := lua.NewState()
	defer L.Close()
	var pc int
	var line int
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		dbg, ok := L.GetStack(1)
		if !ok {
			t.Fatal("no caller frame")
		}
		L.GetInfo("l", dbg, lua.LNil)
		pc, line = framePC(dbg), dbg.CurrentLine
		return 0
	}))
	if err := L.DoString("local a = 1\nlocal b = 2\nprobe()"); err != nil {
		t.Fatal(err)
	}
	// LOADK, LOADK, GETGLOBAL, CALL: the CALL at index 3, on line 3.
	if pc != 3 || line != 3 {
		t.Fatalf("framePC = %d (line %d), want 3 (line 3)", pc, line)
	}
}

// TestRuntimeErrorNames checks Lua 5.1's variable names in runtime errors
// without a server (the differential test luaerrors.txt compares them with
// redis-server).
func TestRuntimeErrorNames(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	for _, tc := range []struct{ src, want string }{
		{"local x; x()", "attempt to call local 'x' (a nil value)"},
		{"local x = 5\nx()", "user_script:2: attempt to call local 'x' (a number value)"},
		{"redis.register_function('a')", "attempt to call field 'register_function' (a nil value)"},
		{"KEYS()", "attempt to call global 'KEYS' (a table value)"},
		{"local t = {} t:m()", "attempt to call method 'm' (a nil value)"},
		{"local up; local function f() up() end f()", "attempt to call upvalue 'up' (a nil value)"},
		{"return ARGV[1]()", "attempt to call field '?' (a nil value)"},
		{"return redis.call.x", "attempt to index field 'call' (a function value)"},
		{"local x = 1; x.y = 2", "attempt to index local 'x' (a number value)"},
		{"local t = setmetatable({}, {__index = 5}); return t.x", "attempt to index a number value"},
		{"local t = {}; return t.n * 2", "attempt to perform arithmetic on field 'n' (a nil value)"},
		{"return 'abc' + nil", "attempt to perform arithmetic on a string value"},
		{"local x = {}; return -x", "attempt to perform arithmetic on local 'x' (a table value)"},
		{"local up = {}; local function f() return 'x' .. up end return f()", "attempt to concatenate upvalue 'up' (a table value)"},
		{"local a, b, c = nil, 'x', 'y'; return a .. b .. c", "attempt to concatenate local 'a' (a nil value)"},
		{"local x = 5; return #x", "attempt to get length of local 'x' (a number value)"},
		{"return true > false", "attempt to compare two boolean values"},
		{"return 1 >= 'x'", "attempt to compare string with number"},
		{"for k in 5 do end", "attempt to call a number value"},
		{"return {pcall(function() local x = 1; return x.y end)}", "attempt to index local 'x' (a number value)"},
		{"return {xpcall(function() local x; x() end, function(m) return m end)}", "attempt to call local 'x' (a nil value)"},
		{"return {coroutine.resume(coroutine.create(function() local t = {}; return t.a + 1 end))}", "attempt to perform arithmetic on field 'a' (a nil value)"},
	} {
		got, _ := runScript(t, e, h, 2, tc.src)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
}
