package test

// Write-breaks-WATCH cases for the bitmap commands (Redis 7.0.15 bitops.c:
// SETBIT and BITFIELD signal only when a bit changed or the string grew;
// a BITFIELD that creates the key without storing anything signals nothing).

func init() {
	bits := [][]string{{"SETBIT", "k", "3", "1"}}
	addWriteCases("setbit",
		writeCase{Setup: bits, Write: []string{"SETBIT", "k", "3", "0"}, NoOp: []string{"SETBIT", "k", "3", "1"}},
		writeCase{Name: "grows with a clear bit", Setup: bits, Write: []string{"SETBIT", "k", "100", "0"}, NoOp: []string{"SETBIT", "k", "2", "0"}},
		writeCase{Name: "creates", Write: []string{"SETBIT", "k", "0", "0"}, NoOp: []string{"SETBIT", "k", "-1", "1"}},
	)
	ab := [][]string{{"SET", "k", "ab"}}
	addWriteCases("bitfield",
		writeCase{Setup: ab, Write: []string{"BITFIELD", "k", "SET", "u8", "0", "98"}, NoOp: []string{"BITFIELD", "k", "SET", "u8", "0", "97"}},
		writeCase{Name: "INCRBY", Setup: ab, Write: []string{"BITFIELD", "k", "INCRBY", "i4", "4", "1"}, NoOp: []string{"BITFIELD", "k", "INCRBY", "u8", "0", "0", "GET", "u8", "8"}},
		writeCase{Name: "grows", Setup: ab, Write: []string{"BITFIELD", "k", "SET", "u8", "16", "0"}, NoOp: []string{"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1000"}},
		writeCase{Name: "creates without storing", Write: []string{"BITFIELD", "k", "INCRBY", "u2", "0", "1"}, NoOp: []string{"BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"}},
	)
	addWriteCases("bitop",
		writeCase{Setup: ab, Write: []string{"BITOP", "NOT", "k", "k"}, NoOp: []string{"BITOP", "AND", "other", "k"}, Key: "k"},
		writeCase{Name: "empty result deletes", Setup: ab, Write: []string{"BITOP", "OR", "k", "nosuch"}, NoOp: []string{"BITOP", "OR", "nosuch2", "nosuch"}},
		writeCase{Name: "creates", Write: []string{"BITOP", "OR", "k", "src"}, Setup: [][]string{{"SET", "src", "x"}}, NoOp: []string{"BITOP", "OR", "k", "nosuch"}},
	)
}
