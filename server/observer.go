package server

import "github.com/miniwatchd/miniwatchd/db"

// observer receives what db's write choke point announces and fans it out to
// the hooks wiring.go lists (the AOF rewrite and propagation, client-side
// caching, keyspace notifications, blocked clients). It runs under the
// engine lock.
type observer struct{ s *Server }

func (o observer) Modified(d *db.DB, key string) {
	for _, fn := range o.s.hooks.keyModified {
		fn(o.s, d, key)
	}
}

func (o observer) Notify(d *db.DB, ev db.Event, key string) {
	for _, fn := range o.s.hooks.keyEvent {
		fn(o.s, d, ev, key)
	}
}

func (o observer) Ready(d *db.DB, key string, t db.Type) {
	for _, fn := range o.s.hooks.keyReady {
		fn(o.s, d, key, t)
	}
}

func (o observer) Flushed(dbIndex int) {
	for _, fn := range o.s.hooks.flushed {
		fn(o.s, dbIndex)
	}
}

func (o observer) Swapped(a, b int) {
	for _, fn := range o.s.hooks.swapped {
		fn(o.s, a, b)
	}
}
