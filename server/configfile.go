package server

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// This file reads configuration the way redis-server 7.0.15 does: the
// redis.conf format (src/config.c loadServerConfigFromString) and the
// command line (src/server.c main), which is turned into config lines.

// ConfigError is a fatal error in configuration text.
type ConfigError struct {
	Line   int    // 1-based line number; 0 when the error concerns no line
	Text   string // the line, trimmed
	Reason string // Redis's reason, e.g. "Bad directive or wrong number of arguments"
}

func (e *ConfigError) Error() string {
	if e.Line == 0 {
		return "config: " + e.Reason
	}
	return "config line " + strconv.Itoa(e.Line) + " '" + e.Text + "': " + e.Reason
}

// Report returns what redis-server prints on standard error for e before
// it exits with status 1.
func (e *ConfigError) Report() string {
	var b strings.Builder
	b.WriteString("\n*** FATAL CONFIG FILE ERROR (Redis " + RedisVersion + ") ***\n")
	if e.Line > 0 {
		b.WriteString("Reading the configuration file, at line " + strconv.Itoa(e.Line) + "\n")
		b.WriteString(">>> '" + e.Text + "'\n")
	}
	b.WriteString(e.Reason + "\n")
	return b.String()
}

// ConfigFileError is a config file (or an included one) that cannot be
// read. Redis logs its text and exits with status 1.
type ConfigFileError struct {
	Path string
	Err  error
}

func (e *ConfigFileError) Error() string {
	return "Fatal error, can't open config file '" + e.Path + "': " + strerror(e.Err)
}

func (e *ConfigFileError) Unwrap() error { return e.Err }

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
// allowed) and the deprecated directives Redis ignores. rename-command,
// user, loadmodule and module parameters are refused: miniwatchd has no
// command renaming, ACL users or modules. Errors are *ConfigError (or
// *ConfigFileError for an include that cannot be read), as Redis reports
// them; a log file that cannot be opened for appending is an error too.
func ParseConfig(text string, base Config) (Config, error) {
	p := &configParser{cfg: base.clone(), ctx: setContext{file: true}}
	if err := p.load(text, 0); err != nil {
		return base, err
	}
	if p.cfg.LogFile != "" {
		f, err := os.OpenFile(p.cfg.Resolve(p.cfg.LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return base, &ConfigError{Reason: "Can't open the log file: " + strerror(err)}
		}
		f.Close()
	}
	if p.cfg.Params["cluster-enabled"] == "yes" && p.cfg.Params["replicaof"] != "" {
		return base, &ConfigError{Reason: "replicaof directive not allowed in cluster mode"}
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
			return &ConfigError{Line: i + 1, Text: line, Reason: reason}
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
		return "ACL users are not supported by miniwatchd", nil
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

// readConfigFiles returns the text of the config file at path, or of every
// file a glob path matches (none is not an error), as Redis's
// loadServerConfig reads them.
func readConfigFiles(path string) (string, error) {
	if !strings.ContainsAny(path, "*?[") {
		data, err := os.ReadFile(path)
		if err != nil {
			return "", &ConfigFileError{Path: path, Err: err}
		}
		return fgetsText(data), nil
	}
	matches, _ := filepath.Glob(path)
	var b strings.Builder
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			return "", &ConfigFileError{Path: m, Err: err}
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

// CommandLine is a miniwatchd command line read as redis-server reads its
// own: miniwatchd [configfile] [--name value ...] [-].
type CommandLine struct {
	ConfigFile  string // absolute path of the config file; "" for none
	Stdin       bool   // "-": read more config from standard input
	Options     string // the --name value options as config lines
	NoArgs      bool   // no argument at all: defaults only
	Version     bool   // -v or --version
	Help        bool   // -h or --help
	Unsupported string // a redis-server mode miniwatchd lacks (--test-memory, ...)
}

// ParseCommandLine reads args (without the program name) as redis-server
// 7.0.15's main does. An option --name starts the line "name", and the
// words after it that do not start with "--" are its values (quoted as
// sdscatrepr quotes them); "--save" with no value means save "". A first
// argument not starting with '-' is the config file; "-" as first or last
// argument reads standard input.
func ParseCommandLine(args []string) CommandLine {
	var cl CommandLine
	if len(args) == 0 {
		cl.NoArgs = true
		return cl
	}
	switch args[0] {
	case "-v", "--version":
		cl.Version = true
		return cl
	case "-h", "--help":
		cl.Help = true
		return cl
	case "--test-memory", "--check-system":
		cl.Unsupported = args[0]
		return cl
	}
	for _, a := range args {
		if a == "--sentinel" {
			cl.Unsupported = a
			return cl
		}
	}
	j := 0
	if !strings.HasPrefix(args[0], "-") {
		cl.ConfigFile = absPath(args[0])
		j = 1
	}
	var opts strings.Builder
	handledLast := true
	for ; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "-" && (j == 0 || j == len(args)-1):
			cl.Stdin = true
		case handledLast && strings.HasPrefix(a, "--"):
			if opts.Len() > 0 {
				opts.WriteByte('\n')
			}
			opts.WriteString(a[2:])
			opts.WriteByte(' ')
			words, ok := protocol.SplitArgs([]byte(a))
			if ok && len(words) == 1 {
				// Only a name, like "--port": values follow.
				handledLast = false
				isSave := strings.EqualFold(a, "--save")
				if j != len(args)-1 && strings.HasPrefix(args[j+1], "--") && isSave {
					opts.WriteString(`""`)
					handledLast = true
				} else if j == len(args)-1 && isSave {
					opts.WriteString(`""`)
				}
			} else {
				// Name and value in one argument: "--port 6380".
				handledLast = true
			}
		default:
			opts.WriteString(quoteRepr(a))
			opts.WriteByte(' ')
			handledLast = true
		}
	}
	cl.Options = opts.String()
	return cl
}

// absPath is Redis's getAbsolutePath (cleaned, as filepath.Abs does).
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// quoteRepr quotes s as Redis's sdscatrepr does.
func quoteRepr(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c <= 0x7e {
				b = append(b, c)
			} else {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return string(append(b, '"'))
}

// LoadConfig builds the configuration of command line cl over
// DefaultConfig as redis-server does: the config file, then standard input
// if cl.Stdin, then the options, which win as they come last.
func LoadConfig(cl CommandLine, stdin io.Reader) (Config, error) {
	if cl.NoArgs {
		return DefaultConfig(), nil
	}
	var b strings.Builder
	if cl.ConfigFile != "" {
		text, err := readConfigFiles(cl.ConfigFile)
		if err != nil {
			return Config{}, err
		}
		b.WriteString(text)
	}
	if cl.Stdin && stdin != nil {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return Config{}, &ConfigFileError{Path: "-", Err: err}
		}
		b.WriteString(fgetsText(data))
	}
	b.WriteByte('\n')
	b.WriteString(cl.Options)
	return ParseConfig(b.String(), DefaultConfig())
}

// VersionText is what "miniwatchd --version" prints (redis-server's
// version line, adapted).
func VersionText() string {
	return "miniwatchd v=" + Version + " redis=" + RedisVersion + " bits=" +
		strconv.Itoa(strconv.IntSize) + " go=" + runtime.Version() + "\n"
}

// UsageText is what "miniwatchd --help" prints on standard error (it then
// exits 1, as redis-server does). prog is the program name.
func UsageText(prog string) string {
	return "Usage: " + prog + " [/path/to/redis.conf] [options] [-]\n" +
		"       " + prog + " - (read config from stdin)\n" +
		"       " + prog + " -v or --version\n" +
		"       " + prog + " -h or --help\n\n" +
		"Examples:\n" +
		"       " + prog + " (run the server with default conf)\n" +
		"       echo 'maxmemory 128mb' | " + prog + " -\n" +
		"       " + prog + " /etc/redis/6379.conf\n" +
		"       " + prog + " --port 7777\n" +
		"       " + prog + " --port 7777 --save \"\" --notify-keyspace-events KEA\n" +
		"       " + prog + " /etc/myredis.conf --loglevel verbose -\n" +
		"       " + prog + " /etc/myredis.conf --loglevel verbose\n"
}
