package script

import (
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Limits of a VM, chosen to behave like Redis's Lua 5.1 build.
const (
	// callStackSize bounds nested calls as LUAI_MAXCALLS (20000) does:
	// deeper recursion raises "stack overflow".
	callStackSize = 20000
	// registrySize and registryMaxSize bound the value stack.
	registrySize    = 1024
	registryMaxSize = 1 << 21
	// luaMaxCStack is LUAI_MAXCSTACK, the limit lua_checkstack enforces;
	// replies nested deeper than it allows end in "reached lua stack limit".
	luaMaxCStack = 8000
)

// vmMode selects the global environment a VM builds.
type vmMode uint8

const (
	modeEval     vmMode = iota // EVAL: globals KEYS and ARGV, __redis__err__handler
	modeFunction               // FCALL: library globals, redis.register_function at load
)

// VM is one initialised Lua state: the Redis global set behind read-only
// proxies, the interrupt hook and the per-run context. It is reused across
// calls; nothing a script does survives into the next call except what
// Redis also keeps (math.random's state, cjson settings).
type VM struct {
	L      *lua.LState
	mode   vmMode
	shared *shared

	g      *lua.LTable // the globals (backing table)
	gproxy *lua.LTable // _G as scripts see it
	gmeta  *lua.LTable // gproxy's metatable (its __index is g, or the load API during FUNCTION LOAD)

	// backing maps a read-only proxy to the table it guards; proxyOf maps
	// a guarded table (or a protected metatable) to its proxy; metaOf is
	// what getmetatable answers for a proxy.
	backing map[*lua.LTable]*lua.LTable
	proxyOf map[*lua.LTable]*lua.LTable
	metaOf  map[*lua.LTable]lua.LValue

	roErr   *lua.LFunction // __newindex of every proxy
	concat  *lua.LFunction // the `..` operator (compiled chunks call it)
	errfunc *lua.LFunction // the error handler of script calls
	// rewordErr is the message handler of pcall and FUNCTION LOAD
	// (rewordError).
	rewordErr *lua.LFunction
	next      *lua.LFunction // proxy-aware next, returned by pairs

	hook hook
	run  *Run

	// fns holds the closures of the EVAL scripts this VM instantiated.
	fns map[*Script]*lua.LFunction
	// sources maps a chunk's short name (what error messages print) to its
	// source (what error replies print after "on").
	sources map[string]string

	// deadline, when set, bounds code run outside a script call (FUNCTION
	// LOAD, a script's top level) and deadlineMsg is the error it raises.
	deadline    time.Time
	deadlineMsg string
	// load is the library being registered by FUNCTION LOAD, or nil;
	// loadAPI is the globals FUNCTION LOAD code sees (function mode).
	load    *libraryLoad
	loadAPI *lua.LTable

	keys, argvT *lua.LTable // KEYS and ARGV of the last call, reused when untouched
	argBuf      []byte      // redis.call argument bytes, reused
	argEnds     []int       // where each argument ends in argBuf
	argv        [][]byte    // redis.call arguments, reused
	// logLoad receives redis.log messages while no script runs (FUNCTION
	// LOAD); nil drops them.
	logLoad func(level int, msg string)
	broken  bool // a Go panic went through the VM: do not reuse it
}

// Run is one invocation of a script or function.
type Run struct {
	Host Host
	// Name is what error replies print after "script:": the SHA-1 of an
	// EVAL script or the name of a function.
	Name       string
	Keys, Args [][]byte
	proto      int // redis.setresp: the RESP version of redis.call replies
}

// newVM builds a VM with the Redis libraries and sandbox of mode.
func newVM(sh *shared, mode vmMode) *VM {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		RegistrySize:        registrySize,
		RegistryMaxSize:     registryMaxSize,
		MinimizeStackMemory: true,
	})
	vm := &VM{
		L:       L,
		mode:    mode,
		shared:  sh,
		backing: make(map[*lua.LTable]*lua.LTable),
		proxyOf: make(map[*lua.LTable]*lua.LTable),
		metaOf:  make(map[*lua.LTable]lua.LValue),
		fns:     make(map[*Script]*lua.LFunction),
		sources: map[string]string{"user_script": "@user_script", "user_function": "@user_function"},
	}
	vm.hook.vm = vm
	vm.hook.reset()
	L.SetContext(&vm.hook)
	vm.openLibraries()
	return vm
}

// interrupt is called by the hook every HookPeriod instructions. It returns
// the message of the error that kills the running code, or "".
func (vm *VM) interrupt() string {
	if vm.overBudget(0) {
		vm.memoryError(vm.L.G.CurrentThread)
	}
	if !vm.deadline.IsZero() && time.Now().After(vm.deadline) {
		return vm.deadlineMsg
	}
	if vm.run != nil {
		return vm.run.Host.Interrupt()
	}
	return ""
}

// close releases the VM's Lua state.
func (vm *VM) close() { vm.L.Close() }
