// Package db is the keyspace: every logical database of a server (Keyspace,
// DB), our own incrementally rehashed hash table (dict.go), the value types
// (strings in the entry, List, Set, Hash, ZSet) and THE WRITE CHOKE POINT,
// DB.signal (keyspace.go). Redis's counterparts are db.c, t_*.c and dict.c.
//
// # Contracts
//
//   - Only methods of this package change a key. Lookups hand out values
//     (*List, *Set, *Hash, *ZSet, and the bytes of strings and members) for
//     reading only: their exported methods do not modify them, and nothing
//     outside db may. A command that writes calls one db method (SetString,
//     ListPush, ZAdd, Rename, StoreSet, ...) that checks, changes and signals.
//   - Every modification of a key ends in DB.signal exactly once for that key
//     (a write of two keys, such as RENAME or SMOVE, signals each once, in
//     Redis's order). signal touches the key's watchers (watch.Keys.Touch),
//     counts the change and tells the Observer (Modified, then the keyspace
//     events). A write that changes nothing does not call it when Redis does
//     not signal either (spec/watch.md §2, T-5: DEL of a missing key, SADD of
//     a member already there, ZADD of the same score, an empty SETRANGE,
//     RENAME k k, every error). Whole-database writes (FLUSHDB, FLUSHALL,
//     SWAPDB) touch watchers by the T-2 rules and tell the Observer once
//     (Flushed, Swapped) instead of per key.
//   - Expiry and eviction share one removal path, removeEntry: a lookup that
//     finds a key past its deadline deletes it there (lazy expiry, also on
//     reads), as do the active expiry cycle and Evict, so each removal is
//     signalled once like any other write.
//   - mutators_test.go holds the table that runs every exported mutator
//     against a recording Observer (one announcement per modification, none
//     for the unsignalled no-ops) and fails when an exported method is in
//     neither its table nor its list of read-only methods. A new mutator
//     gets rows there.
//
// # Aliasing
//
// Bytes read from the db (GetString's result, Set members passed to Each,
// and the strings inside values) may point into the key's own storage: a
// short string value lives in the tail of its entry's allocation and is
// overwritten in place by the next write that fits (entrytail.go). A caller
// must copy such bytes before the next write to the same key (and, to be
// safe, before any write, since a write may delete or replace the key), and
// must not modify them. Replies are written before the next command runs, so
// a command handler that reads, then replies, needs no copy; one that keeps
// what it read across a write (its own or a later command's) does.
//
// # Locking
//
// Nothing here is safe for concurrent use. The server's engine lock, which
// stands for Redis's single thread, guards every Keyspace and DB and every
// value handed out; all methods, and every Observer callback (which runs
// inside the calling method and must not call back into db), run under it.
// Work spread over many event-loop rounds, such as the AOF rewrite, takes
// the lock for each slice and walks with Walk under HoldShrink.
package db
