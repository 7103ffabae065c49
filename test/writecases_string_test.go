package test

// Write-breaks-WATCH cases for the string commands (spec/watch.md T-5).

func init() {
	set := [][]string{{"SET", "k", "v"}}
	num := [][]string{{"SET", "k", "5"}}
	addWriteCases("set",
		writeCase{Name: "same value", Setup: set, Write: []string{"SET", "k", "v"}, NoOp: []string{"SET", "k", "w", "NX"}},
		writeCase{Name: "create", Write: []string{"SET", "k", "v"}, NoOp: []string{"SET", "k", "v", "XX"}},
		writeCase{Name: "GET", Setup: set, Write: []string{"SET", "k", "w", "GET"}, NoOp: []string{"SET", "k", "w", "NX", "GET"}},
		writeCase{Name: "KEEPTTL", Setup: set, Write: []string{"SET", "k", "w", "KEEPTTL"}, NoOp: []string{"SET", "k", "w", "EX", "0"}},
		writeCase{Name: "PXAT past", Setup: set, Write: []string{"SET", "k", "w", "PXAT", "1"}, NoOp: []string{"SET", "k", "w", "PX", "-1"}},
	)
	addWriteCases("setnx", writeCase{Write: []string{"SETNX", "k", "v"}, Setup: [][]string{{"SET", "other", "x"}},
		NoOp: []string{"SETNX", "other", "v"}, Key: "k"},
		writeCase{Name: "exists", Setup: set, Write: []string{"SETNX", "j", "v"}, Key: "j", NoOp: []string{"SETNX", "k", "v"}})
	addWriteCases("setex", writeCase{Setup: set, Write: []string{"SETEX", "k", "100", "v"}, NoOp: []string{"SETEX", "k", "0", "v"}})
	addWriteCases("psetex", writeCase{Setup: set, Write: []string{"PSETEX", "k", "100000", "v"}, NoOp: []string{"PSETEX", "k", "-5", "v"}})
	addWriteCases("mset", writeCase{Write: []string{"MSET", "a", "1", "k", "2"}, NoOp: []string{"MSET", "a", "1", "k"}})
	addWriteCases("msetnx", writeCase{Write: []string{"MSETNX", "a", "1", "k", "2"}, Setup: [][]string{{"SET", "b", "x"}}, NoOp: []string{"MSETNX", "k", "1", "b", "2"}})
	addWriteCases("getset", writeCase{Setup: set, Write: []string{"GETSET", "k", "v"},
		NoOp: []string{"GETSET", "other", "v"}})
	addWriteCases("getdel", writeCase{Setup: set, Write: []string{"GETDEL", "k"}, NoOp: []string{"GETDEL", "nosuch"}})
	addWriteCases("getex",
		writeCase{Name: "EX", Setup: set, Write: []string{"GETEX", "k", "EX", "100"}, NoOp: []string{"GETEX", "k"}},
		writeCase{Name: "PERSIST", Setup: [][]string{{"SET", "k", "v", "EX", "100"}}, Write: []string{"GETEX", "k", "PERSIST"}, NoOp: []string{"GETEX", "k", "EX", "0"}},
		writeCase{Name: "PXAT past deletes", Setup: set, Write: []string{"GETEX", "k", "PXAT", "1"}, NoOp: []string{"GETEX", "k", "PERSIST"}},
	)
	addWriteCases("append",
		writeCase{Setup: set, Write: []string{"APPEND", "k", ""}, NoOp: []string{"APPEND", "other", "x"}},
		writeCase{Name: "creates", Write: []string{"APPEND", "k", "x"}, NoOp: []string{"APPEND", "j", "x"}},
	)
	addWriteCases("setrange",
		writeCase{Setup: set, Write: []string{"SETRANGE", "k", "0", "v"}, NoOp: []string{"SETRANGE", "k", "0", ""}},
		writeCase{Name: "missing", Write: []string{"SETRANGE", "k", "2", "x"}, NoOp: []string{"SETRANGE", "k", "2", ""}},
	)
	addWriteCases("incr",
		writeCase{Setup: num, Write: []string{"INCR", "k"}, NoOp: []string{"INCR", "other"}},
		writeCase{Name: "not a number", Setup: set, Write: []string{"INCR", "k2"}, Key: "k2", NoOp: []string{"INCR", "k"}},
	)
	addWriteCases("decr", writeCase{Setup: num, Write: []string{"DECR", "k"}, NoOp: []string{"DECR", "other"}})
	addWriteCases("incrby",
		writeCase{Setup: num, Write: []string{"INCRBY", "k", "0"}, NoOp: []string{"INCRBY", "k", "x"}},
		writeCase{Name: "overflow", Setup: [][]string{{"SET", "k", "9223372036854775807"}}, Write: []string{"INCRBY", "k", "-1"}, NoOp: []string{"INCRBY", "k", "1"}},
	)
	addWriteCases("decrby", writeCase{Setup: num, Write: []string{"DECRBY", "k", "0"}, NoOp: []string{"DECRBY", "k", "-9223372036854775808"}})
	addWriteCases("incrbyfloat",
		writeCase{Setup: [][]string{{"SET", "k", "1.5"}}, Write: []string{"INCRBYFLOAT", "k", "0"}, NoOp: []string{"INCRBYFLOAT", "k", "abc"}},
		writeCase{Name: "inf", Setup: num, Write: []string{"INCRBYFLOAT", "k", "1e300"}, NoOp: []string{"INCRBYFLOAT", "k", "inf"}},
	)
}
