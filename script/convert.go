package script

import (
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// Conversions between Redis replies and Lua values (script_lua.c).

// writeReply writes v as the reply of a script (luaReplyToRedisReply).
// scriptProto is the RESP version the script selected with redis.setresp:
// booleans follow it, the rest follows w's protocol. top mirrors the Lua
// stack depth the C code would be at, so that replies nested too deep end
// in "reached lua stack limit" at exactly Redis's depth.
func (vm *VM) writeReply(w *protocol.Writer, v lua.LValue, top int, scriptProto int) Result {
	var res Result
	vm.writeValue(w, v, top, scriptProto, &res)
	return res
}

func (vm *VM) writeValue(w *protocol.Writer, v lua.LValue, top int, scriptProto int, res *Result) {
	if top+4 > luaMaxCStack {
		w.Error("ERR reached lua stack limit")
		if !res.Err {
			res.Err, res.CountErr = true, true
		}
		return
	}
	switch x := v.(type) {
	case lua.LString:
		w.BulkString(string(x))
	case lua.LBool:
		if scriptProto == 2 {
			if x {
				w.Int(1)
			} else {
				w.Null()
			}
		} else {
			w.Bool(bool(x))
		}
	case lua.LNumber:
		w.Int(doubleToInt64(float64(x)))
	case *lua.LTable:
		vm.writeTable(w, x, top, scriptProto, res)
	default:
		w.Null()
	}
}

func (vm *VM) writeTable(w *protocol.Writer, t *lua.LTable, top int, scriptProto int, res *Result) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		writeErrorText(w, string(e), true)
		if !res.Err {
			res.Err = true
			res.CountErr = t.RawGetString("ignore_error_stats_update") != lua.LTrue
		}
		return
	}
	if ok, isStr := t.RawGetString("ok").(lua.LString); isStr {
		w.Status(string(ok))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if bn, ok := t.RawGetString("big_number").(lua.LString); ok {
		s := strings.NewReplacer("\r", " ", "\n", " ").Replace(string(bn))
		w.BigNumber(s)
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		if format, ok := vt.RawGetString("format").(lua.LString); ok {
			if s, ok := vt.RawGetString("string").(lua.LString); ok {
				f := string(format) + "\x00\x00\x00"
				w.Verbatim(f[:3], string(s))
				return
			}
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		d := w.DeferLen()
		n := 0
		for k, v := m.Next(lua.LNil); k != lua.LNil; k, v = m.Next(k) {
			vm.writeValue(w, k, top+4, scriptProto, res)
			vm.writeValue(w, v, top+3, scriptProto, res)
			n++
		}
		w.SetMapLen(d, n)
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		d := w.DeferLen()
		n := 0
		for k, _ := s.Next(lua.LNil); k != lua.LNil; k, _ = s.Next(k) {
			vm.writeValue(w, k, top+3, scriptProto, res)
			n++
		}
		w.SetSetLen(d, n)
		return
	}
	d := w.DeferLen()
	n := 0
	for {
		v := t.RawGetInt(n + 1)
		if v == lua.LNil {
			break
		}
		vm.writeValue(w, v, top+1, scriptProto, res)
		n++
	}
	w.SetArrayLen(d, n)
}

// parseReply converts the RESP reply a command wrote into the Lua value
// redis.call returns (redisProtocolToLuaType). It returns the value and the
// rest of b.
func parseReply(L *lua.LState, b []byte) (lua.LValue, []byte) {
	if len(b) < 3 {
		return lua.LNil, nil
	}
	line, rest := readLine(b[1:])
	switch b[0] {
	case ':':
		n, _ := protocol.ParseInt(line)
		return lua.LNumber(float64(n)), rest
	case '$':
		n := atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		if n > len(rest)-2 {
			return lua.LNil, nil
		}
		return lua.LString(rest[:n]), rest[n+2:]
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		t := L.CreateTable(0, 2)
		t.RawSetString("err", lua.LString(redisErrorText("-"+string(line))))
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return t, rest
	case '*':
		n := atoi(line)
		if n < 0 {
			return lua.LFalse, rest
		}
		t := L.CreateTable(sizeHint(n, rest), 0)
		for i := 1; i <= n && len(rest) > 0; i++ {
			var v lua.LValue
			v, rest = parseReply(L, rest)
			if v != lua.LNil {
				t.RawSetInt(i, v)
			}
		}
		return t, rest
	case '%':
		n := atoi(line)
		m := L.CreateTable(0, sizeHint(n, rest))
		for i := 0; i < n && len(rest) > 0; i++ {
			var k, v lua.LValue
			k, rest = parseReply(L, rest)
			v, rest = parseReply(L, rest)
			if k != lua.LNil {
				m.RawSet(k, v)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("map", m)
		return t, rest
	case '~':
		n := atoi(line)
		s := L.CreateTable(0, sizeHint(n, rest))
		for i := 0; i < n && len(rest) > 0; i++ {
			var k lua.LValue
			k, rest = parseReply(L, rest)
			if k != lua.LNil {
				s.RawSet(k, lua.LTrue)
			}
		}
		t := L.CreateTable(0, 1)
		t.RawSetString("set", s)
		return t, rest
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), rest
	case ',':
		f, _ := strconv.ParseFloat(string(line), 64)
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, rest
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest
	case '=':
		n := atoi(line)
		if n < 4 || n > len(rest)-2 {
			return lua.LNil, nil
		}
		vt := L.CreateTable(0, 2)
		vt.RawSetString("string", lua.LString(rest[4:n]))
		vt.RawSetString("format", lua.LString(rest[:3]))
		t := L.CreateTable(0, 1)
		t.RawSetString("verbatim_string", vt)
		return t, rest[n+2:]
	case '|':
		// Attributes are not shown to scripts: skip them, return the value.
		n := atoi(line)
		for i := 0; i < 2*n && len(rest) > 0; i++ {
			_, rest = parseReply(L, rest)
		}
		return parseReply(L, rest)
	case '>':
		n := atoi(line)
		t := L.CreateTable(sizeHint(n, rest), 0)
		for i := 1; i <= n && len(rest) > 0; i++ {
			var v lua.LValue
			v, rest = parseReply(L, rest)
			if v != lua.LNil {
				t.RawSetInt(i, v)
			}
		}
		return t, rest
	}
	return lua.LNil, nil
}

// sizeHint bounds the table size an aggregate header announces by what
// the rest of the reply can hold (an element takes at least 3 bytes), so a
// malformed length cannot allocate without limit; aggregates stop reading
// when the bytes run out.
func sizeHint(n int, rest []byte) int {
	if m := len(rest) / 3; n > m {
		return m
	}
	if n < 0 {
		return 0
	}
	return n
}

// atoi parses a RESP length ("-1" included).
func atoi(b []byte) int {
	n, _ := protocol.ParseInt(b)
	return int(n)
}

// readLine splits b at its first CRLF.
func readLine(b []byte) (line, rest []byte) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:]
		}
	}
	return b, nil
}
