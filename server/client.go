package server

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/multi"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

// client is one connection's state (Redis's client struct). Everything is
// guarded by the engine lock (Server.mu) unless marked otherwise.
type client struct {
	srv *Server
	id  int64
	// clientsCron's bookkeeping (clients_cron.go): the client's index in
	// the rotation and the memory the clients' total counts for it.
	ringPos    int
	memCounted int64
	sock       io.Closer // the connection's socket (*os.File, or fdConn for one the loop accepted), owned by the event loop; nil for internal clients (scripts)

	parser protocol.Parser
	qbuf   atomic.Int64 // bytes left unparsed after the last batch (CLIENT LIST qbuf)

	// w collects the client's output (engine): replies of its commands and
	// messages pushed to it. The event loop writes it; wpos counts the bytes
	// already written.
	w           protocol.Writer
	wpos        int
	writeQueued bool // in the event loop's write list for this round
	fd          int  // the socket, -1 for internal clients (scripts)

	db            *db.DB   // engine: the selected database
	authenticated bool     // engine
	user          *aclUser // engine: the ACL user (acl.go); the default user until AUTH
	name          string   // engine: CLIENT SETNAME
	libName       string   // engine: CLIENT SETINFO lib-name
	libVer        string   // engine: CLIENT SETINFO lib-ver
	watch         watch.Client
	multi         multi.State
	lastExec      execOutcome    // engine: how the client's last EXEC ended (watch_obs.go)
	blocked       *blockedClient // engine: non-nil while blocked (blocking.go)
	ps            clientPubSub   // engine: subscriptions and client-side caching

	executing      bool // engine: a batch of this client's commands is running
	inExec         bool // engine: running the commands queued in MULTI
	denyBlocking   bool // engine: blocking commands act as their non-blocking form
	replay         bool // replays the AOF (Redis's CLIENT_ID_AOF, mustObeyClient)
	local          bool // a LocalClient (local.go): no connection, never faulted
	faultHold      bool // engine: a fault DELAY holds its reply; no command runs meanwhile (fault.go)
	closeAfterRply bool // engine: close once the pending replies are written
	killed         atomic.Bool
	noEvict        bool // engine: CLIENT NO-EVICT
	noTouch        bool // engine: CLIENT NO-TOUCH

	addr, laddr string
	createdAt   time.Time
	lastActive  atomic.Int64  // unix ms of the last command
	lastCmd     string        // engine: full name of the last command
	ops         clientOps     // engine: MONITOR, CLIENT REPLY, CLIENT PAUSE state (ops.go)
	cl          clientCluster // engine: ASKING, READONLY, the command's slot (cluster.go)

	repl    *replicaLink // engine: REPLCONF/SYNC state; a replica once repl.state != 0 (repl_master.go)
	link    *masterLink  // engine: set on the master client of a replica (repl_replica.go)
	woff    int64        // engine: stream offset after its last command (WAIT, repl_wait.go)
	waitFor waitReq      // engine: what a client blocked in WAIT waits for
}

// flags renders CLIENT LIST's flags= field.
func (c *client) flags() string {
	var b []byte
	if c.ops.monitor {
		b = append(b, 'O')
	} else if c.repl != nil && c.repl.state != 0 {
		b = append(b, 'S')
	}
	if c.link != nil {
		b = append(b, 'M')
	}
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
	if c.ops.unix {
		b = append(b, 'U')
	}
	if c.cl.readonly {
		b = append(b, 'r')
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

// fail writes an error reply and counts it (INFO total_error_replies).
func (c *client) fail(err error) {
	text := err.Error()
	c.srv.countErrorLocked(text)
	c.w.Error(text)
}
