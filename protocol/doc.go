// Package protocol is the wire format and the number rules of Redis 7.0.15:
// what a client sends is parsed here, every byte sent back is encoded here,
// and the numbers inside both are read and printed here, so each has one
// implementation (STYLE.md principle 9). It imports nothing of the project
// and knows nothing about commands or the keyspace.
//
// The pieces, one file each:
//
//   - reader.go: Parser, the request parser (multibulk and inline, Redis's
//     processMultibulkBuffer/processInlineBuffer) with proto-max-bulk-len,
//     the limits for unauthenticated clients and Redis's exact protocol
//     error texts (ProtocolError). splitargs.go: SplitArgs, sdssplitargs for
//     inline requests and configuration lines.
//   - append.go: the one RESP encoder, append-style (AppendArrayLen,
//     AppendBulk, AppendBulkString, AppendBulkInt, AppendCommand), used by
//     the reply Writer, the pub/sub and tracking frames and the AOF writer.
//   - writer.go: Writer, the RESP2/RESP3 reply writer with Redis's RESP2
//     degradations (maps as flat arrays, doubles as bulks ...) and deferred
//     lengths; AppendDouble17 and AppendG, C's %.17g and %g.
//   - errors.go: Error and the error replies shared by many commands, with
//     Redis's exact texts.
//   - number.go: Redis's strict parsers (string2ll, string2ull, string2d,
//     the SCAN cursor) and integer/double printing (ll2string, d2string).
//     strtod.go: ParseStrtod, a bare strtod (ZRANGEBYSCORE bounds).
//     longdouble.go: LongDouble, the x87 80-bit long double INCRBYFLOAT
//     computes in, with its parser and printer. timeout.go: the timeouts of
//     blocking commands. libc.go: C's strtoll, atoll and atoi, for the places
//     where Redis calls libc.
//
// # Contracts
//
//   - Parsers take the whole argument and report whether all of it is one
//     number (the libc family excepted, which stops where C stops); none
//     allocates.
//   - Writer and the Append functions append to the caller's buffer and
//     allocate only to grow it; Writer never touches a socket.
//   - The arguments Parser.Next returns alias its buffer until the next
//     Fill (see Parser).
//
// # Locking
//
// A Parser and a Writer belong to one connection and are not safe for
// concurrent use, except Parser.Cap, which other goroutines may call. The
// functions hold no state.
package protocol
