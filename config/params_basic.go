package config

// The bool, string and enum rows of the parameter table, in Redis's
// static_configs order.

// boolParams are the bool configs.
var boolParams = []paramDef{
	boolParam("rdbchecksum", "", fImm, true).acted(),
	boolParam("daemonize", "", fImm, false).typed(boolField(func(c *Config) *bool { return &c.Daemonize })),
	boolParam("io-threads-do-reads", "", fDebug|fImm, false),
	boolParam("always-show-logo", "", fImm, false).acted(),
	boolParam("protected-mode", "", 0, true).acted(),
	boolParam("rdbcompression", "", 0, true).acted(),
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
	boolParam("repl-diskless-sync", "", fDebug, true).acted(),
	boolParam("aof-rewrite-incremental-fsync", "", 0, true).typed(nil),
	boolParam("no-appendfsync-on-rewrite", "", 0, false),
	boolParam("cluster-require-full-coverage", "", 0, true).acted(),
	boolParam("rdb-save-incremental-fsync", "", 0, true),
	boolParam("aof-load-truncated", "", 0, true).typed(boolField(func(c *Config) *bool { return &c.AOFLoadTruncated })),
	boolParam("aof-use-rdb-preamble", "", 0, true).acted(),
	boolParam("aof-timestamp-enabled", "", 0, false),
	boolParam("cluster-replica-no-failover", "cluster-slave-no-failover", 0, false),
	boolParam("replica-lazy-flush", "slave-lazy-flush", 0, false),
	boolParam("replica-serve-stale-data", "slave-serve-stale-data", 0, true).acted(),
	boolParam("replica-read-only", "slave-read-only", fDebug, true).acted(),
	boolParam("replica-ignore-maxmemory", "slave-ignore-maxmemory", 0, true).acted(),
	boolParam("jemalloc-bg-thread", "", 0, true),
	boolParam("activedefrag", "", fDebug, false).check(checkActiveDefrag),
	boolParam("syslog-enabled", "", fImm, false).acted(),
	boolParam("cluster-enabled", "", fImm, false).acted(),
	boolParam("appendonly", "", fDenyL, false).typed(boolField(func(c *Config) *bool { return &c.AppendOnly })),
	boolParam("cluster-allow-reads-when-down", "", 0, false).acted(),
	boolParam("cluster-allow-pubsubshard-when-down", "", 0, true).acted(),
	boolParam("crash-log-enabled", "", 0, true),
	boolParam("crash-memcheck-enabled", "", 0, true),
	boolParam("use-exit-on-panic", "", fHide, false),
	boolParam("disable-thp", "", fImm, true),
	boolParam("cluster-allow-replica-migration", "", 0, true).acted(),
	boolParam("replica-announced", "", 0, true).acted(),
	boolParam("latency-tracking", "", 0, true).acted(),
	boolParam("aof-disable-auto-gc", "", 0, false).typed(nil),
	boolParam("replica-ignore-disk-write-errors", "", 0, false),
	boolParam("lua-enable-deprecated-api", "", fImm|fHide, false),
}

// stringParams are the string configs ("" prints for a NULL value as for
// an empty one).
var stringParams = []paramDef{
	stringParam("aclfile", "", fImm, "").acted(),
	stringParam("unixsocket", "", fImm, "").acted(),
	stringParam("pidfile", "", fImm, "").acted(),
	stringParam("replica-announce-ip", "slave-announce-ip", 0, "").acted(),
	stringParam("masteruser", "", fSens, "").acted(),
	stringParam("cluster-announce-ip", "", 0, "").acted(),
	stringParam("cluster-config-file", "", fImm, "nodes.conf").acted(),
	stringParam("cluster-announce-hostname", "", 0, "").check(checkHostname).acted(),
	stringParam("syslog-ident", "", fImm, "redis").acted(),
	stringParam("dbfilename", "", fProt, "dump.rdb").check(checkDBFilename).acted(),
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
	stringParam("masterauth", "", fSens, "").sds().acted(),
	stringParam("requirepass", "", fSens, "").sds().typed(stringField(func(c *Config) *string { return &c.RequirePass })),
}

// enumParams are the enum configs.
var enumParams = []paramDef{
	enumParam("supervised", "", fImm, "no", "upstart", "systemd", "auto", "no").acted(),
	enumParam("syslog-facility", "", fImm, "local0", "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7").acted(),
	enumParam("repl-diskless-load", "", fDebug|fDenyL, "disabled", "disabled", "on-empty-db", "swapdb").acted(),
	enumParam("loglevel", "", 0, "notice", "debug", "verbose", "notice", "warning").
		typed(stringField(func(c *Config) *string { return &c.LogLevel })),
	enumParam("maxmemory-policy", "", 0, "noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction").
		typed(stringField(func(c *Config) *string { return &c.MaxMemoryPolicy })),
	enumParam("appendfsync", "", 0, "everysec", "everysec", "always", "no").
		typed(stringField(func(c *Config) *string { return &c.AppendFsync })),
	{name: "oom-score-adj", kind: kindEnum, def: "no",
		enum: []enumItem{{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}}},
	{name: "acl-pubsub-default", kind: kindEnum, def: "resetchannels", effect: true,
		enum: []enumItem{{"allchannels", 1}, {"resetchannels", 0}}},
	enumParam("sanitize-dump-payload", "", fDebug, "no", "no", "yes", "clients").acted(),
	enumParam("enable-protected-configs", "", fImm, "no", "no", "yes", "local"),
	enumParam("enable-debug-command", "", fImm, "no", "no", "yes", "local").
		typed(stringField(func(c *Config) *string { return &c.EnableDebugCommand })),
	enumParam("enable-module-command", "", fImm, "no", "no", "yes", "local"),
	enumParam("cluster-preferred-endpoint-type", "", 0, "ip", "ip", "hostname", "unknown-endpoint").acted(),
	enumParam("propagation-error-behavior", "", 0, "ignore", "ignore", "panic", "panic-on-replicas"),
	{name: "shutdown-on-sigint", kind: kindEnum, flags: fMulti, def: "default", enum: shutdownFlags, validEnum: checkShutdownFlags},
	{name: "shutdown-on-sigterm", kind: kindEnum, flags: fMulti, def: "default", enum: shutdownFlags, validEnum: checkShutdownFlags},
}

// shutdownFlags are the names of shutdown-on-sigint/sigterm (SHUTDOWN_*).
var shutdownFlags = []enumItem{{"default", 0}, {"save", 1}, {"nosave", 2}, {"now", 4}, {"force", 8}}
