package script

import (
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// Error handling of script calls, as Redis's __redis__err__handler and
// luaCallFunction do it: every error becomes a table {err=, source=, line=}
// and the reply is "<err> script: <name>, on <source>:<line>.".

// errorTable builds the table luaPushError / luaPushErrorBuff push for a
// Redis error text: "-CODE message" keeps its code, anything else gets
// "ERR"; the message is trimmed of CR and LF at both ends.
func errorTable(L *lua.LState, text string) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("err", lua.LString(redisErrorText(text)))
	return t
}

// redisErrorText is the "err" field luaPushErrorBuff derives from text.
func redisErrorText(text string) string {
	text = cString(text)
	code, msg := "ERR", text
	if strings.HasPrefix(text, "-") {
		if i := strings.IndexByte(text, ' '); i >= 0 {
			code, msg = text[1:i], text[i+1:]
		} else {
			msg = text[1:]
		}
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// errorHandler is the message handler of script calls. It turns the error
// into a table and records where it happened: the Lua function that raised
// it, or its caller when a Go function (error, redis.call) raised it.
func (vm *VM) errorHandler(L *lua.LState) int {
	obj := L.Get(1)
	var t *lua.LTable
	switch {
	case vm.hook.killed:
		t = errorTable(L, vm.hook.killMsg)
	case vm.isMemoryError(obj):
		// Lua does not call the handler for a memory error.
		L.Push(obj)
		return 1
	default:
		if tt, ok := obj.(*lua.LTable); ok {
			t = tt
		} else {
			t = L.CreateTable(0, 3)
			msg := vm.tostring(obj)
			if obj.Type() == lua.LTString {
				msg = runtimeErrorText(L, 1, msg)
			}
			t.RawSetString("err", lua.LString("ERR "+msg))
		}
	}
	if src, line, ok := vm.errorPosition(L); ok {
		if vm.isReadonly(t) {
			// Redis's handler fails writing into a read-only table.
			L.Push(lua.LString("error in error handling"))
			return 1
		}
		t.RawSetString("source", lua.LString(src))
		t.RawSetString("line", lua.LNumber(line))
	}
	L.Push(t)
	return 1
}

// errorPosition finds the source and line the error handler reports
// (debug.getinfo(2), or getinfo(3) when level 2 is a C function).
func (vm *VM) errorPosition(L *lua.LState) (string, int, bool) {
	for lvl := 1; lvl <= 2; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			return "", 0, false
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			return "", 0, false
		}
		if dbg.What == "G" {
			if lvl == 1 {
				continue
			}
			return "=[C]", -1, true
		}
		return vm.sourceOf(dbg.Source), dbg.CurrentLine, true
	}
	return "", 0, false
}

// sourceOf maps a chunk's short name back to its source name.
func (vm *VM) sourceOf(short string) string {
	if s, ok := vm.sources[short]; ok {
		return s
	}
	return short
}

// userErrorHandler is the global __redis__err__handler scripts can see
// and call themselves: it returns the error as a table with the caller's
// position.
func (vm *VM) userErrorHandler(L *lua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*lua.LTable)
	if !ok {
		t = L.CreateTable(0, 3)
		t.RawSetString("err", lua.LString("ERR "+vm.tostring(obj)))
	}
	if dbg, ok := L.GetStack(1); ok {
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && !vm.isReadonly(t) {
			t.RawSetString("source", lua.LString(vm.sourceOf(dbg.Source)))
			t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
		}
	}
	L.Push(t)
	return 1
}

// writeError writes the reply of a script call that raised err.
func (vm *VM) writeError(w *protocol.Writer, err error, name string) Result {
	if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
		vm.broken = true
	}
	obj := errorObject(err)
	t, ok := obj.(*lua.LTable)
	if !ok {
		msg := "execution failure"
		if isLuaString(obj) {
			msg = luaToString(obj)
		}
		if len(msg) > 100 {
			msg = msg[:100]
		}
		writeErrorText(w, "ERR Error running script "+name+", "+msg, true)
		return Result{Err: true, CountErr: true}
	}
	msgV := t.RawGetString("err")
	if !isLuaString(msgV) {
		// error({}) crashes Redis 7.0.15; answer a plain error instead.
		writeErrorText(w, "ERR Error running script "+name+", the error object has no 'err' field", true)
		return Result{Err: true, CountErr: true}
	}
	var b strings.Builder
	b.WriteString(luaToString(msgV))
	src, line := t.RawGetString("source"), t.RawGetString("line")
	if isLuaString(src) && isLuaString(line) {
		b.WriteString(" script: ")
		b.WriteString(name)
		b.WriteString(", on ")
		b.WriteString(luaToString(src))
		b.WriteByte(':')
		b.WriteString(luaToString(line))
		b.WriteByte('.')
	}
	writeErrorText(w, b.String(), false)
	return Result{Err: true, CountErr: t.RawGetString("ignore_error_stats_update") != lua.LTrue}
}

// writeErrorText writes an error reply whose text already carries its code
// (Redis's addReplyErrorLength of "-<text>"). trim drops CR and LF at the
// end first, as addReplyErrorFormat does; inner ones become spaces.
func writeErrorText(w *protocol.Writer, text string, trim bool) {
	if trim {
		text = strings.TrimRight(text, "\r\n")
	}
	w.Error(text)
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }
