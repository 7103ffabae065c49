// Command watchscale measures what WATCH costs a server at scale, on any
// RESP server (miniwatchd, redis-server, ...) on this machine:
//
//	watchscale -addr host:port -pid PID -mode MODES [flags]
//
// MODES is a comma list of:
//
//	mem         -clients connections are opened (the RSS of process -pid is
//	            read after -settle), then each WATCHes -keys distinct keys in
//	            one WATCH command ("<prefix>:<client>:<i>"; the keys do not
//	            exist: nothing is written); after -settle the RSS is read
//	            again. bytes_per_record = (RSS after - RSS before) / records.
//	disconnect  the same watches (kept from mem when both are given), then
//	            every watching connection is closed at once and a separate
//	            connection polls INFO clients until connected_clients is 1
//	            (itself): the time from the first close to that reply.
//	            Both servers count a client out when they have freed it,
//	            watches included, so this times the same work on both; a
//	            PING after the closes could be answered before the server
//	            has even read the closes.
//	touch       -watchers connections each WATCH the key "<prefix>:hot";
//	            one more connection SETs it and the SET's round trip is
//	            timed. Repeated -repeat times (UNWATCH + WATCH again on every
//	            watcher first, as a touched watcher is dirty and unwatched);
//	            the median is reported, with the median SET round trip of
//	            the same key unwatched (base_us) for the network's share.
//	            After each SET one watcher's EXEC must abort (checked).
//
// Output: one line per mode starting with "RESULT " holding key=value
// fields, for scripts. Exit status: 0 ok, 2 bad usage, 3 connection or
// protocol errors or a failed check.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const (
	exitOK    = 0
	exitUsage = 2
	exitError = 3
)

type options struct {
	addr     string
	pid      int
	modes    []string
	clients  int
	keys     int
	perCmd   int
	watchers int
	repeat   int
	prefix   string
	settle   time.Duration
	timeout  time.Duration
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watchscale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var modes string
	fs.StringVar(&o.addr, "addr", "127.0.0.1:6379", "server address host:port")
	fs.IntVar(&o.pid, "pid", 0, "server process id, for its RSS (mode mem)")
	fs.StringVar(&modes, "mode", "mem,disconnect", "comma list of mem, disconnect, touch")
	fs.IntVar(&o.clients, "clients", 1000, "watching connections (mem, disconnect)")
	fs.IntVar(&o.keys, "keys", 1000, "distinct keys each of them watches (mem, disconnect)")
	fs.IntVar(&o.perCmd, "per-watch", 100, "keys per WATCH command (mem, disconnect)")
	fs.IntVar(&o.watchers, "watchers", 10000, "connections watching the one key (touch)")
	fs.IntVar(&o.repeat, "repeat", 9, "timed SETs (touch)")
	fs.StringVar(&o.prefix, "prefix", "watchscale", "key prefix")
	fs.DurationVar(&o.settle, "settle", 2*time.Second, "wait before each RSS reading")
	fs.DurationVar(&o.timeout, "timeout", 120*time.Second, "per-reply network timeout")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	for _, m := range strings.Split(modes, ",") {
		switch m {
		case "mem", "disconnect", "touch":
			o.modes = append(o.modes, m)
		default:
			fmt.Fprintf(stderr, "watchscale: unknown mode %q\n", m)
			return exitUsage
		}
	}
	if o.clients < 1 || o.keys < 1 || o.perCmd < 1 || o.watchers < 1 || o.repeat < 1 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "watchscale: -clients, -keys, -watchers and -repeat must be positive; no arguments")
		return exitUsage
	}
	if has(o.modes, "mem") && o.pid <= 0 {
		fmt.Fprintln(stderr, "watchscale: mode mem needs -pid")
		return exitUsage
	}
	if err := measure(&o, stdout); err != nil {
		fmt.Fprintln(stderr, "watchscale:", err)
		return exitError
	}
	return exitOK
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func measure(o *options, stdout io.Writer) error {
	if has(o.modes, "mem") || has(o.modes, "disconnect") {
		ctl, err := dial(o.addr, o.timeout)
		if err != nil {
			return err
		}
		defer ctl.close()
		conns, err := dialMany(o.addr, o.clients, o.timeout)
		if err != nil {
			return err
		}
		defer func() {
			for _, c := range conns {
				c.close()
			}
		}()
		var rss0 int64
		if has(o.modes, "mem") {
			time.Sleep(o.settle)
			if rss0, err = rssKB(o.pid); err != nil {
				return err
			}
		}
		t0 := time.Now()
		if err := watchDistinct(conns, o.prefix, o.keys, o.perCmd); err != nil {
			return err
		}
		watchSecs := time.Since(t0).Seconds()
		if has(o.modes, "mem") {
			time.Sleep(o.settle)
			rss1, err := rssKB(o.pid)
			if err != nil {
				return err
			}
			records := int64(o.clients) * int64(o.keys)
			fmt.Fprintf(stdout, "RESULT mode=mem clients=%d keys=%d records=%d rss0_kb=%d rss1_kb=%d bytes_per_record=%.1f watch_s=%.3f\n",
				o.clients, o.keys, records, rss0, rss1, float64(rss1-rss0)*1024/float64(records), watchSecs)
		}
		if has(o.modes, "disconnect") {
			secs, polls, err := disconnectAll(ctl, conns)
			conns = nil
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "RESULT mode=disconnect clients=%d keys=%d records=%d disconnect_ms=%.3f polls=%d\n",
				o.clients, o.keys, int64(o.clients)*int64(o.keys), secs*1000, polls)
		}
	}
	if has(o.modes, "touch") {
		return touch(o, stdout)
	}
	return nil
}

// rssKB reads VmRSS of process pid, in kB.
func rssKB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err != nil {
				return 0, fmt.Errorf("VmRSS of %d: %v", pid, err)
			}
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}
