package test

// Write-breaks-WATCH cases for scripts and functions: a script's writes go
// through the same choke point as the network path's (spec L-11), so they
// abort a watcher's EXEC, and a script that only reads does not. The
// FUNCTION subcommands flagged "write" change functions, never keys.

// The library the cases load (REPLACE: functions survive FLUSHALL).
const wcScriptLib = "#!lua name=wcscript\n" +
	"redis.register_function('wc_incr', function(keys) return redis.call('incr', keys[1]) end)\n" +
	"redis.register_function{function_name='wc_get', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}"

// wcRestorePayload is FUNCTION DUMP of library wcrestore (function
// wc_restored) on redis-server 7.0.15.
const wcRestorePayload = "\xf5\xc3@M@T\x1f#!lua name=wcrestore\x0aredis.regis\x10ter_function('wc_\xa0#\x03d', \xe0\x00\x17\x0e) return 1 end)\x0a\x00\x1fD\xae\xcdIX\xa4\x0d"

func init() {
	set := []string{"SET", "k", "1"}
	const incr = "return redis.call('incr', KEYS[1])"
	const get = "return redis.call('get', KEYS[1])"
	const cas = "if tonumber(redis.call('get',KEYS[1])) < tonumber(ARGV[1]) then redis.call('set',KEYS[1],ARGV[1]) return ARGV[1] else return nil end"
	addWriteCases("eval",
		writeCase{Setup: [][]string{set}, Write: []string{"EVAL", incr, "1", "k"}, NoOp: []string{"EVAL", get, "1", "k"}},
		writeCase{Name: "compare-and-set", Setup: [][]string{set},
			Write: []string{"EVAL", cas, "1", "k", "5"}, NoOp: []string{"EVAL", cas, "1", "k", "0"}},
		writeCase{Name: "same value", Setup: [][]string{set},
			Write: []string{"EVAL", "return redis.call('set', KEYS[1], '1')", "1", "k"},
			NoOp:  []string{"EVAL", "return redis.call('exists', KEYS[1])", "1", "k"}},
		writeCase{Name: "write then error", Setup: [][]string{set},
			Write: []string{"EVAL", "redis.call('set', KEYS[1], '2') return redis.call('nosuch')", "1", "k"},
			NoOp:  []string{"EVAL", "return redis.call('nosuch')", "1", "k"}},
		writeCase{Name: "key not declared", Setup: [][]string{set},
			Write: []string{"EVAL", "return redis.call('del', 'k')", "0"},
			NoOp:  []string{"EVAL", "return redis.call('del', 'nosuch')", "0"}},
		writeCase{Name: "other db", Setup: [][]string{set}, WatchDB: 1,
			Write: []string{"EVAL", incr, "1", "k"}, NeverTouches: "the script runs in the caller's db 0, the key is watched in db 1"},
		writeCase{Name: "SELECT inside the script", Setup: [][]string{{"SELECT", "1"}, set}, WatchDB: 1,
			Write: []string{"EVAL", "redis.call('select', 1) return redis.call('incr', KEYS[1])", "1", "k"},
			NoOp:  []string{"EVAL", "redis.call('select', 1) return redis.call('get', KEYS[1])", "1", "k"}},
	)
	addWriteCases("evalsha",
		writeCase{Setup: [][]string{set, {"SCRIPT", "LOAD", incr}, {"SCRIPT", "LOAD", get}},
			Write: []string{"EVALSHA", "2bab3b661081db58bd2341920e0ba7cf5dc77b25", "1", "k"},
			NoOp:  []string{"EVALSHA", "4e6d8fc8bb01276962cce5371fa795a7763657ae", "1", "k"}},
	)
	addWriteCases("eval_ro", writeCase{Setup: [][]string{set}, Write: []string{"EVAL_RO", get, "1", "k"},
		NeverTouches: "a read-only script cannot write"})
	addWriteCases("fcall",
		writeCase{Setup: [][]string{set, {"FUNCTION", "LOAD", "REPLACE", wcScriptLib}},
			Write: []string{"FCALL", "wc_incr", "1", "k"}, NoOp: []string{"FCALL", "wc_get", "1", "k"}},
	)
	addWriteCases("fcall_ro", writeCase{Setup: [][]string{set, {"FUNCTION", "LOAD", "REPLACE", wcScriptLib}},
		Write: []string{"FCALL_RO", "wc_get", "1", "k"}, NeverTouches: "a read-only function cannot write"})
	addWriteCases("function|load", writeCase{Setup: [][]string{set},
		Write:        []string{"FUNCTION", "LOAD", "REPLACE", wcScriptLib},
		NeverTouches: "FUNCTION LOAD adds functions, never keys"})
	addWriteCases("function|delete", writeCase{Setup: [][]string{set, {"FUNCTION", "LOAD", "REPLACE", wcScriptLib}},
		Write:        []string{"FUNCTION", "DELETE", "wcscript"},
		NeverTouches: "FUNCTION DELETE removes functions, never keys"})
	addWriteCases("function|restore", writeCase{Setup: [][]string{set},
		Write:        []string{"FUNCTION", "RESTORE", wcRestorePayload, "REPLACE"},
		NeverTouches: "FUNCTION RESTORE adds functions, never keys"})
}
