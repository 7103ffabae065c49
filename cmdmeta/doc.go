// Package cmdmeta is Redis 7.0.15's command metadata as data: for every
// command and subcommand, the exact COMMAND INFO element and COMMAND DOCS
// value that redis-server 7.0.15 replies with, with every RESP3 type kept,
// plus the fields a command table needs (arity, flags, key specs, ACL
// categories) parsed out of them.
//
// # Data
//
// redis-7.0.15.json is recorded from a real server by cmdmeta/gen (see
// its doc comment); redis-7.2-additions.json holds, written by hand, the
// subcommands that newer clients send and that miniwatchd supports as in
// Redis 7.2 (CLIENT SETINFO, CLIENT NO-TOUCH), in Redis 7.0.15's reply
// shapes and taken from Redis 7.2's src/commands/*.json. Such commands have
// Added set. Both files are embedded and parsed once, on the first call of
// any lookup function (Load forces it; it takes a few milliseconds).
//
// Redis lists commands and subcommands in the order of its hash tables,
// which depends on a random per-process seed and can even change between
// two calls while a table is rehashing; this package lists them sorted by
// name instead. Everything else is byte for byte what Redis writes.
//
// # RESP2
//
// The generator compared, for every command and subcommand, the raw RESP2
// replies of COMMAND INFO and COMMAND DOCS with the RESP3 trees degraded
// the standard way (map to flat array, set to array; protocol.Writer's
// RESP2 mode) and found no difference apart from the hash-table order
// above. So one tree per command serves both protocols.
//
// # Key positions
//
// Command.KeyPositions follows Redis 7.0's getKeysFromCommandWithSpecs:
// key specs first, and for the commands whose specs are incomplete, have
// variable flags or fail on the given arguments, the same fallback
// functions Redis has (SORT, MIGRATE, EVAL, ZUNIONSTORE, XREAD, ...).
//
// Everything returned is shared and read-only: callers must not modify a
// Command, its slices or its Nodes.
package cmdmeta
