package server

import (
	"strings"
	"testing"
	"time"
)

// TestDumpStreamRoundTrip: DUMP of a stream once dereferenced the nil value
// db.ValueOf returned for a type without an RDB codec and crashed the
// server (found by FuzzDispatch, testdata/fuzz/FuzzDispatch/817a1969788d2244).
// Streams now have their codec: DUMP replies a payload, RESTORE of it
// gives the same entries, and the server keeps serving.
func TestDumpStreamRoundTrip(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	if got := c.do("XADD", "st", "1-1", "f", "v"); got != "$3\r\n1-1\r\n" {
		t.Fatalf("XADD: %q", got)
	}
	dump := c.do("DUMP", "st")
	if !strings.HasPrefix(dump, "$") {
		t.Fatalf("DUMP of a stream: %q, want a payload", dump)
	}
	payload := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
	if got := c.do("RESTORE", "st2", "0", payload); got != "+OK\r\n" {
		t.Fatalf("RESTORE: %q", got)
	}
	if got, want := c.do("XRANGE", "st2", "-", "+"), c.do("XRANGE", "st", "-", "+"); got != want {
		t.Fatalf("XRANGE of the restored stream: %q, want %q", got, want)
	}
	other := dialTest(t, s)
	if got := other.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after DUMP: %q", got)
	}
	if got := c.read(10 * time.Millisecond); got != "" {
		t.Fatalf("extra reply %q", got)
	}
}
