package server

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The wiring: every point where a subsystem joins the spine (listener ->
// event loop -> processCommand -> call -> propagation -> beforeSleep, see
// doc.go), and its contributors in the order they run. This file is the
// only place that decides what runs after a command, before the event loop
// sleeps, or when a client is freed; no init() registers behaviour, and no
// order follows file names.
//
// A hook point is a slice on Server.hooks run in order by the function
// named beside it; wire fills them once, from New, before the start hooks
// run. Adding a contributor is one line here; adding a command family is
// one line in commandFamilies.
//
// Not hooks, because they have one implementation that the caller names:
// a client's pub/sub state in CLIENT LIST (clientPubSubInfo, client.kind),
// PING in RESP2 subscribed mode (pubsubPing), the timeout exemption of
// subscribed and blocked clients (closeTimedOutClientsLocked) and INFO's
// blocked_clients, as Redis's code calls them directly.

// commandFamilies lists every command family (one cmd_<family>.go file
// each, a []commandDef at its top). buildTable rejects a name listed twice.
var commandFamilies = [][]commandDef{
	connCommands,          // cmd_conn.go: PING, ECHO, QUIT, SELECT, HELLO, AUTH, RESET
	clientCommands,        // cmd_client.go: CLIENT *
	clientUnblockCommands, // blocking_timeout.go: CLIENT UNBLOCK
	trackingCommands,      // cmd_tracking.go: CLIENT TRACKING, CACHING, ...
	serverCommands,        // cmd_server.go: CONFIG, DBSIZE, FLUSH*, SHUTDOWN, TIME, ...
	infoCommands,          // info.go: INFO
	commandCommands,       // cmd_command.go: COMMAND *
	debugCommands,         // cmd_debug.go: DEBUG
	memoryCommands,        // memory.go: MEMORY *
	aofCommands,           // aof.go: BGREWRITEAOF
	keyCommands,           // cmd_keys.go: DEL, EXPIRE, SCAN, RENAME, ...
	stringCommands,        // cmd_string.go
	listCommands,          // cmd_list.go
	listBlockingCommands,  // cmd_listblock.go: BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH
	hashCommands,          // cmd_hash.go
	setCommands,           // cmd_set.go
	zsetCommands,          // cmd_zset.go
	zrangeCommands,        // cmd_zrange.go: ZRANGE and friends
	zalgebraCommands,      // cmd_zalgebra.go: ZUNION, ZINTER, ZDIFF (STORE)
	zsetBlockingCommands,  // cmd_zsetblock.go: BZPOPMIN, BZPOPMAX, BZMPOP
	multiCommands,         // cmd_multi.go: MULTI, EXEC, DISCARD, WATCH, UNWATCH
	pubsubCommands,        // cmd_pubsub.go
	scriptCommands,        // cmd_script.go: EVAL*, SCRIPT *
	functionCommands,      // cmd_function.go: FCALL*, FUNCTION *
	bitmapCommands,        // cmd_bitmap.go: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD*
	sortCommands,          // cmd_sort.go: SORT, SORT_RO
	hllCommands,           // cmd_hll.go: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST
	geoCommands,           // cmd_geo.go, cmd_georadius.go: GEO*
	monitorCommands,       // cmd_monitor.go: MONITOR
	slowlogCommands,       // slowlog.go: SLOWLOG *
	latencyCommands,       // latency.go, latency_hist.go: LATENCY * but GRAPH
	latencyGraphCommands,  // sparkline.go: LATENCY GRAPH
	pauseCommands,         // cmd_pause.go: CLIENT PAUSE, UNPAUSE, REPLY
	replCommands,          // cmd_repl.go: ROLE, WAIT, REPLICAOF, SLAVEOF
	configRewriteCommands, // config_rewrite.go: CONFIG REWRITE
	streamCommands,        // cmd_stream.go: XADD, XRANGE, XLEN, XDEL, XTRIM, XSETID
	streamGroupCommands,   // cmd_streamgroup.go: XGROUP *, XACK, XCLAIM, XAUTOCLAIM, XPENDING
	streamReadCommands,    // cmd_streamread.go: XREAD, XREADGROUP
	streamInfoCommands,    // cmd_streaminfo.go: XINFO *
	dumpCommands,          // cmd_dump.go: DUMP, RESTORE, RESTORE-ASKING
	migrateCommands,       // cmd_migrate.go: MIGRATE
	saveCommands,          // rdb_save.go: SAVE, BGSAVE, LASTSAVE
	aclCommands,           // cmd_acl.go: ACL *
	clusterCommands,       // cmd_cluster.go, cmd_cluster_slots.go: CLUSTER *, READONLY, READWRITE, ASKING
}

// hooks are the server's hook points. Each runs under the engine lock
// unless its comment says otherwise.
type hooks struct {
	// New (Redis initServer, then loadDataFromDisk).
	start []func(s *Server)       // New: configuration hooks, initial state
	load  []func(s *Server) error // New, after start: load persisted data; an error fails New

	// Every command a client sent, around its processCommand
	// (runCommandLocked, cmd_pause.go): run(s, c, args) processes it; the
	// interceptor may run it, change what it replies, or not run it. run is
	// a method expression, so a command passing the hook allocates nothing.
	intercept func(s *Server, c *client, args [][]byte, run func(*Server, *client, [][]byte) bool) bool

	// processCommand (dispatch.go), in its order.
	beforeCommand []func(s *Server, c *client, args [][]byte)               // before the lookup
	preCall       []func(s *Server, c *client, cmd *command) protocol.Error // checkBeforeCallLocked

	// call (dispatch.go callTimed), after the command's proc.
	afterCall []func(s *Server, c *client, cmd *command, args [][]byte)

	// The db write choke point (observer.go: db.Observer).
	keyModified []func(s *Server, d *db.DB, key string)              // signalModifiedKey
	keyEvent    []func(s *Server, d *db.DB, ev db.Event, key string) // notifyKeyspaceEvent
	keyReady    []func(s *Server, d *db.DB, key string, t db.Type)   // signalKeyAsReady
	flushed     []func(s *Server, dbIndex int)                       // signalFlushedDb (-1: all)
	swapped     []func(s *Server, a, b int)                          // SWAPDB

	// After a top-level command (processCommand's tail, afterCommandLocked).
	afterCommand []func(s *Server)

	// End of one client's batch of commands (conn.go processLocked).
	batchEnd []func(s *Server, c *client)

	// beforeSleep (eventloop.go beforeSleepLocked, and
	// processEventsWhileBlockedLocked during a busy script), after the
	// unblocked clients' commands and before the round's replies are written.
	beforeSleep []func(s *Server)

	// freeClient (conn.go freeClientLocked), after WATCH and MULTI state
	// are dropped.
	clientFree []func(s *Server, c *client)

	// RESET (cmd_conn.go cmdReset; Redis clearClientConnectionState).
	reset []func(s *Server, c *client)

	// serverCron (server.go cronOnce), after databasesCron and the client
	// timeouts.
	cron []func(s *Server)

	// SHUTDOWN (cmd_server.go; Redis prepareForShutdown): an error aborts
	// it unless FORCE.
	shutdown []func(s *Server, save bool) error

	// CONFIG RESETSTAT (cmd_server.go; Redis resetServerStats), after the
	// server's own counters.
	resetStat []func(s *Server)

	// INFO (info.go; Redis genRedisInfoString): fields appended to a
	// section after the section's own.
	info map[string][]func(s *Server, b *strings.Builder)
	// INFO sections of our own, printed after Redis's for their name or
	// INFO everything only.
	infoOwn []infoOwnSection

	// handleClientsBlockedOnKeys (blocking.go): how a client blocked on a
	// key of each kind is served (Redis serveClientsBlockedOnKey's switch).
	serveBlocked [numBlockKinds]blockServeFunc

	// The AOF rewrite (aof_rewrite.go). rewriteValue appends the commands
	// that rebuild one value of a type other than string (Redis's
	// rewriteListObject, rewriteSetObject, ...): at most rewriteItemsLimit
	// elements per command, v being the value db.KeyView.Obj holds (under
	// the engine lock, a chunk of keys at a time); a rewrite that meets a
	// type with none fails. rewriteGlobals append the commands that rebuild
	// server-wide state other than keys (as Redis's rewriteFunctions), under
	// the engine lock in the rewrite's final step, so the base holds that
	// state as it is at the switch to the new incremental file.
	rewriteValue   map[db.Type]rewriteValueFunc
	rewriteGlobals []func(s *Server, b []byte) []byte

	// Close (server.go), without the engine lock, after every client and
	// background task is gone.
	close []func(s *Server)

	// Test seams, nil outside tests; a test sets them on its own server
	// (newServer's prepare for aofFile, before the AOF opens at start).
	aofFile     func(f aof.File) aof.File // wraps every incremental AOF file opened
	rewriteStep func()                    // after each chunk of a rewrite, without the lock
}

// wire fills s.hooks. Called once from New.
func (s *Server) wire() {
	h := &s.hooks

	// initServer: the AOF's state and its CONFIG SET hooks, then the
	// startup heap and maxmemory's.
	h.start = append(h.start,
		(*Server).aclStartLocked,      // acl.go: the default user, requirepass (ACLInit)
		(*Server).aofStartLocked,      // aof.go
		(*Server).memoryStartLocked,   // memory.go
		(*Server).rdbStartLocked,      // rdb_save.go
		(*Server).logStartLocked,      // log_redis.go: loglevel
		(*Server).opsStartLocked,      // ops.go: slowlog, latency, min-replicas, unixsocket
		(*Server).watchObsStartLocked, // watch_obs.go: watch-hotkeys-size, watch-compat
		(*Server).listenStartLocked,   // listen.go: bind, port (applyBind, updatePort)
		(*Server).limitsStartLocked,   // limits.go: client-query-buffer-limit
		(*Server).tlsStartLocked,      // tls.go: tls-port and the TLS configuration
		(*Server).replStartLocked,     // repl_replica.go: replicaof (connected by the replication cron)
	)
	// loadDataFromDisk.
	h.load = append(h.load,
		(*Server).aclLoadUsersOnStartLocked, // acl_file.go: user directives, aclfile (ACLLoadUsersAtStartup)
		(*Server).clusterInitLocked,         // cluster.go: the slot index and nodes.conf (clusterInit)
		(*Server).openAOFOnStartLocked,      // aof.go (loadAppendOnlyFiles)
		(*Server).loadRDBOnStartLocked,      // rdb_load.go (rdbLoad, when the AOF is off)
		(*Server).clusterVerifyDataLocked,   // cluster.go: verifyClusterConfigWithData
		(*Server).loadFixtureOnStartLocked,  // fixture.go: the load parameter (ours, --load FILE)
	)

	// Around each client command: injected faults (not Redis's; nothing
	// is changed while no fault is installed).
	h.intercept = (*Server).faultInterceptLocked // fault.go

	// processCommand, before the lookup: server.current_client and the
	// one-command life of CLIENT CACHING (Redis resetClient / call).
	h.beforeCommand = append(h.beforeCommand,
		trackingBeforeCommand, // pubsub_hooks.go
	)
	// processCommand's subsystem checks, in Redis's order (after the
	// lookup, arity, protected, auth and no-multi checks in dispatch.go;
	// before MULTI queues the command).
	h.preCall = append(h.preCall,
		oomCheck,                             // memory.go: performEvictions; OOM for deny-oom commands
		trackingLimitCheck,                   // pubsub_hooks.go: trackingLimitUsedSlots (never rejects)
		aofDiskCheck,                         // aof_reply.go: writeCommandsDeniedByDiskError (MISCONF)
		(*Server).checkMinReplicasLocked,     // repl_wait.go: checkGoodReplicasStatus (NOREPLICAS)
		replicaReadOnlyCheck,                 // repl_replica.go: replica-read-only (READONLY)
		pubsubContextCheck,                   // pubsub_hooks.go: RESP2 subscribed context
		replicaStaleCheck,                    // repl_replica.go: replica-serve-stale-data (MASTERDOWN)
		busyScriptCheck,                      // script_run.go: isInsideYieldingLongCommand (BUSY)
		(*Server).checkMonitorKeyspaceLocked, // ops.go: a replica/monitor may not touch keys
	)
	// (Paused clients are postponed after every check: processCommand
	// calls postponeLocked, ops.go.)

	// call, after c->cmd->proc: trackingRememberKeys for read commands.
	// (Propagation, alsoPropagate, is not a hook: callTimed calls
	// callPropagating, aof_propagate.go.)
	h.afterCall = append(h.afterCall,
		trackingAfterCall, // pubsub_hooks.go
		replAfterCall,     // repl_wait.go: the client's stream offset (c->woff)
	)

	// The db choke point: the AOF first, then client-side caching and
	// keyspace notifications (the order of the init() registrations this
	// replaces). A rewrite in progress records a changed key before its
	// invalidation is queued, and an expired or evicted key's DEL is logged
	// before subscribers are sent "expired" or "evicted".
	h.keyModified = append(h.keyModified,
		rewriteKeyModified,       // aof_rewrite.go: the rewrite re-copies the key
		bgsaveKeyModified,        // rdb_save.go: a BGSAVE in progress re-copies the key too
		trackingKeyModified,      // tracking.go: trackingInvalidateKey
		streamReadersKeyModified, // cmd_stream.go: signalDeletedKeyAsReady for stream readers
	)
	h.keyEvent = append(h.keyEvent,
		aofKeyEvent,         // aof_propagate.go: expiries and evictions logged as DEL/UNLINK
		notifyKeyspaceEvent, // notify.go: __keyspace@/__keyevent@ messages
	)
	h.keyReady = append(h.keyReady,
		blockingKeyReady, // blocking.go: signalKeyAsReady
	)
	h.flushed = append(h.flushed,
		rewriteFlushed,       // aof_rewrite.go
		bgsaveFlushed,        // rdb_save.go
		trackingFlushed,      // tracking.go: trackingInvalidateKeysOnFlush
		streamReadersFlushed, // cmd_stream.go: stream readers of the flushed db
	)
	h.swapped = append(h.swapped,
		rewriteSwapped,  // aof_rewrite.go
		bgsaveSwapped,   // rdb_save.go
		blockingSwapped, // blocking.go: scanDatabaseForReadyKeys of both dbs
	)

	// After a top-level command: clients blocked on keys that became ready
	// are served (processCommand's handleClientsBlockedOnKeys), then the
	// invalidations held back during the command are sent. (Redis 7.0
	// sends them in call()'s afterCommand, before processCommand serves
	// blocked clients; this order is the one the init() registrations gave,
	// kept as it was.)
	h.afterCommand = append(h.afterCommand,
		(*Server).handleClientsBlockedOnKeysLocked, // blocking.go
		(*Server).flushPendingInvalidationsLocked,  // tracking.go
	)

	// A client's batch is done: pending invalidations, then BCAST
	// invalidations (beforeSleep's trackingBroadcastInvalidationMessages).
	h.batchEnd = append(h.batchEnd,
		trackingBatchEnd, // pubsub_hooks.go
	)

	// beforeSleep, after processUnblockedClients: flushAppendOnlyFile,
	// before handleClientsWithPendingWrites.
	h.beforeSleep = append(h.beforeSleep,
		(*Server).replBeforeSleepLocked, // repl_feed.go: processClientsWaitingReplicas, GETACK
		(*Server).aofBeforeSleepLocked,  // aof_reply.go
		(*Server).evictClientsLocked,    // limits.go: maxmemory-clients (evictClients)
	)

	// freeClient: unblockClient, then the pub/sub unsubscriptions and
	// disableTracking (unwatchAllKeys and MULTI are dropped before).
	h.clientFree = append(h.clientFree,
		blockingClientFree, // blocking.go
		pubsubClientFree,   // pubsub_hooks.go
		opsClientFree,      // ops.go: MONITOR, a command held by CLIENT PAUSE
		replClientFree,     // repl_master.go: a replica leaves; WAIT
		masterClientFree,   // repl_replica.go: the master link is lost
	)

	// RESET: disableTracking, then the unsubscriptions.
	h.reset = append(h.reset,
		pubsubReset,  // pubsub_hooks.go
		opsReset,     // ops.go: MONITOR, CLIENT REPLY
		clusterReset, // cluster.go: ASKING, READONLY
	)

	// serverCron: the AOF (flush postponed writes, fsync everysec, start a
	// scheduled or automatic rewrite), then clientsCron's memory sampling and
	// the eviction time proc.
	h.cron = append(h.cron,
		(*Server).aofCronLocked,       // aof.go
		(*Server).idlePurgeCronLocked, // idle_buffers.go: pages of the buffers clientsCron released
		(*Server).memoryCronLocked,    // memory.go
		(*Server).rdbCronLocked,       // rdb_save.go: save points, BGSAVE SCHEDULE
		(*Server).pauseCronLocked,     // ops.go: end of CLIENT PAUSE
		(*Server).migrateCronLocked,   // cmd_migrate.go: idle MIGRATE connections
		(*Server).replCronLocked,      // repl_feed.go: replicationCron, pending diskless snapshots
		(*Server).clusterCronLocked,   // cluster_handshake.go: clusterCron (handshakes, pings, master link, manual failover)
	)

	// prepareForShutdown: flush and fsync the AOF.
	h.shutdown = append(h.shutdown,
		(*Server).aofShutdownLocked, // aof.go
		(*Server).rdbShutdownLocked, // rdb_save.go: stop a BGSAVE, SAVE on shutdown
	)

	// CONFIG RESETSTAT: beyond the server's own counters (resetServerStats).
	h.resetStat = append(h.resetStat,
		resetLatencyHistograms, // latency_hist.go
		watchResetStat,         // watch_obs.go: INFO watch's counters
	)

	// genRedisInfoString: fields appended to sections.
	h.info = map[string][]func(s *Server, b *strings.Builder){
		"memory":      {infoScriptsMemory}, // script_info.go: used_memory_lua, scripts, functions
		"persistence": {(*Server).infoAOF}, // aof_info.go
		"stats":       {infoPubSubStats},   // pubsub_hooks.go: pubsub_*, tracking_*
	}
	h.infoOwn = []infoOwnSection{
		{"watch", infoWatch},   // watch_obs.go
		{"faults", infoFaults}, // fault.go
	}

	// serveClientsBlockedOnKey.
	h.serveBlocked[blockList] = serveListWaiter // cmd_listblock.go
	h.serveBlocked[blockZSet] = serveZSetWaiter // cmd_zsetblock.go

	// rewriteAppendOnlyFileRio: one rewriter per type (strings are the
	// rewrite's own), and the server-wide state after the keys
	// (rewriteFunctions: the FUNCTION libraries).
	h.rewriteValue = map[db.Type]rewriteValueFunc{
		db.TypeList:   rewriteList, // aof_rewrite_types.go
		db.TypeSet:    rewriteSet,
		db.TypeHash:   rewriteHash,
		db.TypeZSet:   rewriteZSet,
		db.TypeStream: rewriteStream, // aof_rewrite_stream.go
	}
	h.rewriteGlobals = append(h.rewriteGlobals, rewriteFunctions) // aof_rewrite_types.go

	// Close: the AOF's final write, fsync and close.
	h.close = append(h.close,
		(*Server).closeAOF,        // aof.go
		(*Server).closeRDB,        // rdb_save.go
		(*Server).closeClusterBus, // cluster_peers.go: leaves the in-process bus
		(*Server).closeCluster,    // cluster.go: releases nodes.conf
		migrateCloseAll,           // cmd_migrate.go: cached MIGRATE connections
	)
}
