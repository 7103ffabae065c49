package server

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/multi"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

// client is one connection's state (Redis's client struct). Fields marked
// "engine" are guarded by Server.mu; the others belong to the connection's
// goroutine.
type client struct {
	srv  *Server
	id   int64
	conn net.Conn // nil for internal clients (scripts)

	parser protocol.Parser // own goroutine
	qbuf   atomic.Int64    // bytes left unparsed after the last batch (CLIENT LIST qbuf)

	// w collects the replies of the commands being executed (engine). At
	// the end of a batch its bytes move to out, which the socket drains.
	w   protocol.Writer
	out outbuf

	db            *db.DB // engine: the selected database
	authenticated bool   // engine
	name          string // engine: CLIENT SETNAME
	libName       string // engine: CLIENT SETINFO lib-name
	libVer        string // engine: CLIENT SETINFO lib-ver
	watch         watch.Client
	multi         multi.State
	blocked       *blockedClient // engine: non-nil while blocked (blocking.go)
	ps            clientPubSub   // engine: subscriptions and client-side caching

	executing      bool // engine: a batch of this client's commands is running
	inExec         bool // engine: running the commands queued in MULTI
	denyBlocking   bool // engine: blocking commands act as their non-blocking form
	closeAfterRply bool // engine: close once the pending replies are written
	killed         atomic.Bool
	noEvict        bool // engine: CLIENT NO-EVICT
	noTouch        bool // engine: CLIENT NO-TOUCH

	addr, laddr string
	createdAt   time.Time
	lastActive  atomic.Int64 // unix ms of the last command
	lastCmd     string       // engine: full name of the last command
}

// flags renders CLIENT LIST's flags= field.
func (c *client) flags() string {
	var b []byte
	if c.multi.Active() {
		b = append(b, 'x')
	}
	if c.blocked != nil {
		b = append(b, 'b')
	}
	if c.watch.Dirty() {
		b = append(b, 'd')
	}
	if c.closeAfterRply {
		b = append(b, 'c')
	}
	if c.noEvict {
		b = append(b, 'e')
	}
	if c.noTouch {
		b = append(b, 'T')
	}
	if len(b) == 0 {
		return "N"
	}
	return string(b)
}
