package test

import (
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// The raw RESP client is the shared one (internal/resptest); these are its
// names in this package.
const replyTimeout = resptest.ReplyTimeout

type (
	respConn  = resptest.Conn
	connState = resptest.ConnState
)

const (
	connOpen   = resptest.ConnOpen
	connClosed = resptest.ConnClosed
	connData   = resptest.ConnData
)

var (
	dialRESP  = resptest.Dial
	isTimeout = resptest.IsTimeout
)

// mustDo runs a command and fails the test on a transport error.
func mustDo(t interface {
	Helper()
	Fatalf(string, ...any)
}, c *respConn, args ...string) node {
	t.Helper()
	n, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%s %q: %v", c.Addr, args, err)
	}
	return n
}

// sleepMillis pauses the test.
func sleepMillis(ms int) { time.Sleep(time.Duration(ms) * time.Millisecond) }
