package config

import (
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/miniwatchd/miniwatchd/expire"
)

// RedisVersion is the Redis release whose parameter table, parsing rules
// and error texts this package reproduces.
const RedisVersion = "7.0.15"

// Config holds the settings that change the server's behaviour. Field names
// follow redis.conf; cmd/miniwatchd fills it from flags and a config file
// (ParseConfig), CONFIG GET/SET read and write it (under the engine lock)
// through the parameter Registry.
//
// The typed fields below are the parameters the server acts on (or reports
// in INFO). Every other Redis 7.0.15 parameter is accepted, validated and
// kept as its CONFIG GET text in Params; the table (params_*.go) marks which
// is which.
type Config struct {
	Bind            []string // addresses to listen on (default 127.0.0.1)
	Port            int      // TCP port (default 6379; 0 picks a free port)
	Databases       int      // number of logical databases (default 16)
	RequirePass     string   // password of the default user ("" = none)
	MaxClients      int      // maxclients
	Timeout         int      // idle client timeout in seconds (0 = never)
	Hz              int      // background task frequency (active expiry), 1..500
	ProtoMaxBulkLen int64    // largest bulk string accepted from clients
	// EnableDebugCommand is "no", "yes" or "local" as in Redis 7.0. Unlike
	// Redis (default "no") we default to "yes": a test double must let
	// tests drive the clock and the expiry cycle.
	EnableDebugCommand string
	Logger             *slog.Logger
	// Clock, when not nil, is the server's clock (not a Redis parameter):
	// servers given the same Clock read and move one time (the nodes of an
	// embedded emulated cluster share one). nil: a clock of its own.
	Clock *expire.Clock
	// BusyPoll is how long the event loop polls its sockets before it
	// sleeps, while requests arrive back to back (not a Redis parameter:
	// the MINIWATCHD_BUSY_POLL environment variable sets it for
	// cmd/miniwatchd; 0, the default, never polls). Linux only.
	BusyPoll time.Duration

	// Memory limit and eviction.
	MaxMemory                 uint64 // bytes; 0 = no limit
	MaxMemoryPolicy           string // maxmemory-policy name, e.g. "noeviction"
	MaxMemorySamples          int
	MaxMemoryEvictionTenacity int // 0..100
	LFULogFactor              int
	LFUDecayTime              int // minutes

	// NotifyKeyspaceEvents selects the keyspace notifications (K, E and the
	// event classes); its String is what CONFIG GET prints.
	NotifyKeyspaceEvents NotifyFlags

	BusyReplyThreshold int64 // busy-reply-threshold (lua-time-limit), ms
	ActiveExpireEffort int   // 1..10

	// Persistence. Save is accepted, validated and reported only (no RDB
	// files); the AOF settings act (aof.go).
	Save                     []SaveParam // save points; empty = "save ''"
	AppendOnly               bool        // log every write to the AOF
	AppendFsync              string      // everysec, always or no
	AppendDirName            string      // the AOF directory, inside Dir
	AppendFilename           string      // prefix of the AOF file names
	Dir                      string      // working directory; "" = the process's
	AOFLoadTruncated         bool        // load an AOF whose last command is incomplete
	AutoAOFRewritePercentage int         // rewrite when the AOF grew by this much (0: never)
	AutoAOFRewriteMinSize    int64       // ... and is at least this big

	// ClientOutputBufferLimit is indexed by OutputBufferNormal,
	// OutputBufferReplica and OutputBufferPubSub.
	ClientOutputBufferLimit [3]OutputBufferLimit
	TrackingTableMaxKeys    int64

	// Encoding thresholds (OBJECT ENCODING).
	HashMaxListpackEntries int64
	HashMaxListpackValue   int64
	SetMaxIntsetEntries    int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
	HLLSparseMaxBytes      int64 // hll-sparse-max-bytes: largest sparse HyperLogLog
	ListMaxListpackSize    int
	ListCompressDepth      int

	// Lazy freeing (no effect on replies; reported by CONFIG GET).
	LazyfreeLazyEviction  bool
	LazyfreeLazyExpire    bool
	LazyfreeLazyServerDel bool
	LazyfreeLazyUserDel   bool
	LazyfreeLazyUserFlush bool

	// WATCH observability (parameters of our own, hidden from CONFIG GET
	// patterns so CONFIG GET * stays Redis's; params_ours.go).
	WatchCompat      string // watch-compat: redis-7.0 (default), redis-7.2, redis-7.4, valkey-8
	WatchHotKeysSize int    // watch-hotkeys-size: entries of the hot watched keys summary
	WatchAbortEvents bool   // watch-abort-events: publish every aborted EXEC on __watch__:aborts

	LogLevel string // debug, verbose, notice or warning
	LogFile  string // "" = standard output
	// LoadFixture is a file of redis-cli-style command lines run once the
	// data is loaded, before the first client (load, ours: --load FILE).
	LoadFixture string
	// Daemonize is accepted for compatibility with redis.conf files, but
	// miniwatchd never forks into the background.
	Daemonize bool

	// Users are the "user" directives, in order: each is the user name
	// followed by its rules, selectors given over several words merged
	// into one rule (Redis's UsersToLoad). The server creates them at
	// start (ACLLoadUsersAtStartup).
	Users [][]string
	// CheckUser validates a "user" directive (argv[0] is "user") as
	// Redis's ACLAppendUserForLoading does: it returns the rules with
	// selectors merged, or the argument Redis names in "Error in user
	// declaration '<arg>': <reason>". nil accepts every rule as given; the
	// server package's LoadConfig and ParseConfig set it.
	// It gets the configuration parsed so far (acl-pubsub-default counts).
	CheckUser func(cfg *Config, argv []string) (merged []string, badArg, reason string)

	// Params holds the CONFIG GET text of every parameter without a typed
	// field whose value differs from its default, keyed by primary name.
	// Treat it as read-only: the parser and the registry copy it before
	// they change it.
	Params map[string]string
}

// SaveParam is one "save <seconds> <changes>" point.
type SaveParam struct {
	Seconds int64
	Changes int
}

// OutputBufferLimit is one client class of client-output-buffer-limit.
type OutputBufferLimit struct {
	Hard, Soft  uint64 // bytes; 0 = no limit
	SoftSeconds int64
}

// Client classes of ClientOutputBufferLimit, in Redis's order.
const (
	OutputBufferNormal = iota
	OutputBufferReplica
	OutputBufferPubSub
)

// DefaultConfig returns the defaults of redis-server 7.0.15 started without
// a config file, except Bind (127.0.0.1 instead of "* -::*") and
// EnableDebugCommand (see above).
func DefaultConfig() Config {
	return Config{
		Bind:               []string{"127.0.0.1"},
		Port:               6379,
		Databases:          16,
		MaxClients:         10000,
		Hz:                 10,
		ProtoMaxBulkLen:    512 << 20,
		EnableDebugCommand: "yes",

		MaxMemoryPolicy:           "noeviction",
		MaxMemorySamples:          5,
		MaxMemoryEvictionTenacity: 10,
		LFULogFactor:              10,
		LFUDecayTime:              1,
		BusyReplyThreshold:        5000,
		WatchCompat:               "redis-7.0",
		WatchHotKeysSize:          128,
		ActiveExpireEffort:        1,

		Save:                     []SaveParam{{3600, 1}, {300, 100}, {60, 10000}},
		AppendFsync:              "everysec",
		AppendDirName:            "appendonlydir",
		AppendFilename:           "appendonly.aof",
		AOFLoadTruncated:         true,
		AutoAOFRewritePercentage: 100,
		AutoAOFRewriteMinSize:    64 << 20,

		ClientOutputBufferLimit: [3]OutputBufferLimit{
			{0, 0, 0},
			{256 << 20, 64 << 20, 60},
			{32 << 20, 8 << 20, 60},
		},
		TrackingTableMaxKeys: 1000000,

		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		HLLSparseMaxBytes:      3000,
		ListMaxListpackSize:    -2,

		LogLevel: "notice",
	}
}

// SlogLevel maps LogLevel to a log/slog level: debug and verbose below
// Info, notice is Info, warning is Warn.
func (c *Config) SlogLevel() slog.Level {
	switch c.LogLevel {
	case "debug":
		return slog.LevelDebug - 4
	case "verbose":
		return slog.LevelDebug
	case "warning":
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// Clone returns a copy of c that shares no slice or map with it.
func (c Config) Clone() Config {
	c.Bind = slices.Clone(c.Bind)
	c.Save = slices.Clone(c.Save)
	c.Params = maps.Clone(c.Params)
	c.Users = slices.Clone(c.Users)
	return c
}
