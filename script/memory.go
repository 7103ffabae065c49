package script

import (
	lua "github.com/yuin/gopher-lua"
)

// Memory bombs. Redis 7.0's Lua allocates through realloc without a limit
// of its own: a script that builds a huge string or table runs until an
// allocation fails, and Lua then raises its memory error, "not enough
// memory", which does not go through the error handler (LUA_ERRMEM): EVAL
// replies "ERR Error running script <sha>, not enough memory", pcall
// returns false and "not enough memory" without a position.
//
// A Go process does not get a failed allocation back, so the VM sets the
// bounds where Lua's allocation would fail:
//   - one string a builtin produces (string.rep, `..`, table.concat,
//     string.format) is at most maxLuaString bytes, proto-max-bulk-len's
//     default, checked before it is built;
//   - the Go heap may grow by at most luaHeapBudget bytes during one run,
//     checked every HookPeriod instructions and whenever the strings
//     builtins built add up to another bigAlloc bytes.
//
// (Variables so that tests can lower them.)
var (
	maxLuaString  int64 = 512 << 20
	luaHeapBudget int64 = 1 << 30
)

// bigAlloc is the size from which a builtin checks the heap budget before
// it allocates.
const bigAlloc = 1 << 20

// memoryErrorText is Lua 5.1's memory error message (LUA_ERRMEM).
const memoryErrorText = "not enough memory"

// heapBytes returns the bytes of live and unswept heap objects.
func heapBytes() int64 {
	return int64(heapKB() * 1024)
}

// memoryError raises Lua's memory error: a plain message that the error
// handler of script calls passes through (see VM.errorHandler).
func (vm *VM) memoryError(L *lua.LState) {
	vm.hook.memErr = true
	L.Error(lua.LString(memoryErrorText), 0)
}

// isMemoryError reports whether obj is the memory error the VM raised
// last, and forgets it.
func (vm *VM) isMemoryError(obj lua.LValue) bool {
	if !vm.hook.memErr {
		return false
	}
	vm.hook.memErr = false
	s, ok := obj.(lua.LString)
	return ok && string(s) == memoryErrorText
}

// overBudget reports whether the heap has grown past the run's budget
// once extra more bytes are allocated. The first check of a run records
// the heap it starts from.
func (vm *VM) overBudget(extra int64) bool {
	h := &vm.hook
	heap := heapBytes()
	if !h.heapSet {
		h.heapBase, h.heapSet = heap, true
	}
	return heap+extra-h.heapBase > luaHeapBudget
}

// checkAlloc raises the memory error when a builtin is about to build a
// string of n bytes that Lua could not allocate. The heap is looked at
// once the strings built since the last look add up to bigAlloc.
func (vm *VM) checkAlloc(L *lua.LState, n int64) {
	if n > maxLuaString {
		vm.memoryError(L)
	}
	h := &vm.hook
	h.allocated += n
	if h.allocated >= bigAlloc {
		h.allocated = 0
		if vm.overBudget(n) {
			vm.memoryError(L)
		}
	}
}
