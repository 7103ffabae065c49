package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd"
)

// startServer runs an in-process miniwatchd on a free port (the embedding
// API's Run), closed when the test ends.
func startServer(t *testing.T) string {
	t.Helper()
	return miniwatchd.Run(t).Addr()
}

// results returns the key=value fields of every RESULT line, by mode.
func results(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	all := map[string]map[string]string{}
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
		all[fields["mode"]] = fields
	}
	return all
}

func number(t *testing.T, fields map[string]string, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(fields[name], 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, fields[name], err)
	}
	return v
}

func TestAllModes(t *testing.T) {
	addr := startServer(t)
	var out, errOut bytes.Buffer
	args := []string{"-addr", addr, "-pid", strconv.Itoa(os.Getpid()), "-mode", "mem,disconnect,touch",
		"-clients", "5", "-keys", "30", "-per-watch", "7", "-watchers", "20", "-repeat", "3", "-settle", "0s"}
	if code := run(args, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	r := results(t, out.String())
	if m := r["mem"]; m == nil || m["records"] != "150" || number(t, m, "rss1_kb") <= 0 {
		t.Fatalf("mem result %v", m)
	}
	if d := r["disconnect"]; d == nil || number(t, d, "disconnect_ms") <= 0 || number(t, d, "polls") < 1 {
		t.Fatalf("disconnect result %v", d)
	}
	if tc := r["touch"]; tc == nil || tc["watchers"] != "20" || number(t, tc, "set_us") <= 0 || number(t, tc, "base_us") <= 0 {
		t.Fatalf("touch result %v", tc)
	}
}

func TestDisconnectRefusesAnotherClient(t *testing.T) {
	addr := startServer(t)
	other, err := dial(addr, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	var out, errOut bytes.Buffer
	code := run([]string{"-addr", addr, "-mode", "disconnect", "-clients", "3", "-keys", "2"}, &out, &errOut)
	if code != exitError || !strings.Contains(errOut.String(), "another client") {
		t.Fatalf("exit %d, stderr %q: want a refusal naming the extra connection", code, errOut.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "nosuch"},
		{"-mode", "mem"}, // no -pid
		{"-clients", "0"},
		{"extra"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
