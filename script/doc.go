// Package script runs Redis 7.0.15 Lua scripts (EVAL, EVALSHA, FCALL) on
// gopher-lua, a Lua 5.1 interpreter written in Go.
//
// An Engine owns the EVAL script cache (compiled chunks keyed by the SHA-1 of
// their body, lowercase hex as Redis prints it) and a pool of initialised VMs:
// each VM carries the sandboxed global set of Redis 7.0.15 (spec rule L-4:
// base library without print/dofile/loadfile/require/module/getfenv/setfenv/
// newproxy, table, string, math, coroutine, cjson, cmsgpack, bit, struct and
// the redis table), read-only protection of every table reachable from _G,
// Redis's error texts, %.14g number formatting and Redis's 48-bit random
// generator. A VM is built once and reused by every call; SCRIPT FLUSH drops
// the pool and the cache. Functions (FUNCTION LOAD, FCALL) live in a Library
// set with a VM of their own, as Redis keeps them in a separate Lua state.
//
// The package knows nothing of the server: commands called with redis.call
// go through a Host, which runs them through the server's own dispatcher
// checks and returns the RESP bytes the command wrote; the package converts
// them to Lua values (and the script's result back to RESP) exactly as
// Redis's script_lua.c does, in both protocols.
//
// Busy scripts: every VM has an interrupt hook that gopher-lua consults
// before each instruction (through the context.Context it polls); every
// 100000 instructions the hook calls Host.Interrupt, which is where the
// server checks the busy threshold, lets other clients in and learns about
// SCRIPT KILL. A killed script raises an error on every following
// instruction, so pcall cannot swallow the kill.
//
// Caveats: gopher-lua's parser and runtime produce their own texts for
// syntax errors and some runtime errors ("attempt to index a nil value");
// the common ones are rewritten to Lua 5.1's wording, without Lua's
// variable names ("local 'x'"). Nothing here is safe for concurrent use: the
// server calls every method under its engine lock.
package script
