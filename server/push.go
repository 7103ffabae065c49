package server

// Delivery of out-of-band output to other clients: pub/sub messages,
// keyspace notifications and client-side caching invalidations.
//
// A producer (the client running PUBLISH, a write that raises a keyspace
// event, the expiry cycle) holds the engine lock; the receiver may be any
// client. The frame is appended to the receiver's output buffer and its
// writer goroutine is woken, so the producer never waits for the receiver's
// socket. A receiver that falls behind is disconnected when its buffer
// crosses client-output-buffer-limit (Redis's checkClientOutputBufferLimits,
// networking.c), which keeps a stalled subscriber from holding memory
// without bound while every other subscriber goes on.

// deliverLocked appends frame to c's output, behind everything already
// there: while c runs its own batch that is between the replies of its
// commands, exactly where Redis would put it.
func (s *Server) deliverLocked(c *client, frame []byte) {
	if c.killed.Load() {
		return
	}
	c.w.Buf = append(c.w.Buf, frame...)
	if c.executing || !s.loop.registered(c) {
		return
	}
	if s.outputLimitReachedLocked(c, c.pending()) {
		s.closeClientASAPLocked(c)
		return
	}
	s.loop.queueWriteLocked(c)
}

// outputLimitReachedLocked applies client-output-buffer-limit to a client
// with used bytes waiting (Redis's checkClientOutputBufferLimits): the hard
// limit disconnects at once; the soft limit only once it has been exceeded
// continuously for more than its seconds, measured on the server clock.
// Subscribed clients use the pubsub class, replicas the replica class
// (their snapshot counts while unwritten), every other client the normal
// class.
func (s *Server) outputLimitReachedLocked(c *client, used int) bool {
	class := OutputBufferNormal
	if c.ps.subscribed() {
		class = OutputBufferPubSub
	}
	if c.repl != nil && c.repl.state != 0 {
		class = OutputBufferReplica // repl_master.go
	}
	l := s.cfg.ClientOutputBufferLimit[class]
	u := uint64(used)
	hard := l.Hard > 0 && u >= l.Hard
	soft := l.Soft > 0 && u >= l.Soft
	if soft {
		now := s.clock.Now().Unix()
		if c.ps.softLimitSince == 0 {
			c.ps.softLimitSince = now
			soft = false
		} else if now-c.ps.softLimitSince <= l.SoftSeconds {
			soft = false
		}
	} else {
		c.ps.softLimitSince = 0
	}
	return soft || hard
}

// closeClientASAPLocked disconnects c because its output buffer went over
// the limit (Redis's freeClientAsync from
// closeClientOnOutputBufferLimitReached): pending output is dropped, the
// connection closed, and the client's own goroutine frees it, dropping its
// subscriptions.
func (s *Server) closeClientASAPLocked(c *client) { s.closeOverLimitLocked(c, true) }

// closeOverLimitLocked is closeClientASAPLocked with Redis's log line for
// an asynchronous close (output added) or a synchronous one (the cron's
// check: "closed for overcoming").
func (s *Server) closeOverLimitLocked(c *client, async bool) {
	if c.killed.Swap(true) {
		return
	}
	if async {
		s.log.Warn("Client " + s.clientInfoLocked(c) + " scheduled to be closed ASAP for overcoming of output buffer limits.")
	} else {
		s.log.Warn("Client " + s.clientInfoLocked(c) + " closed for overcoming of output buffer limits.")
	}
	s.ps.obufDisconnections++
	c.w.Buf = c.w.Buf[:c.wpos] // drop what is unwritten
	s.loop.closeLocked(c)
}
