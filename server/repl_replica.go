package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// The replica side of replication (Redis 7.0 replication.c:
// replicationSetMaster, syncWithMaster, slaveTryPartialResynchronization,
// readSyncBulkPayload, replicationCacheMaster). REPLICAOF host port (or
// replicaof in the configuration) makes the server a replica: the
// replication cron connects to the master from a goroutine (PING, AUTH with
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
// master can continue with this one.
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

// replHandshake is one connection attempt (syncWithMaster).
type replHandshake struct {
	s                *Server
	l                *masterLink
	gen              int64
	addr, user, pass string
	port             int64
	ip               string
	psyncID          string
	psyncOff         int64
	timeout          time.Duration
	diskLoad         bool
	rdbPath          string
	conn             net.Conn
	br               *bufio.Reader
	extra            []byte // read past a diskless snapshot's mark: the stream's start
}

func (h *replHandshake) run() {
	s := h.s
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // the server's Close ends the attempt
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	dctx, dcancel := context.WithTimeout(ctx, h.timeout)
	var d net.Dialer
	conn, err := d.DialContext(dctx, "tcp", h.addr)
	dcancel()
	if err != nil {
		h.fail("Error condition on socket for SYNC: " + strerror(err))
		return
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	h.conn, h.br = conn, bufio.NewReaderSize(conn, 64<<10)
	s.log.Info("MASTER <-> REPLICA sync started")
	s.log.Info("Non blocking connect for SYNC fired the event.")
	if err := h.handshake(); err != nil {
		conn.Close()
		h.fail(err.Error())
	}
}

// fail records a failed attempt: the cron tries again.
func (h *replHandshake) fail(msg string) {
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.l.gen != h.gen || s.repl.link != h.l {
		return
	}
	s.log.Warn(msg)
	h.l.state = linkConnect
	if h.l.downSince.IsZero() {
		h.l.downSince = time.Now()
	}
}

func (h *replHandshake) send(args ...string) error {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	h.conn.SetWriteDeadline(time.Now().Add(h.timeout))
	_, err := h.conn.Write(aof.AppendCommand(nil, bs...))
	return err
}

// line reads one reply line, skipping the newlines a master sends while
// it prepares a snapshot.
func (h *replHandshake) line() (string, error) {
	for {
		h.conn.SetReadDeadline(time.Now().Add(h.timeout))
		b, err := h.br.ReadSlice('\n') // at most the reader's 64kb: a longer line fails
		if err != nil {
			return "", err
		}
		if s := strings.TrimRight(string(b), "\r\n"); s != "" {
			return s, nil
		}
	}
}

// parseFullResync parses "+FULLRESYNC <replid> <offset>".
func parseFullResync(r string) (id string, off int64, ok bool) {
	f := strings.Fields(r)
	if len(f) != 3 || f[0] != "+FULLRESYNC" || len(f[1]) != 40 {
		return "", 0, false
	}
	off, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || off < -1 {
		return "", 0, false
	}
	return f[1], off, true
}

// parseSnapshotHeader parses a snapshot's header line: "$EOF:<40 chars>"
// (mark set) or "$<len>".
func parseSnapshotHeader(r string) (mark string, size int64, ok bool) {
	if rest, isEOF := strings.CutPrefix(r, "$EOF:"); isEOF {
		if len(rest) != 40 {
			return "", 0, false
		}
		return rest, 0, true
	}
	if len(r) < 2 || r[0] != '$' {
		return "", 0, false
	}
	n, err := strconv.ParseInt(r[1:], 10, 64)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return "", n, true
}

func (h *replHandshake) handshake() error {
	s := h.s
	if err := h.send("PING"); err != nil {
		return err
	}
	r, err := h.line()
	if err != nil {
		return fmt.Errorf("Error reply to PING from master: '%s'", strerror(err))
	}
	if r[0] == '-' && !strings.HasPrefix(r, "-NOAUTH") && !strings.HasPrefix(r, "-NOPERM") && !strings.HasPrefix(r, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from master: '%s'", r)
	}
	s.log.Info("Master replied to PING, replication can continue...")
	if h.pass != "" {
		if h.user != "" {
			err = h.send("AUTH", h.user, h.pass)
		} else {
			err = h.send("AUTH", h.pass)
		}
		if err != nil {
			return err
		}
		if r, err = h.line(); err != nil || r[0] == '-' {
			return fmt.Errorf("Unable to AUTH to MASTER: %s", r)
		}
	}
	if err := h.send("REPLCONF", "listening-port", strconv.FormatInt(h.port, 10)); err != nil {
		return err
	}
	if r, err = h.line(); err != nil {
		return err
	} else if r[0] == '-' {
		s.log.Info("(Non critical) Master does not understand REPLCONF listening-port: " + r)
	}
	if h.ip != "" {
		if err := h.send("REPLCONF", "ip-address", h.ip); err != nil {
			return err
		}
		if r, err = h.line(); err != nil {
			return err
		} else if r[0] == '-' {
			s.log.Info("(Non critical) Master does not understand REPLCONF ip-address: " + r)
		}
	}
	if err := h.send("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	}
	if r, err = h.line(); err != nil {
		return err
	} else if r[0] == '-' {
		s.log.Info("(Non critical) Master does not understand REPLCONF capa: " + r)
	}
	if h.psyncID != "?" {
		s.log.Info(fmt.Sprintf("Trying a partial resynchronization (request %s:%d).", h.psyncID, h.psyncOff))
	} else {
		s.log.Info("Partial resynchronization not possible (no cached master)")
	}
	if err := h.send("PSYNC", h.psyncID, strconv.FormatInt(h.psyncOff, 10)); err != nil {
		return err
	}
	if r, err = h.line(); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(r, "+FULLRESYNC"):
		id, off, ok := parseFullResync(r)
		if !ok {
			return fmt.Errorf("Master replied with wrong +FULLRESYNC syntax.")
		}
		s.log.Info(fmt.Sprintf("Full resync from master: %s:%d", id, off))
		return h.fullSync(id, off)
	case strings.HasPrefix(r, "+CONTINUE"):
		id := strings.TrimSpace(strings.TrimPrefix(r, "+CONTINUE"))
		s.log.Info("Successful partial resynchronization with master.")
		return h.attach(func() {
			l := h.l
			if id != "" && id != h.psyncID {
				// The master's history forked from ours at our offset.
				s.repl.replID2 = s.replIDLocked()
				s.repl.secondOffset = s.repl.offset + 1
				s.ops.replID = id
				s.disconnectReplicasLocked()
				s.log.Info(fmt.Sprintf("Master replication ID changed to %s", id))
			}
			if s.repl.backlog == nil {
				s.createBacklogLocked()
			}
			l.offset = h.psyncOff - 1
			l.startDB = l.cachedDB
			s.log.Info("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.")
		})
	case strings.HasPrefix(r, "-NOMASTERLINK"), strings.HasPrefix(r, "-LOADING"):
		return fmt.Errorf("Master is currently unable to PSYNC but should be in the future: %s", r)
	}
	// An old master without PSYNC: SYNC, a snapshot with no history.
	s.log.Warn("Unexpected reply to PSYNC from master: " + r)
	s.log.Info("Retrying with SYNC...")
	if err := h.send("SYNC"); err != nil {
		return err
	}
	return h.fullSync("", -1)
}

// fullSync reads the snapshot and, under the lock, loads it and attaches
// the connection (readSyncBulkPayload).
func (h *replHandshake) fullSync(id string, off int64) error {
	s := h.s
	r, err := h.line()
	if err != nil {
		return fmt.Errorf("I/O error reading bulk count from MASTER: %s", strerror(err))
	}
	if r[0] == '-' {
		return fmt.Errorf("MASTER aborted replication with an error: %s", r[1:])
	}
	if r[0] != '$' {
		return fmt.Errorf("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host and port are right?", r)
	}
	s.mu.Lock()
	if h.l.gen != h.gen {
		s.mu.Unlock()
		return errors.New("replication link replaced")
	}
	h.l.state = linkTransfer
	h.l.xferRead, h.l.xferLastIO = 0, time.Now()
	s.mu.Unlock()
	var payload []byte
	mark, n, ok := parseSnapshotHeader(r)
	switch {
	case !ok:
		return fmt.Errorf("Bad protocol from MASTER: %s", r)
	case mark != "":
		h.setXfer(-1)
		s.log.Info("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to disk")
		payload, err = h.readUntilMark([]byte(mark))
	default:
		h.setXfer(n)
		s.log.Info(fmt.Sprintf("MASTER <-> REPLICA sync: receiving %d bytes from master to disk", n))
		payload, err = h.readN(n)
	}
	if err != nil {
		return fmt.Errorf("I/O error trying to sync with MASTER: %s", strerror(err))
	}
	if h.diskLoad {
		if err := writeFileAtomic(h.rdbPath, payload); err != nil {
			return fmt.Errorf("Failed trying to rename the temp DB into %s in MASTER <-> REPLICA synchronization: %s", filepath.Base(h.rdbPath), strerror(err))
		}
	}
	var loadErr error
	err = h.attach(func() {
		s.log.Info("MASTER <-> REPLICA sync: Flushing old data")
		s.disconnectReplicasLocked()
		s.freeBacklogLocked()
		s.ks.FlushAll()
		s.functionsLocked().Flush()
		s.log.Info("MASTER <-> REPLICA sync: Loading DB in memory")
		if _, _, loadErr = s.loadRDBFromLocked(bytes.NewReader(payload), int64(len(payload)), false); loadErr != nil {
			s.log.Warn("Failed trying to load the MASTER synchronization DB from socket: " + loadErr.Error())
			return
		}
		if id != "" {
			s.ops.replID = id
		} else {
			s.changeReplIDLocked()
		}
		s.clearReplID2Locked()
		s.repl.offset = off
		s.createBacklogLocked()
		h.l.offset = off
		h.l.startDB = 0 // the stream after a snapshot starts with SELECT
		s.log.Info("MASTER <-> REPLICA sync: Finished with success")
	})
	if loadErr != nil {
		return loadErr
	}
	return err
}

func (h *replHandshake) setXfer(n int64) {
	h.s.mu.Lock()
	h.l.xferSize = n
	h.s.mu.Unlock()
}

// readN reads an n byte snapshot.
func (h *replHandshake) readN(n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, 64<<20))
	chunk := make([]byte, 64<<10)
	for int64(len(buf)) < n {
		h.conn.SetReadDeadline(time.Now().Add(h.timeout))
		k, err := h.br.Read(chunk[:min(int64(len(chunk)), n-int64(len(buf)))])
		buf = append(buf, chunk[:k]...)
		h.progress(int64(len(buf)))
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// readUntilMark reads a diskless snapshot: everything up to the mark.
func (h *replHandshake) readUntilMark(mark []byte) ([]byte, error) {
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		h.conn.SetReadDeadline(time.Now().Add(h.timeout))
		// Read only what the buffer holds, or one read: never past the mark.
		want := len(chunk)
		if b := h.br.Buffered(); b > 0 {
			want = min(want, b)
		}
		// Stop exactly at the mark: look at most len(mark) bytes beyond.
		k, err := h.br.Read(chunk[:want])
		for i := 0; i < k; i++ {
			buf = append(buf, chunk[i])
			if len(buf) >= len(mark) && chunk[i] == mark[len(mark)-1] && bytes.HasSuffix(buf, mark) {
				h.extra = append(h.extra, chunk[i+1:k]...)
				return buf[:len(buf)-len(mark)], nil
			}
		}
		h.progress(int64(len(buf)))
		if err != nil {
			return nil, err
		}
	}
}

func (h *replHandshake) progress(n int64) {
	h.s.mu.Lock()
	h.l.xferRead, h.l.xferLastIO = n, time.Now()
	h.s.mu.Unlock()
}

// attach runs setup under the engine lock and hands the connection to the
// event loop as the master client, with the bytes already read after the
// snapshot fed to it first.
func (h *replHandshake) attach(setup func()) error {
	s := h.s
	h.conn.SetDeadline(time.Time{})
	leftover := h.extra
	if n := h.br.Buffered(); n > 0 {
		b, _ := h.br.Peek(n)
		leftover = append(leftover, b...)
	}
	c := s.newClient(h.conn)
	if c == nil {
		return errors.New("cannot create the master client: max number of clients reached")
	}
	sock, err := socketFile(h.conn)
	h.conn.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || h.l.gen != h.gen || s.repl.link != h.l || s.closing.Load() {
		s.freeClientLocked(c)
		if sock != nil {
			sock.Close()
		}
		if err != nil {
			return err
		}
		return errors.New("replication link replaced")
	}
	setup()
	if s.repl.backlog == nil { // the load failed
		s.freeClientLocked(c)
		sock.Close()
		h.l.state = linkConnect
		return nil
	}
	fd := int(sock.Fd())
	syscall.SetNonblock(fd, true)
	rc, _ := sock.SyscallConn()
	c.sock, c.fd = sock, fd
	c.link = h.l
	c.db = s.ks.DB(h.l.startDB)
	c.authenticated = true
	c.user = nil
	c.replay = true
	c.denyBlocking = true
	h.l.client = c
	h.l.state = linkConnected
	h.l.downSince = time.Time{}
	s.loop.conns[c.fd] = c
	if err := s.loop.p.Add(c.fd, rc); err != nil {
		s.loop.freeLocked(c)
		return err
	}
	for len(leftover) > 0 {
		n, _ := c.parser.Fill(bytes.NewReader(leftover))
		if n == 0 {
			break
		}
		leftover = leftover[n:]
		s.processLocked(c)
	}
	s.replSendAckLocked()
	return nil
}

// writeFileAtomic writes data to path through a temporary file.
func writeFileAtomic(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf("temp-%d.%d.rdb", time.Now().Unix(), os.Getpid()))
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// roleState is ROLE's state of the link.
func (l *masterLink) roleState() string {
	switch l.state {
	case linkConnect:
		return "connect"
	case linkHandshake:
		return "handshake"
	case linkTransfer:
		return "sync"
	case linkConnected:
		return "connected"
	}
	return "unknown"
}

// infoReplicaLinkLocked writes INFO replication's replica fields.
func (s *Server) infoReplicaLinkLocked(b *strings.Builder, l *masterLink) {
	now := time.Now()
	off, readOff := int64(1), int64(1)
	lastIO := int64(-1)
	if c := l.client; c != nil {
		off, readOff = l.offset, l.offset+int64(c.parser.Buffered())
		lastIO = (now.UnixMilli() - c.lastActive.Load()) / 1000
	} else if l.cachedID != "" {
		off, readOff = l.cachedOff, l.cachedOff
	}
	field(b, "master_host", l.host)
	field(b, "master_port", l.port)
	status := "down"
	if l.state == linkConnected {
		status = "up"
	}
	field(b, "master_link_status", status)
	field(b, "master_last_io_seconds_ago", lastIO)
	sync := 0
	if l.state == linkTransfer {
		sync = 1
	}
	field(b, "master_sync_in_progress", sync)
	field(b, "slave_read_repl_offset", readOff)
	field(b, "slave_repl_offset", off)
	if l.state == linkTransfer {
		size := max(l.xferSize, 0)
		perc := 0.0
		if size > 0 {
			perc = float64(l.xferRead) / float64(size) * 100
		}
		field(b, "master_sync_total_bytes", l.xferSize)
		field(b, "master_sync_read_bytes", l.xferRead)
		field(b, "master_sync_left_bytes", size-l.xferRead)
		field(b, "master_sync_perc", fmt.Sprintf("%.2f", perc))
		field(b, "master_sync_last_io_seconds_ago", int64(now.Sub(l.xferLastIO).Seconds()))
	}
	if l.state != linkConnected {
		down := int64(-1)
		if !l.downSince.IsZero() {
			down = int64(now.Sub(l.downSince).Seconds())
		}
		field(b, "master_link_down_since_seconds", down)
	}
	field(b, "slave_priority", s.paramInt("replica-priority"))
	ro := 0
	if s.paramText("replica-read-only") == "yes" {
		ro = 1
	}
	field(b, "slave_read_only", ro)
	ann := 0
	if s.paramText("replica-announced") == "yes" {
		ann = 1
	}
	field(b, "replica_announced", ann)
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
