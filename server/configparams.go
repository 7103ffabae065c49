package server

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// This file is Redis 7.0.15's parameter table (src/config.c static_configs
// plus what 7.0.15 added: propagation-error-behavior,
// replica-ignore-disk-write-errors, shutdown-on-sigint/sigterm,
// socket-mark-id, lua-enable-deprecated-api) and the rules that parse,
// check and print each parameter type, and the registry that serves CONFIG
// GET and CONFIG SET over it. The config file parser is in configfile.go.

// paramFlags are Redis's *_CONFIG flags.
type paramFlags uint16

const (
	paramImmutable   paramFlags = 1 << iota // CONFIG SET refuses it
	paramSensitive                          // value redacted from SLOWLOG/MONITOR
	paramHidden                             // CONFIG GET patterns skip it
	paramProtected                          // settable only per enable-protected-configs
	paramDenyLoading                        // refused while loading (never here)
	paramDebug                              // listed in crash reports (no effect here)
	paramMultiArg                           // value is several words
)

// paramKind is the value type of a parameter.
type paramKind uint8

const (
	kindBool    paramKind = iota // yes / no
	kindString                   // createStringConfig / createSDSConfig
	kindEnum                     // one name of a list (or several, paramMultiArg)
	kindNumeric                  // integer, memory, percent or octal value
	kindSpecial                  // save, bind, dir, ...: own parser and printer
)

// numFlags are Redis's numeric config flags.
type numFlags uint8

const (
	numMemory  numFlags = 1 << iota // 1gb, 10mb, 4k ... (memtoull)
	numPercent                      // "50%" stored as -50
	numOctal                        // unixsocketperm
)

// enumItem is one name of an enum parameter and its value.
type enumItem struct {
	name string
	val  int
}

// Accessors binding a parameter to a typed Config field.
type (
	boolField   func(*Config) *bool
	intField    func(*Config) *int
	int64Field  func(*Config) *int64
	uint64Field func(*Config) *uint64
	stringField func(*Config) *string
)

// specialParam parses and prints a parameter of kindSpecial. set returns
// Redis's error text, "" on success.
type specialParam struct {
	set func(c *Config, args []string, ctx *setContext) string
	get func(c *Config) string
}

// setContext carries what a set needs to know about where it comes from.
type setContext struct {
	file       bool // reading a config file (no CONFIG SET)
	saveLoaded bool // a "save" line of this file already replaced the defaults
}

// paramDef is one row of the parameter table.
type paramDef struct {
	name, alias string
	kind        paramKind
	flags       paramFlags
	def         string // CONFIG GET text of the default (not kindSpecial)

	// kindNumeric: bounds as C long long; unsigned compares them as
	// unsigned long long (ULONG_LONG, UINT and SIZE_T configs).
	min, max int64
	unsigned bool
	num      numFlags

	enum      []enumItem         // kindEnum; paramMultiArg makes it a set of bit flags
	validEnum func(v int) string // optional check of an enum value

	binary bool                  // kindString: sds config, NUL bytes kept
	valid  func(v string) string // optional check of a bool/string value

	field   any // typed Config field accessor; nil = kept in Config.Params
	special *specialParam

	// effect is true when the server acts on the value (reads its typed
	// field). The others are accepted, checked and reported only, some
	// through a typed field for INFO (appendonly, save, ...).
	effect bool
}

// Integer limits of the C types used by the bounds.
const (
	cIntMin   = -1 << 31
	cIntMax   = 1<<31 - 1
	cUintMax  = 1<<32 - 1
	cLongMax  = 1<<63 - 1
	cULLMax   = -1 // ULLONG_MAX as a long long
	cSSizeMax = 1<<63 - 1
)

func boolParam(name, alias string, flags paramFlags, def bool) paramDef {
	d := paramDef{name: name, alias: alias, kind: kindBool, flags: flags, def: "no"}
	if def {
		d.def = "yes"
	}
	return d
}

func stringParam(name, alias string, flags paramFlags, def string) paramDef {
	return paramDef{name: name, alias: alias, kind: kindString, flags: flags, def: def}
}

func enumParam(name, alias string, flags paramFlags, def string, names ...string) paramDef {
	items := make([]enumItem, len(names))
	for i, n := range names {
		items[i] = enumItem{n, i}
	}
	return paramDef{name: name, alias: alias, kind: kindEnum, flags: flags, def: def, enum: items}
}

// intParam is a signed integer parameter (int, long, long long, time_t,
// off_t, ssize_t and, as Redis checks them, unsigned long).
func intParam(name, alias string, flags paramFlags, lo, hi, def int64) paramDef {
	return paramDef{name: name, alias: alias, kind: kindNumeric, flags: flags,
		min: lo, max: hi, def: strconv.FormatInt(def, 10)}
}

// uintParam is an unsigned integer parameter (unsigned int, size_t,
// unsigned long long).
func uintParam(name, alias string, flags paramFlags, lo, hi, def int64) paramDef {
	d := intParam(name, alias, flags, lo, hi, def)
	d.unsigned = true
	return d
}

func (d paramDef) memory() paramDef                      { d.num |= numMemory; return d }
func (d paramDef) percent() paramDef                     { d.num |= numPercent; return d }
func (d paramDef) octal() paramDef                       { d.num |= numOctal; return d }
func (d paramDef) sds() paramDef                         { d.binary = true; return d }
func (d paramDef) check(fn func(string) string) paramDef { d.valid = fn; return d }

// typed binds d to a Config field the server acts on.
func (d paramDef) typed(field any) paramDef { d.field = field; d.effect = true; return d }

// acts marks a parameter read from Params by the code it drives (RDB files).
func (d paramDef) acts() paramDef { d.effect = true; return d }

// reported binds d to a Config field that is only reported (no effect).
func (d paramDef) reported(field any) paramDef { d.field = field; return d }

func specialDef(name, alias string, flags paramFlags, sp *specialParam) paramDef {
	return paramDef{name: name, alias: alias, kind: kindSpecial, flags: flags, special: sp}
}

const (
	fImm   = paramImmutable
	fSens  = paramSensitive
	fHide  = paramHidden
	fProt  = paramProtected
	fDenyL = paramDenyLoading
	fDebug = paramDebug
	fMulti = paramMultiArg
)

// paramTable is every Redis 7.0.15 parameter in static_configs order.
var paramTable = []paramDef{
	// Bool configs
	boolParam("rdbchecksum", "", fImm, true).acts(),
	boolParam("daemonize", "", fImm, false).reported(boolField(func(c *Config) *bool { return &c.Daemonize })),
	boolParam("io-threads-do-reads", "", fDebug|fImm, false),
	boolParam("always-show-logo", "", fImm, false),
	boolParam("protected-mode", "", 0, true),
	boolParam("rdbcompression", "", 0, true).acts(),
	boolParam("rdb-del-sync-files", "", 0, false),
	boolParam("activerehashing", "", 0, true),
	boolParam("stop-writes-on-bgsave-error", "", 0, true),
	boolParam("set-proc-title", "", fImm, true),
	boolParam("dynamic-hz", "", 0, true),
	boolParam("lazyfree-lazy-eviction", "", fDebug, false).typed(boolField(func(c *Config) *bool { return &c.LazyfreeLazyEviction })),
	boolParam("lazyfree-lazy-expire", "", fDebug, false).typed(boolField(func(c *Config) *bool { return &c.LazyfreeLazyExpire })),
	boolParam("lazyfree-lazy-server-del", "", fDebug, false).reported(boolField(func(c *Config) *bool { return &c.LazyfreeLazyServerDel })),
	boolParam("lazyfree-lazy-user-del", "", fDebug, false).typed(boolField(func(c *Config) *bool { return &c.LazyfreeLazyUserDel })),
	boolParam("lazyfree-lazy-user-flush", "", fDebug, false).reported(boolField(func(c *Config) *bool { return &c.LazyfreeLazyUserFlush })),
	boolParam("repl-disable-tcp-nodelay", "", 0, false),
	boolParam("repl-diskless-sync", "", fDebug, true),
	boolParam("aof-rewrite-incremental-fsync", "", 0, true).typed(nil),
	boolParam("no-appendfsync-on-rewrite", "", 0, false),
	boolParam("cluster-require-full-coverage", "", 0, true),
	boolParam("rdb-save-incremental-fsync", "", 0, true),
	boolParam("aof-load-truncated", "", 0, true).typed(boolField(func(c *Config) *bool { return &c.AOFLoadTruncated })),
	boolParam("aof-use-rdb-preamble", "", 0, true),
	boolParam("aof-timestamp-enabled", "", 0, false),
	boolParam("cluster-replica-no-failover", "cluster-slave-no-failover", 0, false),
	boolParam("replica-lazy-flush", "slave-lazy-flush", 0, false),
	boolParam("replica-serve-stale-data", "slave-serve-stale-data", 0, true),
	boolParam("replica-read-only", "slave-read-only", fDebug, true),
	boolParam("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0, true),
	boolParam("jemalloc-bg-thread", "", 0, true),
	boolParam("activedefrag", "", fDebug, false).check(checkActiveDefrag),
	boolParam("syslog-enabled", "", fImm, false),
	boolParam("cluster-enabled", "", fImm, false),
	boolParam("appendonly", "", fDenyL, false).typed(boolField(func(c *Config) *bool { return &c.AppendOnly })),
	boolParam("cluster-allow-reads-when-down", "", 0, false),
	boolParam("cluster-allow-pubsubshard-when-down", "", 0, true),
	boolParam("crash-log-enabled", "", 0, true),
	boolParam("crash-memcheck-enabled", "", 0, true),
	boolParam("use-exit-on-panic", "", fHide, false),
	boolParam("disable-thp", "", fImm, true),
	boolParam("cluster-allow-replica-migration", "", 0, true),
	boolParam("replica-announced", "", 0, true),
	boolParam("latency-tracking", "", 0, true),
	boolParam("aof-disable-auto-gc", "", 0, false).typed(nil),
	boolParam("replica-ignore-disk-write-errors", "", 0, false),
	boolParam("lua-enable-deprecated-api", "", fImm|fHide, false),

	// String configs ("" prints for a NULL value as for an empty one)
	stringParam("aclfile", "", fImm, ""),
	stringParam("unixsocket", "", fImm, ""),
	stringParam("pidfile", "", fImm, ""),
	stringParam("replica-announce-ip", "slave-announce-ip", 0, ""),
	stringParam("masteruser", "", fSens, ""),
	stringParam("cluster-announce-ip", "", 0, ""),
	stringParam("cluster-config-file", "", fImm, "nodes.conf"),
	stringParam("cluster-announce-hostname", "", 0, "").check(checkHostname),
	stringParam("syslog-ident", "", fImm, "redis"),
	stringParam("dbfilename", "", fProt, "dump.rdb").check(checkDBFilename).acts(),
	stringParam("appendfilename", "", fImm, "appendonly.aof").check(checkAOFFilename).
		typed(stringField(func(c *Config) *string { return &c.AppendFilename })),
	stringParam("appenddirname", "", fImm, "appendonlydir").check(checkAOFDirname).
		typed(stringField(func(c *Config) *string { return &c.AppendDirName })),
	stringParam("server_cpulist", "", fImm, ""),
	stringParam("bio_cpulist", "", fImm, ""),
	stringParam("aof_rewrite_cpulist", "", fImm, ""),
	stringParam("bgsave_cpulist", "", fImm, ""),
	stringParam("ignore-warnings", "", 0, ""),
	stringParam("proc-title-template", "", 0, "{title} {listen-addr} {server-mode}").check(checkProcTitleTemplate),
	stringParam("bind-source-addr", "", 0, ""),
	stringParam("logfile", "", fImm, "").typed(stringField(func(c *Config) *string { return &c.LogFile })),
	stringParam("masterauth", "", fSens, "").sds(),
	stringParam("requirepass", "", fSens, "").sds().typed(stringField(func(c *Config) *string { return &c.RequirePass })),

	// Enum configs
	enumParam("supervised", "", fImm, "no", "upstart", "systemd", "auto", "no"),
	enumParam("syslog-facility", "", fImm, "local0", "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"),
	enumParam("repl-diskless-load", "", fDebug|fDenyL, "disabled", "disabled", "on-empty-db", "swapdb"),
	enumParam("loglevel", "", 0, "notice", "debug", "verbose", "notice", "warning").
		typed(stringField(func(c *Config) *string { return &c.LogLevel })),
	enumParam("maxmemory-policy", "", 0, "noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction").
		typed(stringField(func(c *Config) *string { return &c.MaxMemoryPolicy })),
	enumParam("appendfsync", "", 0, "everysec", "everysec", "always", "no").
		typed(stringField(func(c *Config) *string { return &c.AppendFsync })),
	{name: "oom-score-adj", kind: kindEnum, def: "no",
		enum: []enumItem{{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}}},
	{name: "acl-pubsub-default", kind: kindEnum, def: "resetchannels",
		enum: []enumItem{{"allchannels", 1}, {"resetchannels", 0}}},
	enumParam("sanitize-dump-payload", "", fDebug, "no", "no", "yes", "clients").acts(),
	enumParam("enable-protected-configs", "", fImm, "no", "no", "yes", "local"),
	enumParam("enable-debug-command", "", fImm, "no", "no", "yes", "local").
		typed(stringField(func(c *Config) *string { return &c.EnableDebugCommand })),
	enumParam("enable-module-command", "", fImm, "no", "no", "yes", "local"),
	enumParam("cluster-preferred-endpoint-type", "", 0, "ip", "ip", "hostname", "unknown-endpoint"),
	enumParam("propagation-error-behavior", "", 0, "ignore", "ignore", "panic", "panic-on-replicas"),
	{name: "shutdown-on-sigint", kind: kindEnum, flags: fMulti, def: "default", enum: shutdownFlags, validEnum: checkShutdownFlags},
	{name: "shutdown-on-sigterm", kind: kindEnum, flags: fMulti, def: "default", enum: shutdownFlags, validEnum: checkShutdownFlags},

	// Integer configs
	intParam("databases", "", fImm, 1, cIntMax, 16).typed(intField(func(c *Config) *int { return &c.Databases })),
	intParam("port", "", 0, 0, 65535, 6379).typed(intField(func(c *Config) *int { return &c.Port })),
	intParam("io-threads", "", fDebug|fImm, 1, 128, 1),
	intParam("auto-aof-rewrite-percentage", "", 0, 0, cIntMax, 100).
		typed(intField(func(c *Config) *int { return &c.AutoAOFRewritePercentage })),
	intParam("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, 0, cIntMax, 10),
	intParam("list-max-listpack-size", "list-max-ziplist-size", 0, cIntMin, cIntMax, -2).
		typed(intField(func(c *Config) *int { return &c.ListMaxListpackSize })),
	intParam("tcp-keepalive", "", 0, 0, cIntMax, 300),
	intParam("cluster-migration-barrier", "", 0, 0, cIntMax, 1),
	intParam("active-defrag-cycle-min", "", 0, 1, 99, 1),
	intParam("active-defrag-cycle-max", "", 0, 1, 99, 25),
	intParam("active-defrag-threshold-lower", "", 0, 0, 1000, 10),
	intParam("active-defrag-threshold-upper", "", 0, 0, 1000, 100),
	intParam("lfu-log-factor", "", 0, 0, cIntMax, 10).typed(intField(func(c *Config) *int { return &c.LFULogFactor })),
	intParam("lfu-decay-time", "", 0, 0, cIntMax, 1).typed(intField(func(c *Config) *int { return &c.LFUDecayTime })),
	intParam("replica-priority", "slave-priority", 0, 0, cIntMax, 100),
	intParam("repl-diskless-sync-delay", "", 0, 0, cIntMax, 5),
	intParam("maxmemory-samples", "", 0, 1, cIntMax, 5).typed(intField(func(c *Config) *int { return &c.MaxMemorySamples })),
	intParam("maxmemory-eviction-tenacity", "", 0, 0, 100, 10).
		typed(intField(func(c *Config) *int { return &c.MaxMemoryEvictionTenacity })),
	intParam("timeout", "", 0, 0, cIntMax, 0).typed(intField(func(c *Config) *int { return &c.Timeout })),
	intParam("replica-announce-port", "slave-announce-port", 0, 0, 65535, 0),
	intParam("tcp-backlog", "", fImm, 0, cIntMax, 511),
	intParam("cluster-port", "", fImm, 0, 65535, 0),
	intParam("cluster-announce-bus-port", "", 0, 0, 65535, 0),
	intParam("cluster-announce-port", "", 0, 0, 65535, 0),
	intParam("cluster-announce-tls-port", "", 0, 0, 65535, 0),
	intParam("repl-timeout", "", 0, 1, cIntMax, 60),
	intParam("repl-ping-replica-period", "repl-ping-slave-period", 0, 1, cIntMax, 10),
	intParam("list-compress-depth", "", fDebug, 0, cIntMax, 0).
		typed(intField(func(c *Config) *int { return &c.ListCompressDepth })),
	intParam("rdb-key-save-delay", "", fHide, cIntMin, cIntMax, 0).acts(),
	intParam("key-load-delay", "", fHide, cIntMin, cIntMax, 0),
	intParam("active-expire-effort", "", 0, 1, 10, 1).typed(intField(func(c *Config) *int { return &c.ActiveExpireEffort })),
	intParam("hz", "", 0, 0, cIntMax, 10).typed(intField(func(c *Config) *int { return &c.Hz })),
	intParam("min-replicas-to-write", "min-slaves-to-write", 0, 0, cIntMax, 0),
	intParam("min-replicas-max-lag", "min-slaves-max-lag", 0, 0, cIntMax, 10),
	intParam("watchdog-period", "", fHide, 0, cIntMax, 0),
	intParam("shutdown-timeout", "", 0, 0, cIntMax, 10),
	intParam("repl-diskless-sync-max-replicas", "", 0, 0, cIntMax, 0),

	// Unsigned int configs
	uintParam("maxclients", "", 0, 1, cUintMax, 10000).typed(intField(func(c *Config) *int { return &c.MaxClients })),
	uintParam("unixsocketperm", "", fImm, 0, 0o777, 0).octal(),
	uintParam("socket-mark-id", "", fImm, 0, cUintMax, 0),

	// Unsigned long configs (bounds checked as signed, as Redis does)
	intParam("active-defrag-max-scan-fields", "", 0, 1, cLongMax, 1000),
	intParam("slowlog-max-len", "", 0, 0, cLongMax, 128),
	intParam("acllog-max-len", "", 0, 0, cLongMax, 128),

	// Long long configs
	intParam("busy-reply-threshold", "lua-time-limit", 0, 0, cLongMax, 5000).
		typed(int64Field(func(c *Config) *int64 { return &c.BusyReplyThreshold })),
	intParam("cluster-node-timeout", "", 0, 0, cLongMax, 15000),
	intParam("slowlog-log-slower-than", "", 0, -1, cLongMax, 10000),
	intParam("latency-monitor-threshold", "", 0, 0, cLongMax, 0),
	intParam("proto-max-bulk-len", "", fDebug, 1<<20, cLongMax, 512<<20).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.ProtoMaxBulkLen })),
	intParam("stream-node-max-entries", "", 0, 0, cLongMax, 100),
	intParam("repl-backlog-size", "", 0, 1, cLongMax, 1<<20).memory(),

	// Unsigned long long configs
	uintParam("maxmemory", "", 0, 0, cULLMax, 0).memory().typed(uint64Field(func(c *Config) *uint64 { return &c.MaxMemory })),
	uintParam("cluster-link-sendbuf-limit", "", 0, 0, cULLMax, 0).memory(),

	// Size_t configs
	uintParam("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, 0, cLongMax, 512).
		typed(int64Field(func(c *Config) *int64 { return &c.HashMaxListpackEntries })),
	uintParam("set-max-intset-entries", "", 0, 0, cLongMax, 512).
		typed(int64Field(func(c *Config) *int64 { return &c.SetMaxIntsetEntries })),
	uintParam("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, 0, cLongMax, 128).
		typed(int64Field(func(c *Config) *int64 { return &c.ZSetMaxListpackEntries })),
	uintParam("active-defrag-ignore-bytes", "", 0, 1, cLongMax, 100<<20).memory(),
	uintParam("hash-max-listpack-value", "hash-max-ziplist-value", 0, 0, cLongMax, 64).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.HashMaxListpackValue })),
	uintParam("stream-node-max-bytes", "", 0, 0, cLongMax, 4096).memory(),
	uintParam("zset-max-listpack-value", "zset-max-ziplist-value", 0, 0, cLongMax, 64).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.ZSetMaxListpackValue })),
	uintParam("hll-sparse-max-bytes", "", 0, 0, cLongMax, 3000).memory(),
	uintParam("tracking-table-max-keys", "", 0, 0, cLongMax, 1000000).
		typed(int64Field(func(c *Config) *int64 { return &c.TrackingTableMaxKeys })),
	uintParam("client-query-buffer-limit", "", fDebug, 1<<20, cLongMax, 1<<30).memory(),
	intParam("maxmemory-clients", "", 0, -100, cSSizeMax, 0).memory().percent(),

	// Other configs
	intParam("repl-backlog-ttl", "", 0, 0, cLongMax, 3600),
	intParam("auto-aof-rewrite-min-size", "", 0, 0, cLongMax, 64<<20).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.AutoAOFRewriteMinSize })),
	intParam("loading-process-events-interval-bytes", "", fHide, 1024, cIntMax, 2<<20),

	// TLS configs (the reference build has TLS; miniwatchd does not)
	intParam("tls-port", "", 0, 0, 65535, 0),
	intParam("tls-session-cache-size", "", 0, 0, cIntMax, 20*1024),
	intParam("tls-session-cache-timeout", "", 0, 0, cIntMax, 300),
	boolParam("tls-cluster", "", 0, false),
	boolParam("tls-replication", "", 0, false),
	enumParam("tls-auth-clients", "", 0, "yes", "no", "yes", "optional"),
	boolParam("tls-prefer-server-ciphers", "", 0, false),
	boolParam("tls-session-caching", "", 0, true),
	stringParam("tls-cert-file", "", 0, ""),
	stringParam("tls-key-file", "", 0, ""),
	stringParam("tls-key-file-pass", "", 0, ""),
	stringParam("tls-client-cert-file", "", 0, ""),
	stringParam("tls-client-key-file", "", 0, ""),
	stringParam("tls-client-key-file-pass", "", 0, ""),
	stringParam("tls-dh-params-file", "", 0, ""),
	stringParam("tls-ca-cert-file", "", 0, ""),
	stringParam("tls-ca-cert-dir", "", 0, ""),
	stringParam("tls-protocols", "", 0, ""),
	stringParam("tls-ciphers", "", 0, ""),
	stringParam("tls-ciphersuites", "", 0, ""),

	// Special configs
	specialDef("dir", "", fProt|fDenyL, &dirParam).typed(nil),
	specialDef("save", "", fMulti, &saveParam).acts(),
	specialDef("client-output-buffer-limit", "", fMulti, &outputBufferParam).typed(nil),
	specialDef("oom-score-adj-values", "", fMulti, &oomValuesParam),
	specialDef("notify-keyspace-events", "", 0, &notifyParam).typed(nil),
	specialDef("bind", "", fMulti, &bindParam).typed(nil),
	specialDef("replicaof", "slaveof", fImm|fMulti, &replicaofParam),
	specialDef("latency-tracking-info-percentiles", "", fMulti, &percentilesParam),
}

// shutdownFlags are the names of shutdown-on-sigint/sigterm (SHUTDOWN_*).
var shutdownFlags = []enumItem{{"default", 0}, {"save", 1}, {"nosave", 2}, {"now", 4}, {"force", 8}}

// checkShutdownFlags is Redis's isValidShutdownOnSigFlags.
func checkShutdownFlags(v int) string {
	if v&1 != 0 && v&2 != 0 {
		return "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	return ""
}

// Primary names of the parameters whose apply step touches TLS (applyTlsCfg
// and applyTLSPort in Redis).
var tlsApplyParams = []string{"tls-port", "tls-session-cache-size", "tls-session-cache-timeout",
	"tls-cluster", "tls-replication", "tls-prefer-server-ciphers", "tls-session-caching",
	"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
	"tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file",
	"tls-ca-cert-file", "tls-ca-cert-dir", "tls-protocols", "tls-ciphers", "tls-ciphersuites"}

// ---------------------------------------------------------------------------
// Setting and printing values.

// setValue parses args (the words of the value) into c as Redis's
// interface.set does. changed reports whether the value differs from the
// previous one (Redis's "return 2"); errText is Redis's reason on failure.
func (d *paramDef) setValue(c *Config, args []string, ctx *setContext) (changed bool, errText string) {
	if d.kind == kindSpecial {
		if e := d.special.set(c, args, ctx); e != "" {
			return false, e
		}
		return true, ""
	}
	var text string
	switch d.kind {
	case kindBool:
		yes, ok := yesNo(args[0])
		if !ok {
			return false, "argument must be 'yes' or 'no'"
		}
		text = "no"
		if yes {
			text = "yes"
		}
		if d.valid != nil {
			if e := d.valid(text); e != "" {
				return false, e
			}
		}
	case kindString:
		v := args[0]
		if !d.binary {
			v = cstr(v)
		}
		if d.valid != nil {
			if e := d.valid(cstr(v)); e != "" {
				return false, e
			}
		}
		text = v
	case kindEnum:
		bitflags := d.flags&paramMultiArg != 0
		v, ok := enumValue(d.enum, args, bitflags)
		if !ok {
			return false, enumError(d.enum)
		}
		if d.validEnum != nil {
			if e := d.validEnum(v); e != "" {
				return false, e
			}
		}
		text = enumName(d.enum, v, bitflags)
	case kindNumeric:
		v, e := d.parseNumber(args[0])
		if e != "" {
			return false, e
		}
		if e := d.checkBounds(v); e != "" {
			return false, e
		}
		text = d.formatNumber(v)
		if d.field != nil {
			prev := d.value(c)
			d.storeNumber(c, v)
			return prev != text, ""
		}
	}
	prev := d.value(c)
	d.store(c, text)
	return prev != text, ""
}

// value returns the parameter's CONFIG GET text in c.
func (d *paramDef) value(c *Config) string {
	if d.kind == kindSpecial {
		return d.special.get(c)
	}
	switch f := d.field.(type) {
	case boolField:
		if *f(c) {
			return "yes"
		}
		return "no"
	case stringField:
		return *f(c)
	case intField:
		return d.formatNumber(int64(*f(c)))
	case int64Field:
		return d.formatNumber(*f(c))
	case uint64Field:
		return d.formatNumber(int64(*f(c)))
	}
	if v, ok := c.Params[d.name]; ok {
		return v
	}
	return d.def
}

// store keeps text, the CONFIG GET form of a bool, string or enum value.
func (d *paramDef) store(c *Config, text string) {
	switch f := d.field.(type) {
	case boolField:
		*f(c) = text == "yes"
		return
	case stringField:
		*f(c) = text
		return
	}
	setParam(c, d.name, text, d.def)
}

// storeNumber keeps v in the typed field of a numeric parameter.
func (d *paramDef) storeNumber(c *Config, v int64) {
	switch f := d.field.(type) {
	case intField:
		*f(c) = int(v)
	case int64Field:
		*f(c) = v
	case uint64Field:
		*f(c) = uint64(v)
	}
}

// setParam records a value of a parameter without typed field; values equal
// to the default are removed so Params lists only what differs.
func setParam(c *Config, name, text, def string) {
	if text == def {
		if _, ok := c.Params[name]; ok {
			delete(c.Params, name)
		}
		return
	}
	if c.Params == nil {
		c.Params = make(map[string]string)
	}
	c.Params[name] = text
}

// parseNumber is Redis's numericParseString.
func (d *paramDef) parseNumber(v string) (int64, string) {
	if d.num&numMemory != 0 {
		if u, ok := memToUint(v); ok {
			return int64(u), ""
		}
	}
	if d.num&numPercent != 0 && len(v) > 1 && v[len(v)-1] == '%' {
		if n, ok := protocol.ParseInt([]byte(v[:len(v)-1])); ok && n >= 0 {
			return -n, ""
		}
	}
	if d.num&numOctal != 0 {
		n, end, overflow := strtoll(v, 8)
		if !overflow && end == "" {
			return n, ""
		}
	}
	if d.num == 0 {
		if n, ok := protocol.ParseInt([]byte(v)); ok {
			return n, ""
		}
	}
	switch {
	case d.num&numMemory != 0 && d.num&numPercent != 0:
		return 0, "argument must be a memory or percent value"
	case d.num&numMemory != 0:
		return 0, "argument must be a memory value"
	case d.num&numOctal != 0:
		return 0, "argument couldn't be parsed as an octal number"
	}
	return 0, "argument couldn't be parsed into an integer"
}

// checkBounds is Redis's numericBoundaryCheck.
func (d *paramDef) checkBounds(v int64) string {
	if d.unsigned {
		u, lo, hi := uint64(v), uint64(d.min), uint64(d.max)
		if u > hi || u < lo {
			if d.num&numOctal != 0 {
				return "argument must be between " + strconv.FormatUint(lo, 8) + " and " +
					strconv.FormatUint(hi, 8) + " inclusive"
			}
			return "argument must be between " + strconv.FormatUint(lo, 10) + " and " +
				strconv.FormatUint(hi, 10) + " inclusive"
		}
		return ""
	}
	if d.num&numPercent != 0 && v < 0 {
		if v < d.min {
			return "percentage argument must be less or equal to " + strconv.FormatInt(-d.min, 10)
		}
		return ""
	}
	if v > d.max || v < d.min {
		return "argument must be between " + strconv.FormatInt(d.min, 10) + " and " +
			strconv.FormatInt(d.max, 10) + " inclusive"
	}
	return ""
}

// formatNumber is Redis's numericConfigGet.
func (d *paramDef) formatNumber(v int64) string {
	switch {
	case d.num&numPercent != 0 && v < 0:
		return strconv.FormatInt(-v, 10) + "%"
	case d.num&numMemory != 0:
		return strconv.FormatUint(uint64(v), 10)
	case d.num&numOctal != 0:
		return strconv.FormatUint(uint64(v), 8)
	}
	return strconv.FormatInt(v, 10)
}

// enumValue is Redis's configEnumGetValue: one name, or with bitflags
// several names whose values are or-ed. Names compare case-insensitively.
func enumValue(items []enumItem, args []string, bitflags bool) (int, bool) {
	if len(args) == 0 || (!bitflags && len(args) != 1) {
		return 0, false
	}
	v := 0
	for _, a := range args {
		a = cstr(a)
		matched := false
		for _, it := range items {
			if strings.EqualFold(a, it.name) && isASCII(a) {
				v |= it.val
				matched = true
			}
		}
		if !matched {
			return 0, false
		}
	}
	return v, true
}

// enumName is Redis's configEnumGetName: the first name with value v, or
// with bitflags the names of the bits of v, "unknown" if none fits.
func enumName(items []enumItem, v int, bitflags bool) string {
	var names []string
	unmatched := v
	for _, it := range items {
		if v == it.val {
			return it.name
		}
		if bitflags && it.val != 0 && it.val == unmatched&it.val {
			names = append(names, it.name)
			unmatched &^= it.val
		}
	}
	if names == nil || unmatched != 0 {
		return "unknown"
	}
	return strings.Join(names, " ")
}

// enumError is the reason Redis gives for a name not in items (cut to its
// 256-byte buffer).
func enumError(items []enumItem) string {
	var b strings.Builder
	b.WriteString("argument(s) must be one of the following: ")
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.name)
	}
	s := b.String()
	if len(s) > 255 {
		s = s[:255]
	}
	return s
}

// ---------------------------------------------------------------------------
// Validity checks of single values.

func checkActiveDefrag(v string) string {
	if v == "yes" {
		// As the reference build (Debian's, without Redis's jemalloc fork)
		// answers: miniwatchd has no defragmenter either.
		return "Active defragmentation cannot be enabled: it requires a Redis server compiled " +
			"with a modified Jemalloc like the one shipped by default with the Redis source distribution"
	}
	return ""
}

// isBaseName is Redis's pathIsBaseName.
func isBaseName(p string) bool { return !strings.ContainsAny(p, "/\\") }

func checkDBFilename(v string) string {
	if !isBaseName(v) {
		return "dbfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFFilename(v string) string {
	if v == "" {
		return "appendfilename can't be empty"
	}
	if !isBaseName(v) {
		return "appendfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFDirname(v string) string {
	if v == "" {
		return "appenddirname can't be empty"
	}
	if !isBaseName(v) {
		return "appenddirname can't be a path, just a dirname"
	}
	return ""
}

func checkHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// checkProcTitleTemplate is Redis's validateProcTitleTemplate: the template
// must expand (sdstemplate: {name} variables, "{{" for '{') with known
// variables only, to something that is not blank once trimmed of spaces.
// The title is empty when validating, and {listen-addr}, {port},
// {tls-port} and {config-file} never expand to nothing.
func checkProcTitleTemplate(v string) string {
	const bad = "template format is invalid or contains unknown variables"
	var out strings.Builder
	for p := v; p != ""; {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			out.WriteString(p)
			break
		}
		out.WriteString(p[:i])
		p = p[i+1:]
		if p == "" {
			return bad
		}
		if p[0] == '{' {
			out.WriteByte('{')
			p = p[1:]
			continue
		}
		j := strings.IndexByte(p, '}')
		if j < 0 {
			return bad
		}
		switch p[:j] {
		case "title", "server-mode", "unixsocket":
			// empty for a validation (no cluster, sentinel or unix socket)
		case "listen-addr", "config-file", "port", "tls-port":
			out.WriteByte('x')
		default:
			return bad
		}
		p = p[j+1:]
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return ""
}

// ---------------------------------------------------------------------------
// Special parameters.

var dirParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 1 {
			return "wrong number of arguments"
		}
		dir, err := resolveDir(c, cstr(args[0]))
		if err != "" {
			return err
		}
		c.Dir = dir
		return ""
	},
	get: currentDir,
}

// currentDir is the CONFIG GET text of dir: c.Dir, or the process's working
// directory when c.Dir is empty ("" if that is unknown, as getcwd fails).
func currentDir(c *Config) string {
	if c.Dir != "" {
		return c.Dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// resolveDir checks that p (relative to the current dir) is a directory
// chdir(2) would enter and returns its absolute, symlink-free path (what
// getcwd(3) returns there). Redis changes its working directory; miniwatchd
// only records it. The error is strerror's text.
func resolveDir(c *Config, p string) (string, string) {
	if p == "" {
		return "", strerror(syscall.ENOENT)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(currentDir(c), p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", strerror(err)
	}
	if !fi.IsDir() {
		return "", strerror(syscall.ENOTDIR)
	}
	if err := syscall.Access(p, 1 /* X_OK */); err != nil {
		return "", strerror(err)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p), ""
}

// strerror renders err as glibc's strerror does ("No such file or
// directory"): Go's errno texts are glibc's with a lower-case initial.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

var saveParam = specialParam{
	set: func(c *Config, args []string, ctx *setContext) string {
		if len(args) == 1 && cstr(args[0]) == "" {
			// save "": no save points, even after other save lines.
			c.Save = nil
			args = nil
		}
		const invalid = "Invalid save parameters"
		if len(args)%2 != 0 {
			return invalid
		}
		for j, a := range args {
			v, end, _ := strtoll(a, 10)
			if end != "" || (j%2 == 0 && v < 1) || (j%2 == 1 && v < 0) {
				return invalid
			}
		}
		// CONFIG SET replaces the save points; in a config file the first
		// "save" line replaces the defaults and later ones add to it.
		if !ctx.file || !ctx.saveLoaded {
			ctx.saveLoaded = ctx.file
			c.Save = nil
		}
		for j := 0; j < len(args); j += 2 {
			secs, _, _ := strtoll(args[j], 10)
			changes, _, _ := strtoll(args[j+1], 10)
			c.Save = append(c.Save, SaveParam{Seconds: secs, Changes: int(int32(changes))})
		}
		return ""
	},
	get: func(c *Config) string {
		var b []byte
		for i, p := range c.Save {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, p.Seconds, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(p.Changes), 10)
		}
		return string(b)
	},
}

// outputBufferClass is Redis's getClientTypeByName for the classes
// client-output-buffer-limit accepts; -1 for others (master included).
func outputBufferClass(name string) int {
	switch name = cstr(name); {
	case strings.EqualFold(name, "normal"):
		return OutputBufferNormal
	case strings.EqualFold(name, "slave"), strings.EqualFold(name, "replica"):
		return OutputBufferReplica
	case strings.EqualFold(name, "pubsub"):
		return OutputBufferPubSub
	}
	return -1
}

var outputBufferParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args)%4 != 0 {
			return "Wrong number of arguments in buffer limit configuration."
		}
		limits := c.ClientOutputBufferLimit
		for j := 0; j < len(args); j += 4 {
			class := outputBufferClass(args[j])
			if class < 0 {
				return "Invalid client class specified in buffer limit configuration."
			}
			hard, hardOK := memToUint(args[j+1])
			soft, softOK := memToUint(args[j+2])
			secs, end, _ := strtoll(args[j+3], 10)
			secs32 := int32(secs) // soft_seconds is an int in Redis
			if !hardOK || !softOK || secs32 < 0 || end != "" {
				return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
			}
			limits[class] = OutputBufferLimit{Hard: hard, Soft: soft, SoftSeconds: int64(secs32)}
		}
		c.ClientOutputBufferLimit = limits
		return ""
	},
	get: func(c *Config) string {
		var b []byte
		for i, name := range []string{"normal", "slave", "pubsub"} {
			l := c.ClientOutputBufferLimit[i]
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, name...)
			b = append(b, ' ')
			b = strconv.AppendUint(b, l.Hard, 10)
			b = append(b, ' ')
			b = strconv.AppendUint(b, l.Soft, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, l.SoftSeconds, 10)
		}
		return string(b)
	},
}

const oomValuesDefault = "0 200 800"

var oomValuesParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 3 {
			return "wrong number of arguments"
		}
		vals := make([]string, 3)
		for i, a := range args {
			v, end, _ := strtoll(a, 10)
			if end != "" || v < -2000 || v > 2000 {
				return "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
			}
			vals[i] = strconv.FormatInt(v, 10)
		}
		setParam(c, "oom-score-adj-values", strings.Join(vals, " "), oomValuesDefault)
		return ""
	},
	get: func(c *Config) string { return paramOr(c, "oom-score-adj-values", oomValuesDefault) },
}

var notifyParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 1 {
			return "wrong number of arguments"
		}
		f, ok := ParseNotifyFlags(args[0])
		if !ok {
			return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
		c.NotifyKeyspaceEvents = f
		return ""
	},
	get: func(c *Config) string { return c.NotifyKeyspaceEvents.String() },
}

var bindParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) > 16 {
			return "Too many bind addresses specified."
		}
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		addrs := make([]string, len(args))
		for i, a := range args {
			addrs[i] = cstr(a)
		}
		c.Bind = addrs
		return ""
	},
	get: func(c *Config) string { return strings.Join(c.Bind, " ") },
}

var replicaofParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) != 2 {
			return "wrong number of arguments"
		}
		host, port := cstr(args[0]), cstr(args[1])
		setParam(c, "replicaof", "", "")
		if strings.EqualFold(host, "no") && strings.EqualFold(port, "one") {
			return ""
		}
		p, end, overflow := strtoll(port, 10)
		if overflow || p < 0 || p > 65535 || end != "" {
			return "Invalid master port"
		}
		setParam(c, "replicaof", host+" "+strconv.FormatInt(p, 10), "")
		return ""
	},
	get: func(c *Config) string { return c.Params["replicaof"] },
}

const percentilesDefault = "50 99 99.9"

var percentilesParam = specialParam{
	set: func(c *Config, args []string, _ *setContext) string {
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		vals := make([]string, len(args))
		for i, a := range args {
			f, ok := protocol.ParseFloat([]byte(a))
			if !ok {
				return "Invalid latency-tracking-info-percentiles parameters"
			}
			if f > 100 || f < 0 {
				return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
			}
			vals[i] = trimDouble(strconv.FormatFloat(f, 'f', 6, 64))
		}
		setParam(c, "latency-tracking-info-percentiles", strings.Join(vals, " "), percentilesDefault)
		return ""
	},
	get: func(c *Config) string {
		return paramOr(c, "latency-tracking-info-percentiles", percentilesDefault)
	},
}

// paramOr returns c.Params[name], or def when it is absent.
func paramOr(c *Config, name, def string) string {
	if v, ok := c.Params[name]; ok {
		return v
	}
	return def
}

// trimDouble is Redis's trimDoubleString: drop the trailing zeros of a
// fraction, then a trailing '.'.
func trimDouble(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// ---------------------------------------------------------------------------
// C string and number helpers with glibc's semantics.

// cstr cuts s at its first NUL byte, as a C string ends there.
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// yesNo is Redis's yesnotoi.
func yesNo(s string) (yes, ok bool) {
	switch s = cstr(s); {
	case strings.EqualFold(s, "yes") && isASCII(s):
		return true, true
	case strings.EqualFold(s, "no") && isASCII(s):
		return false, true
	}
	return false, false
}

// strtoll is glibc's strtoll(s, &end, base) for base 8 or 10 over the C
// string s: leading white space, an optional sign, digits. end is the text
// left after the number (all of s when there are no digits); overflow
// reports ERANGE, with v clamped as glibc does.
func strtoll(s string, base uint64) (v int64, end string, overflow bool) {
	s = cstr(s)
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var u uint64
	for ; i < len(s); i++ {
		d := uint64(s[i] - '0')
		if s[i] < '0' || d >= base {
			break
		}
		if u > (1<<64-1-d)/base {
			overflow = true
			u = 1<<64 - 1
		} else if !overflow {
			u = u*base + d
		}
	}
	if i == start {
		return 0, s, false
	}
	switch {
	case neg && (overflow || u > 1<<63):
		return -1 << 63, s[i:], true
	case neg:
		return -int64(u), s[i:], false
	case overflow || u > 1<<63-1:
		return 1<<63 - 1, s[i:], true
	}
	return int64(u), s[i:], false
}

// memToUint is Redis 7.0's memtoull: decimal digits and an optional unit
// (b, k, kb, m, mb, g, gb in any case). Overflowing digits give
// ULLONG_MAX and the unit multiplication wraps, as in Redis.
func memToUint(s string) (uint64, bool) {
	s = cstr(s)
	if s != "" && s[0] == '-' {
		return 0, false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch asciiLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if i >= 128 {
		return 0, false
	}
	var v uint64
	for j := 0; j < i; j++ {
		d := uint64(s[j] - '0')
		if v > (1<<64-1-d)/10 {
			v = 1<<64 - 1
			break
		}
		v = v*10 + d
	}
	return v * mul, true
}

// asciiLower lower-cases the ASCII letters of s (C's tolower in the C
// locale; strings.ToLower would also fold non-ASCII letters).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// splitValue splits a CONFIG SET value of a multi-word parameter on single
// spaces as Redis's sdssplitlen does ("" has no words, "a  b" has three).
func splitValue(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, " ")
}

// ---------------------------------------------------------------------------
// The registry: CONFIG GET and CONFIG SET.

// paramEntry is a name CONFIG GET/SET knows: a primary name or an alias.
// Like Redis, the alias is an entry of its own (CONFIG SET of both names in
// one command is not a duplicate; a glob lists both).
type paramEntry struct {
	name  string // lower case, as registered
	nameb []byte // name, for glob matching
	alias bool
	def   *paramDef
}

// paramIndex is the table indexed once: entries in table order (each
// primary followed by its alias) and by lower-case name.
var paramIndex = buildParamIndex()

type paramIndexT struct {
	entries []*paramEntry
	byName  map[string]*paramEntry
	defs    map[string]*paramDef // by primary name
}

func buildParamIndex() *paramIndexT {
	ix := &paramIndexT{byName: make(map[string]*paramEntry), defs: make(map[string]*paramDef)}
	for i := range paramTable {
		d := &paramTable[i]
		ix.defs[d.name] = d
		for _, n := range []string{d.name, d.alias} {
			if n == "" {
				continue
			}
			e := &paramEntry{name: n, nameb: []byte(n), alias: n == d.alias, def: d}
			ix.entries = append(ix.entries, e)
			ix.byName[n] = e
		}
	}
	return ix
}

// lookupParam finds a parameter by name, ignoring ASCII case.
func lookupParam(name []byte) *paramEntry {
	return paramIndex.byName[asciiLower(string(name))]
}

// applyFunc reacts to a changed parameter. It runs with the engine lock
// held, after every value of a CONFIG SET has been stored; a non-nil error
// rolls the whole command back and its text becomes the reason of the
// reply ("Unable to listen on this port. Check server logs.").
type applyFunc func(s *Server) error

// paramRegistry serves CONFIG GET and CONFIG SET over s.cfg. Its methods
// expect the engine lock held.
type paramRegistry struct {
	s     *Server
	hooks []applyFunc
	byDef map[*paramDef][]int // hooks of each parameter, by index in hooks
}

// newParamRegistry returns the registry of s. It gives s.cfg its own copy
// of the slices and map it shares with the Config passed to New, and
// registers the apply steps that are part of a parameter's meaning (hz is
// clamped to 1..500; TLS cannot be turned on).
func newParamRegistry(s *Server) *paramRegistry {
	s.cfg = s.cfg.clone()
	r := &paramRegistry{s: s, byDef: make(map[*paramDef][]int)}
	r.onApply(func(s *Server) error {
		s.cfg.Hz = clampHz(s.cfg.Hz)
		return nil
	}, "hz")
	r.onApply(applyTLS, tlsApplyParams...)
	return r
}

// clampHz keeps hz within Redis's CONFIG_MIN_HZ..CONFIG_MAX_HZ.
func clampHz(hz int) int {
	return min(max(hz, 1), 500)
}

// applyTLS fails as Redis does when TLS would have to be configured:
// miniwatchd has no TLS (tls-port can never become non-zero).
func applyTLS(s *Server) error {
	if s.cfg.Params["tls-port"] != "" || s.cfg.Params["tls-replication"] == "yes" ||
		s.cfg.Params["tls-cluster"] == "yes" {
		return errors.New("Unable to update TLS configuration. Check server logs.")
	}
	return nil
}

// onApply registers fn to run after a CONFIG SET changed any of the named
// parameters (primary names). fn runs once per command however many of
// them changed, in the order the parameters were given.
func (r *paramRegistry) onApply(fn applyFunc, names ...string) {
	id := len(r.hooks)
	r.hooks = append(r.hooks, fn)
	for _, n := range names {
		if d := paramIndex.defs[n]; d != nil {
			r.byDef[d] = append(r.byDef[d], id)
		}
	}
}

// get runs CONFIG GET with Redis 7.0's rules: a pattern without glob
// characters ([, *, ?) is looked up as a name (aliases and hidden
// parameters included) and reported as spelled; other patterns match every
// name but hidden ones, ignoring case. Each name is reported once. emit is
// called in the order found.
func (r *paramRegistry) get(patterns [][]byte, emit func(name, value string)) {
	type match struct {
		key string
		def *paramDef
	}
	var found []match
	seen := make(map[string]bool)
	for _, p := range patterns {
		if !strings.ContainsAny(string(p), "[*?") {
			key := asciiLower(string(p))
			if seen[key] {
				continue
			}
			if e := paramIndex.byName[key]; e != nil {
				seen[key] = true
				found = append(found, match{string(p), e.def})
			}
			continue
		}
		for _, e := range paramIndex.entries {
			if e.def.flags&paramHidden != 0 || seen[e.name] {
				continue
			}
			if glob.MatchFold(p, e.nameb) {
				seen[e.name] = true
				found = append(found, match{e.name, e.def})
			}
		}
	}
	for _, m := range found {
		emit(m.key, m.def.value(&r.s.cfg))
	}
}

// value returns the CONFIG GET text of the parameter called name.
func (r *paramRegistry) value(name string) (string, bool) {
	e := paramIndex.byName[asciiLower(name)]
	if e == nil {
		return "", false
	}
	return e.def.value(&r.s.cfg), true
}

// sensitive reports whether the value of parameter name must be redacted
// from SLOWLOG and MONITOR.
func (r *paramRegistry) sensitive(name []byte) bool {
	e := lookupParam(name)
	return e != nil && e.def.flags&paramSensitive != 0
}

// set runs CONFIG SET name value [name value ...] (args are the words after
// SET) for a client that is not local; see setFrom.
func (r *paramRegistry) set(args [][]byte) error { return r.setFrom(args, false) }

// setFrom runs CONFIG SET with Redis 7.0's rules and error texts. local
// tells whether the client is connected over loopback or a unix socket,
// which enable-protected-configs "local" allows to set dir and dbfilename.
// All values are checked and stored before the apply steps run; if any
// value or apply step fails, every parameter gets its previous value back
// (and the apply steps run again) and the error names the parameter.
func (r *paramRegistry) setFrom(args [][]byte, local bool) error {
	if len(args) < 2 {
		return protocol.ErrWrongArity("config|set") // arity -4, checked first
	}
	if len(args)%2 != 0 {
		return protocol.ErrSyntax
	}
	n := len(args) / 2
	entries := make([]*paramEntry, n)
	var unknown, errArg, reason string
	invalid := false
	for i := 0; i < n; i++ {
		name := args[2*i]
		e := lookupParam(name)
		if e == nil {
			if !invalid {
				unknown, invalid = cstr(string(name)), true
			}
			continue
		}
		if invalid {
			continue
		}
		f := e.def.flags
		if f&paramImmutable != 0 || f&paramProtected != 0 && !r.protectedAllowed(local) {
			reason = "can't set protected config"
			if f&paramImmutable != 0 {
				reason = "can't set immutable config"
			}
			errArg, invalid = string(name), true
			continue
		}
		for j := 0; j < i; j++ {
			if entries[j] == e {
				reason, errArg, invalid = "duplicate parameter", string(name), true
				break
			}
		}
		entries[i] = e
	}
	if unknown != "" {
		return protocol.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
	}
	if invalid {
		return setFailed(errArg, reason)
	}

	old := r.s.cfg.clone()
	ctx := &setContext{}
	var pending []int             // hooks to run, in order of first change
	owner := make(map[int]string) // hook -> name of the parameter that queued it
	for i, e := range entries {
		value := string(args[2*i+1])
		words := []string{value}
		if e.def.flags&paramMultiArg != 0 {
			words = splitValue(value)
		}
		changed, reason := e.def.setValue(&r.s.cfg, words, ctx)
		if reason != "" {
			r.s.cfg = old
			return setFailed(e.name, reason)
		}
		if !changed {
			continue
		}
		for _, h := range r.byDef[e.def] {
			if _, ok := owner[h]; !ok {
				owner[h] = e.name
				pending = append(pending, h)
			}
		}
	}
	for _, h := range pending {
		if err := r.hooks[h](r.s); err != nil {
			r.s.cfg = old
			for _, h2 := range pending {
				if err2 := r.hooks[h2](r.s); err2 != nil && r.s.log != nil {
					r.s.log.Warn("Failed applying restored failed CONFIG SET command", "err", err2)
				}
			}
			return setFailed(owner[h], err.Error())
		}
	}
	return nil
}

// setFailed is Redis's "CONFIG SET failed" error for parameter name.
func setFailed(name, reason string) error {
	msg := "ERR CONFIG SET failed (possibly related to argument '" + cstr(name) + "')"
	if reason != "" {
		msg += " - " + reason
	}
	return protocol.Error(msg)
}

// protectedAllowed is Redis's allowProtectedAction for
// enable-protected-configs.
func (r *paramRegistry) protectedAllowed(local bool) bool {
	switch paramOr(&r.s.cfg, "enable-protected-configs", "no") {
	case "yes":
		return true
	case "local":
		return local
	}
	return false
}

// paramInfo describes one parameter for documentation (README).
type paramInfo struct {
	Name      string
	Alias     string // "" if none
	Default   string // CONFIG GET text in a fresh miniwatchd ("" for dir: the working directory)
	HasEffect bool   // false: accepted, checked and reported only
	Immutable bool   // CONFIG SET refuses it (config file and command line only)
	Hidden    bool   // not listed by CONFIG GET patterns
}

// names lists every parameter in table order.
func (r *paramRegistry) names() []paramInfo {
	def := DefaultConfig()
	out := make([]paramInfo, 0, len(paramTable))
	for i := range paramTable {
		d := &paramTable[i]
		info := paramInfo{Name: d.name, Alias: d.alias, HasEffect: d.effect,
			Immutable: d.flags&paramImmutable != 0, Hidden: d.flags&paramHidden != 0}
		if d.name != "dir" {
			info.Default = d.value(&def)
		}
		out = append(out, info)
	}
	return out
}
