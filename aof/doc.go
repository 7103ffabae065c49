// Package aof holds the file side of miniwatchd's append-only persistence,
// in Redis 7.0's multi-part format, so that redis-server 7.0 loads a
// directory miniwatchd wrote and the other way round:
//
//   - manifest.go: the manifest that lists the base file, the incremental
//     files and the history files of the AOF directory (Redis aof.c's
//     aofManifest), its parser, printer, naming rules and atomic replacement.
//   - encode.go: commands as the log stores them (RESP arrays of bulk
//     strings, Redis's catAppendOnlyGenericCommand).
//   - reader.go: reading the commands back, with Redis's distinction between a
//     truncated last command (a crash in the middle of a write) and a corrupt
//     file, and the byte offset of either.
//   - rdb.go, scan.go: a base file in RDB format (aof-use-rdb-preamble yes,
//     Redis's default and ours) is read as commands, or handed whole to the
//     caller's loader (ScanFileRDB: the server loads it as dump.rdb); the
//     decoding is the rdb package's.
//   - log.go: the open incremental file: appends, group commit for
//     appendfsync always, the background fsync of everysec, error status,
//     and the switch to a new file when a rewrite ends.
//
// The package knows nothing of the keyspace or the server: the server
// decides what to log and replays what is read.
package aof
