package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// The master side of replication (Redis 7.0 replication.c: syncCommand,
// masterTryPartialResynchronization, replconfCommand,
// startBgsaveForReplication). A client becomes a replica with SYNC or
// PSYNC; from then on its output is the replication stream and its input
// is REPLCONF ACK. A full resynchronization sends +FULLRESYNC <replid>
// <offset> (not for SYNC) and a snapshot: "$<len>\r\n<rdb>" when written
// to disk first (repl-diskless-sync no, or a replica without capa eof), or
// "$EOF:<40 chars>\r\n<rdb><the same 40 chars>" when diskless. The
// snapshot is taken under the engine lock at the moment it starts, so the
// stream that follows it starts exactly where the snapshot ends. A
// diskless snapshot waits repl-diskless-sync-delay seconds for more
// replicas (the replica gets a "\n" each second meanwhile), as Redis's.
// A partial resynchronization (+CONTINUE) sends the backlog's bytes from
// the replica's offset.
//
// Engine lock throughout.

// replState is the server's replication state (Server.repl).
type replState struct {
	offset       int64  // master_repl_offset: stream bytes produced so far
	replID2      string // master_replid2 ("" prints as 40 zeros)
	secondOffset int64  // second_repl_offset, -1 when replID2 is unset
	backlog      *replBacklog
	selected     int       // slaveseldb: the database the stream last selected, -1 for none
	replicas     []*client // server.slaves, in the order they attached
	noReplicas   time.Time // when the last replica left (repl_no_slaves_since)
	getAck       bool      // a WAIT asked for REPLCONF GETACK before the loop sleeps
	waiting      []*client // clients blocked in WAIT
	cronLoops    int64     // replication_cron_loops
	lastCron     time.Time
	syncFull     int64       // INFO stats sync_full
	partialOK    int64       // sync_partial_ok
	partialErr   int64       // sync_partial_err
	link         *masterLink // the replica side (repl_replica.go); nil for a master
}

// replicaState is a replica client's replstate.
type replicaState uint8

const (
	replWaitStart replicaState = iota + 1 // waiting for the snapshot to start
	replOnline                            // snapshot queued; the stream follows
)

// replicaLink is what a master knows of one replica (client.repl).
type replicaLink struct {
	state     replicaState
	port      int64  // REPLCONF listening-port
	ip        string // REPLCONF ip-address
	capaEOF   bool
	capaPSYNC bool // capa psync2
	preSync   bool // attached with SYNC: no +FULLRESYNC, no acks
	rdbOnly   bool // REPLCONF rdb-only 1: closed after the snapshot
	ackOff    int64
	ackTime   time.Time
	waitSince time.Time // when it started waiting for a diskless snapshot
	softSince time.Time // when its output first passed the soft limit
}

var (
	errNoMasterLink     = protocol.Error("NOMASTERLINK Can't SYNC while not connected with my master")
	errSyncPending      = protocol.Error("ERR SYNC and PSYNC are invalid with pending output")
	replPingCommand     = []byte("*1\r\n$4\r\nPING\r\n")
	replGetAckCommand   = []byte("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n")
	zeroReplID          = "0000000000000000000000000000000000000000"
	replMasterCommands  = []commandDef{{"sync", cmdSync}, {"psync", cmdSync}, {"replconf", cmdReplconf}}
	errReplconfIPTooLng = "ERR REPLCONF ip-address provided by replica instance is too long: %d bytes"
)

// cmdSync is SYNC and PSYNC replid offset.
func cmdSync(c *client, args [][]byte) {
	s := c.srv
	if c.repl != nil && c.repl.state != 0 {
		return // already a replica: ignored
	}
	if s.repl.link != nil && s.repl.link.state != linkConnected {
		c.fail(errNoMasterLink)
		return
	}
	if c.pending() > 0 {
		c.fail(errSyncPending)
		return
	}
	if c.repl == nil {
		c.repl = &replicaLink{}
	}
	r := c.repl
	s.log.Info(fmt.Sprintf("Replica %s asks for synchronization", s.replicaNameLocked(c)))
	if len(args) == 3 { // PSYNC
		off, ok := protocol.ParseInt(args[2])
		if !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		if s.replTryPartialLocked(c, string(args[1]), off) {
			s.repl.partialOK++
			return
		}
		if len(args[1]) == 0 || args[1][0] != '?' {
			s.repl.partialErr++
		}
	} else {
		r.preSync = true
	}
	s.repl.syncFull++
	r.state = replWaitStart
	r.waitSince = time.Now()
	s.addReplicaLocked(c)
	if s.replDisklessLocked(r) && s.paramInt("repl-diskless-sync-delay") > 0 {
		s.log.Info("Delay next BGSAVE for diskless SYNC")
		return
	}
	s.replFullSyncLocked(s.replDisklessLocked(r))
}

// addReplicaLocked lists c as a replica, creating the backlog (with a new
// replication ID) for the first one.
func (s *Server) addReplicaLocked(c *client) {
	s.repl.replicas = append(s.repl.replicas, c)
	if len(s.repl.replicas) == 1 && s.repl.backlog == nil {
		s.changeReplIDLocked()
		s.clearReplID2Locked()
		s.createBacklogLocked()
		s.log.Info(fmt.Sprintf("Replication backlog created, my new replication IDs are '%s' and '%s'", s.replIDLocked(), zeroReplID))
	}
}

// createBacklogLocked starts recording the stream (createReplicationBacklog).
func (s *Server) createBacklogLocked() {
	s.repl.backlog = newReplBacklog(s.replBacklogSizeLocked(), s.repl.offset+1)
	s.aof.prop.setRepl(true)
}

// replBacklogSizeLocked is repl-backlog-size, at least 16kb
// (CONFIG_REPL_BACKLOG_MIN_SIZE).
func (s *Server) replBacklogSizeLocked() int64 { return max(s.paramInt("repl-backlog-size"), 16<<10) }

// changeReplIDLocked gives the server a new replication ID.
func (s *Server) changeReplIDLocked() { s.ops.replID = newRunID() }

// clearReplID2Locked forgets the previous replication ID.
func (s *Server) clearReplID2Locked() {
	s.repl.replID2 = ""
	s.repl.secondOffset = -1
}

// replDisklessLocked says whether r's snapshot goes straight to the socket.
func (s *Server) replDisklessLocked(r *replicaLink) bool {
	return r.capaEOF && s.paramText("repl-diskless-sync") == "yes"
}

// replTryPartialLocked answers PSYNC with +CONTINUE and the backlog from
// off when the replica's history is ours (masterTryPartialResynchronization).
func (s *Server) replTryPartialLocked(c *client, id string, off int64) bool {
	myID := s.replIDLocked()
	if id != myID && (id != s.repl.replID2 || s.repl.replID2 == "" || off > s.repl.secondOffset) {
		if id != "?" {
			if id != myID && id != s.repl.replID2 {
				s.log.Info(fmt.Sprintf("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')", id, myID, s.replID2Text()))
			} else {
				s.log.Info(fmt.Sprintf("Partial resynchronization not accepted: Requested offset for second ID was %d, but I can reply up to %d", off, s.repl.secondOffset))
			}
		} else {
			s.log.Info(fmt.Sprintf("Full resync requested by replica %s", s.replicaNameLocked(c)))
		}
		return false
	}
	b := s.repl.backlog
	if b == nil || !b.has(off) {
		s.log.Info(fmt.Sprintf("Unable to partial resync with replica %s for lack of backlog (Replica request was: %d).", s.replicaNameLocked(c), off))
		return false
	}
	r := c.repl
	r.state = replOnline
	r.ackTime = time.Now()
	s.addReplicaLocked(c)
	if r.capaPSYNC {
		c.w.Status("CONTINUE " + myID)
	} else {
		c.w.Status("CONTINUE")
	}
	n := len(c.w.Buf)
	c.w.Buf = b.appendFrom(c.w.Buf, off)
	s.log.Info(fmt.Sprintf("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", s.replicaNameLocked(c), len(c.w.Buf)-n, off))
	return true
}

// replFullSyncLocked takes one snapshot for every replica waiting for one
// of its kind (disk or diskless) and queues it, after +FULLRESYNC, to each
// (startBgsaveForReplication and replicationSetupSlaveForFullResync).
func (s *Server) replFullSyncLocked(diskless bool) {
	var targets []*client
	for _, c := range s.repl.replicas {
		if c.repl.state == replWaitStart && s.replDisklessLocked(c.repl) == diskless {
			targets = append(targets, c)
		}
	}
	if len(targets) == 0 {
		return
	}
	target := "disk"
	if diskless {
		target = "replicas sockets"
	}
	s.log.Info(fmt.Sprintf("Starting BGSAVE for SYNC with target: %s", target))
	off := s.repl.offset
	s.repl.selected = -1 // the stream after a snapshot starts with SELECT
	payload, err := s.replSnapshotLocked(diskless)
	if err != nil {
		s.log.Warn("BGSAVE for replication failed: " + err.Error())
		for _, c := range targets {
			c.repl.state = 0
			s.disconnectLocked(c)
		}
		return
	}
	var head []byte
	if diskless {
		mark := randomHex(20)
		head = append([]byte("$EOF:"), mark...)
		head = append(head, "\r\n"...)
		payload = append(payload, mark...)
	} else {
		head = []byte("$" + strconv.Itoa(len(payload)) + "\r\n")
	}
	for _, c := range targets {
		r := c.repl
		if !r.preSync {
			c.w.Status("FULLRESYNC " + s.replIDLocked() + " " + strconv.FormatInt(off, 10))
		}
		c.w.Raw(head)
		c.w.Raw(payload)
		r.state = replOnline
		r.ackTime = time.Now()
		if r.rdbOnly {
			c.closeAfterRply = true
		}
		s.loop.queueWriteLocked(c)
		s.log.Info(fmt.Sprintf("Synchronization with replica %s succeeded", s.replicaNameLocked(c)))
	}
}

// replSnapshotLocked returns the RDB a full resync sends: written to
// dbfilename first and read back when not diskless (a disk-backed
// BGSAVE), built in memory otherwise.
func (s *Server) replSnapshotLocked(diskless bool) ([]byte, error) {
	if diskless {
		var buf bytes.Buffer
		if err := s.writeRDBLocked(&buf, false); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	path := s.rdbPathLocked()
	if err := s.saveRDBLocked(path, false); err != nil {
		return nil, err
	}
	s.rdb.saves++
	return os.ReadFile(path)
}

// replAuxLocked adds the replication aux fields a snapshot carries while
// the server has a backlog (rdbPopulateSaveInfo / rdbSaveInfoAuxFields).
func (s *Server) replAuxLocked(w *rdb.Writer) {
	if l := s.repl.link; l != nil {
		dbID := l.cachedDB
		if m := l.client; m != nil {
			dbID = m.db.ID()
		} else if l.cachedID == "" || s.repl.backlog == nil {
			return
		}
		w.Aux("repl-stream-db", strconv.Itoa(dbID))
		w.Aux("repl-id", s.replIDLocked())
		w.Aux("repl-offset", strconv.FormatInt(s.repl.offset, 10))
		return
	}
	if s.repl.backlog == nil {
		return
	}
	w.Aux("repl-stream-db", strconv.Itoa(max(s.repl.selected, 0)))
	w.Aux("repl-id", s.replIDLocked())
	w.Aux("repl-offset", strconv.FormatInt(s.repl.offset, 10))
}

// randomHex returns 2n random hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// replicaNameLocked is how the log names a replica (replicationGetSlaveName).
func (s *Server) replicaNameLocked(c *client) string {
	ip := c.addr
	if i := bytes.LastIndexByte([]byte(ip), ':'); i >= 0 {
		ip = ip[:i]
	}
	if c.repl != nil && c.repl.ip != "" {
		ip = c.repl.ip
	}
	if c.repl != nil && c.repl.port != 0 {
		return ip + ":" + strconv.FormatInt(c.repl.port, 10)
	}
	return ip + ":<unknown-replica-port>"
}

// replicaIPLocked is the address INFO and ROLE show for a replica.
func replicaIP(c *client) string {
	if c.repl.ip != "" {
		return c.repl.ip
	}
	ip := c.addr
	if i := bytes.LastIndexByte([]byte(ip), ':'); i >= 0 {
		ip = ip[:i]
	}
	return ip
}

// cmdReplconf is REPLCONF option value ... (replconfCommand).
func cmdReplconf(c *client, args [][]byte) {
	s := c.srv
	if len(args)%2 == 0 {
		c.fail(protocol.ErrSyntax)
		return
	}
	if c.repl == nil {
		c.repl = &replicaLink{}
	}
	r := c.repl
	for j := 1; j < len(args); j += 2 {
		opt, val := string(bytes.ToLower(args[j])), args[j+1]
		switch opt {
		case "listening-port":
			port, ok := protocol.ParseInt(val)
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			r.port = port
		case "ip-address":
			if len(val) >= 46 {
				c.fail(protocol.Error(fmt.Sprintf(errReplconfIPTooLng, len(val))))
				return
			}
			r.ip = string(val)
		case "capa":
			switch string(bytes.ToLower(val)) {
			case "eof":
				r.capaEOF = true
			case "psync2":
				r.capaPSYNC = true
			}
		case "ack":
			if r.state == 0 {
				return
			}
			off, ok := protocol.ParseInt(val)
			if !ok {
				return
			}
			if off > r.ackOff {
				r.ackOff = off
			}
			r.ackTime = time.Now()
			return
		case "getack":
			if l := s.repl.link; l != nil && l.state == linkConnected {
				s.replSendAckLocked()
			}
			return
		case "rdb-only":
			n, ok := protocol.ParseInt(val)
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if n < 0 || n > 1 {
				c.fail(protocol.Error("ERR value is out of range, value must between 0 and 1"))
				return
			}
			r.rdbOnly = n == 1
		default:
			c.fail(protocol.Error("ERR Unrecognized REPLCONF option: " + string(args[j])))
			return
		}
	}
	c.w.OK()
}

// replClientFree forgets a replica that disconnects.
func replClientFree(s *Server, c *client) {
	s.replWaitClientFree(c) // repl_wait.go
	if c.repl == nil || c.repl.state == 0 {
		return
	}
	for i, r := range s.repl.replicas {
		if r == c {
			s.repl.replicas = append(s.repl.replicas[:i], s.repl.replicas[i+1:]...)
			break
		}
	}
	s.log.Info(fmt.Sprintf("Connection with replica %s lost.", s.replicaNameLocked(c)))
	c.repl.state = 0
	if len(s.repl.replicas) == 0 {
		s.repl.noReplicas = time.Now()
	}
}

// replID2Text is master_replid2.
func (s *Server) replID2Text() string {
	if s.repl.replID2 == "" {
		return zeroReplID
	}
	return s.repl.replID2
}
