package test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestArityErrors sends every command and subcommand miniwatchd implements
// with a wrong number of arguments, and every container an unknown
// subcommand, to both servers, in RESP2 and RESP3. The dispatcher rejects
// these before running anything, so the calls are harmless.
func TestArityErrors(t *testing.T) {
	table := ourCommands(t)
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			t.Parallel()
			p := newDiffPairProto(t, proto)
			c := p.Conn("A")
			containers := map[string]bool{}
			for _, name := range names {
				if newerThan70[name] {
					continue
				}
				parent, sub, isSub := strings.Cut(name, "|")
				if isSub {
					containers[parent] = true
				}
				prefix := []string{strings.ToUpper(parent)}
				if isSub {
					prefix = append(prefix, strings.ToUpper(sub))
				}
				for _, n := range wrongArgCounts(table[name].arity) {
					if n < len(prefix) || (isSub && n < 2) {
						continue // a container without a subcommand is tested below
					}
					args := append([]string{}, prefix...)
					for len(args) < n {
						args = append(args, "x")
					}
					c.Do(args[:n]...)
				}
			}
			for parent := range containers {
				c.Do(strings.ToUpper(parent), "NOSUCHSUB")
				c.Do(parent, "nosuchsub", "a", "b")
			}
		})
	}
}

// wrongArgCounts returns argument counts (command name included) that
// violate arity: fewer than the minimum for a variadic command (arity -N),
// and one fewer and one more for a fixed arity N.
func wrongArgCounts(arity int64) []int {
	switch {
	case arity > 0:
		return []int{int(arity) - 1, int(arity) + 1}
	case arity < -1:
		return []int{int(-arity) - 1}
	}
	return nil
}
