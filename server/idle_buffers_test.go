package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleBuffersReleased: clientsCron takes the query buffer and a
// grown reply buffer of a client idle for more than 2 seconds, leaves a
// busy client's and a blocked client's alone, and the idle client is
// served as before (CLIENT LIST then shows qbuf-free=0, as Redis does
// once clientsCronResizeQueryBuffer trimmed it).
func TestIdleBuffersReleased(t *testing.T) {
	s := startTestServer(t)
	idle, busy, blocked := dialTest(t, s), dialTest(t, s), dialTest(t, s)
	for _, c := range []*testConn{idle, busy} {
		c.do("CLIENT", "SETNAME", "x")
	}
	if got := idle.do("SET", "big", strings.Repeat("v", 4000)); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	if got := idle.do("GET", "big"); len(got) < 4000 {
		t.Fatalf("GET: %d bytes", len(got))
	}
	blocked.send("BLPOP", "nolist", "0")
	waitSnapshot(t, s, blockingSnapshot{blocked: 1, timeouts: 0, waitLists: 1})

	byName := map[*testConn]*client{}
	s.mu.Lock()
	old := time.Now().UnixMilli() - 3000
	for _, c := range s.clients {
		if c.sock == nil {
			continue
		}
		switch {
		case c.blocked != nil:
			byName[blocked] = c
			c.lastActive.Store(old)
		case cap(c.w.Buf) > replyMinBytes:
			byName[idle] = c
			c.lastActive.Store(old)
		default:
			byName[busy] = c
		}
	}
	if len(byName) != 3 {
		s.mu.Unlock()
		t.Fatalf("found %d of the 3 clients", len(byName))
	}
	blockedCap := byName[blocked].parser.Cap()
	s.clientsCronLocked() // three clients: each is visited
	gotIdle := []int{byName[idle].parser.Cap(), cap(byName[idle].w.Buf)}
	gotBusy, gotBlocked := byName[busy].parser.Cap(), byName[blocked].parser.Cap()
	s.mu.Unlock()

	if gotIdle[0] != 0 || gotIdle[1] != 0 {
		t.Errorf("idle client keeps query buffer %d, reply buffer %d; want both released", gotIdle[0], gotIdle[1])
	}
	if gotBusy == 0 {
		t.Error("a client active within 2 s lost its query buffer")
	}
	if gotBlocked != blockedCap || gotBlocked == 0 {
		t.Errorf("blocked client's query buffer %d, had %d", gotBlocked, blockedCap)
	}
	if got := busy.do("CLIENT", "LIST", "ID", strconv.FormatInt(byName[idle].id, 10)); !strings.Contains(got, " qbuf=0 qbuf-free=0 ") {
		t.Errorf("CLIENT LIST after release: %q", got)
	}
	if got := idle.do("GET", "big"); len(got) < 4000 {
		t.Errorf("GET after release: %d bytes", len(got))
	}
	if got := busy.do("LPUSH", "nolist", "a"); got != ":1\r\n" {
		t.Fatalf("LPUSH: %q", got)
	}
	if got := blocked.read(10 * time.Second); got != "*2\r\n$6\r\nnolist\r\n$1\r\na\r\n" {
		t.Errorf("blocked client after the cron: %q", got)
	}
}
