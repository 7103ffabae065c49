package test

import (
	"fmt"
	"sync"
	"testing"
)

// Servers are pooled: a test leases one, and gets it back reset (FLUSHALL,
// active expiry on) by the next test that asks, unless the test failed or
// tainted it (changed its configuration, killed clients, ...), in which case
// it is stopped.

const (
	ours  = "miniwatchd"
	redis = "redis-server"
)

var (
	poolMu sync.Mutex
	idle   = map[string][]*serverProc{}
)

// leasedServer is a pooled server a test holds until its cleanup.
type leasedServer struct {
	*serverProc
	tainted bool
}

// taint makes the server be stopped instead of reused after the test.
func (l *leasedServer) taint() { l.tainted = true }

// leaseServer hands t a running server of the given kind (ours or redis),
// reset to an empty dataset. Leasing redis-server requires it (see
// requireRedis).
func leaseServer(t testing.TB, kind string) *leasedServer {
	t.Helper()
	if kind == redis {
		requireRedis(t)
	}
	l := &leasedServer{}
	for l.serverProc == nil {
		poolMu.Lock()
		list := idle[kind]
		var p *serverProc
		if len(list) > 0 {
			p = list[len(list)-1]
			idle[kind] = list[:len(list)-1]
		}
		poolMu.Unlock()
		if p == nil {
			break
		}
		if err := resetServer(p); err != nil {
			t.Logf("dropping a pooled %s: %v", kind, err)
			p.stop()
			continue
		}
		l.serverProc = p
	}
	if l.serverProc == nil {
		var err error
		if kind == ours {
			l.serverProc, err = startOurs()
		} else {
			l.serverProc, err = startRedis()
		}
		if err != nil {
			t.Fatalf("starting %s: %v", kind, err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() || l.tainted || !l.alive() {
			if !l.alive() {
				t.Logf("%s exited during the test:\n%s", l.name, l.logTail())
			}
			l.stop()
			return
		}
		poolMu.Lock()
		idle[kind] = append(idle[kind], l.serverProc)
		poolMu.Unlock()
	})
	return l
}

// resetServer empties a pooled server and turns active expiry back on.
func resetServer(p *serverProc) error {
	if !p.alive() {
		return fmt.Errorf("not running")
	}
	c, err := dialRESP(p.addr)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, cmd := range [][]string{{"FLUSHALL"}, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"}} {
		n, err := c.Do(cmd...)
		if err != nil {
			return err
		}
		if n.Kind != '+' {
			return fmt.Errorf("%q: %s", cmd, render(n))
		}
	}
	return nil
}

// dial opens a connection to the leased server, closed at the end of t.
func (l *leasedServer) dial(t testing.TB) *respConn {
	t.Helper()
	c, err := dialRESP(l.addr)
	if err != nil {
		t.Fatalf("dial %s: %v", l.name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
