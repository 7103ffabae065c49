//go:build linux

package poll

import (
	"testing"
	"time"
)

// TestEpollWaitBothWays runs the wait checks for both ways the epoll
// poller sleeps: parked in the runtime's poller (one processor) and
// blocked in epoll_wait (two or more), each with and without polling.
func TestEpollWaitBothWays(t *testing.T) {
	for _, park := range []bool{true, false} {
		for _, spin := range []time.Duration{0, DefaultBusyPoll} {
			name := "block"
			if park {
				name = "park"
			}
			t.Run(name+"/"+spin.String(), func(t *testing.T) {
				testPollerWait(t, func() (Poller, error) {
					p, err := newEpoll(spin, park)
					if err == nil && p.parks != park {
						t.Fatalf("newEpoll(park=%v) parks=%v", park, p.parks)
					}
					return p, err
				})
			})
		}
	}
}
