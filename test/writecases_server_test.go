package test

// Write-breaks-WATCH cases for the whole-db commands (spec/watch.md T-2)
// and server commands flagged "write".

func init() {
	set := [][]string{{"SET", "k", "v"}}
	addWriteCases("flushdb",
		writeCase{Setup: set, Write: []string{"FLUSHDB"}, NoOp: []string{"FLUSHDB", "BAD"}},
		writeCase{Name: "ASYNC", Setup: set, Write: []string{"FLUSHDB", "ASYNC"}, NoOp: []string{"FLUSHDB", "SYNC", "ASYNC"}},
		writeCase{Name: "watched key missing", Setup: [][]string{{"SET", "other", "v"}}, Write: []string{"FLUSHDB"},
			NeverTouches: "a flush examines only watched keys that exist (T-2)"},
		writeCase{Name: "other db", Setup: set, WatchDB: 1, Write: []string{"FLUSHDB"},
			NeverTouches: "FLUSHDB empties only the caller's db"},
	)
	addWriteCases("flushall",
		writeCase{Setup: set, Write: []string{"FLUSHALL"}, NoOp: []string{"FLUSHALL", "BAD"}},
		writeCase{Name: "ASYNC", Setup: set, Write: []string{"FLUSHALL", "ASYNC"}, NoOp: []string{"FLUSHALL", "SYNC", "x"}},
		writeCase{Name: "key only in another db", Setup: [][]string{{"SELECT", "1"}, {"SET", "x", "1"}}, Key: "x",
			Write: []string{"FLUSHALL"}, NeverTouches: "a watched key missing from the watcher's db is not examined (E-4)"},
	)
	addWriteCases("swapdb",
		writeCase{Setup: set, Write: []string{"SWAPDB", "0", "1"}, NoOp: []string{"SWAPDB", "0", "0"}},
		writeCase{Name: "key in partner db", Setup: [][]string{{"SELECT", "1"}, {"SET", "x", "1"}}, Key: "x",
			Write: []string{"SWAPDB", "0", "1"}, NoOp: []string{"SWAPDB", "1", "2"}},
	)
	addWriteCases("function|flush", writeCase{Setup: set, Write: []string{"FUNCTION", "FLUSH"},
		NeverTouches: "FUNCTION FLUSH removes functions, never keys"})
}
