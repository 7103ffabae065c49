package test

// Randomized model test of the stream family: random XADD (with exact
// MAXLEN trimming), XDEL, XTRIM, XREADGROUP, XACK and XCLAIM sent to
// miniwatchd and applied to a plain model (a sorted slice of entries and a
// PEL map), every reply checked; XLEN, XRANGE, XREVRANGE and XPENDING are
// compared regularly. Tiny stream nodes make entries cross node boundaries
// all the time.

import (
	"slices"
	"strconv"
	"testing"
)

type modelEntry struct {
	ms    int
	value string
}

type modelPending struct {
	consumer string
	count    int
}

func TestModelStream(t *testing.T) {
	m := newModelRun(t, modelSeed())
	m.do("CONFIG", "SET", "stream-node-max-entries", "4")
	var entries []modelEntry // ascending ms, IDs are <ms>-0
	lastMs, groupLast := 0, 0
	pel := map[int]modelPending{}
	idStr := func(ms int) string { return strconv.Itoa(ms) + "-0" }
	find := func(ms int) int {
		i, ok := slices.BinarySearchFunc(entries, ms, func(e modelEntry, ms int) int { return e.ms - ms })
		if !ok {
			return -1
		}
		return i
	}
	randID := func() int { return m.rng.IntN(lastMs+3) + 1 }
	m.wantOK(m.do("XGROUP", "CREATE", "s", "g", "0", "MKSTREAM"))
	consumers := []string{"c0", "c1", "c2"}
	for m.op = 0; m.op < modelOps(); m.op++ {
		switch r := m.rng.IntN(100); {
		case r < 35:
			lastMs += 1 + m.rng.IntN(3)
			v := strconv.Itoa(m.rng.IntN(1000))
			args := []string{"XADD", "s"}
			maxlen := -1
			if m.rng.IntN(8) == 0 {
				maxlen = m.rng.IntN(20)
				args = append(args, "MAXLEN", strconv.Itoa(maxlen))
			}
			args = append(args, idStr(lastMs), "f", v)
			n := m.do(args...)
			want := idStr(lastMs)
			m.wantBulk(n, &want)
			entries = append(entries, modelEntry{lastMs, v})
			if maxlen >= 0 && len(entries) > maxlen {
				entries = slices.Clone(entries[len(entries)-maxlen:])
			}
		case r < 45:
			ids := []string{"XDEL", "s"}
			del := 0
			seen := map[int]bool{}
			for k := 0; k < 1+m.rng.IntN(3); k++ {
				ms := randID()
				ids = append(ids, idStr(ms))
				if i := find(ms); i >= 0 && !seen[ms] {
					del++
					entries = slices.Delete(entries, i, i+1)
				}
				seen[ms] = true
			}
			m.wantInt(m.do(ids...), del)
		case r < 50:
			if m.rng.IntN(2) == 0 {
				n := m.rng.IntN(30)
				want := max(len(entries)-n, 0)
				m.wantInt(m.do("XTRIM", "s", "MAXLEN", strconv.Itoa(n)), want)
				if want > 0 {
					entries = slices.Clone(entries[want:])
				}
			} else {
				ms := randID()
				k := 0
				for k < len(entries) && entries[k].ms < ms {
					k++
				}
				m.wantInt(m.do("XTRIM", "s", "MINID", idStr(ms)), k)
				entries = slices.Clone(entries[k:])
			}
		case r < 70:
			c := consumers[m.rng.IntN(len(consumers))]
			count := 1 + m.rng.IntN(4)
			n := m.do("XREADGROUP", "GROUP", "g", c, "COUNT", strconv.Itoa(count), "STREAMS", "s", ">")
			var want []string
			for _, e := range entries {
				if e.ms > groupLast && len(want) < count {
					want = append(want, idStr(e.ms))
					pel[e.ms] = modelPending{c, 1}
				}
			}
			if len(want) > 0 {
				groupLast, _ = strconv.Atoi(want[len(want)-1][:len(want[len(want)-1])-2])
			}
			var got []string
			if !n.Null && len(n.Elems) == 1 {
				items := n.Elems[0].Elems[1]
				if n.Kind == '%' {
					items = n.Elems[0].Elems[1]
				}
				for _, e := range items.Elems {
					got = append(got, e.Elems[0].Str)
				}
			}
			if !slices.Equal(got, want) {
				m.failf("got %s, want IDs %q", fmtNode(n), want)
			}
		case r < 80:
			args := []string{"XACK", "s", "g"}
			acked := 0
			seen := map[int]bool{}
			for k := 0; k < 1+m.rng.IntN(3); k++ {
				ms := randID()
				args = append(args, idStr(ms))
				if _, ok := pel[ms]; ok && !seen[ms] {
					acked++
					delete(pel, ms)
				}
				seen[ms] = true
			}
			m.wantInt(m.do(args...), acked)
		case r < 90:
			c := consumers[m.rng.IntN(len(consumers))]
			args := []string{"XCLAIM", "s", "g", c, "0"}
			var want []string
			seen := map[int]bool{}
			for k := 0; k < 1+m.rng.IntN(3); k++ {
				ms := randID()
				args = append(args, idStr(ms))
				if seen[ms] {
					if p, ok := pel[ms]; ok && find(ms) >= 0 {
						want = append(want, idStr(ms))
						p.count++
						pel[ms] = p
					}
					continue
				}
				seen[ms] = true
				p, ok := pel[ms]
				if !ok {
					continue
				}
				if find(ms) < 0 {
					delete(pel, ms)
					continue
				}
				want = append(want, idStr(ms))
				pel[ms] = modelPending{c, p.count + 1}
			}
			args = append(args, "JUSTID")
			// JUSTID does not count deliveries
			for _, id := range want {
				ms, _ := strconv.Atoi(id[:len(id)-2])
				p := pel[ms]
				p.count--
				pel[ms] = p
			}
			m.wantList(m.do(args...), want)
		default:
			m.wantInt(m.do("XLEN", "s"), len(entries))
			var want, rev []string
			for _, e := range entries {
				want = append(want, idStr(e.ms))
			}
			for i := len(want) - 1; i >= 0; i-- {
				rev = append(rev, want[i])
			}
			got := m.do("XRANGE", "s", "-", "+")
			if len(got.Elems) != len(want) {
				m.failf("XRANGE: got %d entries, want %d", len(got.Elems), len(want))
			}
			for i, e := range got.Elems {
				if e.Elems[0].Str != want[i] || e.Elems[1].Elems[1].Str != entries[i].value {
					m.failf("XRANGE entry %d: got %s, want %s %s", i, fmtNode(e), want[i], entries[i].value)
				}
			}
			gr := m.do("XREVRANGE", "s", "+", "-")
			var gotRev []string
			for _, e := range gr.Elems {
				gotRev = append(gotRev, e.Elems[0].Str)
			}
			if !slices.Equal(gotRev, rev) {
				m.failf("XREVRANGE: got %q, want %q", gotRev, rev)
			}
			p := m.do("XPENDING", "s", "g", "-", "+", "100000")
			var pids []int
			for ms := range pel {
				pids = append(pids, ms)
			}
			slices.Sort(pids)
			if len(p.Elems) != len(pids) {
				m.failf("XPENDING: %d entries, want %d", len(p.Elems), len(pids))
			}
			for i, e := range p.Elems {
				mp := pel[pids[i]]
				if e.Elems[0].Str != idStr(pids[i]) || e.Elems[1].Str != mp.consumer || e.Elems[3].Int != int64(mp.count) {
					m.failf("XPENDING entry %d: got %s, want %s %s %d", i, fmtNode(e), idStr(pids[i]), mp.consumer, mp.count)
				}
			}
		}
	}
	t.Logf("%d operations, %d entries left, %d pending", modelOps(), len(entries), len(pel))
}
