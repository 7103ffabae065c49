package server

import (
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/config"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The configuration lives in package config (the parameter table, its
// parsing and printing rules, the config file and command line readers,
// and the CONFIG GET/SET registry). This file keeps the names cmd/ and the
// tests know from server, and binds the registry's apply steps to the
// Server.

// Config and the types of its fields; see package config.
type (
	Config            = config.Config
	SaveParam         = config.SaveParam
	OutputBufferLimit = config.OutputBufferLimit
	NotifyFlags       = config.NotifyFlags
	ConfigError       = config.Error
	ConfigFileError   = config.FileError
	CommandLine       = config.CommandLine
)

// Client classes of Config.ClientOutputBufferLimit, in Redis's order.
const (
	OutputBufferNormal  = config.OutputBufferNormal
	OutputBufferReplica = config.OutputBufferReplica
	OutputBufferPubSub  = config.OutputBufferPubSub
)

// Notification flags (Config.NotifyKeyspaceEvents); see config.NotifyFlags.
const (
	NotifyKeyspace = config.NotifyKeyspace
	NotifyKeyevent = config.NotifyKeyevent
	NotifyGeneric  = config.NotifyGeneric
	NotifyString   = config.NotifyString
	NotifyList     = config.NotifyList
	NotifySet      = config.NotifySet
	NotifyHash     = config.NotifyHash
	NotifyZSet     = config.NotifyZSet
	NotifyExpired  = config.NotifyExpired
	NotifyEvicted  = config.NotifyEvicted
	NotifyStream   = config.NotifyStream
	NotifyKeyMiss  = config.NotifyKeyMiss
	NotifyModule   = config.NotifyModule
	NotifyNew      = config.NotifyNew
	NotifyAll      = config.NotifyAll
)

// DefaultConfig returns the defaults of redis-server 7.0.15 started without
// a config file, except Bind and EnableDebugCommand (config.DefaultConfig).
func DefaultConfig() Config { return config.DefaultConfig() }

// ParseConfig applies redis.conf-format text to base (config.ParseConfig),
// "user" directives checked as Redis checks them.
func ParseConfig(text string, base Config) (Config, error) {
	if base.CheckUser == nil {
		base.CheckUser = aclCheckUserDirective
	}
	return config.ParseConfig(text, base)
}

// ParseCommandLine reads a command line as redis-server does
// (config.ParseCommandLine).
func ParseCommandLine(args []string) CommandLine { return config.ParseCommandLine(args) }

// LoadConfig builds the configuration of a command line
// (config.LoadConfigFrom), "user" directives checked as Redis checks them.
func LoadConfig(cl CommandLine, stdin io.Reader) (Config, error) {
	base := config.DefaultConfig()
	base.CheckUser = aclCheckUserDirective
	return config.LoadConfigFrom(cl, stdin, base)
}

// ParseNotifyFlags parses a notify-keyspace-events value
// (config.ParseNotifyFlags).
func ParseNotifyFlags(s string) (NotifyFlags, bool) { return config.ParseNotifyFlags(s) }

// paramRegistry is the server's config.Registry over s.cfg: apply steps
// registered with onApply get the Server. Its methods expect the engine
// lock held.
type paramRegistry struct {
	*config.Registry
	s *Server
}

// newParamRegistry returns the registry of s (config.NewRegistry gives
// s.cfg its own copy of the slices and map it shares with the Config
// passed to New).
func newParamRegistry(s *Server) *paramRegistry {
	return &paramRegistry{Registry: config.NewRegistry(&s.cfg, s.log), s: s}
}

// onApply registers fn to run after a CONFIG SET changed any of the named
// parameters (config.Registry.OnApply).
func (r *paramRegistry) onApply(fn func(s *Server) error, names ...string) {
	r.OnApply(func() error { return fn(r.s) }, names...)
}

// get runs CONFIG GET (config.Registry.Get).
func (r *paramRegistry) get(patterns [][]byte, emit func(name, value string)) {
	r.Get(patterns, emit)
}

// setFrom runs CONFIG SET for a client that is local or not
// (config.Registry.Set).
func (r *paramRegistry) setFrom(args [][]byte, local bool) error { return r.Set(args, local) }

// set runs CONFIG SET for a client that is not local.
func (r *paramRegistry) set(args [][]byte) error { return r.Set(args, false) }

// names lists every parameter in table order (config.Params).
func (r *paramRegistry) names() []config.ParamInfo { return config.Params() }

// paramOr returns the CONFIG GET text of a parameter without typed field
// (config.Config.ParamOr).
func paramOr(c *Config, name, def string) string { return c.ParamOr(name, def) }

// strerror renders err as glibc's strerror does (protocol.Strerror).
func strerror(err error) string { return protocol.Strerror(err) }

// cstr cuts s at its first NUL byte, as a C string ends there.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
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
