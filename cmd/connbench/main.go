// Command connbench measures what connections cost a RESP server
// (miniwatchd, redis-server, ...): many idle clients held open, and the
// rate of short-lived ones.
//
//	connbench [-addr host:port] -mode idle -conns N [-workers W] [-hold D]
//	connbench [-addr host:port] -mode acceptping -conns N [-workers W]
//
// idle opens N connections (W dialing at once), sends one PING on each and
// waits for its PONG, then prints a line starting with "READY " and keeps
// them open, idle, until SIGTERM or SIGINT (or -hold is up). Then it sends
// one more PING on each to count the connections the server kept, closes
// them all and prints a line starting with "RESULT ". A caller measures
// the server between the two lines (its RSS, a redis-benchmark run beside
// the idle clients).
//
// acceptping makes N short-lived connections, W workers at a time, each
// connect, PING, PONG, close, and prints the rate as a RESULT line.
//
// READY and RESULT lines hold key=value fields for scripts:
//
//	READY mode=idle conns=10000 open_s=1.234
//	RESULT mode=idle conns=10000 open_s=1.234 alive=10000 errors=0
//	RESULT mode=acceptping conns=10000 workers=8 seconds=1.234 conns_per_s=8103.7 errors=0
//
// Exit status: 0 ok, 2 bad usage, 3 a connection failed or the server
// answered something other than PONG (the first error goes to stderr).
// The process needs a file descriptor per idle connection: raise ulimit -n.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, stopSignal()))
}

// Exit statuses.
const (
	exitOK    = 0
	exitUsage = 2
	exitError = 3
)

// options are the command-line settings.
type options struct {
	addr    string
	mode    string
	conns   int
	workers int
	hold    time.Duration // idle: 0 = until a signal
	timeout time.Duration
}

// parseArgs reads the flags; a non-nil error has been reported to stderr.
func parseArgs(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("connbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:6379", "server address host:port")
	fs.StringVar(&o.mode, "mode", "", "idle | acceptping")
	fs.IntVar(&o.conns, "conns", 10000, "connections to open")
	fs.IntVar(&o.workers, "workers", 8, "connections being opened at once")
	fs.DurationVar(&o.hold, "hold", 0, "idle: how long to hold the connections (0: until SIGTERM or SIGINT)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-connection dial and reply timeout")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.mode != "idle" && o.mode != "acceptping":
		err = fmt.Errorf("-mode must be idle or acceptping, not %q", o.mode)
	case o.conns < 1:
		err = fmt.Errorf("-conns must be at least 1")
	case o.workers < 1:
		err = fmt.Errorf("-workers must be at least 1")
	case o.hold < 0:
		err = fmt.Errorf("-hold must not be negative")
	case o.timeout <= 0:
		err = fmt.Errorf("-timeout must be positive")
	}
	if err != nil {
		fmt.Fprintf(stderr, "connbench: %v\n", err)
	}
	return o, err
}

// stopSignal returns a channel that receives SIGTERM and SIGINT.
func stopSignal() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	return ch
}

// run is connbench with arguments args; idle mode holds its connections
// until stop receives (or -hold is up). It returns the exit status.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		return exitUsage
	}
	var res *result
	if o.mode == "idle" {
		res = idle(o, stdout, stop)
	} else {
		res = acceptPing(o)
	}
	fmt.Fprintln(stdout, res.line())
	if res.errors > 0 {
		fmt.Fprintf(stderr, "connbench: %d errors; first: %v\n", res.errors, res.firstErr)
		return exitError
	}
	return exitOK
}
