package config

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// This file reads the command line the way redis-server 7.0.15's main
// (src/server.c) does: it is turned into config lines for ParseConfig.

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
		cl.ConfigFile = AbsPath(args[0])
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

// AbsPath is Redis's getAbsolutePath (cleaned, as filepath.Abs does).
func AbsPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// quoteRepr quotes s as Redis's sdscatrepr does.
func quoteRepr(s string) string { return string(protocol.AppendRepr(nil, s)) }

// LoadConfig builds the configuration of command line cl over
// DefaultConfig as redis-server does: the config file, then standard input
// if cl.Stdin, then the options, which win as they come last.
func LoadConfig(cl CommandLine, stdin io.Reader) (Config, error) {
	return LoadConfigFrom(cl, stdin, DefaultConfig())
}

// LoadConfigFrom is LoadConfig starting from base instead of the
// defaults (the server sets base.CheckUser).
func LoadConfigFrom(cl CommandLine, stdin io.Reader, base Config) (Config, error) {
	if cl.NoArgs {
		return base, nil
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
			return Config{}, &FileError{Path: "-", Err: err}
		}
		b.WriteString(fgetsText(data))
	}
	b.WriteByte('\n')
	b.WriteString(cl.Options)
	return ParseConfig(b.String(), base)
}
