//go:build linux

package poll

import (
	"testing"
	"time"
)

func TestParseSchedstatWait(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"3074394 490909 3\n", 490909, true},
		{"0 0 0\n", 0, true},
		{"12 345", 345, true},
		{"12\n", 0, false},
		{"12 345\n", 345, true},
		{"", 0, false},
		{"a 1 2\n", 0, false},
		{" 1 2\n", 0, false},
	} {
		got, ok := parseSchedstatWait([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseSchedstatWait(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestContentionIdle: a thread that sleeps between samples on an idle
// machine does not count as contended, and a sample within
// contentionEvery of the last one returns the last answer.
func TestContentionIdle(t *testing.T) {
	if _, ok := runQueueWait(); !ok {
		t.Skip("no /proc/thread-self/schedstat")
	}
	var c contention
	c.contended = true
	now := time.Now()
	c.update(now)
	if !c.update(now.Add(time.Millisecond)) {
		t.Fatal("a sample within contentionEvery changed the answer")
	}
	// A window with a made-up wall time far longer than any run-queue
	// wait the test can have accumulated.
	c.tid, c.at = 0, time.Time{}
	c.update(now)
	if c.update(now.Add(time.Hour)) {
		t.Fatal("contended over an hour-long window")
	}
}
