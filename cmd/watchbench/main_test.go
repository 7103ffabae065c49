package main

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
)

// startServer runs an in-process miniwatchd on a free port (the embedding
// API's Run), closed when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	return miniwatchd.Run(t).Addr()
}

// parseResult returns the key=value fields of the RESULT line of out.
func parseResult(t *testing.T, out string) map[string]string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, "RESULT ")
		if !ok {
			continue
		}
		fields := map[string]string{}
		for _, f := range strings.Fields(rest) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				t.Fatalf("RESULT field %q is not key=value", f)
			}
			fields[k] = v
		}
		return fields
	}
	t.Fatalf("no RESULT line in output:\n%s", out)
	return nil
}

// supports reports whether the server at addr implements cmd.
func supports(t *testing.T, addr, cmd string) bool {
	t.Helper()
	c, err := dial(addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.do("COMMAND", "INFO", cmd)
	if err != nil {
		t.Fatal(err)
	}
	return len(r.elems) == 1 && !r.elems[0].isNull()
}

func TestRunModes(t *testing.T) {
	addr := startServer(t)
	luaOK := supports(t, addr, "evalsha")
	tests := []struct {
		mode       string
		keys       int
		wantCode   int
		wantStderr string
	}{
		{"watch-hot", 1, exitOK, ""},
		{"watch-many", 50, exitOK, ""},
		{"multi-incr", 1, exitOK, ""},
		{"lua", 1, exitOK, ""},
	}
	if !luaOK {
		tests[3].wantCode, tests[3].wantStderr = exitCmdError, "SCRIPT LOAD failed"
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"-addr", addr, "-clients", "4", "-duration", "300ms",
				"-mode", tt.mode, "-keys", strconv.Itoa(tt.keys), "-prefix", "t-" + tt.mode}
			code := run(args, &out, &errb)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out.String(), errb.String())
			}
			if tt.wantCode != exitOK {
				if !strings.Contains(errb.String(), tt.wantStderr) {
					t.Fatalf("stderr %q does not mention %q", errb.String(), tt.wantStderr)
				}
				return
			}
			f := parseResult(t, out.String())
			if f["mode"] != tt.mode || f["clients"] != "4" || f["check"] != "PASS" || f["errors"] != "0" {
				t.Fatalf("RESULT fields %v", f)
			}
			for _, k := range []string{"seconds", "commits_per_s", "aborts_per_s", "abort_ratio", "p50_us", "p99_us"} {
				if _, err := strconv.ParseFloat(f[k], 64); err != nil {
					t.Fatalf("RESULT %s=%q is not a number", k, f[k])
				}
			}
			commits, err := strconv.ParseInt(f["commits"], 10, 64)
			if err != nil || commits <= 0 {
				t.Fatalf("RESULT commits=%q, want a positive count", f["commits"])
			}
			if (tt.mode == "lua" || tt.mode == "multi-incr") && f["aborts"] != "0" {
				t.Fatalf("%s aborted %s times; it uses no WATCH", tt.mode, f["aborts"])
			}
			for _, want := range []string{"commits", "abort ratio", "latency p50", "latency p99", "counter      PASS"} {
				if !strings.Contains(out.String(), want) {
					t.Fatalf("output lacks %q:\n%s", want, out.String())
				}
			}
			// A passing run deletes its counters.
			c, err := dial(addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r, err := c.do("EXISTS", "t-"+tt.mode+":hot", "t-"+tt.mode+":many:0")
			if err != nil || r.kind != ':' || r.n != 0 {
				t.Fatalf("counters left behind: %v %v", r, err)
			}
		})
	}
}

// interfere sends cmd over its own connection every few milliseconds until
// done is closed, so that some of them land while a run is in progress.
func interfere(t *testing.T, addr string, done <-chan struct{}, cmd ...string) *sync.WaitGroup {
	t.Helper()
	c, err := dial(addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer c.Close()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := c.do(cmd...); err != nil {
					return
				}
			}
		}
	}()
	return &wg
}

// TestRunDetectsWrongCounter makes the counter differ from the commits (a
// blind INCRBY from another client during the run) and expects exit 1.
func TestRunDetectsWrongCounter(t *testing.T) {
	addr := startServer(t)
	done := make(chan struct{})
	wg := interfere(t, addr, done, "INCRBY", "t-phantom:hot", "1000")
	var out, errb bytes.Buffer
	code := run([]string{"-addr", addr, "-clients", "2", "-duration", "500ms", "-mode", "multi-incr", "-prefix", "t-phantom"}, &out, &errb)
	close(done)
	wg.Wait()
	if code != exitLost {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitLost, out.String(), errb.String())
	}
	if f := parseResult(t, out.String()); f["check"] != "FAIL" {
		t.Fatalf("check=%s, want FAIL", f["check"])
	}
	if !strings.Contains(errb.String(), "LOST UPDATE") || !strings.Contains(errb.String(), "phantom") {
		t.Fatalf("stderr does not explain the mismatch: %q", errb.String())
	}
}

// TestRunCommandErrors makes the counter hold a non-integer during the run:
// INCR inside EXEC fails, and the run exits 3 without claiming a check.
func TestRunCommandErrors(t *testing.T) {
	addr := startServer(t)
	for _, mode := range []string{"multi-incr", "watch-hot"} {
		t.Run(mode, func(t *testing.T) {
			done := make(chan struct{})
			wg := interfere(t, addr, done, "SET", "t-err:hot", "not-a-number")
			var out, errb bytes.Buffer
			code := run([]string{"-addr", addr, "-clients", "2", "-duration", "500ms", "-mode", mode, "-prefix", "t-err"}, &out, &errb)
			close(done)
			wg.Wait()
			if code != exitCmdError {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitCmdError, out.String(), errb.String())
			}
			if f := parseResult(t, out.String()); f["check"] != "SKIPPED" || f["errors"] == "0" {
				t.Fatalf("RESULT %v, want check=SKIPPED and errors > 0", f)
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	tests := [][]string{
		{"-mode", "nope"},
		{"-clients", "0"},
		{"-duration", "0s"},
		{"-keys", "0", "-mode", "watch-many"},
		{"-bogus"},
		{"extra"},
	}
	for _, args := range tests {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, exitUsage)
		}
		if errb.Len() == 0 {
			t.Errorf("run(%q) explained nothing on stderr", args)
		}
	}
}

func TestRunNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"-addr", addr, "-duration", "100ms"}, &out, &errb); code != exitCmdError {
		t.Fatalf("exit %d, want %d (stderr %q)", code, exitCmdError, errb.String())
	}
}
