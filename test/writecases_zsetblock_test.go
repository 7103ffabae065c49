package test

// Write-breaks-WATCH cases for the blocking sorted set commands, run with
// data present (they act as ZPOPMIN/ZPOPMAX/ZMPOP); their no-ops are
// errors that change nothing. Serving a blocked client is covered by
// cmd_zsetblock.txt.

func init() {
	z := [][]string{{"ZADD", "k", "1", "a", "2", "b"}, {"SET", "s", "v"}}
	addWriteCases("bzpopmin", writeCase{Setup: z, Write: []string{"BZPOPMIN", "nosuch", "k", "0"}, NoOp: []string{"BZPOPMIN", "s", "k", "0"}})
	addWriteCases("bzpopmax", writeCase{Setup: z, Write: []string{"BZPOPMAX", "k", "0"}, NoOp: []string{"BZPOPMAX", "k", "-1"}})
	addWriteCases("bzmpop",
		writeCase{Setup: z, Write: []string{"BZMPOP", "0", "1", "k", "MIN"}, NoOp: []string{"BZMPOP", "0", "2", "s", "k", "MIN"}},
		writeCase{Name: "empties", Setup: z, Write: []string{"BZMPOP", "0", "1", "k", "MAX", "COUNT", "5"}, NoOp: []string{"BZMPOP", "0", "1", "k", "MAX", "COUNT", "0"}},
	)
}
