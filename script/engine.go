package script

import (
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// Script is one EVAL script in the cache.
type Script struct {
	SHA   string // 40 lowercase hex digits
	Body  string // the body as given, shebang included
	Flags Flags  // shebang flags, or FlagCompat
	proto *lua.FunctionProto
}

// shared is the state the VMs of one engine share. rand is Redis's global
// random generator (it survives SCRIPT FLUSH); cjson holds the settings of
// the cjson module, which live as long as the Lua state in Redis.
type shared struct {
	rand  *rand48
	cjson *cjsonConfig
	null  *lua.LUserData // cjson.null
}

// defineTimeout bounds the top-level code of a script (code after an early
// "end" of the wrapped body), which Redis runs without any time check.
const defineTimeout = 5 * time.Second

// Engine is the EVAL side of scripting: the script cache and the VM pool.
// It is not safe for concurrent use (the server calls it under its engine
// lock).
type Engine struct {
	scripts map[string]*Script
	pool    []*VM
	shared  *shared
	rand    *rand48
}

// NewEngine returns an engine with an empty cache.
func NewEngine() *Engine {
	e := &Engine{scripts: make(map[string]*Script), rand: newRand48()}
	e.shared = newShared(e.rand)
	return e
}

func newShared(r *rand48) *shared {
	return &shared{rand: r, cjson: newCJSONConfig(), null: &lua.LUserData{Metatable: lua.LNil}}
}

// Len returns the number of cached scripts.
func (e *Engine) Len() int { return len(e.scripts) }

// Memory estimates the bytes the cached scripts hold (their SHA and body,
// as Redis's lua_scripts_mem counts them).
func (e *Engine) Memory() int64 {
	var n int64
	for _, s := range e.scripts {
		n += int64(len(s.Body) + len(s.SHA) + 64)
	}
	return n
}

// Lookup returns the cached script whose SHA-1 is sha (any case), or nil.
// Like Redis, a sha that is not 40 bytes long never matches.
func (e *Engine) Lookup(sha []byte) *Script {
	if len(sha) != 40 {
		return nil
	}
	var low [40]byte
	for i, c := range sha {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return e.scripts[string(low[:])]
}

// Load compiles body and caches it (luaCreateFunction); a script already
// cached is returned as it is. The error is the full reply text ("ERR Error
// compiling script (new function): user_script:1: ...").
func (e *Engine) Load(body []byte) (*Script, string) {
	sha := SHA1Hex(body)
	if s := e.scripts[sha]; s != nil {
		return s, ""
	}
	flags, shebangLen, msg := ParseShebang(body)
	if msg != "" {
		return nil, "ERR " + msg
	}
	p, msg := compileScript(string(body[shebangLen:]))
	if msg != "" {
		return nil, "ERR Error compiling script (new function): " + msg
	}
	s := &Script{SHA: sha, Body: string(body), Flags: flags, proto: p}
	vm := e.get()
	_, msg = vm.function(s)
	e.put(vm)
	if msg != "" {
		return nil, "ERR Error running script (new function): " + msg
	}
	e.scripts[sha] = s
	return s, ""
}

// Flush empties the cache and drops every VM: the next script runs in a
// fresh Lua state (SCRIPT FLUSH). The random generator is kept.
func (e *Engine) Flush() {
	for _, vm := range e.pool {
		vm.close()
	}
	e.pool = nil
	e.scripts = make(map[string]*Script)
	e.shared = newShared(e.rand)
}

// Run runs s with keys and args as KEYS and ARGV and writes its reply to w
// in w's protocol. The engine's VM is busy until Run returns.
func (e *Engine) Run(s *Script, r *Run, w *protocol.Writer) Result {
	vm := e.get()
	defer e.put(vm)
	fn, msg := vm.function(s)
	if fn == nil {
		w.Error("ERR Error running script (new function): " + msg)
		return Result{Err: true, CountErr: true}
	}
	L := vm.L
	// Scripts cannot assign globals, so KEYS and ARGV are set again only
	// when the tables change.
	if keys := reuseArray(L, vm.keys, r.Keys); keys != vm.keys {
		vm.keys = keys
		vm.setGlobal("KEYS", keys)
	}
	if args := reuseArray(L, vm.argvT, r.Args); args != vm.argvT {
		vm.argvT = args
		vm.setGlobal("ARGV", args)
	}
	L.Push(fn)
	return vm.call(r, 0, w)
}

// reuseArray refills t with items when the last script left it a plain
// array (no metatable, no other keys), or builds a new one: no script can
// tell the difference, and a call allocates no table.
func reuseArray(L *lua.LState, t *lua.LTable, items [][]byte) *lua.LTable {
	if t == nil || t.Metatable != lua.LNil {
		return stringArray(L, items)
	}
	// Any key past the array part (Next from its last item) means the
	// script added keys: build a new table.
	n := t.MaxN()
	var last lua.LValue = lua.LNil
	if n > 0 {
		last = boxedIndex(n)
	}
	if k, _ := t.Next(last); k != lua.LNil {
		return stringArray(L, items)
	}
	for i, it := range items {
		// Keep an equal string (the same key again): no allocation.
		if v, ok := t.RawGetInt(i + 1).(lua.LString); !ok || string(v) != string(it) {
			t.RawSetInt(i+1, lua.LString(it))
		}
	}
	for i := n; i > len(items); i-- {
		t.RawSetInt(i, lua.LNil)
	}
	return t
}

// boxedIndexes are the small table indexes as Lua values, boxed once.
var boxedIndexes = func() (b [64]lua.LValue) {
	for i := range b {
		b[i] = lua.LNumber(i)
	}
	return b
}()

func boxedIndex(i int) lua.LValue {
	if i < len(boxedIndexes) {
		return boxedIndexes[i]
	}
	return lua.LNumber(i)
}

// get takes a VM from the pool, building one if the pool is empty.
func (e *Engine) get() *VM {
	if n := len(e.pool); n > 0 {
		vm := e.pool[n-1]
		e.pool = e.pool[:n-1]
		return vm
	}
	return newVM(e.shared, modeEval)
}

// put returns vm to the pool, unless a Go panic went through it.
func (e *Engine) put(vm *VM) {
	vm.run = nil
	vm.L.SetTop(0)
	if vm.broken || vm.shared != e.shared {
		vm.close()
		return
	}
	e.pool = append(e.pool, vm)
}

// function returns vm's closure of s, instantiating it on first use.
func (vm *VM) function(s *Script) (*lua.LFunction, string) {
	if fn := vm.fns[s]; fn != nil {
		return fn, ""
	}
	vm.deadline, vm.deadlineMsg = time.Now().Add(defineTimeout), "Script definition timed out"
	vm.hook.reset()
	fn, msg := vm.instantiate(s.proto)
	vm.deadline = time.Time{}
	vm.hook.reset()
	if fn != nil {
		vm.fns[s] = fn
	}
	return fn, msg
}

// stringArray returns a Lua array of the strings in items.
func stringArray(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, it := range items {
		t.RawSetInt(i+1, lua.LString(it))
	}
	return t
}

// call runs the function on top of the stack with nargs arguments under
// r, and writes the reply (luaCallFunction).
func (vm *VM) call(r *Run, nargs int, w *protocol.Writer) Result {
	L := vm.L
	r.proto = 2
	vm.run = r
	vm.hook.reset()
	err := L.PCall(nargs, 1, vm.errfunc)
	var res Result
	if err != nil {
		res = vm.writeError(w, err, r.Name)
	} else {
		res = vm.writeReply(w, L.Get(-1), 2, r.proto)
	}
	vm.run = nil
	vm.hook.reset()
	L.SetTop(0)
	return res
}
