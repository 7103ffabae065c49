package script

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Flags are the flags of a script's shebang or of a registered function
// (Redis scripts_flags_def, in its order).
type Flags uint8

const (
	FlagNoWrites Flags = 1 << iota
	FlagAllowOOM
	FlagAllowStale
	FlagNoCluster
	FlagAllowCrossSlot
	// FlagCompat marks an EVAL script without a shebang ("compat mode"):
	// its other flags do not apply.
	FlagCompat
)

// flagNames are the flag words in Redis's order.
var flagNames = []struct {
	flag Flags
	name string
}{
	{FlagNoWrites, "no-writes"},
	{FlagAllowOOM, "allow-oom"},
	{FlagAllowStale, "allow-stale"},
	{FlagNoCluster, "no-cluster"},
	{FlagAllowCrossSlot, "allow-cross-slot-keys"},
}

// Names returns the flag words set in f, in Redis's order.
func (f Flags) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// concatName is the local every compiled chunk keeps the `..` operator
// in. It is not a valid Lua identifier, so scripts cannot name it.
const concatName = "(concat)"

// SHA1Hex returns the SHA-1 of b as 40 lowercase hex digits (Redis's sha1hex).
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	const hex = "0123456789abcdef"
	var out [40]byte
	for i, c := range sum {
		out[i*2] = hex[c>>4]
		out[i*2+1] = hex[c&15]
	}
	return string(out[:])
}

// ParseShebang reads the "#!lua flags=..." first line of an EVAL script
// (evalExtractShebangFlags). It returns the flags (FlagCompat when there is
// no shebang), the length of the shebang line without its newline, and an
// error text ("Unexpected flag in script shebang: x", ...) or "".
func ParseShebang(body []byte) (Flags, int, string) {
	if len(body) < 2 || body[0] != '#' || body[1] != '!' {
		return FlagCompat, 0, ""
	}
	nl := strings.IndexByte(cString(string(body)), '\n')
	if nl < 0 {
		return 0, 0, "Invalid script shebang"
	}
	parts, ok := protocol.SplitArgs(body[:nl])
	if !ok || len(parts) == 0 {
		return 0, 0, "Invalid engine in script shebang"
	}
	if string(parts[0]) != "#!lua" {
		return 0, 0, "Unexpected engine in script shebang: " + cString(string(parts[0]))
	}
	var flags Flags
	for _, p := range parts[1:] {
		ps := cString(string(p))
		rest, isFlags := strings.CutPrefix(ps, "flags=")
		if !isFlags {
			return 0, 0, "Unknown lua shebang option: " + ps
		}
		if rest == "" {
			continue
		}
		for _, word := range strings.Split(rest, ",") {
			f, ok := parseFlag(word, false)
			if !ok {
				return 0, 0, "Unexpected flag in script shebang: " + word
			}
			flags |= f
		}
	}
	return flags, nl, ""
}

// parseFlag returns the flag named word (case-insensitively for
// redis.register_function, exactly for shebangs).
func parseFlag(word string, fold bool) (Flags, bool) {
	for _, fn := range flagNames {
		if word == fn.name || (fold && strings.EqualFold(word, fn.name)) {
			return fn.flag, true
		}
	}
	return 0, false
}

// chunkID is Lua 5.1's luaO_chunkid: the name error messages print for a
// chunk ("user_script", "[string \"return 1\"]", "...long/name").
func chunkID(source string) string {
	const bufflen = 80 // LUA_IDSIZE in Redis's build
	source = cString(source)
	if strings.HasPrefix(source, "=") {
		s := source[1:]
		if len(s) > bufflen-1 {
			s = s[:bufflen-1]
		}
		return s
	}
	if strings.HasPrefix(source, "@") {
		s := source[1:]
		max := bufflen - len(" '...' ") - 1
		if len(s) > max {
			return "..." + s[len(s)-max:]
		}
		return s
	}
	max := bufflen - len(" [string \"...\"] ") - 1
	l := strings.IndexAny(source, "\n\r")
	if l < 0 {
		l = len(source)
	}
	if l > max {
		l = max
	}
	if l < len(source) {
		return "[string \"" + source[:l] + "...\"]"
	}
	return "[string \"" + source + "\"]"
}

// parseChunk parses src as Lua; the error is in Lua 5.1's words.
func parseChunk(src, shortSrc string) (stmts []ast.Stmt, msg string) {
	defer func() {
		if r := recover(); r != nil {
			stmts, msg = nil, fmt.Sprintf("%s: %v", shortSrc, r)
		}
	}()
	stmts, err := parse.Parse(strings.NewReader(src), shortSrc)
	if err != nil {
		return nil, syntaxError(err, src, shortSrc)
	}
	return stmts, ""
}

// syntaxError words a gopher-lua parse or compile error as Lua 5.1 does:
// "user_script:1: unexpected symbol near '+'".
func syntaxError(err error, src, shortSrc string) string {
	var pe *parse.Error
	if errors.As(err, &pe) {
		line, tok := pe.Pos.Line, pe.Token
		if line == parse.EOF || line <= 0 {
			line, tok = strings.Count(src, "\n")+1, "<eof>"
		}
		msg := pe.Message
		switch msg {
		case "syntax error", "parse error":
			msg = "unexpected symbol"
		case "unterminated string":
			msg, tok = "unfinished string", "\""+tok
		case "unterminated multiline string":
			msg = "unfinished long string"
		case "Invalid token", "Invalid '~' token":
			msg = "unexpected symbol"
			if len(tok) == 1 && (tok[0] < 32 || tok[0] == 127) {
				tok = "char(" + strconv.Itoa(int(tok[0])) + ")"
			}
		}
		if tok == "" {
			tok = "<eof>"
		}
		return shortSrc + ":" + strconv.Itoa(line) + ": " + msg + " near '" + tok + "'"
	}
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		return shortSrc + ":" + strconv.Itoa(ce.Line) + ": " + ce.Message
	}
	return shortSrc + ": " + err.Error()
}

// compileWrapped compiles stmts into a chunk that takes the concatenation
// function as its vararg and returns fn: the chunk's statements run first
// (extra top-level code), then the function built from body is returned.
func compileWrapped(pre []ast.Stmt, body *ast.FunctionExpr, shortSrc string) (proto *lua.FunctionProto, msg string) {
	rewriteStmts(pre)
	rewriteStmts(body.Stmts)
	chunk := make([]ast.Stmt, 0, len(pre)+2)
	local := &ast.LocalAssignStmt{Names: []string{concatName}, Exprs: []ast.Expr{&ast.Comma3Expr{}}}
	chunk = append(chunk, local)
	chunk = append(chunk, pre...)
	ret := &ast.ReturnStmt{Exprs: []ast.Expr{body}}
	ret.SetLine(body.Line())
	ret.SetLastLine(body.LastLine())
	chunk = append(chunk, ret)
	defer func() {
		if r := recover(); r != nil {
			proto, msg = nil, fmt.Sprintf("%s: %v", shortSrc, r)
		}
	}()
	p, err := lua.Compile(chunk, shortSrc)
	if err != nil {
		return nil, syntaxError(err, "", shortSrc)
	}
	if n := len(p.FunctionPrototypes); n > 0 && body.ParList.HasVargs {
		// The body stands for a Lua main chunk, which gets no Lua 5.0
		// "arg" table; gopher-lua would build one on every call.
		p.FunctionPrototypes[n-1].IsVarArg &^= lua.VarArgNeedsArg
	}
	return p, ""
}

// compileScript compiles an EVAL script body (from the newline that ends
// its shebang line, so line numbers count from the top of the body) as a
// main chunk named "user_script", as Redis 7.0 does.
func compileScript(code string) (*lua.FunctionProto, string) {
	return compileChunk(code, "user_script")
}

// compileChunk compiles a loadstring/load chunk (a vararg function).
func compileChunk(src, shortSrc string) (*lua.FunctionProto, string) {
	stmts, msg := parseChunk(src, shortSrc)
	if msg != "" {
		return nil, msg
	}
	fn := &ast.FunctionExpr{ParList: &ast.ParList{HasVargs: true}, Stmts: stmts}
	fn.SetLine(0)
	if len(stmts) > 0 {
		fn.SetLastLine(stmts[len(stmts)-1].LastLine() + 1)
	}
	return compileWrapped(nil, fn, shortSrc)
}

// instantiate runs a compiled wrapper chunk in vm and returns the function
// it defines, or the error message of its top-level code.
func (vm *VM) instantiate(p *lua.FunctionProto) (*lua.LFunction, string) {
	L := vm.L
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(L.NewFunctionFromProto(p))
	L.Push(vm.concat)
	if err := L.PCall(1, 1, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			vm.broken = true
		}
		obj := errorObject(err)
		if isLuaString(obj) {
			return nil, luaToString(obj)
		}
		return nil, vm.tostring(obj)
	}
	fn, ok := L.Get(-1).(*lua.LFunction)
	if !ok {
		return nil, "chunk did not return a function"
	}
	return fn, ""
}

// loadChunk compiles and instantiates a loadstring chunk named name.
// Binary chunks are refused as Redis 7.0.15 refuses them.
func (vm *VM) loadChunk(src, name string) (*lua.LFunction, string) {
	short := chunkID(name)
	if len(src) > 0 && src[0] == 0x1b {
		return nil, short + ":1: unexpected symbol near 'char(27)'"
	}
	p, msg := compileChunk(src, short)
	if msg != "" {
		return nil, msg
	}
	if len(vm.sources) < 1024 {
		vm.sources[short] = name
	}
	return vm.instantiate(p)
}

// rewriteStmts replaces every `..` in stmts by a call of the concatenation
// function (see VM.luaConcat), in place.
func rewriteStmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		rewriteStmt(s)
	}
}

func rewriteStmt(s ast.Stmt) {
	switch st := s.(type) {
	case *ast.AssignStmt:
		rewriteExprs(st.Lhs)
		rewriteExprs(st.Rhs)
	case *ast.LocalAssignStmt:
		rewriteExprs(st.Exprs)
	case *ast.FuncCallStmt:
		st.Expr = rewriteExpr(st.Expr)
	case *ast.DoBlockStmt:
		rewriteStmts(st.Stmts)
	case *ast.WhileStmt:
		st.Condition = rewriteExpr(st.Condition)
		rewriteStmts(st.Stmts)
	case *ast.RepeatStmt:
		st.Condition = rewriteExpr(st.Condition)
		rewriteStmts(st.Stmts)
	case *ast.IfStmt:
		st.Condition = rewriteExpr(st.Condition)
		rewriteStmts(st.Then)
		rewriteStmts(st.Else)
	case *ast.NumberForStmt:
		st.Init = rewriteExpr(st.Init)
		st.Limit = rewriteExpr(st.Limit)
		st.Step = rewriteExpr(st.Step)
		rewriteStmts(st.Stmts)
	case *ast.GenericForStmt:
		rewriteExprs(st.Exprs)
		rewriteStmts(st.Stmts)
	case *ast.FuncDefStmt:
		if st.Name != nil {
			st.Name.Func = rewriteExpr(st.Name.Func)
			st.Name.Receiver = rewriteExpr(st.Name.Receiver)
		}
		rewriteStmts(st.Func.Stmts)
	case *ast.ReturnStmt:
		rewriteExprs(st.Exprs)
	}
}

func rewriteExprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = rewriteExpr(e)
	}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	switch ex := e.(type) {
	case nil:
		return nil
	case *ast.StringConcatOpExpr:
		// a .. b .. c parses as a .. (b .. c): flatten the right spine into
		// one call, as OP_CONCAT handles the run.
		var args []ast.Expr
		cur := ast.Expr(ex)
		for {
			c, ok := cur.(*ast.StringConcatOpExpr)
			if !ok {
				args = append(args, rewriteExpr(cur))
				break
			}
			args = append(args, rewriteExpr(c.Lhs))
			cur = c.Rhs
		}
		fn := &ast.IdentExpr{Value: concatName}
		fn.SetLine(ex.Line())
		fn.SetLastLine(ex.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
		call.SetLine(ex.Line())
		call.SetLastLine(ex.LastLine())
		return call
	case *ast.AttrGetExpr:
		ex.Object = rewriteExpr(ex.Object)
		ex.Key = rewriteExpr(ex.Key)
	case *ast.TableExpr:
		for _, f := range ex.Fields {
			f.Key = rewriteExpr(f.Key)
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		ex.Func = rewriteExpr(ex.Func)
		ex.Receiver = rewriteExpr(ex.Receiver)
		rewriteExprs(ex.Args)
	case *ast.LogicalOpExpr:
		ex.Lhs = rewriteExpr(ex.Lhs)
		ex.Rhs = rewriteExpr(ex.Rhs)
	case *ast.RelationalOpExpr:
		ex.Lhs = rewriteExpr(ex.Lhs)
		ex.Rhs = rewriteExpr(ex.Rhs)
	case *ast.ArithmeticOpExpr:
		ex.Lhs = rewriteExpr(ex.Lhs)
		ex.Rhs = rewriteExpr(ex.Rhs)
	case *ast.UnaryMinusOpExpr:
		ex.Expr = rewriteExpr(ex.Expr)
	case *ast.UnaryNotOpExpr:
		ex.Expr = rewriteExpr(ex.Expr)
	case *ast.UnaryLenOpExpr:
		ex.Expr = rewriteExpr(ex.Expr)
	case *ast.FunctionExpr:
		rewriteStmts(ex.Stmts)
	}
	return e
}
