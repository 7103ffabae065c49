package server

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Streams through the AOF: the log of every stream write (XADD with the
// generated ID and exact trimming, XREADGROUP/XCLAIM/XAUTOCLAIM as XCLAIM
// ... FORCE JUSTID, NOACK reads as XGROUP SETID) and the rewrite
// (rewriteStreamObject's XADD / XSETID / XGROUP CREATE / XCLAIM) rebuild
// the same streams, groups and PELs, in miniwatchd and in redis-server
// (history reads are not propagated, and pending entries of deleted
// entries do not survive a rewrite: both as in Redis, so the fill avoids
// them).

func streamFill(tc *aofConn, p string) {
	s := "s" + p
	for i := 1; i <= 250; i++ {
		tc.must("XADD", s, "MAXLEN", "~", "120", "*", "f", strconv.Itoa(i), "g", "x")
	}
	tc.must("XADD", s, "MINID", "~", "0", "*", "f", "v")
	tc.must("XDEL", s, tc.must("XRANGE", s, "-", "+", "COUNT", "1").([]any)[0].([]any)[0].(string))
	tc.must("XGROUP", "CREATE", s, "g1", "0")
	tc.must("XGROUP", "CREATE", s, "g2", "$", "ENTRIESREAD", "3")
	tc.must("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "10", "STREAMS", s, ">")
	tc.must("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "5", "STREAMS", s, ">")
	tc.must("XREADGROUP", "GROUP", "g1", "carol", "NOACK", "COUNT", "5", "STREAMS", s, ">")
	tc.must("XGROUP", "CREATECONSUMER", s, "g2", "dave")
	tc.must("XAUTOCLAIM", s, "g1", "erin", "0", "0", "COUNT", "3")
	pend := tc.must("XPENDING", s, "g1", "-", "+", "1", "bob").([]any)
	tc.must("XCLAIM", s, "g1", "frank", "0", pend[0].([]any)[0].(string), "RETRYCOUNT", "9")
	tc.must("XACK", s, "g1", pend[0].([]any)[0].(string))
	tc.must("XADD", "empty"+p, "MAXLEN", "0", "*", "a", "b")
	tc.must("XSETID", "empty"+p, "99999999999999-5", "ENTRIESADDED", "77", "MAXDELETEDID", "99999999999999-1")
	tc.must("XGROUP", "CREATE", "empty"+p, "g", "$")
	tc.must("XGROUP", "DELCONSUMER", s, "g1", "bob")
}

var seenTime = regexp.MustCompile(`(seen-time|radix-tree-keys|radix-tree-nodes) \d+`)

// streamDataset renders every stream key with XINFO STREAM FULL (seen-times
// masked: replays set them; the node layout differs after a rewrite, as in
// Redis).
func streamDataset(t *testing.T, tc *aofConn) string {
	t.Helper()
	out := ""
	for _, k := range []string{"sa", "sb", "emptya", "emptyb"} {
		if tc.must("EXISTS", k).(int64) == 0 {
			continue
		}
		v := fmt.Sprint(tc.must("XINFO", "STREAM", k, "FULL", "COUNT", "0"))
		out += k + "=" + seenTime.ReplaceAllString(v, "$1 X") + "\n"
	}
	return out
}

func TestStreamAOF(t *testing.T) {
	for _, tcase := range []struct {
		rewrite, preamble bool
	}{{false, false}, {true, false}, {true, true}} {
		rewrite := tcase.rewrite
		t.Run(fmt.Sprintf("rewrite=%v/aof-use-rdb-preamble=%v", rewrite, tcase.preamble), func(t *testing.T) {
			dir := t.TempDir()
			cfg := aofTestConfig(dir, "always")
			if tcase.preamble {
				cfg = aofRDBConfig(dir, "always")
			}
			s := startAOFServer(t, cfg)
			tc := dialAOF(t, s)
			streamFill(tc, "a")
			if rewrite {
				tc.must("BGREWRITEAOF")
				aofWaitRewriteDone(t, tc)
				streamFill(tc, "b")
			}
			want := streamDataset(t, tc)
			s.Close()
			s2 := startAOFServer(t, cfg)
			if got := streamDataset(t, dialAOF(t, s2)); got != want {
				t.Fatalf("miniwatchd reloaded:\n%s", firstDiff(got, want))
			}
			s2.Close()
			if _, err := exec.LookPath("redis-server"); err == nil {
				r := startAOFRedis(t, dir, aofRedisArgs()...)
				if got := streamDataset(t, dialAOFAddr(t, r.addr)); got != want {
					t.Fatalf("redis-server loaded:\n%s", firstDiff(got, want))
				}
				r.stop("NOSAVE")
			}
		})
	}
}

// firstDiff shows where got and want part.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-300, 0)
	return fmt.Sprintf("got  ...%s\nwant ...%s", got[lo:min(i+200, len(got))], want[lo:min(i+200, len(want))])
}

// TestStreamAOFBlockedReader: a blocked XREADGROUP served by another
// client's XADD is logged (XGROUP CREATECONSUMER and XCLAIM), so the PEL
// survives a restart.
func TestStreamAOFBlockedReader(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"))
	tc := dialAOF(t, s)
	tc.must("XGROUP", "CREATE", "q", "g", "$", "MKSTREAM")
	reader := dialAOF(t, s)
	got := make(chan any, 1)
	go func() { got <- reader.do("XREADGROUP", "GROUP", "g", "worker", "BLOCK", "0", "STREAMS", "q", ">") }()
	time.Sleep(100 * time.Millisecond)
	tc.must("XADD", "q", "5-1", "job", "a")
	if r := fmt.Sprint(<-got); r != "[[q [[5-1 [job a]]]]]" {
		t.Fatalf("served %s", r)
	}
	want := fmt.Sprint(tc.must("XPENDING", "q", "g"))
	s.Close()
	s2 := startAOFServer(t, aofTestConfig(dir, "always"))
	if got := fmt.Sprint(dialAOF(t, s2).must("XPENDING", "q", "g")); got != want {
		t.Fatalf("after reload XPENDING %s, want %s", got, want)
	}
}
