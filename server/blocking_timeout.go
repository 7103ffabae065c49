package server

import (
	"container/heap"
	"math"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Timeouts of blocked clients (Redis timeout.c's clients_timeout_table) and
// CLIENT UNBLOCK. Deadlines are read on the server clock, so advancing a
// test clock fires them: the clock's OnChange callback wakes the timer
// goroutine, which re-checks the earliest deadline.

var clientUnblockCommands = []commandDef{
	{"client|unblock", cmdClientUnblock},
}

// timeoutHeap orders blocked clients by deadline, then by client id (the
// order of Redis's radix tree keys).
type timeoutHeap []*blockedClient

func (h timeoutHeap) Len() int { return len(h) }
func (h timeoutHeap) Less(i, j int) bool {
	if h[i].deadline != h[j].deadline {
		return h[i].deadline < h[j].deadline
	}
	return h[i].c.id < h[j].c.id
}
func (h timeoutHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = i
	h[j].heapIdx = j
}
func (h *timeoutHeap) Push(x any) {
	b := x.(*blockedClient)
	b.heapIdx = len(*h)
	*h = append(*h, b)
}
func (h *timeoutHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	b.heapIdx = -1
	return b
}

// blockDeadline converts a timeout in milliseconds (0 = none) into a
// deadline on the server clock; a sum past the int64 range saturates, which
// waits as long as Redis's overflowed deadline does (forever, in practice).
func (s *Server) blockDeadline(timeoutMs int64) int64 {
	if timeoutMs == 0 {
		return 0
	}
	now := s.clock.UnixMilli()
	if timeoutMs > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + timeoutMs
}

// addBlockTimeoutLocked puts b in the timeout heap and makes sure the timer
// goroutine, started on first use, re-checks its deadline.
func (s *Server) addBlockTimeoutLocked(b *blockedClient) {
	heap.Push(&s.blk.timeout, b)
	if s.blk.kick == nil {
		kick := make(chan struct{}, 1)
		s.blk.kick = kick
		s.clock.OnChange(func() { poke(kick) })
		go s.blockTimerLoop(kick)
		return
	}
	if b.heapIdx == 0 {
		poke(s.blk.kick)
	}
}

// removeBlockTimeoutLocked takes b out of the timeout heap, if it is there.
func (s *Server) removeBlockTimeoutLocked(b *blockedClient) {
	if b.heapIdx >= 0 {
		heap.Remove(&s.blk.timeout, b.heapIdx)
	}
}

// clientsInTimeoutTableLocked is INFO's clients_in_timeout_table: blocked
// clients that have a deadline.
func (s *Server) clientsInTimeoutTableLocked() int { return s.blk.timeout.Len() }

// poke wakes a goroutine waiting on kick without blocking.
func poke(kick chan struct{}) {
	select {
	case kick <- struct{}{}:
	default:
	}
}

// blockTimerLoop times out blocked clients when their deadline has passed.
// It sleeps until the earliest deadline, or until kick says the heap's
// top or the clock changed, and stops with the server.
func (s *Server) blockTimerLoop(kick chan struct{}) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		wait := s.timeoutBlockedClientsLocked()
		s.mu.Unlock()
		t.Reset(wait)
		select {
		case <-s.done:
			return
		case <-kick:
		case <-t.C:
		}
	}
}

// timeoutBlockedClientsLocked replies to and unblocks every client whose
// deadline is before now (Redis's handleBlockedClientsTimeout: a deadline
// equal to now has not passed yet), and returns how long to sleep before
// the next deadline.
func (s *Server) timeoutBlockedClientsLocked() time.Duration {
	now := s.clock.UnixMilli()
	for s.blk.timeout.Len() > 0 {
		b := s.blk.timeout[0]
		if b.deadline >= now {
			wait := b.deadline - now + 1
			if wait > int64(time.Hour/time.Millisecond) {
				return time.Hour
			}
			return time.Duration(wait) * time.Millisecond
		}
		s.replyBlockedTimeoutLocked(b.c)
		s.unblockClientLocked(b.c)
		s.wakeLocked(b.c)
	}
	return time.Hour
}

// replyBlockedTimeoutLocked writes the reply of a blocked command that timed
// out (Redis's replyToBlockedClientTimedOut): a null array for every list
// and sorted set command, BLMOVE included.
func (s *Server) replyBlockedTimeoutLocked(c *client) {
	if c.blocked != nil && c.blocked.kind == blockNone {
		s.replWaitTimeoutReplyLocked(c) // WAIT: the replicas that acknowledged (repl_wait.go)
		return
	}
	c.w.NullArray()
}

// parseBlockTimeout parses a blocking command's timeout in seconds as Redis
// 7.0's getTimeoutFromObjectOrReply(UNIT_SECONDS) does and returns it in
// milliseconds (0 waits forever).
func parseBlockTimeout(arg []byte) (int64, error) {
	ms, ok := protocol.ParseTimeoutSeconds(arg)
	if !ok {
		return 0, protocol.ErrTimeoutInvalid
	}
	if ms < 0 {
		return 0, protocol.ErrTimeoutNegative
	}
	return ms, nil
}

var (
	errUnblockReason = protocol.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
	errUnblocked     = protocol.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
)

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: a blocked client
// gets its timeout reply (or an UNBLOCKED error) and resumes; the reply is
// 1 when a client was unblocked, 0 otherwise.
func cmdClientUnblock(c *client, args [][]byte) {
	s := c.srv
	if len(args) > 4 {
		c.fail(protocol.Error("ERR unknown subcommand or wrong number of arguments for '" +
			string(args[1]) + "'. Try CLIENT HELP."))
		return
	}
	withError := false
	if len(args) == 4 {
		switch {
		case cstrEqualFold(args[3], "timeout"):
		case cstrEqualFold(args[3], "error"):
			withError = true
		default:
			c.fail(errUnblockReason)
			return
		}
	}
	id, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	target := s.clients[id]
	if target == nil || target.blocked == nil || target.ops.paused { // paused: see cmd_pause.go
		c.w.Int(0)
		return
	}
	if withError {
		target.fail(errUnblocked)
	} else {
		s.replyBlockedTimeoutLocked(target)
	}
	s.unblockClientLocked(target)
	s.wakeLocked(target)
	c.w.Int(1)
}
