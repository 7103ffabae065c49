package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// resultFields returns the key=value fields of the RESULT line of out.
func resultFields(t *testing.T, out string) map[string]string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "RESULT "); ok {
			f := map[string]string{}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				f[k] = v
			}
			return f
		}
	}
	t.Fatalf("no RESULT line in %q", out)
	return nil
}

func TestSummary(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		in          []time.Duration
		med, lo, hi time.Duration
	}{
		{ms(5), 5 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond},
		{ms(9, 1, 5), 5 * time.Millisecond, time.Millisecond, 9 * time.Millisecond},
		{ms(4, 1, 2, 8), 3 * time.Millisecond, time.Millisecond, 8 * time.Millisecond},
	} {
		med, lo, hi := summary(tc.in)
		if med != tc.med || lo != tc.lo || hi != tc.hi {
			t.Errorf("summary(%v) = %v %v %v, want %v %v %v", tc.in, med, lo, hi, tc.med, tc.lo, tc.hi)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "nope"},
		{"-mode", "process"},
		{"-runs", "0", "-mode", "embed"},
		{"-mode", "embed", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errb.String())
		}
	}
}

// -mode embed: a line per run and a RESULT whose median lies between its
// minimum and maximum.
func TestEmbed(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-mode", "embed", "-runs", "3"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\nrun ") + 1; !strings.HasPrefix(out.String(), "run 1 ") || n != 3 {
		t.Fatalf("want three run lines: %q", out.String())
	}
	f := resultFields(t, out.String())
	med, _ := strconv.Atoi(f["median_us"])
	lo, _ := strconv.Atoi(f["min_us"])
	hi, _ := strconv.Atoi(f["max_us"])
	if f["mode"] != "embed" || f["server"] != "embed" || f["runs"] != "3" || lo <= 0 || med < lo || hi < med {
		t.Fatalf("RESULT fields %v", f)
	}
}

// -mode process against redis-server: the fields, and the page faults and
// CPU time read from /proc.
func TestProcessRedisServer(t *testing.T) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found (CI)")
		}
		t.Skip("redis-server not found")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-mode", "process", "-server", path, "-runs", "2"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	f := resultFields(t, out.String())
	if f["mode"] != "process" || f["server"] != "redis-server" || f["runs"] != "2" {
		t.Fatalf("RESULT fields %v", f)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		if n, _ := strconv.Atoi(f["minflt"]); n <= 0 {
			t.Errorf("minflt %q with /proc", f["minflt"])
		}
		if n, _ := strconv.Atoi(f["cpu_us"]); n <= 0 {
			t.Errorf("cpu_us %q with /proc", f["cpu_us"])
		}
	}
}

// A server that never answers fails the run with exit status 3.
func TestProcessNoServer(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-mode", "process", "-server", "/bin/true", "-runs", "1", "-timeout", "300ms"}, &out, &errb); code != exitStart {
		t.Fatalf("exit %d, want %d: %s", code, exitStart, errb.String())
	}
}
