//go:build linux

package server

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pingOnce connects to addr, sends PING and reports whether PONG came.
func pingOnce(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err == nil && line != "+PONG\r\n" {
		err = &net.AddrError{Err: "reply " + strconv.Quote(line), Addr: addr}
	}
	return err
}

// TestLoopAcceptManyConcurrent opens more connections at once than one
// accept batch takes: every one is served by the event loop's accept,
// and the listener is the loop's (no accept goroutine).
func TestLoopAcceptManyConcurrent(t *testing.T) {
	s := startListenServer(t)
	s.mu.Lock()
	s.cfg.MaxClients = 10000
	s.mu.Unlock()
	addr := s.Addr().String()
	const n = 400
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := pingOnce(addr); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s.loop.accept.mu.Lock()
	watched := len(s.loop.accept.lns)
	s.loop.accept.mu.Unlock()
	if watched != 1 {
		t.Fatalf("the loop watches %d listeners, want 1", watched)
	}
}

// TestLoopAcceptRebind moves the port with CONFIG SET: the loop then
// accepts on the new listener only (the old one left its epoll set and
// table), and the old port refuses.
func TestLoopAcceptRebind(t *testing.T) {
	s := startListenServer(t)
	old := s.Addr().String()
	s.loop.accept.mu.Lock()
	var oldFd int
	for fd := range s.loop.accept.lns {
		oldFd = fd
	}
	s.loop.accept.mu.Unlock()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conn, err := net.Dial("tcp", old)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte("CONFIG SET port " + strconv.Itoa(port) + "\r\n"))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("CONFIG SET port: %q %v", line, err)
	}
	for range 20 {
		if err := pingOnce(s.Addr().String()); err != nil {
			t.Fatalf("new port: %v", err)
		}
	}
	s.loop.accept.mu.Lock()
	n := len(s.loop.accept.lns)
	al := s.loop.accept.lns[oldFd]
	s.loop.accept.mu.Unlock()
	if n != 1 {
		t.Fatalf("the loop watches %d listeners, want 1", n)
	}
	if al != nil && al.addr.String() == old {
		t.Fatal("the old listener is still watched")
	}
	if c, err := net.DialTimeout("tcp", old, time.Second); err == nil {
		c.Close()
		t.Fatal("the old port still accepts")
	}
}

// TestLoopAcceptReusesQueryBuffer: a client freed after one PING leaves
// its 16KB query buffer for the next connection, which reads into it;
// the pool keeps at most maxPooledQueryBufs. The local address of a
// connection the loop accepted is read on demand: CLIENT LIST shows it
// and CLIENT KILL LADDR finds the client by it.
func TestLoopAcceptReusesQueryBuffer(t *testing.T) {
	s := startListenServer(t)
	addr := s.Addr().String()
	pooled := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.qbufs)
	}
	waitPooled := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); pooled() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d query buffers pooled, want %d", pooled(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := pingOnce(addr); err != nil {
		t.Fatal(err)
	}
	waitPooled(1)

	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	conn.Write([]byte("CLIENT INFO\r\n"))
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	info, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := " laddr=" + conn.RemoteAddr().String() + " "; !strings.Contains(info, want) {
		t.Fatalf("CLIENT INFO %q lacks %q", info, want)
	}
	if pooled() != 0 {
		t.Fatalf("the new client left the pooled buffer: %d pooled", pooled())
	}
	s.mu.Lock()
	var caps []int
	for _, c := range s.clients {
		caps = append(caps, c.parser.Cap())
	}
	s.mu.Unlock()
	if len(caps) != 1 || caps[0] != 16*1024 {
		t.Fatalf("query buffer capacities %v, want [16384]", caps)
	}

	other, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetDeadline(time.Now().Add(5 * time.Second))
	cmd := "CLIENT KILL LADDR " + other.RemoteAddr().String() + " SKIPME yes\r\n"
	other.Write([]byte(cmd))
	if line, err := bufio.NewReader(other).ReadString('\n'); err != nil || line != ":1\r\n" {
		t.Fatalf("CLIENT KILL LADDR: %q %v", line, err) // conn has the same laddr and is killed
	}
	if rest, err := r.ReadString('\n'); err != nil || rest != "\r\n" { // CLIENT INFO's bulk ends "\n\r\n"
		t.Fatalf("after CLIENT INFO: %q %v", rest, err)
	}
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("the connection CLIENT KILL LADDR named is open: read %q", line)
	}

	var wg sync.WaitGroup
	for range 2 * maxPooledQueryBufs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			c.Write([]byte("PING\r\n"))
			time.Sleep(50 * time.Millisecond) // all connected at once
			c.Close()
		}()
	}
	wg.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		n := len(s.clients)
		s.mu.Unlock()
		if n <= 1 || time.Now().After(deadline) {
			break
		}
	}
	if n := pooled(); n != maxPooledQueryBufs {
		t.Fatalf("%d query buffers pooled after %d clients left, want %d", n, 2*maxPooledQueryBufs, maxPooledQueryBufs)
	}
}
