package test

// Write-breaks-WATCH cases for the HyperLogLog commands (hyperloglog.c).
// PFCOUNT is read-only but also touches (it writes the cached cardinality):
// see cmd_hll.txt. PFDEBUG TODENSE and GETREG convert the encoding without
// signalModifiedKey, so they never abort a watcher in Redis.

func init() {
	hll := [][]string{{"PFADD", "k", "a", "b"}}
	addWriteCases("pfadd",
		writeCase{Name: "new element", Setup: hll, Write: []string{"PFADD", "k", "c", "d", "e"}, NoOp: []string{"PFADD", "k", "a", "b"}},
		writeCase{Name: "create", Write: []string{"PFADD", "k"}, NoOpReason: "PFADD of a missing key always creates it"},
		writeCase{Name: "no elements", Setup: hll, Write: []string{"PFADD", "k", "zz"}, NoOp: []string{"PFADD", "k"}},
	)
	addWriteCases("pfmerge",
		writeCase{Name: "into the watched key", Setup: [][]string{{"PFADD", "src", "x"}}, Write: []string{"PFMERGE", "k", "src"},
			NoOpReason: "PFMERGE always writes its destination"},
		writeCase{Name: "destination unchanged", Setup: hll, Write: []string{"PFMERGE", "k"},
			NoOpReason: "PFMERGE signals even when no register changes"},
		writeCase{Name: "source only", Setup: [][]string{{"PFADD", "k", "x"}}, Write: []string{"PFMERGE", "dst", "k"},
			NeverTouches: "the watched key is only a source"},
	)
	addWriteCases("pfdebug",
		writeCase{Name: "TODENSE", Setup: hll, Write: []string{"PFDEBUG", "TODENSE", "k"},
			NeverTouches: "the conversion counts as a change but Redis does not signal it"},
		writeCase{Name: "GETREG", Setup: hll, Write: []string{"PFDEBUG", "GETREG", "k"},
			NeverTouches: "the conversion counts as a change but Redis does not signal it"},
	)
}
