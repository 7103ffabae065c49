package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string // "" = valid
	}{
		{[]string{"-mode", "idle"}, ""},
		{[]string{"-mode", "acceptping", "-conns", "5", "-workers", "2"}, ""},
		{[]string{"-mode", "idle", "-hold", "1s"}, ""},
		{nil, "-mode must be idle or acceptping"},
		{[]string{"-mode", "burst"}, `-mode must be idle or acceptping, not "burst"`},
		{[]string{"-mode", "idle", "-conns", "0"}, "-conns must be at least 1"},
		{[]string{"-mode", "idle", "-workers", "0"}, "-workers must be at least 1"},
		{[]string{"-mode", "idle", "-hold", "-1s"}, "-hold must not be negative"},
		{[]string{"-mode", "idle", "-timeout", "0s"}, "-timeout must be positive"},
		{[]string{"-mode", "idle", "extra"}, `unexpected argument "extra"`},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		o, err := parseArgs(tt.args, &stderr)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("parseArgs(%q): %v", tt.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(stderr.String(), tt.wantErr) {
			t.Errorf("parseArgs(%q) = %+v, %v, stderr %q; want an error with %q", tt.args, o, err, stderr.String(), tt.wantErr)
		}
	}
	o, _ := parseArgs([]string{"-mode", "idle"}, &bytes.Buffer{})
	if o.addr != "127.0.0.1:6379" || o.conns != 10000 || o.workers != 8 || o.hold != 0 || o.timeout != 10*time.Second {
		t.Errorf("defaults = %+v", o)
	}
}

func TestResultLine(t *testing.T) {
	r := &result{mode: "idle", conns: 10, openS: 0.5, ok: 9, errors: 1}
	if got, want := r.line(), "RESULT mode=idle conns=10 open_s=0.500 alive=9 errors=1"; got != want {
		t.Errorf("idle line = %q, want %q", got, want)
	}
	r = &result{mode: "acceptping", conns: 10, workers: 2, seconds: 0.5, ok: 10}
	if got, want := r.line(), "RESULT mode=acceptping conns=10 workers=2 seconds=0.500 conns_per_s=20.0 errors=0"; got != want {
		t.Errorf("acceptping line = %q, want %q", got, want)
	}
}

// startServer runs an in-process miniwatchd on a free port (the embedding
// API's Run), closed when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	return miniwatchd.Run(t).Addr()
}

func TestRunAgainstServer(t *testing.T) {
	addr := startServer(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-addr", addr, "-mode", "acceptping", "-conns", "50", "-workers", "4"}, &stdout, &stderr, nil); code != exitOK {
		t.Fatalf("acceptping: exit %d, stderr %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "RESULT mode=acceptping conns=50 workers=4 ") || !strings.Contains(stdout.String(), " errors=0\n") {
		t.Errorf("acceptping output %q", stdout.String())
	}

	stdout.Reset()
	stop := make(chan os.Signal, 1)
	stop <- os.Interrupt // released at once: READY, then the check of every client
	if code := run([]string{"-addr", addr, "-mode", "idle", "-conns", "40", "-workers", "3"}, &stdout, &stderr, stop); code != exitOK {
		t.Fatalf("idle: exit %d, stderr %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "READY mode=idle conns=40 open_s=") ||
		!strings.HasPrefix(lines[1], "RESULT mode=idle conns=40 ") || !strings.HasSuffix(lines[1], " alive=40 errors=0") {
		t.Errorf("idle output %q", stdout.String())
	}

	stdout.Reset()
	if code := run([]string{"-addr", addr, "-mode", "idle", "-conns", "3", "-hold", "10ms"}, &stdout, &stderr, nil); code != exitOK ||
		!strings.Contains(stdout.String(), "alive=3 errors=0") {
		t.Errorf("idle -hold: exit %d, output %q", code, stdout.String())
	}
}

// TestRunRefused: a server that answers PING with an error (a full server)
// is a failed connection, reported with the reply, exit 3.
func TestRunRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the PING first: closing with it unread would reset
			// the connection before the client reads the error.
			io.ReadFull(c, make([]byte, len(pingReq)))
			c.Write([]byte("-ERR max number of clients reached\r\n"))
			c.Close()
		}
	}()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-addr", ln.Addr().String(), "-mode", "acceptping", "-conns", "3", "-workers", "1"}, &stdout, &stderr, nil)
	if code != exitError || !strings.Contains(stdout.String(), " errors=3") ||
		!strings.Contains(stderr.String(), `PING answered "-ERR max number of clients reached"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
