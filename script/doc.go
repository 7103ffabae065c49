// Package script runs Redis 7.0.15 Lua scripts (EVAL, EVALSHA, FCALL) on
// gopher-lua, a Lua 5.1 interpreter written in Go.
//
// An Engine owns the EVAL script cache (compiled chunks keyed by the SHA-1 of
// their body, lowercase hex as Redis prints it) and a pool of initialised
// VMs. A VM is built once and reused by every call (the pool normally holds
// one; a VM a Go panic went through is dropped and replaced); SCRIPT FLUSH
// drops the pool and the cache. Functions (FUNCTION LOAD, FCALL) live in a
// Library with a VM of its own, as Redis keeps them in a separate Lua state.
//
// Each VM carries the global set of Redis 7.0.15 (spec rule L-4: the base
// library without print, dofile, loadfile, require, module, getfenv, setfenv
// and newproxy; string, table, math, coroutine, cjson, cmsgpack, bit,
// struct and redis) with Redis's texts:
//   - Read-only tables: gopher-lua has no read-only flag, so _G and every
//     table reachable from it is an empty proxy whose metatable reads
//     through to the real table and raises on writes; rawset, rawget, next,
//     pairs, setmetatable, getmetatable and table.insert see through them.
//   - Numbers print as Lua 5.1 prints them ("%.14g"): tostring,
//     table.concat, string.format and the `..` operator, which the compiler
//     rewrites into a call of a Go function (gopher-lua's own concatenation
//     prints numbers in Go's shortest form).
//   - cjson, cmsgpack, bit and struct are Go ports of the C modules Redis
//     ships, with their texts and limits; math.random is Redis's 48-bit
//     generator, one per process.
//   - A script body is compiled as a Lua main chunk named "user_script"
//     (a library as "user_function"), so line numbers and "..." behave as in
//     Redis.
//
// The package knows nothing of the server: commands called with redis.call
// go through a Host, which runs them through the server's own checks and
// returns the RESP bytes the command wrote; they are converted to Lua values
// (and the script's result back to RESP) exactly as script_lua.c does, in
// both protocols, including the nesting limit of the Lua stack.
//
// Busy scripts: every VM has an interrupt hook that gopher-lua consults
// before each instruction (through the context.Context it polls); every
// HookPeriod instructions the hook calls Host.Interrupt, which is where the
// server checks busy-reply-threshold, lets other clients in and learns about
// SCRIPT KILL. A killed script raises an error on every following
// instruction, so pcall cannot swallow the kill; coroutines run under the
// same hook.
//
// Caveats:
//   - gopher-lua words runtime errors differently; they are reworded where
//     they are caught, while the failing frame is still on the stack, with
//     the kind, name and type of the faulty value Lua 5.1 prints ("attempt
//     to index local 'x' (a nil value)"): luanames.go ports ldebug.c's
//     getobjname over gopher-lua's bytecode, luaframe.go reads the failing
//     instruction (the one use of gopher-lua's private layout).
//     Its parser reports some syntax errors as "unexpected symbol" where Lua
//     names the expected token.
//   - Memory: Lua's memory error ("not enough memory", which bypasses the
//     error handler) is raised where Lua's allocation would fail on a full
//     machine: a string over 512 MB, or a run growing the heap by 1 GB
//     (memory.go). string.gsub's result is not bounded yet.
//   - A Go builtin (a pathological string pattern, say) is not interrupted
//     until it returns, as a C function in Redis is not; patterns longer
//     than 16 KiB are refused ("pattern too complex") rather than let
//     gopher-lua's recursive matcher exhaust the Go stack.
//   - Redis 7.0.15 has no `server` alias of the redis table (later versions
//     do); neither does this package.
//
// Nothing here is safe for concurrent use: the server calls every method
// under its engine lock.
package script
