package main

import (
	"log/slog"
	"log/syslog"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/miniwatchd/miniwatchd/server"
)

// supervised (Redis server.c redisSupervisedSystemd/Upstart): with
// "supervised systemd" (or "auto" and NOTIFY_SOCKET set) the server tells
// systemd it is ready and, at exit, that it is stopping; with "upstart" (or
// "auto" and UPSTART_JOB set) it stops itself with SIGSTOP once ready, which
// is how upstart's "expect stop" learns it is ready.

// supervisedMode resolves the supervised setting to "systemd", "upstart"
// or "".
func supervisedMode(v string) string {
	switch v {
	case "systemd", "upstart":
		return v
	case "auto":
		if os.Getenv("UPSTART_JOB") != "" {
			return "upstart"
		}
		if os.Getenv("NOTIFY_SOCKET") != "" {
			return "systemd"
		}
	}
	return ""
}

// notifySupervisor reports readiness to the supervisor.
func notifySupervisor(mode string, log *slog.Logger) {
	switch mode {
	case "systemd":
		log.Info("supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.")
		systemdNotify("STATUS=Ready to accept connections\nREADY=1\n", log)
	case "upstart":
		log.Info("supervised by upstart, will stop to signal readiness.")
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		os.Unsetenv("UPSTART_JOB")
	}
}

// systemdNotify sends one sd_notify message to NOTIFY_SOCKET.
func systemdNotify(msg string, log *slog.Logger) {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		log.Warn("systemd supervision requested or auto-detected, but NOTIFY_SOCKET environment variable is not set")
		return
	}
	if strings.HasPrefix(path, "@") {
		path = "\x00" + path[1:] // abstract namespace
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		log.Warn("Can't connect to systemd socket " + os.Getenv("NOTIFY_SOCKET"))
		return
	}
	defer c.Close()
	c.Write([]byte(msg))
}

// syslogWriter sends the log to syslog too when syslog-enabled is yes,
// with syslog-ident and syslog-facility, at the priorities of Redis's
// syslogLevelMap (debug, info, notice, warning).
func syslogWriter(h *server.RedisLogHandler, cfg server.Config, log *slog.Logger) {
	if cfg.Params["syslog-enabled"] != "yes" {
		return
	}
	ident := "redis"
	if v, ok := cfg.Params["syslog-ident"]; ok {
		ident = v
	}
	facility := syslog.LOG_LOCAL0
	if v, ok := cfg.Params["syslog-facility"]; ok {
		facility = map[string]syslog.Priority{"user": syslog.LOG_USER, "local0": syslog.LOG_LOCAL0,
			"local1": syslog.LOG_LOCAL1, "local2": syslog.LOG_LOCAL2, "local3": syslog.LOG_LOCAL3,
			"local4": syslog.LOG_LOCAL4, "local5": syslog.LOG_LOCAL5, "local6": syslog.LOG_LOCAL6,
			"local7": syslog.LOG_LOCAL7}[v]
	}
	w, err := syslog.New(facility|syslog.LOG_NOTICE, ident)
	if err != nil {
		log.Warn("Can't open syslog: " + err.Error())
		return
	}
	h.SetSyslog(func(l slog.Level, msg string) {
		switch {
		case l < slog.LevelDebug:
			w.Debug(msg)
		case l < slog.LevelInfo:
			w.Info(msg)
		case l < slog.LevelWarn:
			w.Notice(msg)
		default:
			w.Warning(msg)
		}
	})
}
