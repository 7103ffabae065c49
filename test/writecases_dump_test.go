package test

// Write-breaks-WATCH cases for RESTORE (and RESTORE-ASKING, its cluster
// form, which behaves the same outside cluster mode).

// dumpOf12 is DUMP of the string "12" on redis-server 7.0.15.
const dumpOf12 = "\x00\xc0\x0c\n\x00<*\xf8Q\\\x04\xbc\xd5"

func init() {
	for _, name := range []string{"restore", "restore-asking"} {
		cmd := "RESTORE"
		if name == "restore-asking" {
			cmd = "RESTORE-ASKING"
		}
		addWriteCases(name,
			writeCase{Write: []string{cmd, "k", "0", dumpOf12}, NoOp: []string{cmd, "k", "0", "bad payload"}},
			writeCase{Name: "REPLACE", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{cmd, "k", "0", dumpOf12, "REPLACE"},
				NoOp: []string{cmd, "k", "0", dumpOf12}},
			writeCase{Name: "REPLACE with a past ABSTTL", Setup: [][]string{{"SET", "k", "v"}}, Write: []string{cmd, "k", "1", dumpOf12, "REPLACE", "ABSTTL"},
				NoOp: []string{cmd, "j", "1", dumpOf12, "ABSTTL"}},
		)
	}
}
