package server

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// MIGRATE (Redis 7.0 cluster.c migrateCommand, migrateGetSocket):
//
//	MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
//	        [AUTH password | AUTH2 username password] [KEYS key ...]
//
// The keys are sent as RESTORE commands (as outside cluster mode; DUMP payloads, the remaining TTL,
// REPLACE) after AUTH and, when the cached connection has another database
// selected, SELECT, all in one write; then one reply line each is read.
// Each acknowledged key is deleted here through db's choke point (watchers
// touched, "del" event) unless COPY, and the command propagates as DEL of
// those keys. As in Redis the I/O is synchronous under the engine lock:
// the connect, every 64 KiB write and every reply line is bounded by the
// timeout (ms, 1000 when not positive), so the server stalls at most that
// long per step, as redis-server does. Connections are cached per
// host:port (at most 64, a random one dropped for a new one) and closed
// after 10 seconds unused by the cron (migrateCloseTimedoutSockets); a
// socket error on a cached connection is retried once on a new one, unless
// it was a timeout.

var migrateCommands = []commandDef{{"migrate", cmdMigrate}}

const (
	migrateCacheItems = 64
	migrateCacheTTL   = 10 // seconds
	migrateChunk      = 64 << 10
)

var (
	errMigrateKeysArg = protocol.Error("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
	errMigrateConnect = protocol.Error("IOERR error or timeout connecting to the client")
	errMigrateWrite   = protocol.Error("IOERR error or timeout writing to target instance")
	errMigrateRead    = protocol.Error("IOERR error or timeout reading to target instance")
	propAUTH          = []byte("AUTH")
	propSELECT        = []byte("SELECT")
	propREPLACE       = []byte("REPLACE")
)

// migrateConn is a cached connection (migrateCachedSocket).
type migrateConn struct {
	conn    net.Conn
	br      *bufio.Reader
	lastDB  int64 // -1: SELECT before the next RESTORE
	lastUse int64 // unix seconds
}

// migrateCache holds the cached connections by "host:port" (engine lock).
type migrateCache map[string]*migrateConn

type migrateArgs struct {
	copy, replace      bool
	username, password []byte
	keys               [][]byte
	dbID, timeout      int64
}

func parseMigrate(c *client, args [][]byte) (*migrateArgs, bool) {
	m := &migrateArgs{keys: args[3:4]}
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case bytes.EqualFold(args[j], []byte("copy")):
			m.copy = true
		case bytes.EqualFold(args[j], []byte("replace")):
			m.replace = true
		case bytes.EqualFold(args[j], []byte("auth")):
			if more < 1 {
				c.fail(protocol.ErrSyntax)
				return nil, false
			}
			j++
			m.password = args[j]
		case bytes.EqualFold(args[j], []byte("auth2")):
			if more < 2 {
				c.fail(protocol.ErrSyntax)
				return nil, false
			}
			m.username, m.password = args[j+1], args[j+2]
			j += 2
		case bytes.EqualFold(args[j], []byte("keys")):
			if len(args[3]) != 0 {
				c.fail(errMigrateKeysArg)
				return nil, false
			}
			m.keys = args[j+1:]
			j = len(args)
		default:
			c.fail(protocol.ErrSyntax)
			return nil, false
		}
	}
	var ok bool
	if m.timeout, ok = protocol.ParseInt(args[5]); !ok {
		c.fail(protocol.ErrNotInteger)
		return nil, false
	}
	if m.dbID, ok = protocol.ParseInt(args[4]); !ok {
		c.fail(protocol.ErrNotInteger)
		return nil, false
	}
	if m.timeout <= 0 {
		m.timeout = 1000
	}
	return m, true
}

func cmdMigrate(c *client, args [][]byte) {
	m, ok := parseMigrate(c, args)
	if !ok {
		return
	}
	s := c.srv
	// The keys that are here; none: NOKEY, which is not an error.
	var views []db.KeyView
	var keys [][]byte
	for _, k := range m.keys {
		if kv, ok := c.db.LookupView(k); ok {
			views = append(views, kv)
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		c.w.Status("NOKEY")
		return
	}
	name := string(args[1]) + ":" + string(args[2])
	timeout := time.Duration(m.timeout) * time.Millisecond
	for mayRetry := true; ; mayRetry = false {
		cs := s.migrateSocketLocked(name, string(args[1]), string(args[2]), timeout)
		if cs == nil {
			c.fail(errMigrateConnect)
			return
		}
		retry, done := s.migrateOnceLocked(c, cs, name, m, views, keys, timeout, mayRetry)
		if done {
			return
		}
		if !retry {
			return
		}
	}
}

// migrateOnceLocked sends the keys over cs and handles the replies. It
// reports done when the command has replied, or retry when a socket error
// on the first reply allows one more attempt on a new connection.
func (s *Server) migrateOnceLocked(c *client, cs *migrateConn, name string, m *migrateArgs, views []db.KeyView, keys [][]byte, timeout time.Duration, mayRetry bool) (retry, done bool) {
	var cmd []byte
	if m.password != nil {
		if m.username != nil {
			cmd = aof.AppendCommand(cmd, propAUTH, m.username, m.password)
		} else {
			cmd = aof.AppendCommand(cmd, propAUTH, m.password)
		}
	}
	sel := cs.lastDB != m.dbID
	if sel {
		cmd = aof.AppendCommand(cmd, propSELECT, strconv.AppendInt(nil, m.dbID, 10))
	}
	o := s.rdbOptionsLocked()
	now := s.ks.Now()
	sent := keys[:0:0]
	for i, kv := range views {
		ttl := int64(0)
		if kv.Deadline >= 0 {
			if ttl = kv.Deadline - now; ttl < 0 {
				continue // expired since the lookup
			}
			ttl = max(ttl, 1)
		}
		// RESTORE, or RESTORE-ASKING in cluster mode so that the target
		// takes the key into a slot it is importing (Redis's migrateCommand).
		restore := propRESTORE
		if s.cluster.on {
			restore = propRESTOREAsking
		}
		parts := [][]byte{restore, keys[i], strconv.AppendInt(nil, ttl, 10), rdb.DumpPayload(db.ValueOf(kv), &o)}
		if m.replace {
			parts = append(parts, propREPLACE)
		}
		cmd = aof.AppendCommand(cmd, parts...)
		sent = append(sent, keys[i])
	}
	// Write in 64 KiB chunks, each within the timeout.
	for pos := 0; pos < len(cmd); {
		end := min(pos+migrateChunk, len(cmd))
		cs.conn.SetWriteDeadline(time.Now().Add(timeout))
		n, err := cs.conn.Write(cmd[pos:end])
		if err != nil || n != end-pos {
			return s.migrateSocketErrorLocked(c, name, err, true, mayRetry), false
		}
		pos = end
	}
	readLine := func() ([]byte, error) {
		cs.conn.SetReadDeadline(time.Now().Add(timeout))
		line, err := cs.br.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		return bytes.Clone(bytes.TrimRight(line, "\r\n")), nil
	}
	var authReply, selReply []byte
	var err error
	if m.password != nil {
		if authReply, err = readLine(); err != nil {
			return s.migrateSocketErrorLocked(c, name, err, false, mayRetry), false
		}
	}
	if sel {
		if selReply, err = readLine(); err != nil {
			return s.migrateSocketErrorLocked(c, name, err, false, mayRetry), false
		}
	}
	var acked [][]byte
	fromTarget, socketErr := false, error(nil)
	j := 0
	for ; j < len(sent); j++ {
		reply, err := readLine()
		if err != nil {
			socketErr = err
			break
		}
		errLine := []byte(nil)
		switch {
		case len(authReply) > 0 && authReply[0] == '-':
			errLine = authReply
		case len(selReply) > 0 && selReply[0] == '-':
			errLine = selReply
		case len(reply) > 0 && reply[0] == '-':
			errLine = reply
		}
		if errLine != nil {
			if !fromTarget {
				cs.lastDB = -1
				fromTarget = true
				c.fail(protocol.Error("ERR Target instance replied with error: " + string(errLine[1:])))
			}
			continue
		}
		if !m.copy {
			c.db.Delete(sent[j])
			acked = append(acked, sent[j])
		}
	}
	if !fromTarget && socketErr != nil && j == 0 && mayRetry && !isTimeout(socketErr) {
		return s.migrateSocketErrorLocked(c, name, socketErr, false, mayRetry), false
	}
	if socketErr != nil {
		s.migrateCloseLocked(name)
	}
	if len(acked) > 0 {
		c.propagateAs(append([][]byte{propDEL}, acked...)...)
	}
	if !fromTarget && socketErr != nil {
		s.migrateSocketErrorLocked(c, name, socketErr, false, false)
		return false, true
	}
	if !fromTarget {
		cs.lastDB = m.dbID
		c.w.OK()
	}
	return false, true
}

// migrateSocketErrorLocked is socket_err: the cached connection is closed;
// unless the error was a timeout, one retry is allowed, else the client
// gets the IOERR.
func (s *Server) migrateSocketErrorLocked(c *client, name string, err error, writing, mayRetry bool) (retry bool) {
	s.migrateCloseLocked(name)
	if mayRetry && !isTimeout(err) {
		return true
	}
	if writing {
		c.fail(errMigrateWrite)
	} else {
		c.fail(errMigrateRead)
	}
	return false
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// migrateSocketLocked returns the cached connection to host:port, or a new
// one connected within timeout (nil when that fails).
func (s *Server) migrateSocketLocked(name, host, port string, timeout time.Duration) *migrateConn {
	now := time.Now().Unix()
	if cs := s.migrate[name]; cs != nil {
		cs.lastUse = now
		return cs
	}
	if len(s.migrate) >= migrateCacheItems {
		for k := range s.migrate { // map order: a random entry
			s.migrateCloseLocked(k)
			break
		}
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		p = 0 // atoi: what does not parse is port 0, which fails to connect
	}
	conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(p)), timeout)
	if err != nil {
		return nil
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	if s.migrate == nil {
		s.migrate = migrateCache{}
	}
	cs := &migrateConn{conn: conn, br: bufio.NewReaderSize(conn, 4096), lastDB: -1, lastUse: now}
	s.migrate[name] = cs
	return cs
}

// migrateCloseLocked closes and forgets the cached connection name.
func (s *Server) migrateCloseLocked(name string) {
	if cs := s.migrate[name]; cs != nil {
		cs.conn.Close()
		delete(s.migrate, name)
	}
}

// migrateCronLocked closes the cached connections unused for more than 10
// seconds (migrateCloseTimedoutSockets).
func (s *Server) migrateCronLocked() {
	now := time.Now().Unix()
	for name, cs := range s.migrate {
		if now-cs.lastUse > migrateCacheTTL {
			s.migrateCloseLocked(name)
		}
	}
}

// migrateCloseAll closes every cached connection when the server stops.
func migrateCloseAll(s *Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.migrate {
		s.migrateCloseLocked(name)
	}
}
