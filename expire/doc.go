// Package expire holds what removes keys without a client asking, and the
// time it is measured by. It reaches keys only through the db package's
// single removal path (db's removeEntry, via ActiveExpireStep,
// ExpireAllStale and Evict), so every expiry and eviction touches watchers
// and raises its event exactly like a DEL would.
//
// The pieces, one file each:
//
//   - clock.go: Clock, the injectable time source (wall clock by default;
//     tests and DEBUG subcommands shift, set or freeze it). Safe for
//     concurrent use.
//   - cycle.go: Cycle, Redis 7.0's activeExpireCycle (expire.c), slow and
//     fast kinds, with budgets derived from active-expire-effort; it holds the engine
//     lock at most SliceBudget at a time (Lock.Yield between slices), and
//     SweepLocked, which expires every stale key at once.
//   - evict.go: Evictor, Redis's evict.c performEvictions with the shared
//     16-entry candidate pool, the maxmemory policies (ParsePolicy) and the
//     eviction time limit from maxmemory-eviction-tenacity. Called under the
//     engine lock.
//
// Cycle and Evictor are not safe for concurrent use: the server runs one of
// each, under its engine lock.
package expire
