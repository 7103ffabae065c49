package script

import (
	"strings"
	"testing"
)

// TestMemoryBombs: scripts that build ever larger strings or tables end in
// Lua's memory error, which bypasses the error handler as LUA_ERRMEM does
// (test/script_memory_diff_test.go compares the texts with a redis-server
// whose address space is limited).
func TestMemoryBombs(t *testing.T) {
	oldStr, oldHeap := maxLuaString, luaHeapBudget
	maxLuaString, luaHeapBudget = 4<<20, 64<<20
	defer func() { maxLuaString, luaHeapBudget = oldStr, oldHeap }()
	e := NewEngine()
	h := &fakeHost{}
	for _, tc := range []struct{ src, want string }{
		{"local s = 'x' while true do s = s .. s end", "-ERR Error running script %s, not enough memory\r\n"},
		{"local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end", "-ERR Error running script %s, not enough memory\r\n"},
		{"local t = {} for i = 1, 1e9 do t[i] = string.rep('y', 2^19) .. i end", "-ERR Error running script %s, not enough memory\r\n"},
		{"return string.rep('x', 2^30)", "-ERR Error running script %s, not enough memory\r\n"},
		{"return table.concat({string.rep('x', 2^21), string.rep('x', 2^21), 'x'})", "-ERR Error running script %s, not enough memory\r\n"},
		{"local s = string.rep('x', 2^21) return string.format('%s%s%s', s, s, s)", "-ERR Error running script %s, not enough memory\r\n"},
		{"return {pcall(function() local s = 'x' while true do s = s .. s end end)}", "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n"},
		{"return {xpcall(function() return string.rep('x', 2^30) end, function(m) return 'h' .. m end)}", "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n"},
		{"local ok = pcall(string.rep, 'x', 2^30) error('after')", "-ERR user_script:1: after script: %s, on @user_script:1.\r\n"},
		{"return string.rep('x', 2^32)", "$0\r\n\r\n"},
	} {
		s, _ := e.Load([]byte(tc.src))
		got, _ := runScript(t, e, h, 2, tc.src)
		want := strings.ReplaceAll(tc.want, "%s", s.SHA)
		if got != want {
			t.Errorf("%q: %q, want %q", tc.src, got, want)
		}
	}
}
