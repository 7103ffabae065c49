package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/server"
)

func TestRunExits(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.conf")
	cases := []struct {
		name       string
		args       []string
		code       int
		stdout     string // exact, or a substring when contains is set
		stderr     string
		contains   bool
		stdinInput string
	}{
		{name: "version", args: []string{"--version"}, stdout: server.VersionText()},
		{name: "v", args: []string{"-v"}, stdout: server.VersionText()},
		{name: "help", args: []string{"--help"}, code: 1, stderr: server.UsageText("miniwatchd")},
		{name: "unsupported", args: []string{"--test-memory", "10"}, code: 1,
			stderr: "miniwatchd does not support --test-memory\n"},
		{name: "bad option", args: []string{"--port", "x"}, code: 1,
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n" +
				">>> 'port \"x\"'\nargument couldn't be parsed into an integer\n"},
		{name: "bad stdin", args: []string{"-"}, stdinInput: "port 1\nfoo\n", code: 1,
			stderr: "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 2\n" +
				">>> 'foo'\nBad directive or wrong number of arguments\n"},
		{name: "missing file", args: []string{missing}, code: 1, contains: true,
			stdout: "Fatal error, can't open config file '" + missing + "': No such file or directory"},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.stdinInput), &stdout, &stderr, nil)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tc.name, code, tc.code, stderr.String())
		}
		if tc.contains {
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("%s: stdout %q lacks %q", tc.name, stdout.String(), tc.stdout)
			}
			continue
		}
		if stdout.String() != tc.stdout || stderr.String() != tc.stderr {
			t.Errorf("%s: stdout %q stderr %q, want %q and %q", tc.name, stdout.String(), stderr.String(), tc.stdout, tc.stderr)
		}
	}
}

// TestRunServes starts miniwatchd from a config file and options, checks
// that it listens and logs as configured, and stops it with Close.
func TestRunServes(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "m.conf")
	logfile := filepath.Join(dir, "m.log")
	text := "bind 127.0.0.1\nport 6379\nlogfile " + logfile + "\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	started := make(chan *server.Server, 1)
	done := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		done <- run([]string{conf, "--port", "0", "--maxmemory", "1000"}, nil, &stdout, &stderr, started)
	}()
	var s *server.Server
	select {
	case s = <-started:
	case code := <-done:
		t.Fatalf("exited with %d: %s", code, stderr.String())
	case <-time.After(5 * time.Second):
		t.Fatal("server did not start")
	}
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	s.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop")
	}
	log, err := os.ReadFile(logfile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Configuration loaded", "less than 1MB", "Server initialized",
		"Ready to accept connections", "ready to exit"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("output besides the log file: %q %q", stdout.String(), stderr.String())
	}
}

// TestRunBadBusyPoll checks that a malformed MINIWATCHD_BUSY_POLL stops
// the start with a message naming the variable.
func TestRunBadBusyPoll(t *testing.T) {
	for _, v := range []string{"fast", "-1ms", "50"} {
		t.Setenv("MINIWATCHD_BUSY_POLL", v)
		var stdout, stderr bytes.Buffer
		code := run([]string{"--port", "0"}, nil, &stdout, &stderr, nil)
		want := "MINIWATCHD_BUSY_POLL: want a duration such as 50us or 0, got \"" + v + "\"\n"
		if code != 1 || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %q", v, code, stderr.String(), want)
		}
	}
}
