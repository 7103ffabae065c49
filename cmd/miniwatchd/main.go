// Command miniwatchd runs an in-memory server that behaves like
// redis-server 7.0.15 and takes the same command line:
//
//	miniwatchd [/path/to/redis.conf] [--name value ...] [-]
//
// The config file and the --name value options use redis.conf's syntax and
// parameters (see package server: ParseCommandLine, LoadConfig). SIGINT and
// SIGTERM stop the server. "daemonize yes" is accepted but ignored:
// miniwatchd always stays in the foreground.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/server"
)

func main() {
	// Like Redis, miniwatchd serves every client from one event loop under
	// one engine lock; a second processor only adds scheduler traffic
	// (spinning threads, hand-offs) to each request. GOMAXPROCS in the
	// environment overrides this.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil))
}

// run is miniwatchd with arguments args; it returns the exit status once
// the server has stopped. If started is not nil it receives the server once
// it listens.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, started chan<- *server.Server) int {
	cl := server.ParseCommandLine(args)
	switch {
	case cl.Version:
		fmt.Fprint(stdout, server.VersionText())
		return 0
	case cl.Help:
		fmt.Fprint(stderr, server.UsageText("miniwatchd"))
		return 1
	case cl.Unsupported != "":
		fmt.Fprintf(stderr, "miniwatchd does not support %s\n", cl.Unsupported)
		return 1
	}
	cfg, err := server.LoadConfig(cl, stdin)
	if err != nil {
		var ce *server.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprint(stderr, ce.Report())
		} else {
			slog.New(slog.NewTextHandler(stdout, nil)).Error(err.Error())
		}
		return 1
	}

	out := stdout
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.Resolve(cfg.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "Can't open the log file: %v\n", err)
			return 1
		}
		defer f.Close()
		out = f
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	cfg.Logger = log
	cfg.BusyPoll = server.BusyPollDefault()
	if v := os.Getenv("MINIWATCHD_BUSY_POLL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fmt.Fprintf(stderr, "MINIWATCHD_BUSY_POLL: want a duration such as 50us or 0, got %q\n", v)
			return 1
		}
		cfg.BusyPoll = d
	}

	log.Warn("oO0OoO0OoO0Oo miniwatchd is starting oO0OoO0OoO0Oo")
	log.Warn("miniwatchd started", "version", server.Version, "redis_version", server.RedisVersion, "pid", os.Getpid())
	if cl.NoArgs {
		log.Warn("Warning: no config file specified, using the default config. " +
			"In order to specify a config file use miniwatchd /path/to/redis.conf")
	} else {
		log.Warn("Configuration loaded")
	}
	if cfg.Daemonize {
		log.Warn("daemonize yes is ignored: miniwatchd always runs in the foreground")
	}

	s, err := server.New(cfg)
	if err != nil {
		log.Error("Fatal error creating the server", "err", err)
		return 1
	}
	if err := s.Listen(); err != nil {
		log.Warn("Could not create server TCP listening socket", "err", err)
		log.Warn(fmt.Sprintf("Failed listening on port %d (TCP), aborting.", cfg.Port))
		return 1
	}
	log.Warn("Server initialized")
	if cfg.MaxMemory > 0 && cfg.MaxMemory < 1<<20 {
		log.Warn(fmt.Sprintf("WARNING: You specified a maxmemory value that is less than 1MB "+
			"(current value is %d bytes). Are you sure this is what you really want?", cfg.MaxMemory))
	}
	log.Info("Ready to accept connections", "addr", s.Addr().String())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		select {
		case got := <-sig:
			name := "SIGTERM"
			if got == syscall.SIGINT {
				name = "SIGINT"
			}
			log.Warn("Received " + name + " scheduling shutdown...")
			s.Close()
		case <-s.Done():
		}
	}()
	if started != nil {
		started <- s
	}
	if err := s.Serve(); err != nil {
		log.Error("serve failed", "err", err)
		return 1
	}
	log.Warn("miniwatchd is now ready to exit, bye bye...")
	stopProfile()
	return 0
}

// stopProfile ends profiling in builds with the pprof tag (see pprof.go).
var stopProfile = func() {}
