// Package watch holds the bookkeeping behind WATCH: for every logical
// database a map from key to the records of the clients watching it
// (Redis's db->watched_keys), and for every client the list of its own
// records plus the CLIENT_DIRTY_CAS flag (Redis's c->watched_keys and
// c->flags). It is a leaf package: it knows nothing about values, only about
// keys, clients and the one bit of key state a record keeps ("the key was
// already logically expired when it was watched").
//
// # Contracts
//
//   - One record per (client, db, key). Watching again adds nothing (W-4).
//   - Keys.Touch is called by the db package's write choke point after every
//     modification of a key, with whether the key exists now. A record made
//     while its key was stale is cleared, not dirtied, when the key is gone
//     (deleting a stale key is no logical change, T-0); every other record
//     dirties its client and drops all of that client's records at once (W-10f).
//   - Redis 7.0 stops its walk at the first stale record whose key still
//     exists, so later watchers of the same key are not dirtied (spec T-6). We
//     deliberately do not copy that: every record is visited, and a stale
//     record whose key exists again (it was re-created) dirties its client.
//   - Whole-database events (FLUSHDB, FLUSHALL, SWAPDB) only set the dirty flag
//     and leave the records in place until EXEC, DISCARD or UNWATCH (T-2,
//     Redis >= 7.0.9).
//
// Observability (why.go, hotkeys.go): the first touch that dirties a client
// is recorded in the client's one Why record from the shared touch Context
// (read only when a watcher is dirtied); the Context also keeps the gauges
// (records, keys, bytes, peaks). HotKeys is the bounded Space-Saving
// summary of the keys whose touches aborted transactions.
//
// # Layout and cost
//
// A client's records are a slice of values (24 bytes each); a db's
// watched_keys is a hash table of its own (table.go) from the key to an
// entry holding the key once, the first watcher inline and, for a key with
// more, an index into a shared slab of watcher lists. Records and watchers
// refer to each other by index, so WATCH allocates nothing per record beyond
// the key's bytes (once per watched (db, key)) and amortised slice growth:
// about 110 live bytes per record at one watcher per key, against about 200
// with Go maps of pointers (spec W-12: Redis keeps a watchedKey, two list
// nodes, a dict entry, a list and the key object per record).
//
// Watch is O(min(records of the client, watchers of the key)) for the
// duplicate check (Redis scans the client's records). Touch is
// O(watchers of the key) plus the other records of the clients it dirties,
// one pass with no allocation: the key's list is rebuilt at the end rather
// than shrunk once per watcher. UnwatchAll is O(records of the client): a
// record leaves its key's list in O(1) by position (Redis 7.0 searches the
// list, O(watchers of the key) per record).
//
// # Locking
//
// Nothing here is safe for concurrent use. Every call happens under the
// server's engine lock.
package watch
