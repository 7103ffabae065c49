// Command miniwatchd runs an in-memory server that behaves like
// redis-server 7.0.15 and takes the same command line:
//
//	miniwatchd [/path/to/redis.conf] [--name value ...] [-]
//
// The config file and the --name value options use redis.conf's syntax and
// parameters (see package server: ParseCommandLine, LoadConfig). SIGINT and
// SIGTERM stop the server. The log uses redis-server's line format and key
// lines ("Server initialized", "Ready to accept connections tcp"), with the
// logo (its "Port:" and "PID:" lines) when always-show-logo is yes or
// stdout is a terminal. pidfile is written once the listeners are open and
// removed at exit; "daemonize yes" runs the server as a detached child
// process (Go cannot fork) and returns once that child is ready.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/server"
)

func main() {
	// Like Redis, miniwatchd serves every client from one event loop under
	// one engine lock. It runs on two processors when two CPUs are
	// available: the event loop sleeps in epoll_wait holding one, the other
	// runs everything else (accepting, cron, timers) meanwhile (see
	// internal/poll); more would only add scheduler traffic (spinning
	// threads, hand-offs) to each request. GOMAXPROCS in the environment
	// overrides this.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(server.Processors())
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
	var stdinCopy bytes.Buffer // for a daemonized child, which reads it again
	if stdin != nil {
		stdin = io.TeeReader(stdin, &stdinCopy)
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

	if cfg.Daemonize && os.Getenv(daemonReadyEnv) == "" {
		return daemonize(args, stdinCopy.Bytes(), cl.Stdin, stderr)
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
	h := server.NewRedisLogHandler(out, cfg.SlogLevel())
	log := slog.New(h)
	syslogWriter(h, cfg, log)
	cfg.Logger = log
	if server.Processors() >= 2 {
		cfg.BusyPoll = server.DefaultBusyPoll
	}
	if v := os.Getenv("MINIWATCHD_BUSY_POLL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fmt.Fprintf(stderr, "MINIWATCHD_BUSY_POLL: want a duration such as 50us or 0, got %q\n", v)
			return 1
		}
		cfg.BusyPoll = d
	}

	pid := os.Getpid()
	if cl.Stdin {
		log.Warn("Reading config from stdin")
	}
	log.Warn("oO0OoO0OoO0Oo miniwatchd is starting oO0OoO0OoO0Oo")
	log.Warn(fmt.Sprintf("miniwatchd version=%s, redis_version=%s, bits=64, pid=%d, just started", server.Version, server.RedisVersion, pid))
	if cl.NoArgs {
		log.Warn("Warning: no config file specified, using the default config. " +
			"In order to specify a config file use miniwatchd /path/to/redis.conf")
	} else {
		log.Warn("Configuration loaded")
	}
	h.SetRole('M')

	// cluster-emulate N: N cluster nodes in this process (cluster.go).
	cfgs, err := server.EmulatedClusterConfigs(cfg)
	if err != nil {
		log.Warn("Fatal error creating the server: " + err.Error())
		return 1
	}
	cfg = cfgs[0]
	peers, err := startPeers(cfgs[1:])
	if err != nil {
		log.Warn("Fatal error creating the server: " + err.Error())
		return 1
	}
	defer func() {
		for _, p := range peers {
			p.Close()
		}
	}()
	s, err := server.New(cfg)
	if err != nil {
		log.Warn("Fatal error creating the server: " + err.Error())
		return 1
	}
	s.SetConfigFile(cl.ConfigFile)
	if err := s.Listen(); err != nil {
		log.Warn("Could not create server listening socket: " + err.Error())
		log.Warn(fmt.Sprintf("Failed listening on port %d (TCP), aborting.", cfg.Port))
		return 1
	}
	port := 0
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		port = a.Port
	}
	pidfile := cfg.Params["pidfile"]
	if pidfile == "" && cfg.Daemonize {
		pidfile = "/var/run/redis.pid" // Redis's CONFIG_DEFAULT_PID_FILE
	}
	if pidfile != "" {
		pidfile = cfg.Resolve(pidfile)
		if err := os.WriteFile(pidfile, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
			log.Warn("Failed to write PID file: " + pidErr(err))
			pidfile = ""
		}
	}
	showLogo := cfg.Params["always-show-logo"] == "yes" || (cfg.LogFile == "" && isTerminal(stdout))
	if showLogo {
		h.Raw(slog.LevelInfo, server.LogoText(port, pid))
	} else {
		mode := "standalone"
		if cfg.Params["cluster-enabled"] == "yes" {
			mode = "cluster"
		}
		log.Info(fmt.Sprintf("Running mode=%s, port=%d.", mode, port))
	}
	log.Warn("Server initialized")
	if cfg.MaxMemory > 0 && cfg.MaxMemory < 1<<20 {
		log.Warn(fmt.Sprintf("WARNING: You specified a maxmemory value that is less than 1MB "+
			"(current value is %d bytes). Are you sure this is what you really want?", cfg.MaxMemory))
	}
	if port != 0 {
		log.Info("Ready to accept connections tcp")
	}
	if sock := cfg.Params["unixsocket"]; sock != "" {
		log.Info("The server is now ready to accept connections at " + sock)
	}
	notifyDaemonParent()
	supervised := supervisedMode(cfg.Params["supervised"])
	notifySupervisor(supervised, log)

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
			log.Warn("User requested shutdown...")
			s.Close()
		case <-s.Done():
		}
	}()
	if started != nil {
		started <- s
	}
	if err := s.Serve(); err != nil {
		log.Warn("serve failed: " + err.Error())
		return 1
	}
	if supervised == "systemd" {
		systemdNotify("STOPPING=1\n", log)
	}
	if pidfile != "" {
		log.Info("Removing the pid file.")
		os.Remove(pidfile)
	}
	if cfg.Params["unixsocket"] != "" {
		log.Info("Removing the unix socket file.")
	}
	log.Warn("miniwatchd is now ready to exit, bye bye...")
	stopProfile()
	return 0
}

// startPeers starts the other nodes of an emulated cluster, each listening
// on its own port.
func startPeers(cfgs []server.Config) ([]*server.Server, error) {
	var peers []*server.Server
	for _, c := range cfgs {
		p, err := server.New(c)
		if err == nil {
			err = p.Listen()
		}
		if err != nil {
			for _, q := range peers {
				q.Close()
			}
			return nil, fmt.Errorf("cluster-emulate: node on port %d: %v", c.Port, err)
		}
		go p.Serve()
		peers = append(peers, p)
	}
	return peers, nil
}

// pidErr is the strerror text of a pid file error.
func pidErr(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// isTerminal reports whether w is a terminal (the logo is shown on one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// stopProfile ends profiling in builds with the pprof tag (see pprof.go).
var stopProfile = func() {}
