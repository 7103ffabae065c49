// Package miniwatchd runs a miniwatchd server inside a Go test: an
// in-memory server that behaves like redis-server 7.0.15, on a free
// loopback port, closed when the test ends.
//
//	func TestCache(t *testing.T) {
//		s := miniwatchd.Run(t)
//		rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
//		... // code under test
//		s.CheckGet(t, "user:1", "alice")
//	}
//
// Contracts:
//
//   - Every typed method (Get, Set, HSet, ...) and Do run as a command of an
//     internal client through the server's command table and dispatch
//     (server.LocalClient): a Set breaks the WATCHes of the key, raises
//     keyspace events, is logged to the AOF and serves blocked clients
//     exactly as a SET sent by a client does. Typed methods work on the
//     database chosen by Select (0 at first).
//   - Faults (AddFault, DEBUG FAULT) never apply to the typed methods, Do or
//     the Check helpers, so a test inspects the real state while it injects
//     failures into its clients.
//   - FastForward and SetTime drive the server's one clock, the one DEBUG
//     CLOCK drives: TTLs, the active expiry cycle, blocking timeouts, OBJECT
//     IDLETIME, TIME and stream IDs follow it.
//   - Methods report a failure of the server itself (closed, unreachable)
//     through the testing.TB given to Run (Fatal); replies of Redis errors
//     (WRONGTYPE, ...) are returned as errors.
//
// RunCluster starts several nodes as one Redis Cluster (EmulatedCluster),
// each node a Server with the API above and all of them on one clock.
//
// A Server is safe for concurrent use by the test's goroutines.
package miniwatchd

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/miniwatchd/miniwatchd/server"
)

// Server is a running miniwatchd instance owned by one test.
type Server struct {
	t testing.TB

	mu    sync.Mutex // guards the fields below
	cfg   server.Config
	srv   *server.Server
	local *server.LocalClient // the typed methods' client
	db    int                 // the database Select chose
	user  [2]string           // the User option's name and password
	port  int
}

// Option configures Run.
type Option func(o *options)

type options struct {
	cfg  server.Config
	user [2]string
	errs []error
}

// Databases sets the number of databases (default 16).
func Databases(n int) Option { return func(o *options) { o.cfg.Databases = n } }

// Password sets the default user's password (requirepass): clients must
// AUTH. Dial authenticates its connections.
func Password(password string) Option { return func(o *options) { o.cfg.RequirePass = password } }

// User creates an ACL user allowed every command, key and channel (ACL
// SETUSER name on >password ~* &* +@all), again after each Restart. Dial
// authenticates its connections as this user.
func User(name, password string) Option {
	return func(o *options) { o.user = [2]string{name, password} }
}

// MaxMemory sets maxmemory in bytes (0: no limit); maxmemory-policy is set
// with Config.
func MaxMemory(bytes uint64) Option { return func(o *options) { o.cfg.MaxMemory = bytes } }

// AppendOnly turns on the append-only file, in the test's t.TempDir():
// Restart then reloads the data from it.
func AppendOnly() Option { return func(o *options) { o.cfg.AppendOnly = true } }

// Config sets any redis.conf parameter, as the line "name value" of a
// configuration file would (e.g. Config("maxmemory-policy", "allkeys-lru"),
// Config("notify-keyspace-events", "KEA")). A bad parameter fails Run.
func Config(name, value string) Option {
	return func(o *options) {
		cfg, err := server.ParseConfig(name+" "+strconv.Quote(value), o.cfg)
		if err != nil {
			o.errs = append(o.errs, err)
			return
		}
		o.cfg = cfg
	}
}

// Cluster starts the server as a Redis Cluster node (cluster-enabled yes)
// that owns all 16384 slots from the first command, with its nodes.conf in
// the test's t.TempDir() and 127.0.0.1 as its announced address
// (cluster-announce-ip: ioredis and others drop a node whose CLUSTER SLOTS
// entry has no IP). Cluster clients (go-redis's ClusterClient, ioredis's
// Cluster, redis-py's RedisCluster) connect to Addr as to a one-node Redis
// Cluster, and the node applies Redis's rules: commands, transactions and
// scripts whose keys span slots get CROSSSLOT, SELECT of a database other
// than 0 is refused. The typed methods and Do obey the same rules (a Del
// of keys of two slots fails). Restart keeps the node's ID and slots.
//
// No cluster bus listens; its port (cluster-port) is a free port of the
// moment, announced only, so it stays a valid port whatever port the
// server gets (Redis's default, port+10000, passes 65535 for ports above
// 55535).
func Cluster() Option {
	return func(o *options) {
		Config("cluster-enabled", "yes")(o)
		Config("cluster-announce-ip", "127.0.0.1")(o)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			o.errs = append(o.errs, fmt.Errorf("choosing a cluster bus port: %w", err))
			return
		}
		defer ln.Close()
		Config("cluster-port", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))(o)
	}
}

// Run starts a server on a free loopback port, with its files (AOF,
// dump.rdb) in t.TempDir(), and closes it with t.Cleanup. RESP3 needs no
// option: as with Redis, a client chooses it with HELLO 3.
func Run(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o, err := runOptions(t, opts)
	if err != nil {
		t.Fatalf("miniwatchd.Run: %v", err)
	}
	s := &Server{t: t, cfg: o.cfg, user: o.user}
	if err := s.startLocked(nil); err != nil {
		t.Fatalf("miniwatchd.Run: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// runOptions applies opts to Run's defaults: a free loopback port, the
// files in t.TempDir(), no save points, DEBUG allowed, no log.
func runOptions(t testing.TB, opts []Option) (options, error) {
	o := options{cfg: server.DefaultConfig()}
	o.cfg.Port = 0
	o.cfg.Bind = []string{"127.0.0.1"}
	o.cfg.Dir = t.TempDir()
	o.cfg.Save = nil
	o.cfg.EnableDebugCommand = "yes"
	o.cfg.Logger = slog.New(slog.DiscardHandler)
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.errs) > 0 {
		return o, o.errs[0]
	}
	return o, nil
}

// startLocked starts the server on s.port (0 at first), setup running
// before it loads its data.
func (s *Server) startLocked(setup func(*server.Server)) error {
	cfg := s.cfg
	cfg.Port = s.port
	srv, err := server.StartWith(cfg, setup)
	if err != nil {
		return err
	}
	return s.attachLocked(srv)
}

// attachLocked makes srv, started and serving, the server of s: the
// typed methods' client, the database Select chose, the User option's
// user. It closes srv when the user cannot be created.
func (s *Server) attachLocked(srv *server.Server) error {
	s.srv = srv
	s.port = srv.Addr().(*net.TCPAddr).Port
	s.local = srv.NewLocalClient("miniwatchd")
	if s.db != 0 {
		s.local.Do([]byte("SELECT"), []byte(strconv.Itoa(s.db)))
	}
	if s.user[0] != "" {
		r := s.local.Do([]byte("ACL"), []byte("SETUSER"), []byte(s.user[0]), []byte("on"),
			[]byte(">"+s.user[1]), []byte("~*"), []byte("&*"), []byte("+@all"))
		if string(r) != "+OK\r\n" {
			srv.Close()
			return fmt.Errorf("ACL SETUSER %s: %q", s.user[0], r)
		}
	}
	return nil
}

// Addr returns the server's address, "127.0.0.1:port".
func (s *Server) Addr() string { return net.JoinHostPort(s.Host(), strconv.Itoa(s.Port())) }

// Host returns the address the server listens on, "127.0.0.1".
func (s *Server) Host() string { return "127.0.0.1" }

// Port returns the server's port; it stays the same across Restart.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Engine returns the running server.Server, for what this package does not
// wrap (its Clock, to freeze time; DialPipe). It changes with Restart.
func (s *Server) Engine() *server.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// Close stops the server and disconnects its clients. Run's cleanup calls
// it; calling it again does nothing.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		s.srv.Close()
	}
}

// Restart stops the server and starts it again on the same port, keeping
// the data: with AppendOnly it is reloaded from the AOF, otherwise from a
// SAVE into dump.rdb taken just before. Clients are disconnected, as by a
// real restart. The clock keeps the time and the frozen state FastForward,
// SetTime or DEBUG CLOCK gave it; faults are not kept.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.AppendOnly {
		if r := s.local.Do([]byte("SAVE")); string(r) != "+OK\r\n" {
			s.t.Fatalf("miniwatchd: Restart: SAVE: %q", r)
		}
	}
	clk := s.srv.Clock()
	frozen, now := clk.Frozen(), clk.Now()
	s.srv.Close()
	err := s.startLocked(func(n *server.Server) {
		if s.cfg.Clock != nil { // a cluster's shared clock, still running
			return
		}
		if frozen {
			n.Clock().Freeze()
		}
		n.Clock().Set(now)
	})
	if err != nil {
		s.t.Fatalf("miniwatchd: Restart: %v", err)
	}
}

// Dial connects a new client without TCP (server.DialPipe: an in-memory
// Unix socketpair served by the same event loop), authenticated when the
// Password or User option is set. The caller closes it; Close closes it
// too. Use it with a client library's dialer option to test without ports.
func (s *Server) Dial() net.Conn {
	s.t.Helper()
	srv := s.Engine()
	conn, err := srv.DialPipe()
	if err != nil {
		s.t.Fatalf("miniwatchd: Dial: %v", err)
	}
	var auth []string
	switch {
	case s.user[0] != "":
		auth = []string{"AUTH", s.user[0], s.user[1]}
	case s.cfg.RequirePass != "":
		auth = []string{"AUTH", s.cfg.RequirePass}
	}
	if auth != nil {
		if err := authenticate(conn, auth); err != nil {
			conn.Close()
			s.t.Fatalf("miniwatchd: Dial: %v", err)
		}
	}
	return conn
}

// authenticate sends AUTH on a fresh connection and reads its +OK.
func authenticate(conn net.Conn, auth []string) error {
	req := fmt.Sprintf("*%d\r\n", len(auth))
	for _, a := range auth {
		req += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(conn, req); err != nil {
		return err
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return err
	}
	if string(buf) != "+OK\r\n" {
		return fmt.Errorf("AUTH refused: %q", buf)
	}
	return nil
}
