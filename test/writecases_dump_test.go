package test

import (
	"net"
	"slices"
	"sync"
)

// Write-breaks-WATCH cases for RESTORE (and RESTORE-ASKING, its cluster
// form, which behaves the same outside cluster mode), and MIGRATE, whose
// target is a redis-server started for them on first use: the argument
// "{migrate-target-port}" stands for its port.

// dumpOf12 is DUMP of the string "12" on redis-server 7.0.15.
const dumpOf12 = "\x00\xc0\x0c\n\x00<*\xf8Q\\\x04\xbc\xd5"

var migrateTarget struct {
	once sync.Once
	port string
	err  error
}

// expandWriteArgs replaces "{migrate-target-port}" in a case's command.
func expandWriteArgs(cmd []string) ([]string, error) {
	i := slices.Index(cmd, "{migrate-target-port}")
	if i < 0 {
		return cmd, nil
	}
	migrateTarget.once.Do(func() {
		p, err := startRedis()
		if err != nil {
			migrateTarget.err = err
			return
		}
		_, migrateTarget.port, migrateTarget.err = net.SplitHostPort(p.addr)
	})
	if migrateTarget.err != nil {
		return nil, migrateTarget.err
	}
	out := slices.Clone(cmd)
	out[i] = migrateTarget.port
	return out, nil
}

func init() {
	target := []string{"MIGRATE", "127.0.0.1", "{migrate-target-port}"}
	migrate := func(args ...string) []string { return append(slices.Clone(target), args...) }
	addWriteCases("migrate",
		writeCase{Setup: [][]string{{"SET", "k", "v"}}, Write: migrate("k", "0", "5000", "REPLACE"), NoOp: migrate("nosuch", "0", "5000")},
		writeCase{Name: "KEYS", Setup: [][]string{{"SET", "k", "v"}, {"SET", "j", "w"}}, Write: migrate("", "3", "5000", "REPLACE", "KEYS", "j", "k"),
			NoOp: migrate("", "3", "5000", "KEYS", "x", "y")},
		writeCase{Name: "COPY", Setup: [][]string{{"SET", "k", "v"}}, Write: migrate("k", "0", "5000", "COPY", "REPLACE"),
			NeverTouches: "COPY leaves the source key alone"},
	)
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
