package test

// Write-breaks-WATCH cases for the sorted set commands (spec/watch.md T-5).

func init() {
	zset := [][]string{{"ZADD", "k", "1", "a", "2", "b"}}
	one := [][]string{{"ZADD", "k", "1", "a"}}
	addWriteCases("zadd",
		writeCase{Name: "new score", Setup: one, Write: []string{"ZADD", "k", "2", "a"}, NoOp: []string{"ZADD", "k", "1", "a"}},
		writeCase{Name: "create", Write: []string{"ZADD", "k", "1", "a"}, NoOp: []string{"ZADD", "k", "XX", "1", "a"}},
		writeCase{Name: "NX", Setup: one, Write: []string{"ZADD", "k", "NX", "1", "b"}, NoOp: []string{"ZADD", "k", "NX", "5", "a"}},
		writeCase{Name: "GT", Setup: one, Write: []string{"ZADD", "k", "GT", "CH", "5", "a"}, NoOp: []string{"ZADD", "k", "GT", "CH", "0", "a"}},
		writeCase{Name: "LT", Setup: one, Write: []string{"ZADD", "k", "LT", "0", "a"}, NoOp: []string{"ZADD", "k", "LT", "5", "a"}},
		writeCase{Name: "INCR", Setup: one, Write: []string{"ZADD", "k", "INCR", "1", "a"}, NoOp: []string{"ZADD", "k", "INCR", "0", "a"}},
		writeCase{Name: "XX on a missing member", Setup: one, Write: []string{"ZADD", "k", "XX", "3", "a"}, NoOp: []string{"ZADD", "k", "XX", "3", "b"}},
	)
	addWriteCases("zincrby",
		writeCase{Setup: one, Write: []string{"ZINCRBY", "k", "1", "a"}, NoOp: []string{"ZINCRBY", "k", "0", "a"}},
		writeCase{Name: "NaN", Setup: [][]string{{"ZADD", "k", "inf", "a"}}, Write: []string{"ZINCRBY", "k", "1", "b"},
			NoOp: []string{"ZINCRBY", "k", "-inf", "a"}},
	)
	addWriteCases("zrem",
		writeCase{Setup: zset, Write: []string{"ZREM", "k", "a"}, NoOp: []string{"ZREM", "k", "zz"}},
		writeCase{Name: "last member deletes the key", Setup: one, Write: []string{"ZREM", "k", "a"}, NoOp: []string{"ZREM", "k", "b", "c"}},
	)
	addWriteCases("zremrangebyrank",
		writeCase{Setup: zset, Write: []string{"ZREMRANGEBYRANK", "k", "0", "0"}, NoOp: []string{"ZREMRANGEBYRANK", "k", "5", "6"}},
		writeCase{Name: "all", Setup: zset, Write: []string{"ZREMRANGEBYRANK", "k", "0", "-1"}, NoOp: []string{"ZREMRANGEBYRANK", "k", "1", "0"}},
	)
	addWriteCases("zremrangebyscore",
		writeCase{Setup: zset, Write: []string{"ZREMRANGEBYSCORE", "k", "1", "1"}, NoOp: []string{"ZREMRANGEBYSCORE", "k", "5", "6"}},
		writeCase{Name: "all", Setup: zset, Write: []string{"ZREMRANGEBYSCORE", "k", "-inf", "+inf"}, NoOp: []string{"ZREMRANGEBYSCORE", "k", "(1", "(2"}},
	)
	addWriteCases("zremrangebylex",
		writeCase{Setup: [][]string{{"ZADD", "k", "0", "a", "0", "b"}}, Write: []string{"ZREMRANGEBYLEX", "k", "[a", "[a"},
			NoOp: []string{"ZREMRANGEBYLEX", "k", "[x", "[z"}},
	)
	addWriteCases("zpopmin",
		writeCase{Setup: zset, Write: []string{"ZPOPMIN", "k"}, NoOp: []string{"ZPOPMIN", "k", "0"}},
		writeCase{Name: "empties", Setup: zset, Write: []string{"ZPOPMIN", "k", "10"}, NoOp: []string{"ZPOPMIN", "k", "-1"}},
	)
	addWriteCases("zpopmax",
		writeCase{Setup: zset, Write: []string{"ZPOPMAX", "k", "1"}, NoOp: []string{"ZPOPMAX", "nokey"}},
	)
	addWriteCases("zmpop",
		writeCase{Setup: zset, Write: []string{"ZMPOP", "2", "nokey", "k", "MIN"}, NoOp: []string{"ZMPOP", "1", "nokey", "MIN"}},
		writeCase{Name: "earlier key wins", Setup: append(zset, []string{"ZADD", "j", "1", "x"}), Write: []string{"ZMPOP", "2", "k", "j", "MAX", "COUNT", "5"},
			NoOp: []string{"ZMPOP", "2", "j", "k", "MAX", "COUNT", "5"}},
	)
	addWriteCases("zrangestore",
		writeCase{Setup: [][]string{{"ZADD", "src", "1", "a"}}, Write: []string{"ZRANGESTORE", "k", "src", "0", "-1"},
			NoOp: []string{"ZRANGESTORE", "k", "src", "5", "6"}},
		writeCase{Name: "empty result deletes", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{"ZRANGESTORE", "k", "nokey", "0", "-1"},
			NoOp: []string{"ZRANGESTORE", "k", "k", "0", "-1"}},
	)
	stores := map[string]string{"zunionstore": "ZUNIONSTORE", "zinterstore": "ZINTERSTORE", "zdiffstore": "ZDIFFSTORE"}
	for name, cmd := range stores {
		src := [][]string{{"ZADD", "a", "1", "x"}, {"SADD", "b", "y"}}
		addWriteCases(name,
			writeCase{Name: "non-empty result", Setup: src, Write: []string{cmd, "k", "1", "a"}, NoOp: []string{cmd, "k", "1", "nokey"}},
			writeCase{Name: "empty result deletes", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{cmd, "k", "2", "n1", "n2"},
				NoOp: []string{cmd, "k", "1", "k"}},
			writeCase{Name: "overwrites another type", Setup: append(src, []string{"SET", "k", "v"}), Write: []string{cmd, "k", "1", "b"},
				NoOp: []string{cmd, "k", "0", "a"}},
		)
	}
}
