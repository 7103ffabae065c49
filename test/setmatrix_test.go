package test

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// SET's option matrix: every ordered combination of up to two options from
// setOptions (and of three from a smaller set), against a missing key, a
// plain string and a string with a TTL. The SET reply and GET must be
// byte-equal; TTL is compared as missing/none/about the same seconds
// (similarTTL).

func setOptions() [][]string {
	exat := strconv.FormatInt(time.Now().Unix()+1000, 10)
	pxat := strconv.FormatInt(time.Now().UnixMilli()+2000000, 10)
	return [][]string{
		{"NX"}, {"XX"}, {"GET"}, {"KEEPTTL"},
		{"EX", "100"}, {"PX", "100000"}, {"EXAT", exat}, {"PXAT", pxat},
		{"EX", "0"}, {"PX", "-1"}, {"EX", "abc"}, {"EX"},
		{"nx"}, {"px", "5000"}, {"BOGUS"}, {"EXAT", "1"},
		{"EX", "9223372036854775807"}, {"PXAT", "9223372036854775807"},
	}
}

func TestSetOptionMatrix(t *testing.T) {
	opts := setOptions()
	var combos [][]string
	for _, a := range opts {
		combos = append(combos, a)
		for _, b := range opts {
			combos = append(combos, concat(a, b))
		}
	}
	small := []int{0, 1, 2, 3, 4, 5, 11} // NX XX GET KEEPTTL EX PX, EX without value
	for _, i := range small {
		for _, j := range small {
			for _, k := range small {
				combos = append(combos, concat(opts[i], opts[j], opts[k]))
			}
		}
	}
	states := []struct {
		name  string
		setup []string
	}{
		{"missing", nil},
		{"string", []string{"SET", "k", "old"}},
		{"string with TTL", []string{"SET", "k", "old", "EX", "1000"}},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			t.Parallel()
			p := newDiffPairProto(t, proto)
			a := p.Conn("A")
			for _, st := range states {
				for _, opt := range combos {
					p.where = fmt.Sprintf("state %q, SET k new %q", st.name, opt)
					a.Do("DEL", "k")
					if st.setup != nil {
						a.Do(st.setup...)
					}
					a.Do(concat([]string{"SET", "k", "new"}, opt)...)
					a.Do("GET", "k")
					want, got := a.DoMode(cmpIgnore, "TTL", "k")
					if !similarTTL(want.Int, got.Int) {
						t.Fatalf("%s: TTL %d on redis-server, %d on miniwatchd", p.where, want.Int, got.Int)
					}
				}
			}
			t.Logf("%d combinations x %d states", len(combos), len(states))
		})
	}
}

// similarTTL reports whether two TTL replies agree: the same -2 or -1, or
// positive TTLs at most 2 seconds apart (the servers run each command at
// slightly different times).
func similarTTL(a, b int64) bool {
	if a < 0 || b < 0 {
		return a == b
	}
	return a-b <= 2 && b-a <= 2
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
