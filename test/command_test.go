package test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// COMMAND's metadata: for every command miniwatchd implements, COMMAND
// INFO and COMMAND DOCS must equal redis-server's byte for byte, except
// that a container lists only the subcommands miniwatchd implements. Redis
// lists subcommands in its hash table's order, so both sides' subcommands
// are sorted by name before comparing, and the 7.2 subcommands miniwatchd
// adds (newerThan70) are left out.

func TestCommandInfoAndDocsMatch(t *testing.T) {
	table := ourCommands(t)
	var names []string
	for name := range table {
		if !newerThan70[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	keep := func(name string) bool {
		name = strings.ToLower(name)
		_, ok := table[name]
		return ok && !newerThan70[name]
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			t.Parallel()
			p := newDiffPairProto(t, proto)
			c := p.Conn("A")
			for _, name := range names {
				for _, sub := range []string{"INFO", "DOCS"} {
					want, got := c.DoMode(cmpIgnore, "COMMAND", sub, name)
					normalize := filterInfoSubcommands
					if sub == "DOCS" {
						normalize = filterDocsSubcommands
					}
					w, g := normalize(want, keep), normalize(got, keep)
					if string(w) != string(g) {
						t.Errorf("COMMAND %s %s differs (subcommands filtered and sorted)\n--- redis-server:\n%s\n    raw %s\n--- miniwatchd:\n%s\n    raw %s",
							sub, name, indentLines(render(want), "    "), quoteRaw(w, 3000),
							indentLines(render(got), "    "), quoteRaw(g, 3000))
					}
				}
			}
		})
	}
}

// filterInfoSubcommands re-encodes a COMMAND INFO reply keeping only the
// subcommands keep accepts (element 9 of each command entry), sorted by
// name.
func filterInfoSubcommands(reply node, keep func(string) bool) []byte {
	var entry func(n node) []byte
	entry = func(n node) []byte {
		if n.Kind != '*' || len(n.Elems) < 10 {
			return n.Raw
		}
		subs := n.Elems[9]
		var kept [][]byte
		var names []string
		for _, s := range subs.Elems {
			if len(s.Elems) > 0 && keep(s.Elems[0].Str) {
				kept = append(kept, entry(s))
				names = append(names, s.Elems[0].Str)
			}
		}
		sortByNames(names, kept, 1)
		parts := make([][]byte, 0, len(n.Elems))
		for _, e := range n.Elems[:9] {
			parts = append(parts, e.Raw)
		}
		parts = append(parts, encodeAggregate(subs.Kind, len(kept), kept))
		parts = append(parts, rawsOf(n.Elems[10:])...)
		return encodeAggregate(n.Kind, len(n.Elems), parts)
	}
	if reply.Kind != '*' || reply.Null {
		return reply.Raw
	}
	parts := make([][]byte, len(reply.Elems))
	for i, e := range reply.Elems {
		parts[i] = entry(e)
	}
	return encodeAggregate(reply.Kind, len(parts), parts)
}

// filterDocsSubcommands re-encodes a COMMAND DOCS reply keeping only the
// subcommands keep accepts (the "subcommands" entry of each doc map),
// sorted by name.
func filterDocsSubcommands(reply node, keep func(string) bool) []byte {
	var docMap func(n node) []byte
	docMap = func(n node) []byte {
		if !n.IsAggregate() {
			return n.Raw
		}
		parts := make([][]byte, 0, len(n.Elems))
		for i := 0; i+1 < len(n.Elems); i += 2 {
			k, v := n.Elems[i], n.Elems[i+1]
			parts = append(parts, k.Raw)
			if k.Str == "subcommands" {
				var kept [][]byte
				var names []string
				for j := 0; j+1 < len(v.Elems); j += 2 {
					if keep(v.Elems[j].Str) {
						kept = append(kept, v.Elems[j].Raw, docMap(v.Elems[j+1]))
						names = append(names, v.Elems[j].Str)
					}
				}
				sortByNames(names, kept, 2)
				parts = append(parts, encodeAggregate(v.Kind, pairCount(v.Kind, len(kept)), kept))
				continue
			}
			parts = append(parts, v.Raw)
		}
		return encodeAggregate(n.Kind, pairCount(n.Kind, len(parts)), parts)
	}
	if !reply.IsAggregate() {
		return reply.Raw
	}
	parts := make([][]byte, 0, len(reply.Elems))
	for i := 0; i+1 < len(reply.Elems); i += 2 {
		parts = append(parts, reply.Elems[i].Raw, docMap(reply.Elems[i+1]))
	}
	return encodeAggregate(reply.Kind, pairCount(reply.Kind, len(parts)), parts)
}

// sortByNames sorts parts, taken in groups of size per name, by names.
func sortByNames(names []string, parts [][]byte, size int) {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	sorted := make([][]byte, 0, len(parts))
	for _, i := range idx {
		sorted = append(sorted, parts[i*size:(i+1)*size]...)
	}
	copy(parts, sorted)
}

// pairCount is the header count of an aggregate holding n elements: maps
// count pairs.
func pairCount(kind byte, n int) int {
	if kind == '%' {
		return n / 2
	}
	return n
}

func encodeAggregate(kind byte, count int, parts [][]byte) []byte {
	b := []byte{kind}
	b = strconv.AppendInt(b, int64(count), 10)
	b = append(b, '\r', '\n')
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func rawsOf(ns []node) [][]byte {
	out := make([][]byte, len(ns))
	for i, n := range ns {
		out[i] = n.Raw
	}
	return out
}

// TestCommandCountAndList checks COMMAND COUNT and COMMAND LIST on
// miniwatchd alone: they describe our table, not Redis's.
func TestCommandCountAndList(t *testing.T) {
	srv := leaseServer(t, ours)
	c := srv.dial(t)
	all := mustDo(t, c, "COMMAND")
	count := mustDo(t, c, "COMMAND", "COUNT")
	if count.Kind != ':' || count.Int != int64(len(all.Elems)) {
		t.Errorf("COMMAND COUNT = %s, COMMAND lists %d commands", fmtNode(count), len(all.Elems))
	}
	table, err := parseCommandTable(all)
	if err != nil {
		t.Fatal(err)
	}
	list := mustDo(t, c, "COMMAND", "LIST")
	seen := map[string]bool{}
	for _, e := range list.Elems {
		seen[e.Str] = true
		if _, ok := table[e.Str]; !ok {
			t.Errorf("COMMAND LIST names %q, which COMMAND does not describe", e.Str)
		}
	}
	for name := range table {
		if !seen[name] {
			t.Errorf("COMMAND LIST misses %q", name)
		}
	}
	for _, want := range []string{"get", "set", "watch", "multi", "exec", "client|kill", "config|get"} {
		if !seen[want] {
			t.Errorf("COMMAND LIST misses %q", want)
		}
	}
	filtered := mustDo(t, c, "COMMAND", "LIST", "FILTERBY", "PATTERN", "client*")
	for _, e := range filtered.Elems {
		if !strings.HasPrefix(e.Str, "client") {
			t.Errorf("COMMAND LIST FILTERBY PATTERN client* lists %q", e.Str)
		}
	}
	if len(filtered.Elems) < 2 {
		t.Errorf("COMMAND LIST FILTERBY PATTERN client* = %s", fmtNode(filtered))
	}
}
