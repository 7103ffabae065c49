package test

// Write-breaks-WATCH cases for the generic key commands (spec/watch.md
// T-1.2, T-1.3, T-5).

func init() {
	set := [][]string{{"SET", "k", "v"}}
	addWriteCases("del",
		writeCase{Setup: set, Write: []string{"DEL", "k"}, NoOp: []string{"DEL", "nosuch"}},
		writeCase{Name: "several", Setup: set, Write: []string{"DEL", "a", "k", "b"}, NoOp: []string{"DEL", "a", "b"}},
	)
	addWriteCases("unlink", writeCase{Setup: set, Write: []string{"UNLINK", "k"}, NoOp: []string{"UNLINK", "nosuch"}})
	addWriteCases("rename",
		writeCase{Name: "source", Setup: set, Write: []string{"RENAME", "k", "k2"}, NoOp: []string{"RENAME", "k", "k"}},
		writeCase{Name: "destination", Setup: [][]string{{"SET", "src", "v"}}, Write: []string{"RENAME", "src", "k"}, NoOp: []string{"RENAME", "nosuch", "k"}},
	)
	addWriteCases("renamenx",
		writeCase{Name: "source", Setup: set, Write: []string{"RENAMENX", "k", "k2"}, NoOp: []string{"RENAMENX", "k", "k"}},
		writeCase{Name: "destination exists", Setup: [][]string{{"SET", "k", "v"}, {"SET", "k2", "v"}}, Write: []string{"RENAMENX", "k2", "k3"}, Key: "k2", NoOp: []string{"RENAMENX", "k2", "k"}},
	)
	addWriteCases("move",
		writeCase{Name: "source db", Setup: set, Write: []string{"MOVE", "k", "1"}, NoOp: []string{"MOVE", "k", "0"}},
		writeCase{Name: "target db", Setup: set, WatchDB: 1, Write: []string{"MOVE", "k", "1"}, NoOp: []string{"MOVE", "nosuch", "1"}},
		writeCase{Name: "target exists", Setup: [][]string{{"SELECT", "1"}, {"SET", "k", "there"}, {"SELECT", "0"}, {"SET", "k", "v"}},
			Write: []string{"MOVE", "k", "2"}, NoOp: []string{"MOVE", "k", "1"}},
	)
	addWriteCases("copy",
		writeCase{Name: "destination", Setup: [][]string{{"SET", "src", "v"}}, Write: []string{"COPY", "src", "k"}, NoOp: []string{"COPY", "nosuch", "k"}},
		writeCase{Name: "REPLACE", Setup: [][]string{{"SET", "src", "v"}, {"SET", "k", "w"}}, Write: []string{"COPY", "src", "k", "REPLACE"}, NoOp: []string{"COPY", "src", "k"}},
		writeCase{Name: "DB", Setup: [][]string{{"SET", "src", "v"}}, WatchDB: 3, Write: []string{"COPY", "src", "k", "DB", "3"}, NoOp: []string{"COPY", "src", "k"}},
		writeCase{Name: "source", Setup: set, Write: []string{"COPY", "k", "dst"}, NeverTouches: "COPY touches only its destination"},
	)
	ttl := [][]string{{"SET", "k", "v", "EX", "100"}}
	addWriteCases("expire",
		writeCase{Setup: set, Write: []string{"EXPIRE", "k", "100"}, NoOp: []string{"EXPIRE", "nosuch", "100"}},
		writeCase{Name: "past", Setup: set, Write: []string{"EXPIRE", "k", "-1"}, NoOp: []string{"EXPIRE", "k", "x"}},
		writeCase{Name: "GT", Setup: ttl, Write: []string{"EXPIRE", "k", "200", "GT"}, NoOp: []string{"EXPIRE", "k", "50", "GT"}},
		writeCase{Name: "NX", Setup: set, Write: []string{"EXPIRE", "k", "50", "NX"}, NoOp: []string{"EXPIRE", "k", "50", "XX"}},
	)
	addWriteCases("pexpire",
		writeCase{Setup: set, Write: []string{"PEXPIRE", "k", "100000"}, NoOp: []string{"PEXPIRE", "nosuch", "100000"}},
		writeCase{Name: "LT", Setup: ttl, Write: []string{"PEXPIRE", "k", "5000", "LT"}, NoOp: []string{"PEXPIRE", "k", "500000", "LT"}},
	)
	addWriteCases("expireat",
		writeCase{Setup: set, Write: []string{"EXPIREAT", "k", "99999999999"}, NoOp: []string{"EXPIREAT", "nosuch", "99999999999"}},
		writeCase{Name: "past", Setup: set, Write: []string{"EXPIREAT", "k", "1"}, NoOp: []string{"EXPIREAT", "nosuch", "1"}},
	)
	addWriteCases("pexpireat",
		writeCase{Setup: set, Write: []string{"PEXPIREAT", "k", "99999999999999"}, NoOp: []string{"PEXPIREAT", "k", "99999999999999", "XX"}},
		writeCase{Name: "past", Setup: set, Write: []string{"PEXPIREAT", "k", "1"}, NoOp: []string{"PEXPIREAT", "k", "1", "XX"}},
	)
	addWriteCases("persist", writeCase{Setup: ttl, Write: []string{"PERSIST", "k"}, NoOp: []string{"PERSIST", "nosuch"}},
		writeCase{Name: "no ttl", Setup: [][]string{{"SET", "k", "v"}, {"SET", "j", "v", "EX", "100"}}, Key: "j", Write: []string{"PERSIST", "j"}, NoOp: []string{"PERSIST", "k"}})
}
