package test

import (
	"testing"
)

// Differential tests of the scripting commands (EVAL family, SCRIPT,
// FUNCTION, FCALL) and of scripts in transactions, against redis-server.

// sdRun runs command lines on c, comparing every reply exactly.
func sdRun(c *sdConn, lines ...[]string) {
	for _, l := range lines {
		c.check(sdExact, l...)
	}
}

func cmd(args ...string) []string { return args }

func TestScriptDiffCommands(t *testing.T) {
	p := sdNewPair(t)
	for _, proto := range []int{2, 3} {
		c := p.conn(proto)
		sdRun(c,
			cmd("SCRIPT", "FLUSH"),
			cmd("FLUSHALL"),
			// numkeys
			cmd("EVAL", "return 1", "abc"),
			cmd("EVAL", "return 1", "-1"),
			cmd("EVAL", "return 1", "2", "a"),
			cmd("EVAL", "return 1", "1.5"),
			cmd("EVAL", "return 1", "99999999999999999999"),
			cmd("EVAL", "return +", "abc"),
			cmd("EVAL", "return {#KEYS, #ARGV, KEYS[1], ARGV[3]}", "2", "k1", "k2", "a1", "a2", "a3"),
			cmd("EVAL", "return {KEYS, ARGV}", "0"),
			cmd("EVAL", "return KEYS[1]", "1", ""),
			// EVALSHA and SCRIPT
			cmd("EVALSHA", "abc", "0"),
			cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
			cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "abc"),
			cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8dbx", "0"),
			cmd("SCRIPT", "LOAD", "return 1"),
			cmd("SCRIPT", "LOAD", "return +"),
			cmd("SCRIPT", "LOAD"),
			cmd("SCRIPT", "LOAD", "return 1", "x"),
			cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
			cmd("EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"),
			cmd("EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
			cmd("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "nosuch"),
			cmd("SCRIPT", "EXISTS"),
			cmd("EVAL", "return 2", "0"),
			cmd("SCRIPT", "EXISTS", "7f923f79fe76194c868d7e1d0820de36700eb649"),
			cmd("SCRIPT", "FLUSH", "foo"),
			cmd("SCRIPT", "FLUSH", "sync", "extra"),
			cmd("SCRIPT", "FLUSH", "ASYNC"),
			cmd("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "7f923f79fe76194c868d7e1d0820de36700eb649"),
			cmd("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
			cmd("SCRIPT", "FLUSH"),
			cmd("SCRIPT", "KILL"),
			cmd("SCRIPT", "DEBUG", "maybe"),
			cmd("SCRIPT", "DEBUG", "no"),
			cmd("SCRIPT", "FOO"),
			cmd("SCRIPT"),
			cmd("SCRIPT", "HELP"),
			// shebangs and read-only forms
			cmd("EVAL", "#!lua flags=bogus\nreturn 1", "0"),
			cmd("EVAL", "#!notlua\nreturn 1", "0"),
			cmd("EVAL", "#!lua", "0"),
			cmd("EVAL", "#!lua foo=bar\nreturn 1", "0"),
			cmd("EVAL", "#!lua name=x\nreturn 1", "0"),
			cmd("EVAL", "#!lua\nreturn 1", "0"),
			cmd("EVAL", "#!lua flags=\nreturn 1", "0"),
			cmd("EVAL", "#!lua   flags=no-writes,allow-oom  \nreturn 1", "0"),
			cmd("EVAL", "#!lua flags=no-writes,allow-stale,no-cluster,allow-oom\nreturn 2", "0"),
			cmd("EVAL", "#!lua flags=allow-cross-slot-keys\nreturn 3", "0"),
			cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('set','x','y')", "0"),
			cmd("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','x')", "0"),
			cmd("EVAL", "#!lua\n\nerror('line 3')", "0"),
			cmd("EVAL_RO", "#!lua\nreturn 1", "0"),
			cmd("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
			cmd("EVAL_RO", "return redis.call('set','x','y')", "0"),
			cmd("EVAL_RO", "return redis.call('get','x')", "0"),
			cmd("EVAL_RO", "return redis.pcall('set','x','y')", "0"),
			cmd("EVAL", "return redis.call('set','x','y')", "0"),
			cmd("GET", "x"),
			// the script client's database and time
			cmd("SELECT", "2"),
			cmd("EVAL", "redis.call('set','indb','2'); redis.call('select','3'); redis.call('set','indb','3'); return 1", "0"),
			cmd("GET", "indb"),
			cmd("SELECT", "3"),
			cmd("GET", "indb"),
			cmd("SELECT", "0"),
			cmd("EVAL", "redis.call('set','t','v','px','1'); local a = redis.call('exists','t'); local x = 0; for i=1,3000000 do x = x + 1 end return {a, redis.call('exists','t')}", "0"),
			cmd("FLUSHALL"),
		)
	}
}

// TestScriptDiffSeedScenarios runs the seed scripts: a compare-and-set and
// an inventory decrement, and a WATCH on a key a script writes.
func TestScriptDiffSeedScenarios(t *testing.T) {
	p := sdNewPair(t)
	const cas = "if tonumber(redis.call('get',KEYS[1])) < tonumber(ARGV[1]) then redis.call('set',KEYS[1],ARGV[1]) return ARGV[1] else return nil end"
	const inventory = `local stock = tonumber(redis.call('get', KEYS[1]))
if stock == nil then return redis.error_reply('no such item') end
local want = tonumber(ARGV[1])
if want == nil or want <= 0 then return redis.error_reply('bad quantity') end
if stock < want then return 0 end
return redis.call('decrby', KEYS[1], want)`
	for _, proto := range []int{2, 3} {
		a := p.conn(proto)
		b := p.conn(proto)
		sdRun(a,
			cmd("FLUSHALL"),
			cmd("EVAL", cas, "1", "cas", "5"), // missing key: compare nil with number
			cmd("SET", "cas", "3"),
			cmd("EVAL", cas, "1", "cas", "5"),
			cmd("GET", "cas"),
			cmd("EVAL", cas, "1", "cas", "4"),
			cmd("GET", "cas"),
			cmd("SCRIPT", "LOAD", cas),
			cmd("EVALSHA", "1bde4a4b7fb3eee64e0dc8da8e73d1359cd5a95e", "1", "cas", "9"),
			cmd("EVAL", inventory, "1", "item", "1"),
			cmd("SET", "item", "10"),
			cmd("EVAL", inventory, "1", "item", "3"),
			cmd("EVAL", inventory, "1", "item", "8"),
			cmd("EVAL", inventory, "1", "item", "7"),
			cmd("EVAL", inventory, "1", "item", "x"),
			cmd("GET", "item"),
		)
		// A script's write aborts the watcher's transaction.
		sdRun(a, cmd("SET", "k", "1"), cmd("WATCH", "k"))
		sdRun(b, cmd("EVAL", cas, "1", "k", "7"))
		sdRun(a, cmd("MULTI"), cmd("PING"), cmd("EXEC"))
		// A script that does not change the key leaves it alone.
		sdRun(a, cmd("WATCH", "k"))
		sdRun(b, cmd("EVAL", cas, "1", "k", "2"))
		sdRun(a, cmd("MULTI"), cmd("PING"), cmd("EXEC"))
		// Writes before an error stay (spec E-13).
		sdRun(a, cmd("WATCH", "k"))
		sdRun(b, cmd("EVAL", "redis.call('set',KEYS[1],'2'); return redis.call('nosuch')", "1", "k"))
		sdRun(a, cmd("MULTI"), cmd("PING"), cmd("EXEC"), cmd("GET", "k"))
		// EVAL inside MULTI runs at EXEC.
		sdRun(a,
			cmd("MULTI"),
			cmd("EVAL", "return redis.call('incr','n')", "0"),
			cmd("EVAL", "return redis.call('incr','n')", "0"),
			cmd("EXEC"),
			cmd("MULTI"),
			cmd("EVAL", "return redis.call('multi')", "0"),
			cmd("EVAL", "return +", "0"),
			cmd("EXEC"),
		)
	}
}

func TestScriptDiffFunctions(t *testing.T) {
	p := sdNewPair(t)
	const lib1 = "#!lua name=lib1\n" +
		"redis.register_function('f1', function(keys, args) return {keys[1], args[1], #keys, #args} end)\n" +
		"redis.register_function{function_name='ro', callback=function() return redis.call('set','a','b') end, flags={'no-writes'}, description='read only'}\n" +
		"redis.register_function('err', function() error('boom') end)\n" +
		"redis.register_function('call', function() return redis.call('nosuch') end)\n" +
		"redis.register_function('g', function() x = 1 end)\n" +
		"redis.register_function('w', function(keys) return redis.call('incr', keys[1]) end)"
	loadErrors := []string{
		"return 1",
		"#!lua",
		"#!lua name=",
		"#!lua name=a b=c\nredis.register_function('f', function() end)",
		"#!lua name=a name=b\nx",
		"#!notlua name=x\nx",
		"#!lua name=bad-name\nx",
		"#!lua name=x\nreturn 1",
		"#!lua name=z\nredis.register_function('g1', function() return 1 end) redis.register_function('g1', function() return 1 end)",
		"#!lua name=z\nredis.register_function('bad name', function() return 1 end)",
		"#!lua name=z\nredis.register_function('h')",
		"#!lua name=z\nredis.register_function('h', 5)",
		"#!lua name=z\nredis.register_function()",
		"#!lua name=z\nredis.register_function({})",
		"#!lua name=z\nredis.register_function({function_name='h'})",
		"#!lua name=z\nredis.register_function({callback=function() end})",
		"#!lua name=z\nredis.register_function({function_name='h', callback=function() end, flags={'bogus'}})",
		"#!lua name=z\nredis.register_function({function_name='h', callback=function() end, flags='x'})",
		"#!lua name=z\nredis.register_function({function_name='h', callback=function() end, foo=1})",
		"#!lua name=z\nredis.register_function({function_name='h', callback=5})",
		"#!lua name=z\nredis.register_function({[1]=5})",
		"#!lua name=z\nreturn string.len('x')",
		"#!lua name=z\nredis.call('ping')",
		"#!lua name=z\nerror('boom')",
		"#!lua name=z\nlocal x = 1",
		"#!lua name=z\nredis.register_function('h', function() end, 1)",
		"#!lua name=z\nx = 5",
		"#!lua name=z\nredis.log(redis.LOG_DEBUG, 'hello')",
		"#!lua name=z\nredis.register_function('f1', function() end)",
		"#!lua name=lib1\nredis.register_function('q', function() end)",
	}
	for _, proto := range []int{2, 3} {
		c := p.conn(proto)
		sdRun(c,
			cmd("FUNCTION", "FLUSH"),
			cmd("FUNCTION", "LOAD", lib1),
			cmd("FUNCTION", "LOAD", lib1),
		)
		for _, code := range loadErrors {
			c.check(sdExact, "FUNCTION", "LOAD", code)
		}
		sdRun(c,
			cmd("FCALL", "f1", "2", "a", "b", "c", "d"),
			cmd("FCALL", "f1", "0"),
			cmd("FCALL", "nosuch", "0"),
			cmd("FCALL", "f1", "abc"),
			cmd("FCALL", "f1", "-1"),
			cmd("FCALL", "f1", "3", "a"),
			cmd("FCALL", "ro", "0"),
			cmd("FCALL_RO", "ro", "0"),
			cmd("FCALL_RO", "f1", "0"),
			cmd("FCALL", "err", "0"),
			cmd("FCALL", "call", "0"),
			cmd("FCALL", "g", "0"),
			cmd("FCALL", "w", "1", "ctr"),
			cmd("FCALL", "w", "1", "ctr"),
			// One function per library: Redis lists a library's functions
			// in its dict order, which a random hash seed decides.
			cmd("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function{function_name='only', callback=function() return 1 end, flags={'no-writes', 'allow-stale'}, description=5}"),
			cmd("FUNCTION", "LIST", "LIBRARYNAME", "lib2"),
			cmd("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "li*2"),
			cmd("FUNCTION", "DELETE", "lib2"),
			cmd("FUNCTION", "LIST", "libraryname", "nomatch*"),
			cmd("FUNCTION", "LIST", "libraryname"),
			cmd("FUNCTION", "LIST", "withcode", "withcode"),
			cmd("FUNCTION", "LIST", "foo"),
			cmd("FUNCTION", "STATS"),
			cmd("FUNCTION", "KILL"),
			cmd("FUNCTION", "DUMP"),
			cmd("FUNCTION", "DELETE", "nolib"),
			cmd("FUNCTION", "LOAD", "REPLACE", "#!lua name=lib1\nredis.register_function('f1', function() return 'replaced' end)"),
			cmd("FCALL", "f1", "0"),
			cmd("FCALL", "ro", "0"),
			cmd("FUNCTION", "LOAD", "REPLACE"),
			cmd("FUNCTION", "LOAD", "foo", "x"),
			cmd("FUNCTION", "LOAD"),
			cmd("FUNCTION", "DUMP"),
			cmd("FUNCTION", "RESTORE", "xx"),
			cmd("FUNCTION", "RESTORE", "xx", "bad"),
			cmd("FUNCTION", "RESTORE", "xx", "flush", "extra"),
			cmd("FUNCTION", "FLUSH", "foo"),
			cmd("FUNCTION", "FLUSH", "sync", "extra"),
			cmd("FUNCTION", "DELETE", "lib1"),
			cmd("FUNCTION", "LIST"),
			cmd("FUNCTION", "STATS"),
			cmd("FCALL", "f1", "0"),
			cmd("FUNCTION", "HELP"),
		)
		// DUMP on one side restores on the other and back.
		sdRun(c, cmd("FUNCTION", "LOAD", "#!lua name=dumped\nredis.register_function('d1', function() return 'dumped' end)"))
		redisDump, ourDump := c.do("FUNCTION", "DUMP")
		if string(redisDump) != string(ourDump) {
			t.Errorf("FUNCTION DUMP differs:\n redis-server: %s\n miniwatchd:   %s", sdShow(redisDump), sdShow(ourDump))
		}
		payload := sdBulk(t, redisDump)
		sdRun(c,
			cmd("FUNCTION", "RESTORE", payload),
			cmd("FUNCTION", "RESTORE", payload, "APPEND"),
			cmd("FUNCTION", "RESTORE", payload, "REPLACE"),
			cmd("FUNCTION", "FLUSH"),
			cmd("FUNCTION", "RESTORE", payload),
			cmd("FCALL", "d1", "0"),
			cmd("FUNCTION", "RESTORE", payload, "FLUSH"),
			cmd("FUNCTION", "RESTORE", payload[:len(payload)-1]+"x"),
			cmd("FUNCTION", "RESTORE", "\xf6\x00"+payload[len(payload)-10:]),
			cmd("FUNCTION", "FLUSH", "ASYNC"),
		)
	}
}

// sdBulk returns the payload of a bulk string reply.
func sdBulk(t *testing.T, reply []byte) string {
	t.Helper()
	for i := 0; i+1 < len(reply); i++ {
		if reply[i] == '\r' && reply[i+1] == '\n' {
			return string(reply[i+2 : len(reply)-2])
		}
	}
	t.Fatalf("not a bulk string: %q", reply)
	return ""
}
