// Package rdb is miniwatchd's one codec of Redis's RDB format, version 10
// as Redis 7.0 writes it (src/rdb.c, rdb.h, listpack.c, ziplist.c,
// zipmap.c, intset.c, lzf_*.c, crc64.c). It is used by every reader and
// writer of that format: DUMP / RESTORE payloads (dump.go), FUNCTION DUMP /
// RESTORE (functions.go), RDB files for SAVE, BGSAVE and loading at start,
// and the AOF base file written with aof-use-rdb-preamble (file.go).
//
//   - encode.go: lengths, strings (integer, LZF and plain encodings),
//     binary doubles, times.
//   - lzf.go, crc64.go: liblzf 3.6 as Redis builds it; Redis's CRC64 (Jones).
//   - listpack.go, compact.go: the listpack builder and decoder; the
//     ziplist, zipmap and intset decoders and the intset encoder.
//   - value.go: Value, the keyspace-independent form of one key's value, and
//     its encoder with Redis 7.0's choice of encoding (quicklist nodes split
//     as quicklistPushTail splits them).
//   - decode.go, object.go: the bounds-checked reader and the object decoder
//     for every type and encoding Redis 7.0 loads.
//   - stream.go: stream values (see Streams).
//   - dump.go, functions.go, file.go: payloads and files.
//
// # Contracts
//
// Decoding outside bytes never panics, never loops without consuming input
// and never allocates more than the input justifies: every length is
// checked against what is left (or read in bounded chunks when the size is
// unknown), element counts are bounded by the remaining bytes, and LZF
// output is bounded by its possible expansion. Problems are *Error (files),
// ErrBadFormat / ErrPayloadFooter (payloads) or ErrEmptyKey.
//
// Encoding is byte-identical to Redis 7.0 for the same logical value and
// encoding, with two inherent exceptions: hashtable-encoded sets and hashes
// are written in the caller's iteration order (Redis's follows its dict's
// seeded hash), and a list is split into quicklist nodes as if every
// element had been pushed at the tail (Redis's node boundaries depend on
// the list's history when it spans several nodes).
//
// # Streams
//
// stream.go holds streams: Value.Stream is the stream as persisted (its
// radix tree's nodes with their entries, tombstones included, the
// counters, the consumer groups with their PELs and consumers). It is
// written as RDB_TYPE_STREAM_LISTPACKS_2 (19), Redis 7.0's, each node's
// listpack built as t_stream.c builds it, so a DUMP is byte-equal to
// Redis's for the same stream; 15 (Redis 5 and 6) and 7.2's 21 are read.
// Decoding checks every listpack entry as sanitize-dump-payload does, and
// always checks the ordering and ownership the keyspace relies on, which
// Redis 7.0 does not (stream.go, readStream).
//
// The package depends only on protocol (number parsing and formatting); it
// knows nothing of the keyspace.
package rdb
