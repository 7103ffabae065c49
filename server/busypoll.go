package server

import "github.com/miniwatchd/miniwatchd/internal/poll"

// DefaultBusyPoll is a busy polling window that catches the next request
// of a client that answers at once (internal/poll's DefaultBusyPoll); the
// server polls only when Config.BusyPoll asks it to.
const DefaultBusyPoll = poll.DefaultBusyPoll

// Processors is how many processors cmd/miniwatchd gives the Go runtime
// when GOMAXPROCS is not set (internal/poll's Processors).
func Processors() int { return poll.Processors() }
