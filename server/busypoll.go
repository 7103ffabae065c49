package server

import (
	"time"

	"github.com/miniwatchd/miniwatchd/internal/poll"
)

// DefaultBusyPoll is miniwatchd's busy polling window when two CPUs or
// more are available (internal/poll's DefaultBusyPoll).
const DefaultBusyPoll = poll.DefaultBusyPoll

// BusyPollDefault is what cmd/miniwatchd sets Config.BusyPoll to when
// MINIWATCHD_BUSY_POLL is not set (internal/poll's BusyPollDefault).
func BusyPollDefault() time.Duration { return poll.BusyPollDefault() }
