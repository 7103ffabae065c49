package test

import (
	"fmt"
	"sort"
	"strconv"
	"testing"
)

// SCAN: Redis guarantees every key present for the whole iteration is
// returned at least once, in an unspecified order and batching, so the
// comparison is the set of keys one full iteration returns, for each
// combination of MATCH, COUNT and TYPE.

func TestScanFullIteration(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			t.Parallel()
			p := newDiffPairProto(t, proto)
			a := p.Conn("A")
			for i := 0; i < 300; i++ {
				a.Do("SET", "key:"+strconv.Itoa(i), "v")
				if i%3 == 0 {
					a.Do("SET", "other:"+strconv.Itoa(i), "v")
				}
			}
			if missingCommands(t, []string{"rpush"}) == nil || selfCheck() {
				a.Do("RPUSH", "key:list", "a")
			}
			for _, opts := range [][]string{
				nil,
				{"COUNT", "1"},
				{"COUNT", "7"},
				{"COUNT", "1000"},
				{"MATCH", "key:1*"},
				{"MATCH", "other:*", "COUNT", "3"},
				{"MATCH", "nomatch*"},
				{"MATCH", "*"},
				{"TYPE", "string"},
				{"TYPE", "STRING", "MATCH", "key:2?"},
				{"TYPE", "list"},
				{"TYPE", "hash"},
				{"TYPE", "bogus"},
				{"count", "5", "match", "key:*9", "type", "string"},
			} {
				want := scanAll(t, p.redis.dial(t), opts)
				got := scanAll(t, p.ours.dial(t), opts)
				if !equalStrings(want, got) {
					t.Errorf("SCAN %q: redis-server returned %d keys, miniwatchd %d\n  redis-server: %v\n  miniwatchd:   %v",
						opts, len(want), len(got), want, got)
				}
			}
		})
	}
}

// scanAll runs SCAN from cursor 0 until it returns 0 and gives the sorted,
// deduplicated keys.
func scanAll(t *testing.T, c *respConn, opts []string) []string {
	t.Helper()
	seen := map[string]bool{}
	cursor := "0"
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatalf("SCAN %q does not end", opts)
		}
		args := append([]string{"SCAN", cursor}, opts...)
		n := mustDo(t, c, args...)
		if n.Kind != '*' || len(n.Elems) != 2 || n.Elems[0].Kind != '$' || n.Elems[1].Kind != '*' {
			t.Fatalf("SCAN %q replied %s", args, fmtNode(n))
		}
		for _, k := range n.Elems[1].Elems {
			seen[k.Str] = true
		}
		cursor = n.Elems[0].Str
		if cursor == "0" {
			break
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
