package test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// commandInfo is one row of a server's COMMAND reply (a command or a
// subcommand), as the tests use it.
type commandInfo struct {
	name  string // lower case; subcommands as "container|sub"
	arity int64
	flags map[string]bool
}

var (
	ourTableOnce sync.Once
	ourTable     map[string]commandInfo
	ourTableErr  error
)

// ourCommands returns miniwatchd's command table, read once from COMMAND.
func ourCommands(t testing.TB) map[string]commandInfo {
	t.Helper()
	ourTableOnce.Do(func() {
		p, err := startOurs()
		if err != nil {
			ourTableErr = err
			return
		}
		defer p.stop()
		c, err := dialRESP(p.addr)
		if err != nil {
			ourTableErr = err
			return
		}
		defer c.Close()
		reply, err := c.Do("COMMAND")
		if err != nil {
			ourTableErr = err
			return
		}
		ourTable, ourTableErr = parseCommandTable(reply)
	})
	if ourTableErr != nil {
		t.Fatalf("reading miniwatchd's COMMAND: %v", ourTableErr)
	}
	return ourTable
}

// parseCommandTable flattens a COMMAND reply, subcommands included.
func parseCommandTable(reply node) (map[string]commandInfo, error) {
	if reply.Kind != '*' {
		return nil, fmt.Errorf("COMMAND replied %s", render(reply))
	}
	out := map[string]commandInfo{}
	var add func(n node) error
	add = func(n node) error {
		if n.Kind != '*' || len(n.Elems) < 10 {
			return fmt.Errorf("bad COMMAND entry %s", render(n))
		}
		ci := commandInfo{name: strings.ToLower(n.Elems[0].Str), arity: n.Elems[1].Int, flags: map[string]bool{}}
		for _, f := range n.Elems[2].Elems {
			ci.flags[f.Str] = true
		}
		out[ci.name] = ci
		for _, sub := range n.Elems[9].Elems {
			if err := add(sub); err != nil {
				return err
			}
		}
		return nil
	}
	for _, e := range reply.Elems {
		if err := add(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// missingCommands returns the names in want that miniwatchd lacks.
func missingCommands(t testing.TB, want []string) []string {
	t.Helper()
	if len(want) == 0 {
		return nil
	}
	table := ourCommands(t)
	var missing []string
	for _, name := range want {
		if _, ok := table[strings.ToLower(name)]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

// ourWriteCommands lists miniwatchd's commands flagged "write", sorted.
func ourWriteCommands(t testing.TB) []string {
	var out []string
	for name, ci := range ourCommands(t) {
		if ci.flags["write"] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// newerThan70 lists what miniwatchd implements from Redis 7.2 on purpose:
// redis-server 7.0.15 does not know these, so differential tests leave them
// out and client_test.go checks them on miniwatchd alone.
var newerThan70 = map[string]bool{
	"client|setinfo":  true,
	"client|no-touch": true,
}
