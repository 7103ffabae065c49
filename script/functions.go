package script

import (
	"sort"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// Functions (Redis 7 FUNCTION LOAD / FCALL; functions.c, function_lua.c).
// Libraries run in a VM of their own, as Redis keeps them in a Lua state
// separate from EVAL's: at load time the library code sees only
// redis.register_function, redis.log and the version constants; the
// registered callbacks later run with the full sandboxed global set.

// LoadTimeout bounds the top-level code of FUNCTION LOAD (LOAD_TIMEOUT_MS).
const LoadTimeout = 500 * time.Millisecond

// Lib is one loaded library.
type Lib struct {
	Name      string
	Code      string      // the code as loaded, shebang included
	Functions []*Function // in registration order
}

// Function is one registered function.
type Function struct {
	Name    string
	Desc    string
	HasDesc bool
	Flags   Flags
	Lib     *Lib
	fn      *lua.LFunction
}

// Library is the set of loaded libraries and the VM they run in.
type Library struct {
	shared *shared
	vm     *VM
	libs   map[string]*Lib
	funcs  map[string]*Function
}

// libraryLoad is the state of a FUNCTION LOAD in progress.
type libraryLoad struct {
	lib *Lib
}

// NewLibrary returns an empty function library that shares e's random
// generator (one per process, as in Redis).
func NewLibrary(e *Engine) *Library {
	l := &Library{}
	l.shared = newShared(e.rand)
	l.reset()
	return l
}

func (l *Library) reset() {
	if l.vm != nil {
		l.vm.close()
	}
	l.shared = newShared(l.shared.rand)
	l.vm = newVM(l.shared, modeFunction)
	l.libs = make(map[string]*Lib)
	l.funcs = make(map[string]*Function)
}

// SetLogger sets where redis.log writes while library code loads.
func (l *Library) SetLogger(fn func(level int, msg string)) { l.vm.logLoad = fn }

// Flush deletes every library and starts a fresh Lua state (FUNCTION FLUSH).
func (l *Library) Flush() {
	log := l.vm.logLoad
	l.reset()
	l.vm.logLoad = log
}

// Libs returns the libraries sorted by name.
func (l *Library) Libs() []*Lib {
	out := make([]*Lib, 0, len(l.libs))
	for _, lib := range l.libs {
		out = append(out, lib)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Memory estimates the bytes the libraries hold (code and names).
func (l *Library) Memory() int64 {
	var n int64
	for _, lib := range l.libs {
		n += int64(len(lib.Name) + len(lib.Code) + 64)
		for _, f := range lib.Functions {
			n += int64(len(f.Name) + len(f.Desc) + 64)
		}
	}
	return n
}

// NumFunctions returns the number of registered functions.
func (l *Library) NumFunctions() int { return len(l.funcs) }

// Function returns the function called name, or nil.
func (l *Library) Function(name []byte) *Function { return l.funcs[funcKey(string(name))] }

// Delete removes the library called name; it reports whether it existed.
func (l *Library) Delete(name []byte) bool {
	lib := l.libs[string(name)]
	if lib == nil {
		return false
	}
	l.unlink(lib)
	return true
}

func (l *Library) unlink(lib *Lib) {
	for _, f := range lib.Functions {
		delete(l.funcs, funcKey(f.Name))
	}
	delete(l.libs, lib.Name)
}

func (l *Library) link(lib *Lib) {
	for _, f := range lib.Functions {
		l.funcs[funcKey(f.Name)] = f
	}
	l.libs[lib.Name] = lib
}

// funcKey is the key of a function name in the function maps: Redis 7.0's
// functionDictType hashes and compares names case-insensitively (ASCII
// tolower, dictSdsCaseHash and dictSdsKeyCaseCompare); library names are
// case-sensitive. Names are validName's letters, digits and '_'.
func funcKey(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// validName is functionsVerifyName: letters, digits and '_', at least one.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

const msgBadName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// libMetadata parses the "#!lua name=<lib>" first line
// (functionExtractLibMetaData). It returns the engine, the name and the
// code after the first line (from its newline on), or an error text.
func libMetadata(payload string) (engine, name, code, errText string) {
	if !strings.HasPrefix(payload, "#!") {
		return "", "", "", "Missing library metadata"
	}
	nl := strings.IndexByte(cString(payload), '\n')
	if nl < 0 {
		return "", "", "", "Invalid library metadata"
	}
	parts, ok := protocol.SplitArgs([]byte(payload[:nl]))
	if !ok || len(parts) == 0 {
		return "", "", "", "Invalid library metadata"
	}
	engine = cString(string(parts[0]))[2:]
	hasName := false
	for _, p := range parts[1:] {
		ps := cString(string(p))
		if len(ps) >= 5 && strings.EqualFold(ps[:5], "name=") {
			if hasName {
				return "", "", "", "Invalid metadata value, name argument was given multiple times"
			}
			name, hasName = ps[5:], true
			continue
		}
		return "", "", "", "Invalid metadata value given: " + ps
	}
	if !hasName {
		return "", "", "", "Library name was not given"
	}
	return engine, name, payload[nl:], ""
}

// Load compiles and registers a library (FUNCTION LOAD). It returns the
// library name, or the error text of the reply ("ERR ..." omitted: the
// caller adds the code).
func (l *Library) Load(payload []byte, replace bool) (string, string) {
	lib, errText := l.build(string(payload), replace, l.libs, l.funcs)
	if errText != "" {
		return "", errText
	}
	if old := l.libs[lib.Name]; old != nil {
		l.unlink(old)
	}
	l.link(lib)
	return lib.Name, ""
}

// build compiles a library against the existing libs and funcs without
// linking it.
func (l *Library) build(payload string, replace bool, libs map[string]*Lib, funcs map[string]*Function) (*Lib, string) {
	engine, name, code, errText := libMetadata(payload)
	if errText != "" {
		return nil, errText
	}
	if !validName(name) {
		return nil, msgBadName
	}
	if !strings.EqualFold(engine, "lua") {
		return nil, "Engine '" + engine + "' not found"
	}
	old := libs[name]
	if old != nil && !replace {
		return nil, "Library '" + name + "' already exists"
	}
	lib := &Lib{Name: name, Code: payload}
	if msg := l.runLoad(lib, code); msg != "" {
		return nil, msg
	}
	if len(lib.Functions) == 0 {
		return nil, "No functions registered"
	}
	for _, f := range lib.Functions {
		if other := funcs[funcKey(f.Name)]; other != nil && other.Lib != old {
			return nil, "Function " + f.Name + " already exists"
		}
	}
	return lib, ""
}

// runLoad compiles code and runs it with the load-time globals, so that it
// registers its functions into lib (luaEngineCreate).
func (l *Library) runLoad(lib *Lib, code string) string {
	vm := l.vm
	L := vm.L
	p, msg := compileChunk(code, "user_function")
	if msg != "" {
		return "Error compiling function: " + msg
	}
	fn, msg := vm.instantiate(p)
	if fn == nil {
		return "Error compiling function: " + msg
	}
	vm.gmeta.RawSetString("__index", vm.loadAPI)
	vm.load = &libraryLoad{lib: lib}
	vm.deadline, vm.deadlineMsg = time.Now().Add(LoadTimeout), "FUNCTION LOAD timeout"
	vm.hook.reset()
	L.Push(fn)
	err := L.PCall(0, 0, vm.rewordErr)
	killed, killMsg := vm.hook.killed, vm.hook.killMsg
	vm.hook.reset()
	vm.deadline = time.Time{}
	vm.load = nil
	vm.gmeta.RawSetString("__index", vm.g)
	L.SetTop(0)
	if err == nil {
		return ""
	}
	if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
		vm.broken = true
	}
	var text string
	switch obj := errorObject(err); {
	case killed:
		text = redisErrorText(killMsg)
	case isLuaString(obj):
		text = "ERR " + luaToString(obj)
	default:
		if t, ok := obj.(*lua.LTable); ok {
			text = luaToString(t.RawGetString("err"))
		}
	}
	return "Error registering functions: " + text
}

// loadAPITable builds the globals library code sees while it loads: only
// redis.register_function, redis.log, the log levels and the version
// (function_lua.c LIBRARY_API), every other name raising.
func (vm *VM) loadAPITable() *lua.LTable {
	L := vm.L
	r := L.NewTable()
	r.RawSetString("register_function", L.NewFunction(vm.registerFunction))
	r.RawSetString("log", L.NewFunction(vm.redisLog))
	setLogConstants(r)
	setVersion(r)
	r.Metatable = errorMetatable(L)
	api := L.NewTable()
	api.RawSetString("redis", vm.protect(r))
	api.Metatable = errorMetatable(L)
	return vm.protect(api)
}

// errorMetatable is luaSetErrorMetatable: unknown names raise.
func errorMetatable(L *lua.LState) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(protectedTableError))
	return mt
}

// registerFunction is redis.register_function(name, callback) or
// redis.register_function{function_name=, callback=, flags=, description=}.
func (vm *VM) registerFunction(L *lua.LState) int {
	if vm.load == nil {
		raiseRedisError(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{Lib: vm.load.lib}
	switch L.GetTop() {
	case 1:
		vm.readNamedArgs(L, f)
	case 2:
		if !isLuaString(L.Get(1)) {
			raiseRedisError(L, "first argument to redis.register_function must be a string")
		}
		cb, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raiseRedisError(L, "second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = luaToString(L.Get(1)), cb
	default:
		raiseRedisError(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(f.Name) {
		raiseRedisError(L, msgBadName)
	}
	for _, other := range f.Lib.Functions {
		// Within a library names are case-sensitive (the library's
		// own functions dict compares with dictSdsKeyCompare).
		if other.Name == f.Name {
			raiseRedisError(L, "Function already exists in the library")
		}
	}
	f.Lib.Functions = append(f.Lib.Functions, f)
	return 0
}

// readNamedArgs reads the table form of register_function.
func (vm *VM) readNamedArgs(L *lua.LState, f *Function) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		raiseRedisError(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
	}
	hasName := false
	t = vm.unwrap(t)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !isLuaString(k) {
			raiseRedisError(L, "named argument key given to redis.register_function is not a string")
		}
		switch key := luaToString(k); {
		case strings.EqualFold(key, "function_name"):
			if !isLuaString(v) {
				raiseRedisError(L, "function_name argument given to redis.register_function must be a string")
			}
			f.Name, hasName = luaToString(v), true
		case strings.EqualFold(key, "description"):
			if !isLuaString(v) {
				raiseRedisError(L, "description argument given to redis.register_function must be a string")
			}
			f.Desc, f.HasDesc = luaToString(v), true
		case strings.EqualFold(key, "callback"):
			cb, ok := v.(*lua.LFunction)
			if !ok {
				raiseRedisError(L, "callback argument given to redis.register_function must be a function")
			}
			f.fn = cb
		case strings.EqualFold(key, "flags"):
			ft, ok := v.(*lua.LTable)
			if !ok {
				raiseRedisError(L, "flags argument to redis.register_function must be a table representing function flags")
			}
			flags, ok := readFlags(L, ft)
			if !ok {
				raiseRedisError(L, "unknown flag given")
			}
			f.Flags = flags
		default:
			raiseRedisError(L, "unknown argument given to redis.register_function")
		}
	}
	if !hasName {
		raiseRedisError(L, "redis.register_function must get a function name argument")
	}
	if f.fn == nil {
		raiseRedisError(L, "redis.register_function must get a callback argument")
	}
}

// readFlags reads the flags array of register_function
// (luaRegisterFunctionReadFlags).
func readFlags(L *lua.LState, t *lua.LTable) (Flags, bool) {
	var flags Flags
	for i := 1; ; i++ {
		v := L.GetTable(t, lua.LNumber(i))
		if v == lua.LNil {
			return flags, true
		}
		if !isLuaString(v) {
			return 0, false
		}
		f, ok := parseFlag(luaToString(v), true)
		if !ok {
			return 0, false
		}
		flags |= f
	}
}

// Call runs f with keys and args (FCALL) and writes its reply to w.
func (l *Library) Call(f *Function, r *Run, w *protocol.Writer) Result {
	vm := l.vm
	L := vm.L
	L.Push(f.fn)
	L.Push(stringArray(L, r.Keys))
	L.Push(stringArray(L, r.Args))
	res := vm.call(r, 2, w)
	if vm.broken {
		// Keep the libraries but move them to a fresh state.
		l.rebuild()
	}
	return res
}

// rebuild reloads every library into a fresh VM (after a Go panic went
// through the old one).
func (l *Library) rebuild() {
	libs := l.Libs()
	log := l.vm.logLoad
	l.reset()
	l.vm.logLoad = log
	for _, lib := range libs {
		l.Load([]byte(lib.Code), true)
	}
}

// Snapshot returns the libraries' codes, for FUNCTION DUMP.
func (l *Library) Snapshot() []string {
	var out []string
	for _, lib := range l.Libs() {
		out = append(out, lib.Code)
	}
	return out
}

// Restore loads the library codes of a FUNCTION RESTORE payload with
// policy "FLUSH", "APPEND" or "REPLACE" (upper case). Nothing changes on
// error; the error text is the reply's, without its "ERR " code.
func (l *Library) Restore(codes []string, policy string) string {
	// Compile into a scratch set first, as functionsLibCtxCreate does.
	fresh := map[string]*Lib{}
	freshFuncs := map[string]*Function{}
	for _, code := range codes {
		lib, errText := l.build(code, false, fresh, freshFuncs)
		if errText != "" {
			return errText
		}
		for _, f := range lib.Functions {
			freshFuncs[funcKey(f.Name)] = f
		}
		fresh[lib.Name] = lib
	}
	switch policy {
	case "FLUSH":
		// Swap in the new set; the callbacks already live in this VM.
		l.libs, l.funcs = fresh, freshFuncs
		return ""
	}
	replace := policy == "REPLACE"
	var replaced []*Lib
	names := make([]string, 0, len(fresh))
	for name := range fresh {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if old := l.libs[name]; old != nil {
			if !replace {
				return "Library " + name + " already exists"
			}
			replaced = append(replaced, old)
		}
	}
	for _, old := range replaced {
		l.unlink(old)
	}
	fnames := make([]string, 0, len(freshFuncs))
	for name := range freshFuncs {
		fnames = append(fnames, name)
	}
	sort.Strings(fnames)
	for _, name := range fnames {
		if l.funcs[name] != nil {
			for _, old := range replaced {
				l.link(old)
			}
			return "Function " + freshFuncs[name].Name + " already exists"
		}
	}
	for _, name := range names {
		l.link(fresh[name])
	}
	return ""
}
