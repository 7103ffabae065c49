package poll

import (
	"net"
	"testing"
	"time"
)

// TestPollerWaitTimeoutWakeAndReadable checks the poller's three ways out
// of a wait: a timeout that passes with nothing ready, wake from another
// goroutine, and a socket that becomes readable.
func TestPollerWaitTimeoutWakeAndReadable(t *testing.T) {
	for _, spin := range []time.Duration{0, DefaultBusyPoll} {
		t.Run(spin.String(), func(t *testing.T) { testPollerWait(t, func() (Poller, error) { return New(spin) }) })
	}
}

func testPollerWait(t *testing.T, newPoller func() (Poller, error)) {
	p, err := newPoller()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	events := make([]Event, 8)

	start := time.Now()
	if n, err := p.Wait(events, 30*time.Millisecond); n != 0 || err != nil {
		t.Fatalf("idle wait = %d, %v", n, err)
	}
	if d := time.Since(start); d < 25*time.Millisecond {
		t.Fatalf("idle wait returned after %v, before its 30ms timeout", d)
	}

	go func() { time.Sleep(20 * time.Millisecond); p.Wake() }()
	start = time.Now()
	if n, err := p.Wait(events, -1); n != 0 || err != nil {
		t.Fatalf("woken wait = %d, %v", n, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("wake took %v", d)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cli, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	srv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rc, err := srv.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	fd := -1
	rc.Control(func(f uintptr) { fd = int(f) })
	if err := p.Add(fd, rc); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); cli.Write([]byte("PING\r\n")) }()
	n, err := p.Wait(events, -1)
	if err != nil || n != 1 || events[0].Fd != fd || !events[0].Readable {
		t.Fatalf("wait for data = %d %+v, %v", n, events[:n], err)
	}
	// Unread data stays ready: so says a wait whose timeout is over
	// before it could park.
	for _, d := range []time.Duration{0, time.Nanosecond} {
		if n, err := p.Wait(events, d); err != nil || n != 1 || events[0].Fd != fd {
			t.Fatalf("wait(%v) with unread data = %d %+v, %v", d, n, events[:n], err)
		}
	}
	p.Remove(fd)
}
