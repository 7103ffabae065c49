package test

import (
	"sort"
	"strconv"
	"testing"
	"time"
)

// Blocking timeouts fire at their deadline. Redis 7.0 checks blocked
// clients' deadlines only when its event loop wakes (up to 1000/hz ms
// late: a 0.001 s BRPOP returns after ~100 ms there); miniwatchd keeps them
// in a heap served by a timer, so a timeout fires within a few ms on the
// real clock and exactly at the deadline on the test clock (a deadline
// equal to now has not passed, as in handleBlockedClientsTimeout).

// blockingTimeoutCommands are the blocking commands with a 0.001 s
// timeout, each on keys that do not exist.
var blockingTimeoutCommands = [][]string{
	{"BLPOP", "bt:a", "bt:b", "0.001"},
	{"BRPOP", "bt:a", "0.001"},
	{"BRPOPLPUSH", "bt:a", "bt:b", "0.001"},
	{"BLMOVE", "bt:a", "bt:b", "LEFT", "RIGHT", "0.001"},
	{"BLMPOP", "0.001", "2", "bt:a", "bt:b", "LEFT"},
	{"BZPOPMIN", "bt:z", "0.001"},
	{"BZPOPMAX", "bt:z", "0.001"},
	{"BZMPOP", "0.001", "1", "bt:z", "MIN"},
}

func TestBlockingTimeoutRealClock(t *testing.T) {
	l := leaseServer(t, ours)
	c := l.dial(t)
	for _, cmd := range blockingTimeoutCommands {
		var took []time.Duration
		for range 15 {
			start := time.Now()
			n := mustDo(t, c, cmd...)
			took = append(took, time.Since(start))
			if !n.Null {
				t.Fatalf("%q = %s, want a null reply", cmd, render(n))
			}
		}
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		// The median bounds the usual case; the bound is loose for
		// shared machines but far below Redis's 100 ms cron step.
		t.Logf("%s: median %v, max %v", cmd[0], took[len(took)/2], took[len(took)-1])
		if med := took[len(took)/2]; med > 30*time.Millisecond {
			t.Errorf("%q: median time to the timeout reply %v (all %v), want a few ms", cmd, med, took)
		}
	}
}

func TestBlockingTimeoutTestClock(t *testing.T) {
	for _, cmd := range blockingTimeoutCommands {
		t.Run(cmd[0], func(t *testing.T) {
			l := leaseServer(t, ours)
			l.taint()
			ctl, c := l.dial(t), l.dial(t)
			expectOK(t, ctl, "DEBUG", "CLOCK", "FREEZE")
			withSecond := make([]string, len(cmd))
			for i, a := range cmd {
				withSecond[i] = a
				if a == "0.001" {
					withSecond[i] = "1"
				}
			}
			if err := c.Send(withSecond...); err != nil {
				t.Fatal(err)
			}
			waitBlockedRESP(t, ctl, 1)
			advance(t, ctl, 1000) // now == deadline: not passed yet
			if st, b := c.Watch(100 * time.Millisecond); st != connOpen {
				t.Fatalf("%q replied at its deadline: %v %q", withSecond, st, b)
			}
			advance(t, ctl, 1)
			n, err := c.Read(2 * time.Second)
			if err != nil {
				t.Fatalf("%q: no reply 1 ms after its deadline: %v", withSecond, err)
			}
			if !n.Null {
				t.Fatalf("%q = %s, want a null reply", withSecond, render(n))
			}
		})
	}
}

// waitBlockedRESP waits until INFO clients reports n blocked clients.
func waitBlockedRESP(t *testing.T, c *respConn, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if info(t, c, "blocked_clients") == strconv.Itoa(n) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("blocked_clients never reached %d", n)
}
