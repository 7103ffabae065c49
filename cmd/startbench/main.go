// Command startbench measures how long a server takes to start and answer
// its first PING, for bench/targets.sh's start-up rows (issue #25).
//
//	startbench -mode process -server PATH [-runs N] [-timeout D]
//	startbench -mode embed [-runs N]
//
// -mode process starts the executable PATH (miniwatchd or redis-server)
// N times as `PATH --port P --save "" --appendonly no` on a free port P,
// and times each run from just before the process is started to the
// first +PONG read on a TCP connection to P: connections are retried
// every 100µs while refused. The process is killed after each run.
//
// -mode embed times the Go embedding API: miniwatchd.Run (under
// testing.Benchmark, so with a real *testing.B) followed by a PING over
// TCP, then Close (not timed), N times.
//
// Output: one line per run ("run I US" in microseconds), then one line
// starting with "RESULT " holding key=value fields for scripts: mode,
// server (the executable's base name, or "embed"), runs, median_us,
// min_us, max_us, and for -mode process also cpu_us (median CPU time of
// all the process's threads up to its first PONG, from
// /proc/PID/task/*/schedstat; -1 without /proc) and minflt (median minor
// page faults to then, /proc/PID/stat): on a loaded machine these vary
// far less than the wall time. Exit status: 0 ok, 2 bad usage, 3 a
// server did not start or answer.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitUsage = 2
	exitStart = 3
)

// run is startbench with arguments args; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("startbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mode := fs.String("mode", "process", "process | embed")
	path := fs.String("server", "", "executable to start (-mode process)")
	runs := fs.Int("runs", 9, "number of starts")
	timeout := fs.Duration("timeout", 10*time.Second, "how long one start may take")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "startbench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *runs < 1 {
		fmt.Fprintln(stderr, "startbench: -runs must be at least 1")
		return exitUsage
	}
	var times []time.Duration
	var err error
	name := "embed"
	extra := "" // the process mode's CPU and page fault medians
	switch *mode {
	case "process":
		if *path == "" {
			fmt.Fprintln(stderr, "startbench: -mode process needs -server PATH")
			return exitUsage
		}
		name = filepath.Base(*path)
		var prs []processRun
		prs, err = processStarts(*path, *runs, *timeout)
		var cpus, faults []time.Duration
		for _, r := range prs {
			times = append(times, r.d)
			cpus = append(cpus, r.cpu)
			faults = append(faults, time.Duration(r.minflt))
		}
		if err == nil {
			cpu, _, _ := summary(cpus)
			flt, _, _ := summary(faults)
			extra = fmt.Sprintf(" cpu_us=%d minflt=%d", cpu.Microseconds(), int64(flt))
			if cpu < 0 {
				extra = fmt.Sprintf(" cpu_us=-1 minflt=%d", int64(flt))
			}
		}
	case "embed":
		times, err = embedStarts(*runs)
	default:
		fmt.Fprintf(stderr, "startbench: unknown -mode %q (want process or embed)\n", *mode)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "startbench: %v\n", err)
		return exitStart
	}
	for i, d := range times {
		fmt.Fprintf(stdout, "run %d %d\n", i+1, d.Microseconds())
	}
	med, lo, hi := summary(times)
	fmt.Fprintf(stdout, "RESULT mode=%s server=%s runs=%d median_us=%d min_us=%d max_us=%d%s\n",
		*mode, name, len(times), med.Microseconds(), lo.Microseconds(), hi.Microseconds(), extra)
	return exitOK
}

// summary returns the median (the mean of the middle two for an even
// count), the minimum and the maximum of times.
func summary(times []time.Duration) (med, lo, hi time.Duration) {
	s := append([]time.Duration(nil), times...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}
