package server

import "testing"

// TestClientsCronShare: with 200 clients and hz 10 a cron tick visits 20
// of them, in a rotation that reaches each once in ten ticks; the
// clients' memory total then counts each client's buffers once, follows a
// client whose buffers grew at its next visit, and drops a freed client's
// share at once. With 3 clients every tick visits all of them (at least
// clientsCronMinIterations a tick).
func TestClientsCronShare(t *testing.T) {
	s := startTestServer(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Hz = 10
	base := s.mem.clients
	var fake []*client
	for range 200 {
		c := &client{srv: s, fd: -1}
		c.w.Buf = make([]byte, 0, 100)
		fake = append(fake, c)
		s.clients[-int64(len(fake))] = c // ids no real client has
		c.id = -int64(len(fake))
		s.ring.add(c)
	}
	real := len(s.ring.list) - len(fake)
	visited := func() int {
		n := 0
		for _, c := range fake {
			if c.memCounted != 0 {
				n++
			}
		}
		return n
	}
	s.clientsCronLocked()
	if v := visited(); v < 20-real || v > 20 {
		t.Fatalf("one tick visited %d of 200 clients, want 20 (%d real clients)", v, real)
	}
	for range 9 {
		s.clientsCronLocked()
	}
	if v := visited(); v != 200 {
		t.Fatalf("ten ticks visited %d of 200 clients", v)
	}
	if got := s.mem.clients - base; got != 200*100 {
		t.Fatalf("clients' memory %d after a rotation, want %d", got, 200*100)
	}
	fake[7].w.Buf = make([]byte, 0, 1000)
	for range 10 {
		s.clientsCronLocked()
	}
	if got := s.mem.clients - base; got != 199*100+1000 {
		t.Fatalf("clients' memory %d after a client grew, want %d", got, 199*100+1000)
	}
	s.freeClientLocked(fake[7])
	if got := s.mem.clients - base; got != 199*100 || fake[7].ringPos != -1 || len(s.ring.list) != real+199 {
		t.Fatalf("after a free: memory %d (want %d), ringPos %d, %d in the ring", got, 199*100, fake[7].ringPos, len(s.ring.list))
	}
	for _, c := range fake {
		if c != fake[7] {
			s.freeClientLocked(c)
		}
	}
	if len(s.ring.list) != real {
		t.Fatalf("%d clients in the ring after the fakes left, want %d", len(s.ring.list), real)
	}
	for i, c := range s.ring.list {
		if c.ringPos != i {
			t.Fatalf("ring[%d] has ringPos %d", i, c.ringPos)
		}
	}

	few := []*client{{srv: s, fd: -1, id: -1}, {srv: s, fd: -1, id: -2}, {srv: s, fd: -1, id: -3}}
	for _, c := range few {
		c.w.Buf = make([]byte, 0, 10)
		s.clients[c.id] = c
		s.ring.add(c)
	}
	s.clientsCronLocked()
	for i, c := range few {
		if c.memCounted != 10 && len(s.ring.list) <= clientsCronMinIterations {
			t.Fatalf("few clients: client %d not visited by one tick", i)
		}
		s.freeClientLocked(c)
	}
}
