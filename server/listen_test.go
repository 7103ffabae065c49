package server

import (
	"bufio"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startListenServer starts a server on a free port with params set by
// CONFIG SET (name, value pairs) before it serves.
func startListenServer(t *testing.T, params ...string) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Port = 0
	s, err := start(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if len(params) > 0 {
		args := make([][]byte, len(params))
		for i, p := range params {
			args[i] = []byte(p)
		}
		s.mu.Lock()
		err := s.params.set(args)
		s.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// acceptedFd connects to s and returns the server side's socket.
func acceptedFd(t *testing.T, s *Server) int {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.Write([]byte("PING\r\n"))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", line, err)
	}
	local := conn.LocalAddr().String()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		if c.addr == local {
			return c.fd
		}
	}
	t.Fatal("the connection has no client")
	return -1
}

// TestTCPKeepalive checks the accepted socket's options: tcp-keepalive N
// turns SO_KEEPALIVE on with the first probe after N seconds and then
// every N/3 (Redis's anetKeepAlive); 0 leaves it off.
func TestTCPKeepalive(t *testing.T) {
	for _, tc := range []struct {
		value           string
		on              int
		idle, intvl, nr int
	}{
		{"300", 1, 300, 100, 3},
		{"60", 1, 60, 20, 3},
		{"0", 0, 0, 0, 0},
	} {
		s := startListenServer(t, "tcp-keepalive", tc.value)
		fd := acceptedFd(t, s)
		if nodelay, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY); nodelay != 1 {
			t.Errorf("tcp-keepalive %s: TCP_NODELAY = %d, want 1", tc.value, nodelay)
		}
		on, _ := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		if on != tc.on {
			t.Errorf("tcp-keepalive %s: SO_KEEPALIVE = %d, want %d", tc.value, on, tc.on)
		}
		if tc.on == 0 {
			continue
		}
		idle, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE)
		intvl, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL)
		cnt, _ := syscall.GetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT)
		if idle != tc.idle || intvl != tc.intvl || cnt != tc.nr {
			t.Errorf("tcp-keepalive %s: idle %d interval %d count %d, want %d %d %d",
				tc.value, idle, intvl, cnt, tc.idle, tc.intvl, tc.nr)
		}
	}
}

// TestRebindKeepsClients moves the port with CONFIG SET while a client
// stays connected: the client goes on, the new port answers, the old one
// refuses.
func TestRebindKeepsClients(t *testing.T) {
	s := startListenServer(t)
	old := s.Addr().String()
	conn, err := net.Dial("tcp", old)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := "CONFIG SET port " + strconv.Itoa(port) + "\r\nPING\r\n"
	conn.Write([]byte(cmd))
	for _, want := range []string{"+OK\r\n", "+PONG\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("got %q %v, want %q", line, err, want)
		}
	}
	if got := s.Addr().(*net.TCPAddr).Port; got != port {
		t.Fatalf("Addr port %d, want %d", got, port)
	}
	c2, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
	if err != nil {
		t.Fatalf("new port: %v", err)
	}
	c2.Close()
	if c3, err := net.DialTimeout("tcp", old, time.Second); err == nil {
		c3.Close()
		t.Fatal("the old port still accepts")
	}
}
