package script

import (
	lua "github.com/yuin/gopher-lua"
)

// Variable names in runtime errors, as Lua 5.1's ldebug.c derives them
// (getobjname, symbexec, luaF_getlocalname), over gopher-lua's bytecode.
// gopher-lua uses Lua 5.1's instruction set plus MOVEN, GETTABLEKS,
// SETTABLEKS and NOP, with its own bit layout (opcode in the top 6 bits,
// then A, C, B from high to low); its compiler allocates registers and
// records locals as Lua 5.1's does, so the same symbolic execution finds the
// same names.

// Instruction fields in gopher-lua's layout (opcode.go).
func opCode(i uint32) int { return int(i >> 26) }
func opA(i uint32) int    { return int(i>>18) & 0xff }
func opB(i uint32) int    { return int(i & 0x1ff) }
func opC(i uint32) int    { return int(i>>9) & 0x1ff }
func opBx(i uint32) int   { return int(i & 0x3ffff) }
func opSBx(i uint32) int  { return opBx(i) - (0x3ffff >> 1) }

// rkIsK reports whether an RK operand names a constant (Lua 5.1's ISK).
func rkIsK(x int) bool { return x&0x100 != 0 }

// rkIndex is the constant index of an RK operand (INDEXK).
func rkIndex(x int) int { return x &^ 0x100 }

// setsA reports whether op writes register A (lopcodes.c testAMode; the
// gopher-lua additions MOVEN and GETTABLEKS do).
func setsA(op int) bool {
	switch op {
	case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL, lua.OP_GETUPVAL,
		lua.OP_GETGLOBAL, lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE, lua.OP_SELF,
		lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM,
		lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT, lua.OP_TESTSET, lua.OP_CALL, lua.OP_TAILCALL,
		lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_CLOSURE, lua.OP_VARARG:
		return true
	}
	return false
}

// localName is luaF_getlocalname: the name of the n-th local (1-based)
// active at instruction pc, or "". gopher-lua's EndPc is the last
// instruction of the scope where Lua 5.1's endpc is the one after it.
func localName(p *lua.FunctionProto, n, pc int) string {
	for _, lv := range p.DbgLocals {
		if lv.StartPc > pc {
			break
		}
		if pc <= lv.EndPc {
			n--
			if n == 0 {
				return lv.Name
			}
		}
	}
	return ""
}

// symbexec is the tracing part of Lua 5.1's symbexec: the last instruction
// before lastpc that changed register reg, following forward jumps that do
// not skip lastpc (the final RETURN, a neutral instruction, when none).
func symbexec(p *lua.FunctionProto, lastpc, reg int) uint32 {
	code := p.Code
	last := len(code) - 1
	for pc := 0; pc < lastpc && pc < len(code); pc++ {
		i := code[pc]
		op, a := opCode(i), opA(i)
		if setsA(op) && a == reg {
			last = pc
		}
		switch op {
		case lua.OP_LOADNIL:
			if a <= reg && reg <= opB(i) {
				last = pc
			}
		case lua.OP_SELF:
			if reg == a+1 {
				last = pc
			}
		case lua.OP_TFORLOOP:
			if reg >= a+2 {
				last = pc
			}
		case lua.OP_FORLOOP, lua.OP_FORPREP, lua.OP_JMP:
			b := opSBx(i)
			if dest := pc + 1 + b; pc < dest && dest <= lastpc {
				pc += b
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			if reg >= a {
				last = pc
			}
		case lua.OP_SETLIST:
			if opC(i) == 0 {
				pc++
			}
		case lua.OP_CLOSURE:
			if bx := opBx(i); bx < len(p.FunctionPrototypes) {
				pc += int(p.FunctionPrototypes[bx].NumUpvalues)
			}
		}
	}
	if last < 0 {
		return 0
	}
	return code[last]
}

// constName is kname: the constant string an RK operand names, or "?".
func constName(p *lua.FunctionProto, rk int) string {
	if rkIsK(rk) {
		if k := rkIndex(rk); k < len(p.Constants) {
			if s, ok := p.Constants[k].(lua.LString); ok {
				return string(s)
			}
		}
	}
	return "?"
}

// objName is getobjname: how register reg of p at instruction pc got its
// value, as the kind Lua 5.1 prints ("global", "local", "field",
// "upvalue", "method") and the name; kind is "" when there is none.
func objName(p *lua.FunctionProto, pc, reg int) (kind, name string) {
	for depth := 0; depth < 256; depth++ {
		if name := localName(p, reg+1, pc); name != "" {
			return "local", name
		}
		i := symbexec(p, pc, reg)
		switch opCode(i) {
		case lua.OP_GETGLOBAL:
			if k := opBx(i); k < len(p.Constants) {
				if s, ok := p.Constants[k].(lua.LString); ok {
					return "global", string(s)
				}
			}
			return "global", "?"
		case lua.OP_MOVE, lua.OP_MOVEN: // MOVEN is a MOVE followed by more
			if b := opB(i); b < opA(i) {
				reg = b
				continue
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			return "field", constName(p, opC(i))
		case lua.OP_GETUPVAL:
			if u := opB(i); u < len(p.DbgUpvalues) {
				return "upvalue", p.DbgUpvalues[u]
			}
			return "upvalue", "?"
		case lua.OP_SELF:
			return "method", constName(p, opC(i))
		}
		return "", ""
	}
	return "", ""
}
