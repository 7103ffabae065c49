package test

// Write-breaks-WATCH cases for the list commands (spec/watch.md T-5 list
// rows). The blocking commands are run with data present, so they act as
// their non-blocking forms; their no-ops are errors that change nothing.
// Serving a blocked client is covered by watch_lists.txt and
// cmd_listblock.txt.

func init() {
	list := [][]string{{"RPUSH", "k", "a", "b"}, {"SET", "s", "v"}}
	one := [][]string{{"RPUSH", "k", "a"}, {"SET", "s", "v"}}
	addWriteCases("lpush",
		writeCase{Setup: list, Write: []string{"LPUSH", "k", "x"}, NoOp: []string{"LPUSH", "s", "x"}},
		writeCase{Name: "create", Write: []string{"LPUSH", "k", "x", "y"}, NoOp: []string{"LPUSH", "other", "x"}},
	)
	addWriteCases("rpush",
		writeCase{Setup: list, Write: []string{"RPUSH", "k", "x"}, NoOp: []string{"RPUSH", "s", "x"}},
		writeCase{Name: "create", Write: []string{"RPUSH", "k", "x"}, NoOp: []string{"RPUSH", "other", "x"}},
	)
	addWriteCases("lpushx", writeCase{Setup: list, Write: []string{"LPUSHX", "k", "x"}, NoOp: []string{"LPUSHX", "nosuch", "x"}})
	addWriteCases("rpushx", writeCase{Setup: list, Write: []string{"RPUSHX", "k", "x", "y"}, NoOp: []string{"RPUSHX", "nosuch", "x"}})
	addWriteCases("lpop",
		writeCase{Setup: list, Write: []string{"LPOP", "k"}, NoOp: []string{"LPOP", "k", "0"}},
		writeCase{Name: "last element", Setup: one, Write: []string{"LPOP", "k", "5"}, NoOp: []string{"LPOP", "k", "-1"}},
	)
	addWriteCases("rpop",
		writeCase{Setup: list, Write: []string{"RPOP", "k", "1"}, NoOp: []string{"RPOP", "nosuch"}},
		writeCase{Name: "last element", Setup: one, Write: []string{"RPOP", "k"}, NoOp: []string{"RPOP", "k", "0"}},
	)
	addWriteCases("linsert", writeCase{Setup: list, Write: []string{"LINSERT", "k", "AFTER", "b", "x"},
		NoOp: []string{"LINSERT", "k", "BEFORE", "zz", "x"}})
	addWriteCases("lrem",
		writeCase{Setup: list, Write: []string{"LREM", "k", "-1", "a"}, NoOp: []string{"LREM", "k", "0", "zz"}},
		writeCase{Name: "empties", Setup: one, Write: []string{"LREM", "k", "0", "a"}, NoOp: []string{"LREM", "k", "x", "a"}},
	)
	addWriteCases("lset", writeCase{Setup: list, Write: []string{"LSET", "k", "0", "a"}, NoOp: []string{"LSET", "k", "5", "a"}})
	addWriteCases("ltrim",
		writeCase{Name: "keeps all", Setup: list, Write: []string{"LTRIM", "k", "0", "-1"}, NoOp: []string{"LTRIM", "k", "x", "1"}},
		writeCase{Name: "empties", Setup: list, Write: []string{"LTRIM", "k", "5", "10"}, NoOp: []string{"LTRIM", "nosuch", "0", "0"}},
	)
	addWriteCases("lmove",
		writeCase{Name: "onto itself", Setup: one, Write: []string{"LMOVE", "k", "k", "LEFT", "RIGHT"},
			NoOp: []string{"LMOVE", "k", "s", "LEFT", "RIGHT"}},
		writeCase{Name: "destination", Key: "dst", Setup: [][]string{{"RPUSH", "src", "a"}}, Write: []string{"LMOVE", "src", "dst", "RIGHT", "LEFT"},
			NoOp: []string{"LMOVE", "nosuch", "dst", "LEFT", "LEFT"}},
	)
	addWriteCases("rpoplpush",
		writeCase{Setup: one, Write: []string{"RPOPLPUSH", "k", "k"}, NoOp: []string{"RPOPLPUSH", "nosuch", "k"}},
		writeCase{Name: "source emptied", Setup: one, Write: []string{"RPOPLPUSH", "k", "other"}, NoOp: []string{"RPOPLPUSH", "k", "s"}},
	)
	addWriteCases("lmpop", writeCase{Setup: list, Write: []string{"LMPOP", "2", "nosuch", "k", "LEFT", "COUNT", "1"},
		NoOp: []string{"LMPOP", "1", "nosuch", "LEFT"}})
	addWriteCases("blpop", writeCase{Setup: list, Write: []string{"BLPOP", "nosuch", "k", "0"}, NoOp: []string{"BLPOP", "s", "k", "0"}})
	addWriteCases("brpop", writeCase{Setup: one, Write: []string{"BRPOP", "k", "0"}, NoOp: []string{"BRPOP", "k", "-1"}})
	addWriteCases("blmpop", writeCase{Setup: list, Write: []string{"BLMPOP", "0", "1", "k", "RIGHT", "COUNT", "5"},
		NoOp: []string{"BLMPOP", "0", "2", "s", "k", "RIGHT"}})
	addWriteCases("blmove",
		writeCase{Setup: list, Write: []string{"BLMOVE", "k", "k", "LEFT", "RIGHT", "0"}, NoOp: []string{"BLMOVE", "k", "s", "LEFT", "RIGHT", "0"}},
		writeCase{Name: "destination", Key: "dst", Setup: list, Write: []string{"BLMOVE", "k", "dst", "LEFT", "RIGHT", "0"},
			NoOp: []string{"BLMOVE", "k", "dst", "LEFT", "RIGHT", "abc"}},
	)
	addWriteCases("brpoplpush", writeCase{Setup: one, Write: []string{"BRPOPLPUSH", "k", "k", "0"}, NoOp: []string{"BRPOPLPUSH", "k", "s", "0"}})
}
