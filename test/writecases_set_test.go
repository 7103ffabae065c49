package test

// Write-breaks-WATCH cases for the set commands (spec/watch.md T-5).

func init() {
	set := [][]string{{"SADD", "k", "a"}}
	addWriteCases("sadd",
		writeCase{Setup: set, Write: []string{"SADD", "k", "b"}, NoOp: []string{"SADD", "k", "a"}},
		writeCase{Name: "create", Write: []string{"SADD", "k", "1"}, NoOp: []string{"SADD", "k"}},
		writeCase{Name: "intset to hashtable", Setup: [][]string{{"SADD", "k", "1", "2"}}, Write: []string{"SADD", "k", "x"},
			NoOp: []string{"SADD", "k", "1", "2"}},
	)
	addWriteCases("srem",
		writeCase{Setup: [][]string{{"SADD", "k", "a", "b"}}, Write: []string{"SREM", "k", "a"}, NoOp: []string{"SREM", "k", "zz"}},
		writeCase{Name: "last member deletes the key", Setup: set, Write: []string{"SREM", "k", "b", "a"}, NoOp: []string{"SREM", "k", "b"}},
	)
	addWriteCases("spop",
		writeCase{Setup: set, Write: []string{"SPOP", "k"}, NoOp: []string{"SPOP", "k", "0"}},
		writeCase{Name: "count", Setup: [][]string{{"SADD", "k", "a", "b", "c"}}, Write: []string{"SPOP", "k", "2"},
			NoOp: []string{"SPOP", "k", "-1"}, AnyReply: true},
		writeCase{Name: "count takes all", Setup: [][]string{{"SADD", "k", "1", "2"}}, Write: []string{"SPOP", "k", "5"},
			NoOp: []string{"SPOP", "nokey", "5"}},
	)
	addWriteCases("smove",
		writeCase{Name: "source", Setup: [][]string{{"SADD", "k", "a", "b"}}, Write: []string{"SMOVE", "k", "d", "a"},
			NoOp: []string{"SMOVE", "k", "k", "a"}},
		writeCase{Name: "destination", Setup: [][]string{{"SADD", "s", "a"}, {"SADD", "k", "b"}}, Write: []string{"SMOVE", "s", "k", "a"},
			NoOp: []string{"SMOVE", "s", "k", "zz"}},
		writeCase{Name: "destination created", Setup: [][]string{{"SADD", "s", "a"}}, Write: []string{"SMOVE", "s", "k", "a"},
			NoOp: []string{"SMOVE", "nokey", "k", "a"}},
		writeCase{Name: "destination already has it", Setup: [][]string{{"SADD", "s", "a"}, {"SADD", "k", "a"}},
			Write: []string{"SMOVE", "s", "k", "a"}, NeverTouches: "Redis 7.0 signals the destination only when the member is new there"},
		writeCase{Name: "wrong type destination", Setup: [][]string{{"SADD", "k", "a"}, {"SET", "str", "v"}},
			Write: []string{"SMOVE", "k", "d", "a"}, NoOp: []string{"SMOVE", "k", "str", "a"}},
	)
	stores := map[string]string{"sinterstore": "SINTERSTORE", "sunionstore": "SUNIONSTORE", "sdiffstore": "SDIFFSTORE"}
	for name, cmd := range stores {
		src := [][]string{{"SADD", "a", "1", "2"}, {"SADD", "b", "3"}}
		addWriteCases(name,
			writeCase{Name: "non-empty result", Setup: src, Write: []string{cmd, "k", "a"}, NoOp: []string{cmd, "k", "nokey"}},
			writeCase{Name: "empty result deletes", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{cmd, "k", "n1", "n2"},
				NoOp: []string{cmd, "k", "k"}},
			writeCase{Name: "overwrites another type", Setup: append(src, []string{"SET", "k", "v"}), Write: []string{cmd, "k", "a", "b"},
				NoOp: []string{cmd, "k", "a", "k"}},
		)
	}
}
