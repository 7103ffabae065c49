package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// TestClockGoAPI drives TTLs from Go through (*Server).Clock, the way an
// embedding test suite would.
func TestClockGoAPI(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = 0
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	do := func(cmd string) string {
		t.Helper()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimRight(line, "\r\n")
	}
	s.Clock().Freeze()
	if got := do("SET k v EX 10"); got != "+OK" {
		t.Fatalf("SET: %q", got)
	}
	s.Clock().Advance(4 * time.Second)
	if got := do("TTL k"); got != ":6" {
		t.Fatalf("TTL after 4s: %q", got)
	}
	s.Clock().Advance(6*time.Second + time.Millisecond)
	if got := do("EXISTS k"); got != ":0" {
		t.Fatalf("EXISTS after 10.001s: %q", got)
	}
	s.Clock().Set(time.Unix(2_000_000_000, 0))
	if got := do("SET j v EXAT 2000000005"); got != "+OK" {
		t.Fatalf("SET EXAT: %q", got)
	}
	if got := do("TTL j"); got != ":5" {
		t.Fatalf("TTL at a set time: %q", got)
	}
}
