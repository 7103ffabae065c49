package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Logging in redis-server's line format (Redis server.c serverLogRaw):
//
//	<pid>:<role> <dd Mon yyyy hh:mm:ss.mmm> <level> <message>
//
// role is C while the process starts (before the configuration is applied,
// as Redis prints it before server.pid is set) and M once it serves; level
// is one of ". - * #" for Redis's debug, verbose, notice and warning, which
// map to slog levels Debug-4, Debug, Info and Warn (Config.SlogLevel).
// Attributes, which Redis has none of, follow the message as key=value.

// RedisLogHandler is a slog.Handler that writes redis-server's log lines.
// It is safe for concurrent use; its level follows CONFIG SET loglevel once
// the server uses it (Server.New wires the apply step).
type RedisLogHandler struct {
	out   *logOutput
	level *slog.LevelVar
	attrs string // preformatted " k=v" pairs of WithAttrs
	group string
}

type logOutput struct {
	mu     sync.Mutex
	w      io.Writer
	pid    int
	role   atomic.Uint32 // 'C' or 'M'
	syslog func(level slog.Level, msg string)
}

// NewRedisLogHandler returns a handler writing to w at level and above,
// with role character 'C' until SetRole.
func NewRedisLogHandler(w io.Writer, level slog.Level) *RedisLogHandler {
	out := &logOutput{w: w, pid: os.Getpid()}
	out.role.Store('C')
	lv := new(slog.LevelVar)
	lv.Set(level)
	return &RedisLogHandler{out: out, level: lv}
}

// SetRole sets the role character of the following lines ('M' master).
func (h *RedisLogHandler) SetRole(role byte) { h.out.role.Store(uint32(role)) }

// SetSyslog sends every message written also to fn (syslog-enabled yes),
// without the line prefix. Set it before the handler is used.
func (h *RedisLogHandler) SetSyslog(fn func(level slog.Level, msg string)) { h.out.syslog = fn }

// SetLevel changes the lowest level written.
func (h *RedisLogHandler) SetLevel(l slog.Level) { h.level.Set(l) }

// Raw writes text as is (Redis's LL_RAW: the ASCII logo) if level is on.
func (h *RedisLogHandler) Raw(level slog.Level, text string) {
	if level < h.level.Level() {
		return
	}
	h.out.mu.Lock()
	io.WriteString(h.out.w, text)
	h.out.mu.Unlock()
}

// Enabled implements slog.Handler.
func (h *RedisLogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// levelChar maps a slog level to Redis's level character.
func levelChar(l slog.Level) byte {
	switch {
	case l < slog.LevelDebug:
		return '.'
	case l < slog.LevelInfo:
		return '-'
	case l < slog.LevelWarn:
		return '*'
	}
	return '#'
}

// Handle implements slog.Handler.
func (h *RedisLogHandler) Handle(_ context.Context, r slog.Record) error {
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	b := make([]byte, 0, 128)
	b = fmt.Appendf(b, "%d:%c ", h.out.pid, rune(h.out.role.Load()))
	b = t.AppendFormat(b, "02 Jan 2006 15:04:05.000")
	b = append(b, ' ', levelChar(r.Level), ' ')
	msgAt := len(b)
	b = append(b, r.Message...)
	b = append(b, h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		b = appendLogAttr(b, h.group, a)
		return true
	})
	b = append(b, '\n')
	h.out.mu.Lock()
	_, err := h.out.w.Write(b)
	h.out.mu.Unlock()
	if h.out.syslog != nil {
		h.out.syslog(r.Level, string(b[msgAt:len(b)-1]))
	}
	return err
}

func appendLogAttr(b []byte, group string, a slog.Attr) []byte {
	if a.Equal(slog.Attr{}) {
		return b
	}
	key := a.Key
	if group != "" {
		key = group + "." + key
	}
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		for _, g := range v.Group() {
			b = appendLogAttr(b, key, g)
		}
		return b
	}
	s := v.String()
	if strings.ContainsAny(s, " \"=\n") {
		s = fmt.Sprintf("%q", s)
	}
	return fmt.Appendf(b, " %s=%s", key, s)
}

// WithAttrs implements slog.Handler.
func (h *RedisLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	b := []byte(h.attrs)
	for _, a := range as {
		b = appendLogAttr(b, h.group, a)
	}
	h2.attrs = string(b)
	return &h2
}

// WithGroup implements slog.Handler.
func (h *RedisLogHandler) WithGroup(name string) slog.Handler {
	h2 := *h
	if h2.group != "" {
		name = h2.group + "." + name
	}
	h2.group = name
	return &h2
}

// Redis's ASCII logo (asciilogo.h) with miniwatchd's name and version where
// Redis prints its own; the Port and PID lines are what harnesses read.
const asciiLogo = `
                _._                                                  
           _.-` + "``" + `__ ''-._                                             
      _.-` + "``" + `    ` + "`" + `.  ` + "`" + `_.  ''-._           %s
  .-` + "``" + ` .-` + "```" + `.  ` + "```" + `\/    _.,_ ''-._                                  
 (    '      ,       .-` + "`" + `  | ` + "`" + `,    )     Running in %s mode
 |` + "`" + `-._` + "`" + `-...-` + "`" + ` __...-.` + "``" + `-._|'` + "`" + ` _.-'|     Port: %d
 |    ` + "`" + `-._   ` + "`" + `._    /     _.-'    |     PID: %d
  ` + "`" + `-._    ` + "`" + `-._  ` + "`" + `-./  _.-'    _.-'                                   
 |` + "`" + `-._` + "`" + `-._    ` + "`" + `-.__.-'    _.-'_.-'|                                  
 |    ` + "`" + `-._` + "`" + `-._        _.-'_.-'    |           %s
  ` + "`" + `-._    ` + "`" + `-._` + "`" + `-.__.-'_.-'    _.-'                                   
 |` + "`" + `-._` + "`" + `-._    ` + "`" + `-.__.-'    _.-'_.-'|                                  
 |    ` + "`" + `-._` + "`" + `-._        _.-'_.-'    |                                  
  ` + "`" + `-._    ` + "`" + `-._` + "`" + `-.__.-'_.-'    _.-'                                   
      ` + "`" + `-._    ` + "`" + `-.__.-'    _.-'                                       
          ` + "`" + `-._        _.-'                                           
              ` + "`" + `-.__.-'                                               

`

// LogoText returns the startup logo for a server on port with process id
// pid.
func LogoText(port, pid int) string {
	return fmt.Sprintf(asciiLogo, "miniwatchd "+Version+" (Redis "+RedisVersion+") 64 bit",
		"standalone", port, pid, "miniwatchd")
}

// applyLogLevel makes a RedisLogHandler follow CONFIG SET loglevel.
func applyLogLevel(s *Server) error {
	if h, ok := s.log.Handler().(*RedisLogHandler); ok {
		h.SetLevel(s.cfg.SlogLevel())
	}
	return nil
}

// Registration (one spot, to move into the wiring file): loglevel's apply
// step.
// logStartLocked registers loglevel's CONFIG SET hook.
func (s *Server) logStartLocked() { s.params.onApply(applyLogLevel, "loglevel") }
