package server

import "github.com/miniwatchd/miniwatchd/internal/poll"

// DefaultBusyPoll is the busy polling window cmd/miniwatchd sets on two
// processors (internal/poll's DefaultBusyPoll); an embedded server polls
// only when Config.BusyPoll asks it to.
const DefaultBusyPoll = poll.DefaultBusyPoll

// Processors is how many processors cmd/miniwatchd gives the Go runtime
// when GOMAXPROCS is not set (internal/poll's Processors).
func Processors() int { return poll.Processors() }
