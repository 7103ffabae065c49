// Command watchbench measures optimistic transactions under contention on
// any RESP server (miniwatchd, redis-server, ...) and checks that no update
// was lost.
//
//	watchbench [-addr host:port] [-clients N] [-duration D] [-mode MODE] [-keys K]
//
// Each of N clients owns one connection and increments counters until the
// duration is up:
//
//	watch-hot   WATCH k; GET k; MULTI; SET k v+1; EXEC, retried while EXEC
//	            aborts, all clients on one hot key (the seed scenario)
//	watch-many  the same on a random one of -keys keys (low contention)
//	lua         EVALSHA of a script doing GET k / SET k v+1 on the hot key:
//	            the same work without WATCH, so it never aborts
//	multi-incr  MULTI; INCR k; EXEC on the hot key (a transaction without
//	            WATCH)
//
// WATCH and GET are one round trip each; MULTI, SET and EXEC are written
// together and cost one (as go-redis's TxPipelined sends them). Latency runs
// from the first attempt of an increment to the reply that committed it,
// retries included. An increment still retrying when time is up is
// abandoned: it never committed and is not counted.
//
// The counters live at "<prefix>:hot" and "<prefix>:many:<i>"; they are
// deleted before the run and after a successful check, so two watchbench
// runs on one server at once need different -prefix values. After the run
// every counter is read back and compared with the commits the clients
// saw; a difference in either direction is a lost (or phantom) update.
//
// Output: a readable block, then one line starting with "RESULT " holding
// key=value fields (mode clients seconds commits commits_per_s aborts
// aborts_per_s abort_ratio p50_us p99_us abandoned errors check) for
// scripts. Exit status: 0 ok, 1 counter check failed, 2 bad usage, 3
// connection or command errors (for example a server without EVALSHA).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK       = 0
	exitLost     = 1
	exitUsage    = 2
	exitCmdError = 3
)

// options are the command-line settings.
type options struct {
	addr     string
	clients  int
	duration time.Duration
	mode     mode
	keys     int
	prefix   string
	timeout  time.Duration
}

// run is watchbench with arguments args; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watchbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var modeName string
	fs.StringVar(&o.addr, "addr", "127.0.0.1:6379", "server address host:port")
	fs.IntVar(&o.clients, "clients", 8, "concurrent clients, one connection each")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "how long the clients run")
	fs.StringVar(&modeName, "mode", "watch-hot", "watch-hot | watch-many | lua | multi-incr")
	fs.IntVar(&o.keys, "keys", 1000, "number of counters for -mode watch-many")
	fs.StringVar(&o.prefix, "prefix", "watchbench", "key prefix of the counters")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-request network timeout")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "watchbench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	m, ok := parseMode(modeName)
	switch {
	case !ok:
		fmt.Fprintf(stderr, "watchbench: unknown -mode %q (want watch-hot, watch-many, lua or multi-incr)\n", modeName)
		return exitUsage
	case o.clients < 1:
		fmt.Fprintln(stderr, "watchbench: -clients must be at least 1")
		return exitUsage
	case o.duration <= 0:
		fmt.Fprintln(stderr, "watchbench: -duration must be positive")
		return exitUsage
	case o.keys < 1:
		fmt.Fprintln(stderr, "watchbench: -keys must be at least 1")
		return exitUsage
	}
	o.mode = m
	if m != modeWatchMany {
		o.keys = 1
	}

	res, err := bench(o)
	if err != nil {
		fmt.Fprintf(stderr, "watchbench: %v\n", err)
		return exitCmdError
	}
	res.print(stdout)
	switch {
	case res.errors > 0:
		fmt.Fprintf(stderr, "watchbench: %d errors; first: %v\n", res.errors, res.firstErr)
		return exitCmdError
	case !res.check.ok:
		fmt.Fprintf(stderr, "watchbench: LOST UPDATE: %s\n", res.check.detail)
		return exitLost
	}
	return exitOK
}
