//go:build linux

package server

import (
	"bufio"
	"net"
	"strconv"
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
