package config

// ourParams are miniwatchd's own parameters. They are hidden (fHide): CONFIG
// GET with a pattern skips them, so CONFIG GET * lists exactly Redis's
// parameters, while CONFIG GET and CONFIG SET by exact name, the config file
// and the command line know them.
var ourParams = []paramDef{
	// watch-compat selects which server's transaction rules apply (the
	// version differences of spec/watch.md section 9).
	enumParam("watch-compat", "", fHide, "redis-7.0", "redis-7.0", "redis-7.2", "redis-7.4", "valkey-8").
		typed(stringField(func(c *Config) *string { return &c.WatchCompat })),
	// watch-hotkeys-size is the number of entries of the hot watched keys
	// summary (DEBUG WATCH HOTKEYS); 0 turns it off.
	// watch-abort-events publishes each EXEC aborted by a touched watched
	// key on the channel __watch__:aborts (off by default).
	boolParam("watch-abort-events", "", fHide, false).
		typed(boolField(func(c *Config) *bool { return &c.WatchAbortEvents })),
	intParam("watch-hotkeys-size", "", fHide, 0, 1<<20, 128).
		typed(intField(func(c *Config) *int { return &c.WatchHotKeysSize })),
	// cluster-emulate N runs N cluster nodes in one process, on the port
	// and the N-1 ports after it, the slots split evenly (cluster mode on
	// each; see server.EmulatedClusterConfigs). 0 runs one server.
	intParam("cluster-emulate", "", fHide|fImm, 0, 1000, 0).acted(),
	// cluster-emulate-replicas R gives each master of an emulated cluster
	// R replicas, on the N*R ports after the masters' (as redis-cli
	// --cluster create --cluster-replicas R lays them out); each really
	// replicates from its master.
	intParam("cluster-emulate-replicas", "", fHide|fImm, 0, 100, 0).acted(),
	// load names a fixture: a file of redis-cli-style command lines run at
	// start, after the AOF or dump.rdb is loaded (server/fixture.go).
	stringParam("load", "", fImm|fHide, "").
		typed(stringField(func(c *Config) *string { return &c.LoadFixture })),
}

// IsOurParam reports whether name is one of miniwatchd's own parameters
// (not Redis's: tests comparing with redis-server skip them).
func IsOurParam(name string) bool {
	for _, d := range ourParams {
		if d.name == name {
			return true
		}
	}
	return false
}
