package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// This file reads configuration the way redis-server 7.0.15 does: the
// redis.conf format (src/config.c loadServerConfigFromString) and its
// include directive (cmdline.go reads the command line).

// Error is a fatal error in configuration text.
type Error struct {
	Line   int    // 1-based line number; 0 when the error concerns no line
	Text   string // the line, trimmed
	Reason string // Redis's reason, e.g. "Bad directive or wrong number of arguments"
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "config: " + e.Reason
	}
	return "config line " + strconv.Itoa(e.Line) + " '" + e.Text + "': " + e.Reason
}

// Report returns what redis-server prints on standard error for e before
// it exits with status 1.
func (e *Error) Report() string {
	var b strings.Builder
	b.WriteString("\n*** FATAL CONFIG FILE ERROR (Redis " + RedisVersion + ") ***\n")
	if e.Line > 0 {
		b.WriteString("Reading the configuration file, at line " + strconv.Itoa(e.Line) + "\n")
		b.WriteString(">>> '" + e.Text + "'\n")
	}
	b.WriteString(e.Reason + "\n")
	return b.String()
}

// FileError is a config file (or an included one) that cannot be
// read. Redis logs its text and exits with status 1.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return "Fatal error, can't open config file '" + e.Path + "': " + protocol.Strerror(e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// maxIncludeDepth bounds nested include directives (Redis recurses until
// its stack overflows).
const maxIncludeDepth = 64

// deprecatedDirectives are accepted and ignored when given one value.
var deprecatedDirectives = map[string]bool{
	"list-max-ziplist-entries": true,
	"list-max-ziplist-value":   true,
	"lua-replicate-commands":   true,
}

// ParseConfig applies redis.conf-format text to base and returns the
// result; base itself is not changed. Every Redis 7.0.15 parameter is
// accepted with Redis's syntax and checks (immutable ones included), as
// are include (relative paths are taken from the dir set so far, globs
// allowed), "user" directives (kept in Users, checked by base.CheckUser)
// and the deprecated directives Redis ignores. rename-command, loadmodule
// and module parameters are refused: miniwatchd has no command renaming
// or modules. Errors are *Error (or
// *FileError for an include that cannot be read), as Redis reports
// them; a log file that cannot be opened for appending is an error too.
func ParseConfig(text string, base Config) (Config, error) {
	p := &configParser{cfg: base.Clone(), ctx: setContext{file: true}}
	if err := p.load(text, 0); err != nil {
		return base, err
	}
	if p.cfg.LogFile != "" {
		f, err := os.OpenFile(p.cfg.Resolve(p.cfg.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return base, &Error{Reason: "Can't open the log file: " + protocol.Strerror(err)}
		}
		f.Close()
	}
	if p.cfg.Params["cluster-enabled"] == "yes" && p.cfg.Params["replicaof"] != "" {
		return base, &Error{Reason: "replicaof directive not allowed in cluster mode"}
	}
	p.cfg.Hz = clampHz(p.cfg.Hz)
	return p.cfg, nil
}

// Resolve returns path p taken relative to the configured working
// directory (dir), as Redis opens files after changing into it.
func (c *Config) Resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(currentDir(c), p)
}

type configParser struct {
	cfg Config
	ctx setContext
}

// load parses text, one directive per line.
func (p *configParser) load(text string, depth int) error {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i] // Redis splits the C string
	}
	if text == "" {
		return nil
	}
	for i, raw := range strings.Split(text, "\n") {
		line := strings.Trim(raw, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		if reason, err := p.directive(line, depth); err != nil {
			return err
		} else if reason != "" {
			return &Error{Line: i + 1, Text: line, Reason: reason}
		}
	}
	return nil
}

// directive applies one line; it returns the reason of a failure in this
// line, or an error from an included file.
func (p *configParser) directive(line string, depth int) (string, error) {
	argv, ok := protocol.SplitArgs([]byte(line))
	if !ok {
		return "Unbalanced quotes in configuration line", nil
	}
	if len(argv) == 0 {
		return "", nil
	}
	name := asciiLower(string(argv[0]))
	args := make([]string, len(argv)-1)
	for i, a := range argv[1:] {
		args[i] = string(a)
	}
	if e := paramIndex.byName[name]; e != nil {
		multi := e.def.flags&paramMultiArg != 0
		if !multi && len(args) != 1 {
			return "wrong number of arguments", nil
		}
		if multi && len(args) == 1 && args[0] != "" {
			// One non-empty value of a multi-word parameter is split
			// again (save "900 1 300 10"); unbalanced quotes in it give
			// no words at all, as in Redis.
			words, _ := protocol.SplitArgs([]byte(args[0]))
			args = args[:0]
			for _, w := range words {
				args = append(args, string(w))
			}
		}
		_, reason := e.def.setValue(&p.cfg, args, &p.ctx)
		return reason, nil
	}
	if deprecatedDirectives[name] && len(args) == 1 {
		return "", nil
	}
	switch {
	case name == "include" && len(args) == 1:
		if depth >= maxIncludeDepth {
			return "include nesting is too deep", nil
		}
		text, err := readConfigFiles(p.cfg.Resolve(args[0]))
		if err != nil {
			return "", err
		}
		return "", p.load(text, depth+1)
	case name == "rename-command" && len(args) == 2:
		return "rename-command is not supported by miniwatchd", nil
	case name == "user" && len(args) >= 1:
		return p.user(argv), nil
	case name == "loadmodule" && len(args) >= 1:
		return "modules are not supported by miniwatchd", nil
	case strings.IndexByte(name, '.') >= 0:
		if len(args) != 1 {
			return "Module config specified without value", nil
		}
		return "modules are not supported by miniwatchd", nil
	case name == "sentinel":
		if len(args) != 0 {
			return "sentinel directive while not in sentinel mode", nil
		}
		return "", nil
	}
	return "Bad directive or wrong number of arguments", nil
}

// user records a "user" directive (loadServerConfigFromString's user
// branch): a name given twice, then the rules CheckUser refuses, fail as
// "Error in user declaration '<arg>': <reason>".
func (p *configParser) user(argv [][]byte) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = string(a)
	}
	for _, u := range p.cfg.Users {
		if u[0] == words[1] {
			return "Error in user declaration '" + words[1] + "': Duplicate user found. A user can only be defined once in config files"
		}
	}
	rules := words[2:]
	if p.cfg.CheckUser != nil {
		merged, bad, reason := p.cfg.CheckUser(&p.cfg, words)
		if reason != "" {
			return "Error in user declaration '" + bad + "': " + reason
		}
		rules = merged
	}
	p.cfg.Users = append(p.cfg.Users, append([]string{words[1]}, rules...))
	return ""
}

// readConfigFiles returns the text of the config file at path, or of every
// file a glob path matches (none is not an error), as Redis's
// loadServerConfig reads them.
func readConfigFiles(path string) (string, error) {
	if !strings.ContainsAny(path, "*?[") {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", &FileError{Path: path, Err: err}
		}
		return fgetsText(data), nil
	}
	matches, _ := filepath.Glob(path)
	var b strings.Builder
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return "", &FileError{Path: m, Err: err}
		}
		b.WriteString(fgetsText(data))
	}
	return b.String(), nil
}

// fgetsText is what Redis's fgets/sdscat loop keeps of a file: each chunk
// of at most 1024 bytes (or up to a newline) is cut at its first NUL.
func fgetsText(data []byte) string {
	if bytes.IndexByte(data, 0) < 0 {
		return string(data)
	}
	var b strings.Builder
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 || n > 1024 {
			n = min(len(data), 1024)
		}
		chunk := data[:n]
		data = data[n:]
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			chunk = chunk[:i]
		}
		b.Write(chunk)
	}
	return b.String()
}
