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
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/internal/atomicfile"
	"github.com/miniwatchd/miniwatchd/internal/poll"
)

// The replica's handshake with its master (Redis 7.0 syncWithMaster,
// slaveTryPartialResynchronization, readSyncBulkPayload), in a goroutine
// started by replConnectLocked (repl_replica.go): it does its I/O without
// the engine lock and takes it for every state change; a link replaced
// meanwhile (masterLink.gen) makes it give up. On success the connection
// becomes the master client of the event loop (attach).

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
	sock, err := poll.TakeSocket(h.conn) // closes h.conn
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
	return atomicfile.Write(tmp, path, data, 0o644)
}
