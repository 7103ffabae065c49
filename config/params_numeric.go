package config

// The numeric rows of the parameter table, in Redis's static_configs
// order (the C type of each group decides its bounds).

// numericParams are the integer, unsigned, long, long long, size_t and
// other numeric configs.
var numericParams = []paramDef{
	// Integer configs
	intParam("databases", "", fImm, 1, cIntMax, 16).typed(intField(func(c *Config) *int { return &c.Databases })),
	intParam("port", "", 0, 0, 65535, 6379).typed(intField(func(c *Config) *int { return &c.Port })),
	intParam("io-threads", "", fDebug|fImm, 1, 128, 1),
	intParam("auto-aof-rewrite-percentage", "", 0, 0, cIntMax, 100).
		typed(intField(func(c *Config) *int { return &c.AutoAOFRewritePercentage })),
	intParam("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0, 0, cIntMax, 10),
	intParam("list-max-listpack-size", "list-max-ziplist-size", 0, cIntMin, cIntMax, -2).
		typed(intField(func(c *Config) *int { return &c.ListMaxListpackSize })),
	intParam("tcp-keepalive", "", 0, 0, cIntMax, 300).acted(),
	intParam("cluster-migration-barrier", "", 0, 0, cIntMax, 1),
	intParam("active-defrag-cycle-min", "", 0, 1, 99, 1),
	intParam("active-defrag-cycle-max", "", 0, 1, 99, 25),
	intParam("active-defrag-threshold-lower", "", 0, 0, 1000, 10),
	intParam("active-defrag-threshold-upper", "", 0, 0, 1000, 100),
	intParam("lfu-log-factor", "", 0, 0, cIntMax, 10).typed(intField(func(c *Config) *int { return &c.LFULogFactor })),
	intParam("lfu-decay-time", "", 0, 0, cIntMax, 1).typed(intField(func(c *Config) *int { return &c.LFUDecayTime })),
	intParam("replica-priority", "slave-priority", 0, 0, cIntMax, 100).acted(),
	intParam("repl-diskless-sync-delay", "", 0, 0, cIntMax, 5).acted(),
	intParam("maxmemory-samples", "", 0, 1, cIntMax, 5).typed(intField(func(c *Config) *int { return &c.MaxMemorySamples })),
	intParam("maxmemory-eviction-tenacity", "", 0, 0, 100, 10).
		typed(intField(func(c *Config) *int { return &c.MaxMemoryEvictionTenacity })),
	intParam("timeout", "", 0, 0, cIntMax, 0).typed(intField(func(c *Config) *int { return &c.Timeout })),
	intParam("replica-announce-port", "slave-announce-port", 0, 0, 65535, 0).acted(),
	intParam("tcp-backlog", "", fImm, 0, cIntMax, 511),
	intParam("cluster-port", "", fImm, 0, 65535, 0).acted(),
	intParam("cluster-announce-bus-port", "", 0, 0, 65535, 0).acted(),
	intParam("cluster-announce-port", "", 0, 0, 65535, 0).acted(),
	intParam("cluster-announce-tls-port", "", 0, 0, 65535, 0),
	intParam("repl-timeout", "", 0, 1, cIntMax, 60).acted(),
	intParam("repl-ping-replica-period", "repl-ping-slave-period", 0, 1, cIntMax, 10).acted(),
	intParam("list-compress-depth", "", fDebug, 0, cIntMax, 0).
		typed(intField(func(c *Config) *int { return &c.ListCompressDepth })),
	intParam("rdb-key-save-delay", "", fHide, cIntMin, cIntMax, 0).acted(),
	intParam("key-load-delay", "", fHide, cIntMin, cIntMax, 0),
	intParam("active-expire-effort", "", 0, 1, 10, 1).typed(intField(func(c *Config) *int { return &c.ActiveExpireEffort })),
	intParam("hz", "", 0, 0, cIntMax, 10).typed(intField(func(c *Config) *int { return &c.Hz })),
	intParam("min-replicas-to-write", "min-slaves-to-write", 0, 0, cIntMax, 0).acted(),
	intParam("min-replicas-max-lag", "min-slaves-max-lag", 0, 0, cIntMax, 10).acted(),
	intParam("watchdog-period", "", fHide, 0, cIntMax, 0),
	intParam("shutdown-timeout", "", 0, 0, cIntMax, 10),
	intParam("repl-diskless-sync-max-replicas", "", 0, 0, cIntMax, 0).acted(),

	// Unsigned int configs
	uintParam("maxclients", "", 0, 1, cUintMax, 10000).typed(intField(func(c *Config) *int { return &c.MaxClients })),
	uintParam("unixsocketperm", "", fImm, 0, 0o777, 0).octal().acted(),
	uintParam("socket-mark-id", "", fImm, 0, cUintMax, 0),

	// Unsigned long configs (bounds checked as signed, as Redis does)
	intParam("active-defrag-max-scan-fields", "", 0, 1, cLongMax, 1000),
	intParam("slowlog-max-len", "", 0, 0, cLongMax, 128).acted(),
	intParam("acllog-max-len", "", 0, 0, cLongMax, 128).acted(),

	// Long long configs
	intParam("busy-reply-threshold", "lua-time-limit", 0, 0, cLongMax, 5000).
		typed(int64Field(func(c *Config) *int64 { return &c.BusyReplyThreshold })),
	intParam("cluster-node-timeout", "", 0, 0, cLongMax, 15000).acted(), // the end of a handshake (server/cluster_handshake.go)
	intParam("slowlog-log-slower-than", "", 0, -1, cLongMax, 10000).acted(),
	intParam("latency-monitor-threshold", "", 0, 0, cLongMax, 0).acted(),
	intParam("proto-max-bulk-len", "", fDebug, 1<<20, cLongMax, 512<<20).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.ProtoMaxBulkLen })),
	intParam("stream-node-max-entries", "", 0, 0, cLongMax, 100),
	intParam("repl-backlog-size", "", 0, 1, cLongMax, 1<<20).memory().acted(),

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
	uintParam("hll-sparse-max-bytes", "", 0, 0, cLongMax, 3000).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.HLLSparseMaxBytes })),
	uintParam("tracking-table-max-keys", "", 0, 0, cLongMax, 1000000).
		typed(int64Field(func(c *Config) *int64 { return &c.TrackingTableMaxKeys })),
	uintParam("client-query-buffer-limit", "", fDebug, 1<<20, cLongMax, 1<<30).memory(),
	intParam("maxmemory-clients", "", 0, -100, cSSizeMax, 0).memory().percent().acted(),

	// Other configs
	intParam("repl-backlog-ttl", "", 0, 0, cLongMax, 3600).acted(),
	intParam("auto-aof-rewrite-min-size", "", 0, 0, cLongMax, 64<<20).memory().
		typed(int64Field(func(c *Config) *int64 { return &c.AutoAOFRewriteMinSize })),
	intParam("loading-process-events-interval-bytes", "", fHide, 1024, cIntMax, 2<<20),
}
