// Package server is miniwatchd's engine: the listeners, the event loop and
// the engine lock, client state, the command table and dispatcher, EXEC,
// propagation to the append-only file, and one cmd_<family>.go file per
// command family. It behaves as Redis 7.0.15 does, reply bytes and error
// texts included, in RESP2 and RESP3.
//
// # The spine
//
// What happens to a command, in order, and the file that holds each step
// (Redis's function in parentheses):
//
//   - Listener: Server.Listen and acceptLoop (listen.go; TLS in tls.go; plain TCP in the event loop, accept_linux.go) accept
//     connections; serveConn and newClient (conn.go) take the socket out of
//     Go's poller and hand it to the event loop (acceptTcpHandler,
//     createClient).
//   - Event loop: one goroutine (eventloop.go, over a poller: epoll on
//     Linux) waits for ready sockets, reads them (readQueryFromClient) and runs
//     every complete command of a client's buffer (conn.go processLocked:
//     processInputBuffer), all under the engine lock, taken once per round.
//     Each command passes hooks.intercept on its way to processCommand
//     (runCommandLocked: injected faults, fault.go; a no-op without any).
//     LocalClient (local.go) enters at the same point without a socket.
//   - Dispatch: processCommand (dispatch.go) runs hooks.beforeCommand
//     (client-side caching notes the current client), looks the command up in the
//     table (table.go), checks arity, DEBUG's protection, authentication,
//     MULTI, ACL, in cluster mode the redirection (cluster_redirect.go:
//     getNodeByQuery, one guarded branch), then the subsystem checks
//     (hooks.preCall: out of memory, the
//     tracking table, MISCONF, RESP2 subscribed context, a busy script),
//     and queues the command inside MULTI or calls it.
//   - Call: callTimed (dispatch.go: call) runs the handler and keeps
//     commandstats; EXEC (cmd_multi.go) and scripts (script_run.go) come
//     through it too. Every key a handler changes is changed by db's write
//     choke point, whose signals reach the hooks through observer.go.
//   - Propagation: with the AOF on or a replication backlog, callTimed runs
//     the handler through callPropagating (aof_propagate.go: call's
//     propagation and propagatePendingCommands), which records what the
//     command changed as one unit per top-level call, written to the AOF
//     and fed to the replication stream (repl_feed.go:
//     replicationFeedSlaves), each with its own SELECT state;
//     aof_commands.go says how the commands that need it are rewritten for
//     the log (rewriteClientCommandVector). Replication's master side is
//     repl_master.go (SYNC, PSYNC, REPLCONF), repl_backlog.go, repl_wait.go
//     (WAIT, min-replicas) and repl_info.go; its replica side is
//     repl_replica.go, whose master client's stream runs through
//     processCommand like any client's.
//   - After the command: hooks.afterCommand serves clients blocked on keys
//     that became ready (blocking.go: handleClientsBlockedOnKeys) and sends
//     deferred invalidations (tracking.go).
//   - beforeSleep: at the end of each round (eventloop.go
//     beforeSleepLocked) clients unblocked meanwhile run their buffered
//     commands, the AOF is written and fsynced (aof_reply.go:
//     flushAppendOnlyFile), every pending reply is written
//     (handleClientsWithPendingWrites), and clients to close are freed
//     (freeClientsInAsyncFreeQueue, conn.go freeClientLocked: freeClient).
//   - serverCron: Server.cron (server.go) runs databasesCron, client
//     timeouts, hooks.cron (AOF, memory sampling) and the active expiry
//     cycle.
//
// wiring.go lists every hook point and its contributors in the order they
// run: it answers "what runs after a command, before sleep, when a client
// is freed". No init() registers behaviour.
//
// # Adding a command family
//
// Put the family in its own file, cmd_<family>.go, starting with its table:
//
//	var streamCommands = []commandDef{
//		{"xadd", cmdXAdd},
//		{"xgroup|create", cmdXGroupCreate}, // subcommands as "container|sub"
//	}
//
// then add one line, streamCommands, to commandFamilies in wiring.go. Arity,
// flags and key positions come from cmdmeta's recorded Redis 7.0.15 table,
// so a handler never checks its own arity; a name without Redis metadata,
// or listed twice, makes New fail. A family that needs a hook (a blocked
// client served from a new type, a rewriter for a new value type, INFO
// fields) adds its functions to wire in wiring.go, at the place of Redis's
// order, with a comment naming the Redis function it mirrors.
//
// # Locking
//
// Server.mu, the engine lock, stands for Redis's single thread: every
// command, EXEC, script, the active expiry cycle and every change to the
// keyspace, the clients, the configuration or the statistics happens
// holding it. Functions that expect it held end in Locked. Background work
// takes it through engineLocker (enginelock.go), which also waits while a
// script runs.
//
// helptext_gen.go is generated by gen_helptext.go (go generate) from
// redis-server's own HELP replies.
//
//go:generate go run gen_helptext.go
package server
