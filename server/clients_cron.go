package server

import "time"

// clientsCron, as Redis's: every cron tick (hz a second) visits a share
// of the clients, numclients/hz of them but at least
// clientsCronMinIterations, in a rotation, so each client is looked at
// about once a second whatever their number. A visit closes the client
// when it timed out, gives back an idle client's buffers, brings the
// clients' memory total up to date with the client's, and closes a client
// that stays over its output soft limit. Looking at every client at every
// tick instead cost an idle server with 10,000 clients 2.7% of a CPU and
// held the engine lock for the whole loop ten times a second.
//
// The rotation is clientRing: every client in s.clients, each knowing its
// index (ringPos). All of it is guarded by the engine lock.

// clientsCronMinIterations is Redis's CLIENTS_CRON_MIN_ITERATIONS.
const clientsCronMinIterations = 5

// clientRing is the clients in the order the cron visits them.
type clientRing struct {
	list []*client
	next int // index of the next client to visit
}

// add puts c at the end of the rotation.
func (r *clientRing) add(c *client) {
	c.ringPos = len(r.list)
	r.list = append(r.list, c)
}

// remove takes c out (the last client takes its place).
func (r *clientRing) remove(c *client) {
	i := c.ringPos
	if i < 0 || i >= len(r.list) || r.list[i] != c {
		return
	}
	last := len(r.list) - 1
	r.list[i] = r.list[last]
	r.list[i].ringPos = i
	r.list[last] = nil
	r.list = r.list[:last]
	c.ringPos = -1
}

// clientsCronLocked visits this tick's share of the clients.
func (s *Server) clientsCronLocked() {
	r := &s.ring
	n := len(r.list)
	iters := n / max(s.cfg.Hz, 1)
	if iters < clientsCronMinIterations {
		iters = min(n, clientsCronMinIterations)
	}
	now := time.Now().UnixMilli()
	for ; iters > 0 && len(r.list) > 0; iters-- {
		if r.next >= len(r.list) {
			r.next = 0
		}
		c := r.list[r.next]
		r.next++
		if s.clientTimedOutLocked(c, now) {
			s.disconnectLocked(c)
			continue
		}
		s.releaseIdleBuffersLocked(c, now) // idle_buffers.go
		s.trackClientMemoryLocked(c)       // memory.go
		if c.pending() > 0 && !c.executing {
			s.checkOutputLimitLocked(c, false) // limits.go: the soft limit's seconds
		}
	}
}
