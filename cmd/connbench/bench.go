package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// pingReq is PING as a RESP array; a server answers +PONG.
var pingReq = []byte("*1\r\n$4\r\nPING\r\n")

// result is what one run measured.
type result struct {
	mode     string
	conns    int
	workers  int
	openS    float64 // idle: seconds to open every connection
	seconds  float64 // acceptping: seconds for all of them
	ok       int     // idle: connections alive at the end; acceptping: PONGs
	errors   int
	firstErr error
	mu       sync.Mutex
}

// fail counts an error, keeping the first.
func (r *result) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.errors == 0 {
		r.firstErr = err
	}
	r.errors++
}

// line renders the RESULT line.
func (r *result) line() string {
	if r.mode == "idle" {
		return fmt.Sprintf("RESULT mode=idle conns=%d open_s=%.3f alive=%d errors=%d", r.conns, r.openS, r.ok, r.errors)
	}
	rate := 0.0
	if r.seconds > 0 {
		rate = float64(r.ok) / r.seconds
	}
	return fmt.Sprintf("RESULT mode=acceptping conns=%d workers=%d seconds=%.3f conns_per_s=%.1f errors=%d",
		r.conns, r.workers, r.seconds, rate, r.errors)
}

// ping sends PING on nc and reads the reply, which must be +PONG.
func ping(nc net.Conn, timeout time.Duration) error {
	nc.SetDeadline(time.Now().Add(timeout))
	if _, err := nc.Write(pingReq); err != nil {
		return err
	}
	var buf [128]byte
	n := 0
	for n == 0 || buf[n-1] != '\n' {
		if n == len(buf) {
			return fmt.Errorf("reply longer than %d bytes: %q", len(buf), buf[:n])
		}
		m, err := nc.Read(buf[n:])
		n += m
		if err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("connection closed by the server after %q", buf[:n])
			}
			return err
		}
	}
	if !bytes.Equal(buf[:n], []byte("+PONG\r\n")) {
		return fmt.Errorf("PING answered %q", bytes.TrimRight(buf[:n], "\r\n"))
	}
	return nil
}

// parallel runs fn(i) for i in [0, n), workers calls at a time.
func parallel(n, workers int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// idle opens o.conns connections with one PING each, prints READY, holds
// them until stop (or o.hold), then counts those still answering.
func idle(o options, stdout io.Writer, stop <-chan os.Signal) *result {
	res := &result{mode: "idle", conns: o.conns, workers: o.workers}
	conns := make([]net.Conn, o.conns)
	start := time.Now()
	parallel(o.conns, o.workers, func(i int) {
		nc, err := dialPing(o)
		if err != nil {
			res.fail(fmt.Errorf("connection %d: %w", i, err))
			return
		}
		conns[i] = nc
	})
	res.openS = time.Since(start).Seconds()
	fmt.Fprintf(stdout, "READY mode=idle conns=%d open_s=%.3f\n", o.conns, res.openS)
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	var hold <-chan time.Time
	if o.hold > 0 {
		hold = time.After(o.hold)
	}
	select {
	case <-stop:
	case <-hold:
	}
	var alive atomic.Int64
	parallel(o.conns, o.workers, func(i int) {
		nc := conns[i]
		if nc == nil {
			return
		}
		if err := ping(nc, o.timeout); err != nil {
			res.fail(fmt.Errorf("connection %d after idling: %w", i, err))
		} else {
			alive.Add(1)
		}
		nc.Close()
	})
	res.ok = int(alive.Load())
	return res
}

// dialPing connects to o.addr and waits for the PONG of one PING; on
// error the connection is closed.
func dialPing(o options) (net.Conn, error) {
	nc, err := net.DialTimeout("tcp", o.addr, o.timeout)
	if err != nil {
		return nil, err
	}
	if err := ping(nc, o.timeout); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}

// acceptPing makes o.conns connections, o.workers at a time, each
// connect, PING, PONG, close.
func acceptPing(o options) *result {
	res := &result{mode: "acceptping", conns: o.conns, workers: o.workers}
	var pongs atomic.Int64
	start := time.Now()
	parallel(o.conns, o.workers, func(i int) {
		nc, err := dialPing(o)
		if err != nil {
			res.fail(fmt.Errorf("connection %d: %w", i, err))
			return
		}
		pongs.Add(1)
		nc.Close()
	})
	res.seconds = time.Since(start).Seconds()
	res.ok = int(pongs.Load())
	return res
}
