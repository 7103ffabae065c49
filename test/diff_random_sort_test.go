package test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDiffRandomSort compares random SORT and SORT_RO calls between
// redis-server and miniwatchd: lists (whose order is defined, so ties in
// the weights show how equal elements are ordered, by glibc's merge sort or
// by Redis's pqsort with a partial LIMIT), intsets and sorted sets (not with ALPHA BY, whose ties would show the
// unspecified order of a sorted set's dict), with BY
// patterns over strings and hash fields that are often missing or equal,
// ALPHA, DESC, LIMIT, GET and STORE. The weights and elements are rebuilt
// now and then.
func TestDiffRandomSort(t *testing.T) {
	diffRandomRuns(t, 1500, func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int {
		g := &sortGen{rng: rng}
		compared := 0
		for i := 0; i < ops; i++ {
			p.where = "op " + strconv.Itoa(i)
			if i%100 == 0 {
				for _, cmd := range g.fill() {
					tpDo(c, tpExact, cmd...)
					compared++
				}
			}
			cmd, store := g.sort()
			tpDo(c, tpExact, cmd...)
			compared++
			if store {
				tpDo(c, tpExact, "LRANGE", "dst", "0", "-1")
				compared++
			}
		}
		return compared
	})
}

type sortGen struct{ rng *rand.Rand }

func (g *sortGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }

// fill rebuilds the sources and the weights.
func (g *sortGen) fill() [][]string {
	cmds := [][]string{{"FLUSHALL"}}
	n := 1 + g.rng.IntN(60)
	list := []string{"RPUSH", "l"}
	ints := []string{"SADD", "si"}
	zset := []string{"ZADD", "z"}
	for i := 0; i < n; i++ {
		e := strconv.Itoa(g.rng.IntN(40))
		if g.rng.IntN(4) == 0 {
			e = g.pick("a", "b", "c", "x", "y", "") + e
		}
		list = append(list, e)
		ints = append(ints, strconv.Itoa(g.rng.IntN(1000)-500))
		zset = append(zset, strconv.Itoa(g.rng.IntN(5)), e)
	}
	cmds = append(cmds, list, ints, zset)
	for i := 0; i < 40; i++ {
		e := strconv.Itoa(i)
		switch g.rng.IntN(4) {
		case 0: // no weight
		case 1:
			cmds = append(cmds, []string{"SET", "w_" + e, strconv.Itoa(g.rng.IntN(5))})
		case 2:
			cmds = append(cmds, []string{"SET", "w_" + e, g.pick("p", "q", "r", "1.5", "-2")})
		default:
			cmds = append(cmds, []string{"HSET", "h_" + e, "f", strconv.Itoa(g.rng.IntN(3)), "g", g.pick("u", "v")})
		}
	}
	return cmds
}

// sort returns one SORT command and whether it stores.
func (g *sortGen) sort() ([]string, bool) {
	cmd := []string{g.pick("SORT", "SORT", "SORT_RO"), g.pick("l", "l", "l", "si", "z", "none")}
	store := false
	for n := g.rng.IntN(5); n > 0; n-- {
		switch g.rng.IntN(7) {
		case 0:
			cmd = append(cmd, "DESC")
		case 1:
			cmd = append(cmd, "ALPHA")
		case 2:
			cmd = append(cmd, "LIMIT", strconv.Itoa(g.rng.IntN(50)-5), strconv.Itoa(g.rng.IntN(30)-2))
		case 3, 4:
			cmd = append(cmd, "BY", g.pick("w_*", "w_*", "h_*->f", "h_*->g", "nosort", "nosuch_*"))
		case 5:
			cmd = append(cmd, "GET", g.pick("#", "w_*", "h_*->g", "nostar"))
		default:
			if cmd[0] == "SORT" {
				cmd = append(cmd, "STORE", "dst")
				store = true
			}
		}
	}
	// A sorted set is loaded in its dict's order, which Redis does not
	// specify: ALPHA BY values that tie would order its elements by it.
	if cmd[1] == "z" && slices.Contains(cmd, "ALPHA") {
		for i := 2; i < len(cmd)-1; i++ {
			if cmd[i] == "BY" && strings.Contains(cmd[i+1], "*") {
				cmd[i+1] = "nosort"
			}
		}
	}
	return cmd, store
}
