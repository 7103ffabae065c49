package test

// Write-breaks-WATCH cases for the hash commands (spec/watch.md T-5).

func init() {
	hash := [][]string{{"HSET", "k", "f", "v"}}
	addWriteCases("hset",
		writeCase{Name: "same value", Setup: hash, Write: []string{"HSET", "k", "f", "v"}, NoOp: []string{"HSET", "k", "f", "v", "g"}},
		writeCase{Name: "create", Write: []string{"HSET", "k", "f", "v"}, NoOp: []string{"HSET", "k", "f"}},
		writeCase{Name: "wrong type", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{"HSET", "j", "f", "v"}, Key: "j",
			NoOp: []string{"HSET", "k", "f", "v"}},
	)
	addWriteCases("hmset",
		writeCase{Setup: hash, Write: []string{"HMSET", "k", "f", "v", "g", "w"}, NoOp: []string{"HMSET", "k", "f", "v", "g"}},
	)
	addWriteCases("hsetnx",
		writeCase{Setup: hash, Write: []string{"HSETNX", "k", "g", "v"}, NoOp: []string{"HSETNX", "k", "f", "z"}},
		writeCase{Name: "create", Write: []string{"HSETNX", "k", "f", "v"}, NoOp: []string{"HSETNX", "k"}},
	)
	addWriteCases("hdel",
		writeCase{Setup: [][]string{{"HSET", "k", "f", "v", "g", "w"}}, Write: []string{"HDEL", "k", "f"}, NoOp: []string{"HDEL", "k", "nof"}},
		writeCase{Name: "last field deletes the key", Setup: hash, Write: []string{"HDEL", "k", "nof", "f"}, NoOp: []string{"HDEL", "k", "nof", "nog"}},
		writeCase{Name: "missing key", Setup: [][]string{{"HSET", "j", "f", "v"}}, Write: []string{"HDEL", "j", "f"}, Key: "j",
			NoOp: []string{"HDEL", "k", "f"}},
	)
	addWriteCases("hincrby",
		writeCase{Setup: [][]string{{"HSET", "k", "f", "1"}}, Write: []string{"HINCRBY", "k", "f", "0"}, NoOp: []string{"HINCRBY", "k", "f", "x"}},
		writeCase{Name: "overflow", Setup: [][]string{{"HSET", "k", "f", "9223372036854775807"}}, Write: []string{"HINCRBY", "k", "g", "1"},
			NoOp: []string{"HINCRBY", "k", "f", "1"}},
		writeCase{Name: "not an integer", Setup: hash, Write: []string{"HINCRBY", "k", "g", "1"}, NoOp: []string{"HINCRBY", "k", "f", "1"}},
	)
	addWriteCases("hincrbyfloat",
		writeCase{Setup: [][]string{{"HSET", "k", "f", "1.5"}}, Write: []string{"HINCRBYFLOAT", "k", "f", "0"}, NoOp: []string{"HINCRBYFLOAT", "k", "f", "inf"}},
		writeCase{Name: "create", Write: []string{"HINCRBYFLOAT", "k", "f", "1"}, NoOp: []string{"HINCRBYFLOAT", "k", "f", "x"}},
		writeCase{Name: "not a float", Setup: hash, Write: []string{"HINCRBYFLOAT", "k", "g", "1"}, NoOp: []string{"HINCRBYFLOAT", "k", "f", "1"}},
	)
}
