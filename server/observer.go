package server

import "github.com/miniwatchd/miniwatchd/db"

// observer receives what db's write choke point announces and fans it out to
// the subsystems that registered hooks (client-side caching, keyspace
// notifications, blocked clients). It runs under the engine lock.
type observer struct{ s *Server }

// Hooks registered by subsystems in init. Each runs under the engine lock.
var (
	keyModifiedHooks []func(s *Server, d *db.DB, key string)
	keyEventHooks    []func(s *Server, d *db.DB, ev db.Event, key string)
	keyReadyHooks    []func(s *Server, d *db.DB, key string, t db.Type)
	flushedHooks     []func(s *Server, dbIndex int)
	swappedHooks     []func(s *Server, a, b int)
)

func (o observer) Modified(d *db.DB, key string) {
	for _, fn := range keyModifiedHooks {
		fn(o.s, d, key)
	}
}

func (o observer) Notify(d *db.DB, ev db.Event, key string) {
	for _, fn := range keyEventHooks {
		fn(o.s, d, ev, key)
	}
}

func (o observer) Ready(d *db.DB, key string, t db.Type) {
	for _, fn := range keyReadyHooks {
		fn(o.s, d, key, t)
	}
}

func (o observer) Flushed(dbIndex int) {
	for _, fn := range flushedHooks {
		fn(o.s, dbIndex)
	}
}

func (o observer) Swapped(a, b int) {
	for _, fn := range swappedHooks {
		fn(o.s, a, b)
	}
}
