package script

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua words some runtime errors differently from Lua 5.1. The VM's
// errors (call, index, arithmetic, length, comparison) are reworded where
// they are caught, while the failing frame is still on the stack, with the
// variable name Lua 5.1 adds ("attempt to index local 'x' (a nil value)",
// see luanames.go): by the error handler of script calls, by pcall, xpcall
// and FUNCTION LOAD (runtimeErrorText), and in a coroutine by threadPanic,
// which the VM's hook installs in every coroutine it sees run. The `..` operator names its operand
// itself (luaConcat). luaMessage is the fallback for errors raised where no
// frame tells more: the words without the name.

var (
	// The regexps are compiled on first use (an error text to rewrite),
	// not while the process starts.
	reBadArg    = lazyRegexp(`bad argument #(\d+) to ([^' (]+) \(`)
	reArith     = lazyRegexp(`cannot perform (?:add|sub|mul|div|mod|pow|unm) operation between (\w+) and (\w+)`)
	reIndex     = lazyRegexp(`(?s)attempt to index a non-table object\((\w+)\) with key '.*'`)
	reCompare   = lazyRegexp(`attempt to compare (\w+) with (\w+)`)
	luaRewrites = strings.NewReplacer(
		"attempt to call a non-function object", "attempt to call a nil value",
		"__len undefined", "attempt to get length of a nil value",
		"__unm undefined", "attempt to perform arithmetic on a nil value",
		"registry overflow", "stack overflow",
		"for statement init must be a number", "'for' initial value must be a number",
		"for statement limit must be a number", "'for' limit must be a number",
		"for statement step must be a number", "'for' step must be a number",
	)
)

// luaMessage rewrites a gopher-lua error message into Lua 5.1's words.
func luaMessage(s string) string {
	if !strings.Contains(s, "attempt") && !strings.Contains(s, "bad argument") && !strings.Contains(s, "cannot perform") &&
		!strings.Contains(s, "undefined") && !strings.Contains(s, "overflow") && !strings.Contains(s, "for statement") {
		return s
	}
	s = reBadArg().ReplaceAllString(s, "bad argument #$1 to '$2' (")
	s = reArith().ReplaceAllStringFunc(s, func(m string) string {
		g := reArith().FindStringSubmatch(m)
		bad := g[1]
		if g[1] == "number" {
			bad = g[2]
		}
		return "attempt to perform arithmetic on a " + bad + " value"
	})
	s = reIndex().ReplaceAllString(s, "attempt to index a $1 value")
	s = reCompare().ReplaceAllStringFunc(s, func(m string) string {
		g := reCompare().FindStringSubmatch(m)
		return orderErrorText(g[1], g[2])
	})
	return luaRewrites.Replace(s)
}

// orderErrorText is luaG_ordererror's text for the operand types t1, t2.
// Lua 5.1 tells the types apart by their third letter, so a string and a
// thread are "two string values".
func orderErrorText(t1, t2 string) string {
	if len(t1) > 2 && len(t2) > 2 && t1[2] == t2[2] {
		return "attempt to compare two " + t1 + " values"
	}
	return "attempt to compare " + t1 + " with " + t2
}

// runtimeErrorText rewrites msg, an error caught while the frame at level
// (GetStack's numbering, from the catching Go function) is still on the
// stack, into Lua 5.1's words. A string gopher-lua's VM raised at that
// frame's current instruction gets the variable name and type Lua 5.1
// prints; anything else gets luaMessage.
func runtimeErrorText(L *lua.LState, level int, msg string) string {
	if text, ok := vmErrorText(L, level, msg); ok {
		return text
	}
	text := luaMessage(msg)
	if prefix, ok := goFramePrefix(L, level); ok && strings.HasPrefix(msg, prefix) {
		// A comparison raised inside a builtin (table.sort): Lua 5.1 adds
		// a position only when the running function is a Lua one.
		if body := msg[len(prefix):]; strings.HasPrefix(body, "attempt to compare ") {
			return luaMessage(body)
		}
	}
	if g := reGotNil().FindStringSubmatchIndex(text); g != nil {
		// gopher-lua's own builtins say "got nil" for a missing argument
		// where luaL_typerror says "got no value".
		if n, err := strconv.Atoi(text[g[2]:g[3]]); err == nil && n > goFrameArgs(L, level, msg) {
			text = text[:g[4]] + "no value)"
		}
	}
	return text
}

// goFramePrefix returns the position gopher-lua put before an error raised
// by the Go function at level: that of the first Lua function up the stack.
func goFramePrefix(L *lua.LState, level int) (string, bool) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return "", false
	}
	if fv, err := L.GetInfo("f", dbg, lua.LNil); err != nil || !fv.(*lua.LFunction).IsG {
		return "", false
	}
	for lvl := level + 1; lvl < level+64; lvl++ {
		dbg, ok := L.GetStack(lvl)
		if !ok {
			return "", false
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			return "", false
		}
		if dbg.What != "G" {
			return dbg.Source + ":" + itoa(dbg.CurrentLine) + ": ", true
		}
	}
	return "", false
}

// lazyRegexp returns a function that compiles expr on its first call
// and returns the same Regexp from then on.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// reGotNil matches luaL_typerror's text for a nil argument.
var reGotNil = lazyRegexp(`bad argument #(\d+) to '[^']*' \([^()]* expected, got (nil\))$`)

// goFrameArgs counts the arguments the Go function at level was called
// with, from the values of its frame: raiseError pushed msg last. It
// answers a large number when that cannot be told.
func goFrameArgs(L *lua.LState, level int, msg string) int {
	const unknown = 1 << 30
	dbg, ok := L.GetStack(level)
	if !ok {
		return unknown
	}
	if fv, err := L.GetInfo("f", dbg, lua.LNil); err != nil || !fv.(*lua.LFunction).IsG {
		return unknown
	}
	n := 0
	var last lua.LValue
	for n < 256 {
		name, v := L.GetLocal(dbg, n+1)
		if name == "" {
			break
		}
		n, last = n+1, v
	}
	if n == 0 || last != lua.LString(msg) {
		return unknown
	}
	return n - 1
}

// vmErrorText is runtimeErrorText for an error of the VM's own.
func vmErrorText(L *lua.LState, level int, msg string) (string, bool) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return "", false
	}
	fv, err := L.GetInfo("fSl", dbg, lua.LNil)
	fn, _ := fv.(*lua.LFunction)
	if err != nil || fn == nil || fn.IsG || fn.Proto == nil {
		return "", false
	}
	prefix := fn.Proto.SourceName + ":" + itoa(dbg.CurrentLine) + ": "
	body, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return "", false
	}
	pc := framePC(dbg)
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return "", false
	}
	f := errFrame{L: L, dbg: dbg, p: fn.Proto, pc: pc}
	text, ok := f.typeError(body)
	if !ok {
		return "", false
	}
	return prefix + text, true
}

// errFrame is the Lua frame an error was raised in, at instruction pc.
type errFrame struct {
	L   *lua.LState
	dbg *lua.Debug
	p   *lua.FunctionProto
	pc  int
}

// reg returns the value of register r, if it can be read.
func (f *errFrame) reg(r int) (lua.LValue, bool) {
	name, v := f.L.GetLocal(f.dbg, r+1)
	return v, name != ""
}

// rk returns the value of an RK operand: a constant or a register.
func (f *errFrame) rk(x int) (v lua.LValue, isReg, ok bool) {
	if rkIsK(x) {
		if k := rkIndex(x); k < len(f.p.Constants) {
			return f.p.Constants[k], false, true
		}
		return nil, false, false
	}
	v, ok = f.reg(x)
	return v, true, ok
}

// describe is the operand part of luaG_typeerror: "local 'x' (a nil
// value)" when register r has a name, "a nil value" otherwise.
func (f *errFrame) describe(r int, typ string) string {
	if r >= 0 {
		if kind, name := objName(f.p, f.pc, r); kind != "" {
			return kind + " '" + name + "' (a " + typ + " value)"
		}
	}
	return "a " + typ + " value"
}

// typeError words body, the text gopher-lua raised for the instruction at
// f.pc, as Lua 5.1 does; false when body is not the VM's error of that
// instruction.
func (f *errFrame) typeError(body string) (string, bool) {
	i := f.p.Code[f.pc]
	op := opCode(i)
	switch {
	case body == "attempt to call a non-function object":
		var r int
		switch op {
		case lua.OP_CALL, lua.OP_TAILCALL:
			r = opA(i)
		case lua.OP_TFORLOOP:
			r = opA(i) + 3
		default:
			return "", false
		}
		v, ok := f.reg(r)
		if !ok {
			return "", false
		}
		return "attempt to call " + f.describe(r, v.Type().String()), true

	case strings.HasPrefix(body, "attempt to index a non-table object("):
		g := reIndex().FindStringSubmatch(body)
		if g == nil || g[0] != body {
			return "", false
		}
		r := -1
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			r = opB(i)
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			r = opA(i)
		}
		if r >= 0 {
			// The register is the culprit unless an __index or
			// __newindex chain led to a value outside the stack.
			if v, ok := f.reg(r); !ok || v.Type() == lua.LTTable || v.Type().String() != g[1] {
				r = -1
			}
		}
		return "attempt to index " + f.describe(r, g[1]), true

	case strings.HasPrefix(body, "cannot perform "):
		if op < lua.OP_ADD || op > lua.OP_POW || reArith().FindString(body) != body {
			return "", false
		}
		// luaG_aritherror: the first operand unless it converts to a
		// number.
		b, bReg, ok1 := f.rk(opB(i))
		c, cReg, ok2 := f.rk(opC(i))
		if !ok1 || !ok2 {
			return "", false
		}
		bad, badReg, r := b, bReg, opB(i)
		if _, isNum := luaToNumber(b); isNum {
			bad, badReg, r = c, cReg, opC(i)
		}
		if !badReg {
			r = -1
		}
		return "attempt to perform arithmetic on " + f.describe(r, bad.Type().String()), true

	case body == "__unm undefined" && op == lua.OP_UNM, body == "__len undefined" && op == lua.OP_LEN:
		r := opB(i)
		v, ok := f.reg(r)
		if !ok {
			return "", false
		}
		what := "perform arithmetic on "
		if op == lua.OP_LEN {
			what = "get length of "
		}
		return "attempt to " + what + f.describe(r, v.Type().String()), true

	case strings.HasPrefix(body, "attempt to compare "):
		g := reCompare().FindStringSubmatch(body)
		if g == nil || g[0] != body {
			return "", false
		}
		if op == lua.OP_LT || op == lua.OP_LE {
			b, _, ok1 := f.rk(opB(i))
			c, _, ok2 := f.rk(opC(i))
			if ok1 && ok2 {
				return orderErrorText(b.Type().String(), c.Type().String()), true
			}
		}
		return orderErrorText(g[1], g[2]), true
	}
	return "", false
}

// concatOperandName describes argument n (1-based) of the `..` operator
// function as luaG_concaterror does, from the CALL instruction of its Lua
// caller: "local 'x' (a nil value)" or "a nil value".
func concatOperandName(L *lua.LState, n int, typ string) string {
	plain := "a " + typ + " value"
	dbg, ok := L.GetStack(1)
	if !ok {
		return plain
	}
	fv, err := L.GetInfo("f", dbg, lua.LNil)
	fn, _ := fv.(*lua.LFunction)
	if err != nil || fn == nil || fn.IsG || fn.Proto == nil {
		return plain
	}
	pc := framePC(dbg)
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return plain
	}
	i := fn.Proto.Code[pc]
	if op := opCode(i); op != lua.OP_CALL && op != lua.OP_TAILCALL {
		return plain
	}
	f := errFrame{L: L, dbg: dbg, p: fn.Proto, pc: pc}
	return f.describe(opA(i)+n, typ)
}

// threadPanic is the Panic function of coroutines (gopher-lua's own,
// panicWithoutTraceback, plus the rewording): gopher-lua calls it with the
// error on top of the stack of the failing coroutine, whose frames are
// still there. A pcall inside the coroutine replaces it while it runs.
func threadPanic(L *lua.LState) {
	v := L.Get(-1)
	if s, ok := v.(lua.LString); ok {
		v = lua.LString(runtimeErrorText(L, 0, string(s)))
		L.Pop(1)
		L.Push(v)
	}
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: v})
}
