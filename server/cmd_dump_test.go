package server

import (
	"testing"
	"time"
)

// TestDumpStreamRepliesError: DUMP of a stream dereferenced the nil value
// db.ValueOf returns for a type without an RDB codec and crashed the
// server (found by FuzzDispatch, testdata/fuzz/FuzzDispatch/817a1969788d2244).
// It now replies an error and the server keeps serving.
func TestDumpStreamRepliesError(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	if got := c.do("XADD", "st", "1-1", "f", "v"); got != "$3\r\n1-1\r\n" {
		t.Fatalf("XADD: %q", got)
	}
	if got, want := c.do("DUMP", "st"), "-"+string(errDumpStream)+"\r\n"; got != want {
		t.Fatalf("DUMP of a stream: %q, want %q", got, want)
	}
	other := dialTest(t, s)
	if got := other.do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after DUMP: %q", got)
	}
	if got := c.read(10 * time.Millisecond); got != "" {
		t.Fatalf("extra reply %q", got)
	}
}
