package script

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// RedisVersion and RedisVersionNum are what redis.REDIS_VERSION and
// redis.REDIS_VERSION_NUM report (0x07000f).
const (
	RedisVersion    = "7.0.15"
	RedisVersionNum = 0x07000f
)

// Replication flags of redis.set_repl (PROPAGATE_AOF, PROPAGATE_REPL).
const (
	replAOF  = 1
	replRepl = 2
)

// redisLib builds the redis table of a VM (luaRegisterRedisAPI plus, for
// EVAL, the debugger stubs and replicate_commands).
func (vm *VM) redisLib() *lua.LTable {
	L := vm.L
	t := L.NewTable()
	funcs := map[string]lua.LGFunction{
		"call":          func(L *lua.LState) int { return vm.redisCall(L, true) },
		"pcall":         func(L *lua.LState) int { return vm.redisCall(L, false) },
		"log":           vm.redisLog,
		"setresp":       vm.redisSetresp,
		"sha1hex":       redisSha1hex,
		"error_reply":   redisErrorReply,
		"status_reply":  redisStatusReply,
		"set_repl":      vm.redisSetRepl,
		"acl_check_cmd": vm.redisACLCheckCmd,
	}
	if vm.mode == modeEval {
		funcs["breakpoint"] = func(L *lua.LState) int { L.Push(lua.LFalse); return 1 }
		funcs["debug"] = func(L *lua.LState) int { return 0 }
		funcs["replicate_commands"] = func(L *lua.LState) int { L.Push(lua.LTrue); return 1 }
	}
	for name, fn := range funcs {
		t.RawSetString(name, L.NewFunction(fn))
	}
	setLogConstants(t)
	setVersion(t)
	t.RawSetString("REPL_NONE", lua.LNumber(0))
	t.RawSetString("REPL_AOF", lua.LNumber(replAOF))
	t.RawSetString("REPL_SLAVE", lua.LNumber(replRepl))
	t.RawSetString("REPL_REPLICA", lua.LNumber(replRepl))
	t.RawSetString("REPL_ALL", lua.LNumber(replAOF|replRepl))
	return t
}

func setLogConstants(t *lua.LTable) {
	t.RawSetString("LOG_DEBUG", lua.LNumber(0))
	t.RawSetString("LOG_VERBOSE", lua.LNumber(1))
	t.RawSetString("LOG_NOTICE", lua.LNumber(2))
	t.RawSetString("LOG_WARNING", lua.LNumber(3))
}

func setVersion(t *lua.LTable) {
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(RedisVersionNum))
	t.RawSetString("REDIS_VERSION", lua.LString(RedisVersion))
}

// raiseRedisError raises the table luaPushError builds for text.
func raiseRedisError(L *lua.LState, text string) {
	L.Error(errorTable(L, text), 0)
}

// runOrRaise returns the running invocation, or raises Redis's error for
// a function called outside one.
func (vm *VM) runOrRaise(L *lua.LState, what string) *Run {
	if vm.run == nil {
		raiseRedisError(L, what+" can only be called inside a script invocation")
	}
	return vm.run
}

// luaArgs converts the arguments of redis.call into command arguments
// (luaArgsToRedisArgv): strings as they are, numbers with "%.17g". The
// slices stay valid until the next call. It returns the error text for
// a bad argument list, or "".
func (vm *VM) luaArgs(L *lua.LState) ([][]byte, string) {
	argc := L.GetTop()
	if argc == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	buf := vm.argBuf[:0]
	ends := vm.argEnds[:0]
	for i := 1; i <= argc; i++ {
		switch x := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, x...)
		case lua.LNumber:
			buf = protocol.AppendG(buf, float64(x), 17)
		default:
			vm.argBuf, vm.argEnds = buf, ends
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		ends = append(ends, len(buf))
	}
	argv := vm.argv[:0]
	start := 0
	for _, end := range ends {
		argv = append(argv, buf[start:end:end])
		start = end
	}
	vm.argBuf, vm.argEnds, vm.argv = buf, ends, argv
	return argv, ""
}

// redisCall is redis.call (raise) and redis.pcall (luaRedisGenericCommand).
func (vm *VM) redisCall(L *lua.LState, raise bool) int {
	run := vm.runOrRaise(L, "redis.call/pcall")
	args, msg := vm.luaArgs(L)
	if msg != "" {
		t := errorTable(L, msg)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	reply, refusal := run.Host.Call(args, run.proto)
	if refusal != "" {
		t := errorTable(L, refusal)
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	v, _ := parseReply(L, reply)
	if raise && len(reply) > 0 && reply[0] == '-' {
		L.Error(v, 0)
	}
	L.Push(v)
	return 1
}

// redisLog is redis.log(level, ...).
func (vm *VM) redisLog(L *lua.LState) int {
	argc := L.GetTop()
	if argc < 2 {
		raiseRedisError(L, "redis.log() requires two arguments or more.")
	}
	level, ok := luaToNumber(L.Get(1))
	if !ok {
		raiseRedisError(L, "First argument must be a number (log level).")
	}
	lvl := int(doubleToInt32(level))
	if lvl < 0 || lvl > 3 {
		raiseRedisError(L, "Invalid debug level.")
	}
	var b strings.Builder
	for j := 2; j <= argc; j++ {
		v := L.Get(j)
		if !isLuaString(v) {
			continue
		}
		if j != 2 {
			b.WriteByte(' ')
		}
		b.WriteString(luaToString(v))
	}
	if vm.run != nil {
		vm.run.Host.Log(lvl, b.String())
	} else if vm.logLoad != nil {
		vm.logLoad(lvl, b.String())
	}
	return 0
}

// redisSetresp is redis.setresp(2|3).
func (vm *VM) redisSetresp(L *lua.LState) int {
	run := vm.runOrRaise(L, "redis.setresp")
	if L.GetTop() != 1 {
		raiseRedisError(L, "redis.setresp() requires one argument.")
	}
	n, _ := luaToNumber(L.Get(1))
	resp := doubleToInt32(n)
	if resp != 2 && resp != 3 {
		raiseRedisError(L, "RESP version must be 2 or 3.")
	}
	run.proto = int(resp)
	return 0
}

// redisSetRepl is redis.set_repl(flags): accepted and ignored, as
// miniwatchd replicates nothing.
func (vm *VM) redisSetRepl(L *lua.LState) int {
	vm.runOrRaise(L, "redis.set_repl")
	if L.GetTop() != 1 {
		raiseRedisError(L, "redis.set_repl() requires two arguments.")
	}
	n, _ := luaToNumber(L.Get(1))
	if flags := doubleToInt32(n); flags&^(replAOF|replRepl) != 0 {
		raiseRedisError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	return 0
}

// redisACLCheckCmd is redis.acl_check_cmd(cmd, ...): whether the script's
// user may run the command with these arguments.
func (vm *VM) redisACLCheckCmd(L *lua.LState) int {
	run := vm.runOrRaise(L, "redis.acl_check_cmd")
	args, msg := vm.luaArgs(L)
	if msg != "" {
		raiseRedisError(L, msg)
	}
	exists, allowed := run.Host.ACLCheckCmd(args)
	if !exists {
		raiseRedisError(L, "Invalid command passed to redis.acl_check_cmd()")
	}
	L.Push(lua.LBool(allowed))
	return 1
}

// redisSha1hex is redis.sha1hex(s).
func redisSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		raiseRedisError(L, "wrong number of arguments")
	}
	L.Push(lua.LString(SHA1Hex([]byte(luaToString(L.Get(1))))))
	return 1
}

// redisErrorReply is redis.error_reply(s): {err=s}, with "-" and "ERR"
// added as luaPushErrorBuff does.
func redisErrorReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	text := string(s)
	if !strings.HasPrefix(text, "-") {
		text = "-" + text
	}
	L.Push(errorTable(L, text))
	return 1
}

// redisStatusReply is redis.status_reply(s): {ok=s}.
func redisStatusReply(L *lua.LState) int {
	s, ok := L.Get(1).(lua.LString)
	if L.GetTop() != 1 || !ok {
		L.Push(errorTable(L, "wrong number or type of arguments"))
		return 1
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", s)
	L.Push(t)
	return 1
}
