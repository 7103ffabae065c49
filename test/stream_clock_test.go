package test

import (
	"testing"
	"time"
)

// Stream IDs come from the server clock: on miniwatchd's test clock
// (DEBUG CLOCK) XADD * is exact, a clock that stands still or goes back
// increments the sequence (Redis's streamNextID), and a timed-out blocking
// XREAD fires when the clock passes its deadline.

func TestStreamIDsFollowTheClock(t *testing.T) {
	_, a, b := clockServer(t)
	expectOK(t, a, "DEBUG", "CLOCK", "SET", "1700000000000")
	want := func(args []string, id string) {
		t.Helper()
		n := mustDo(t, a, args...)
		if n.Kind != '$' || n.Str != id {
			t.Fatalf("%q = %s, want %q", args, render(n), id)
		}
	}
	add := []string{"XADD", "s", "*", "f", "v"}
	want(add, "1700000000000-0")
	want(add, "1700000000000-1")
	advance(t, a, 5)
	want(add, "1700000000005-0")
	advance(t, a, -1000)
	want(add, "1700000000005-1")
	want([]string{"XADD", "s", "1700000000005-*", "f", "v"}, "1700000000005-2")
	want([]string{"XADD", "s", "1800000000000-*", "f", "v"}, "1800000000000-0")
	want(add, "1800000000000-1")
	// MULTI: one command time for the whole transaction, as a script
	expectOK(t, a, "MULTI")
	mustDo(t, a, "XADD", "t", "*", "f", "v")
	mustDo(t, a, "XADD", "t", "*", "f", "v")
	n := mustDo(t, a, "EXEC")
	if len(n.Elems) != 2 || n.Elems[0].Str != "1699999999005-0" || n.Elems[1].Str != "1699999999005-1" {
		t.Fatalf("EXEC = %s", render(n))
	}
	// A blocking XREAD times out on the test clock.
	if err := b.Send("XREAD", "BLOCK", "1000", "STREAMS", "s", "$"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let it block
	advance(t, a, 999)
	if _, err := b.Read(100 * time.Millisecond); err == nil {
		t.Fatal("XREAD BLOCK 1000 returned before its deadline")
	}
	advance(t, a, 2)
	r, err := b.Read(5 * time.Second)
	if err != nil || !r.Null {
		t.Fatalf("XREAD BLOCK after the deadline: %s, %v", render(r), err)
	}
}
