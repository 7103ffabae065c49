package server

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The replica side of replication (Redis 7.0 replication.c:
// replicationSetMaster, syncWithMaster, slaveTryPartialResynchronization,
// readSyncBulkPayload, replicationCacheMaster). REPLICAOF host port (or
// replicaof in the configuration) makes the server a replica: the
// replication cron connects to the master from a goroutine (repl_handshake.go: PING, AUTH with
// masteruser/masterauth, REPLCONF listening-port and capa eof psync2,
// PSYNC with the history it has), reads the snapshot of a full resync
// (both the "$<len>" and the "$EOF:<mark>" forms) and, under the engine
// lock, flushes the dataset (watchers are touched as FLUSHALL touches
// them), loads the snapshot through rdb/, and hands the connection to the
// event loop as the master client. The master's stream then runs through
// processCommand like any client's commands (so a WATCH on a key the
// master changes aborts), with its replies dropped, REPLCONF GETACK
// answered by REPLCONF ACK <offset>, and an ACK once a second. Each applied
// command (a whole MULTI ... EXEC at once) is added to this server's own
// backlog, so its replicas and a later PSYNC see the master's history.
// A lost link is cached (replication ID and offset) and retried once a
// second with PSYNC, which a master with the history answers +CONTINUE.
// REPLICAOF NO ONE promotes: the master's replication ID becomes the
// secondary one, valid up to the current offset, so replicas of the old
// master can continue with this one. A replica keeps keys past their
// deadline until its master's DEL (they read as missing, and the master's
// commands see them), and does no active expiry.
//
// The handshake goroutine does I/O without the engine lock and takes it
// for every state change; a link replaced meanwhile (gen) makes it give
// up. Everything else runs under the engine lock.

// linkState is the link's repl_state.
type linkState uint8

const (
	linkConnect   linkState = iota + 1 // to connect at the next cron
	linkHandshake                      // connecting and handshaking
	linkTransfer                       // receiving the snapshot
	linkConnected                      // the stream is applied
)

// masterLink is a replica's link to its master (Server.repl.link).
type masterLink struct {
	host       string
	port       int
	state      linkState
	gen        int64   // bumped when the link is replaced or given up
	client     *client // the master client while connected
	offset     int64   // reploff: stream bytes applied
	cachedID   string  // history to PSYNC with ("" = none: PSYNC ? -1)
	cachedOff  int64
	cachedDB   int // the database the stream had selected: a partial resync continues in it
	startDB    int // the new master client's database
	downSince  time.Time
	ackPending bool   // a GETACK asked for an ACK while the master's batch runs
	fwd        []byte // applied commands of an open MULTI, fed to the backlog at EXEC
	xferSize   int64  // snapshot bytes announced (-1 for the EOF form)
	xferRead   int64
	xferLastIO time.Time
}

var (
	errReplicaReadOnly = protocol.Error("READONLY You can't write against a read only replica.")
	errMasterDown      = protocol.Error("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")
	errReplicaClient   = protocol.Error("ERR Command is not valid when client is a replica.")
	errUnblockedRole   = "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"
)

// isMaster reports whether c is the master client of this replica.
func (c *client) isMaster() bool { return c.link != nil }

func cmdReplicaOf(c *client, args [][]byte) {
	s := c.srv
	if s.cluster.on {
		c.fail(protocol.Error("ERR REPLICAOF not allowed in cluster mode."))
		return
	}
	if bytes.EqualFold(args[1], []byte("no")) && bytes.EqualFold(args[2], []byte("one")) {
		if s.repl.link != nil {
			s.replUnsetMasterLocked()
			s.log.Info(fmt.Sprintf("MASTER MODE enabled (user request from '%s')", s.clientInfoLocked(c)))
		}
		c.w.OK()
		return
	}
	if c.repl != nil && c.repl.state != 0 {
		c.fail(errReplicaClient)
		return
	}
	port, ok := protocol.ParseInt(args[2])
	if !ok || port < 0 || port > 65535 {
		c.fail(errInvalidMasterPort)
		return
	}
	host := string(args[1])
	if l := s.repl.link; l != nil && strings.EqualFold(l.host, host) && l.port == int(port) {
		s.log.Info("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.")
		c.w.Status("OK Already connected to specified master")
		return
	}
	s.replSetMasterLocked(host, int(port))
	s.log.Info(fmt.Sprintf("REPLICAOF %s:%d enabled (user request from '%s')", host, port, s.clientInfoLocked(c)))
	c.w.OK()
}

// replSetMasterLocked makes the server a replica of host:port
// (replicationSetMaster): blocked clients are released with an error,
// and a master's own history is kept to PSYNC with.
func (s *Server) replSetMasterLocked(host string, port int) {
	old := s.repl.link
	wasMaster := old == nil
	var gen int64
	if old != nil {
		gen = old.gen + 1
		old.gen = gen // a handshake in progress gives up
	}
	l := &masterLink{host: host, port: port, state: linkConnect, gen: gen}
	if old != nil {
		l.cachedID, l.cachedOff, l.cachedDB, l.downSince = old.cachedID, old.cachedOff, old.cachedDB, old.downSince
	}
	s.repl.link = l
	s.ks.SetReplicaExpiry(true)
	if old != nil && old.client != nil {
		l.cachedDB = old.client.db.ID()
		s.loop.freeLocked(old.client)
		l.cachedID, l.cachedOff = s.replIDLocked(), s.repl.offset
	}
	s.disconnectBlockedClientsLocked()
	if wasMaster {
		l.cachedID, l.cachedOff, l.cachedDB = s.replIDLocked(), s.repl.offset, 0
		s.repl.selected = -1
	}
	s.log.Info(fmt.Sprintf("Connecting to MASTER %s:%d", host, port))
	s.replConnectLocked(l)
}

// disconnectBlockedClientsLocked releases every blocked client with an
// error and closes it (disconnectAllBlockedClients).
func (s *Server) disconnectBlockedClientsLocked() {
	for _, c := range s.clients {
		if c.blocked == nil || c.ops.paused {
			continue
		}
		s.unblockClientLocked(c)
		c.fail(protocol.Error(errUnblockedRole))
		c.closeAfterRply = true
		s.wakeLocked(c)
	}
}

// replUnsetMasterLocked makes a replica a master (replicationUnsetMaster).
func (s *Server) replUnsetMasterLocked() {
	l := s.repl.link
	s.log.Info("Connection with master lost.")
	l.gen++
	s.repl.link = nil
	s.ks.SetReplicaExpiry(false)
	if l.client != nil {
		s.loop.freeLocked(l.client)
	}
	s.shiftReplIDLocked()
	s.disconnectReplicasLocked()
	s.repl.selected = -1
	s.repl.noReplicas = time.Now()
}

// shiftReplIDLocked keeps the current replication ID as the secondary one,
// valid up to the current offset, and takes a new one (shiftReplicationId).
func (s *Server) shiftReplIDLocked() {
	s.repl.replID2 = s.replIDLocked()
	s.repl.secondOffset = s.repl.offset + 1
	s.changeReplIDLocked()
	s.log.Info(fmt.Sprintf("Setting secondary replication ID to %s, valid up to offset: %d. New replication ID is %s", s.repl.replID2, s.repl.secondOffset, s.replIDLocked()))
}

// disconnectReplicasLocked closes every replica (disconnectSlaves).
func (s *Server) disconnectReplicasLocked() {
	for _, c := range append([]*client(nil), s.repl.replicas...) {
		s.loop.closeLocked(c)
	}
}

// replicaCronLocked is replicationCron's replica duties: connect when the
// link is down, time the master out, and ACK once a second.
func (s *Server) replicaCronLocked(now time.Time) {
	l := s.repl.link
	if l == nil {
		return
	}
	timeout := time.Duration(s.paramInt("repl-timeout")) * time.Second
	switch l.state {
	case linkConnect:
		s.log.Info(fmt.Sprintf("Connecting to MASTER %s:%d", l.host, l.port))
		s.replConnectLocked(l)
	case linkConnected:
		if c := l.client; c != nil && now.UnixMilli()-c.lastActive.Load() > timeout.Milliseconds() {
			s.log.Warn("MASTER timeout: no data nor PING received...")
			s.loop.freeLocked(c)
			return
		}
		s.replSendAckLocked()
	}
}

// replSendAckLocked sends REPLCONF ACK <offset> to the master.
func (s *Server) replSendAckLocked() {
	l := s.repl.link
	if l == nil || l.client == nil {
		return
	}
	if l.client.executing {
		l.ackPending = true // sent after the command that asked (masterCommandLocked)
		return
	}
	l.client.w.Raw(replAckCommand(l.offset))
	s.loop.queueWriteLocked(l.client)
}

func replAckCommand(off int64) []byte {
	return aof.AppendCommand(nil, []byte("REPLCONF"), []byte("ACK"), strconv.AppendInt(nil, off, 10))
}

// masterCommandLocked runs one command of the master's stream: its reply
// is dropped, its bytes are added to the offset and, once no MULTI is
// open, fed to this server's backlog and replicas. The master writes every
// command as a canonical multibulk, so its bytes are its encoding (the
// parser's position cannot tell: it advances over a command's first part
// before the rest has arrived).
func (s *Server) masterCommandLocked(c *client, args [][]byte) {
	l := c.link
	mark := len(c.w.Buf)
	start := len(l.fwd)
	if len(args) > 0 {
		l.fwd = aof.AppendCommand(l.fwd, args...)
		s.ks.SetStaleVisible(true) // the master's commands see keys it has not expired yet
		s.runCommandLocked(c, args)
		s.ks.SetStaleVisible(false)
		if len(c.w.Buf) > mark && c.w.Buf[mark] == '-' {
			s.log.Warn(fmt.Sprintf("== CRITICAL == This replica is sending an error to its master: '%s' after processing the command '%s'",
				strings.TrimRight(string(c.w.Buf[mark+1:]), "\r\n"), strings.ToLower(string(args[0]))))
		}
	} else {
		l.fwd = append(l.fwd, '\n') // an empty line: a newline keeping the link alive
	}
	n := int64(len(l.fwd) - start)
	c.w.Buf = c.w.Buf[:mark]
	l.offset += n
	if !c.multi.Active() {
		s.replFeedLocked(l.fwd)
		l.fwd = l.fwd[:0]
	}
	if l.ackPending {
		l.ackPending = false
		c.w.Raw(replAckCommand(l.offset - n))
	}
}

// masterClientFree caches a lost master's history to PSYNC with
// (replicationCacheMaster) and schedules a reconnection.
func masterClientFree(s *Server, c *client) {
	l := c.link
	if l == nil || s.repl.link != l {
		return
	}
	l.client = nil
	l.fwd = l.fwd[:0]
	l.cachedID, l.cachedOff, l.cachedDB = s.replIDLocked(), s.repl.offset, c.db.ID()
	l.offset = s.repl.offset
	l.state = linkConnect
	l.downSince = time.Now()
	s.log.Info("Connection with master lost.")
	s.log.Info("Caching the disconnected master state.")
}

// replConnectLocked starts the handshake goroutine for l.
func (s *Server) replConnectLocked(l *masterLink) {
	l.state = linkHandshake
	l.gen++
	port := s.paramInt("replica-announce-port")
	if port == 0 {
		port = int64(s.cfg.Port)
	}
	h := replHandshake{
		s: s, l: l, gen: l.gen,
		addr:     net.JoinHostPort(l.host, strconv.Itoa(l.port)),
		user:     s.paramText("masteruser"),
		pass:     s.paramText("masterauth"),
		port:     port,
		ip:       s.paramText("replica-announce-ip"),
		psyncID:  l.cachedID,
		psyncOff: l.cachedOff + 1,
		timeout:  time.Duration(s.paramInt("repl-timeout")) * time.Second,
		diskLoad: s.paramText("repl-diskless-load") == "disabled",
		rdbPath:  s.rdbPathLocked(),
	}
	if h.psyncID == "" {
		h.psyncID, h.psyncOff = "?", -1
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		h.run()
	}()
}

// replicaReadOnlyCheck refuses writes on a read-only replica, but for the
// master's own commands (processCommand's repl_slave_ro check).
func replicaReadOnlyCheck(s *Server, c *client, cmd *command) protocol.Error {
	if s.repl.link == nil || c.isMaster() || c.replay || s.paramText("replica-read-only") != "yes" {
		return ""
	}
	if cmd.has(flagWrite) || (cmd.name == "exec" && c.multi.Active() && c.multi.HasWrite()) {
		return errReplicaReadOnly
	}
	return ""
}

// replicaStaleCheck refuses commands not flagged stale while the link is
// down and replica-serve-stale-data is no.
func replicaStaleCheck(s *Server, c *client, cmd *command) protocol.Error {
	l := s.repl.link
	if l == nil || l.state == linkConnected || s.paramText("replica-serve-stale-data") == "yes" {
		return ""
	}
	if !cmd.has(flagStale) {
		return errMasterDown
	}
	return ""
}

// replStartLocked applies replicaof from the configuration.
func (s *Server) replStartLocked() {
	s.repl.selected = -1
	s.repl.secondOffset = -1
	v := strings.Fields(s.cfg.Params["replicaof"])
	if len(v) != 2 {
		return
	}
	port, err := strconv.Atoi(v[1])
	if err != nil {
		return
	}
	s.repl.link = &masterLink{host: v[0], port: port, state: linkConnect}
	s.ks.SetReplicaExpiry(true)
}

// replLoadedInfoLocked takes the replication ID, offset and stream
// database a snapshot saved (its aux fields) when the server starts as a
// replica, so it asks its master for a partial resync.
func (s *Server) replLoadedInfoLocked(id string, off int64, streamDB int) {
	l := s.repl.link
	if l == nil || len(id) != 40 || off < 0 {
		return
	}
	s.ops.replID = id
	s.repl.offset = off
	s.createBacklogLocked()
	l.cachedID, l.cachedOff, l.cachedDB, l.offset = id, off, max(streamDB, 0), off
	s.log.Info(fmt.Sprintf("Using the replication ID %s and offset %d from the snapshot", id, off))
}
