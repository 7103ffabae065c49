package server

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/expire"
)

// Version is miniwatchd's own version, reported by INFO as
// miniwatchd_version beside the Redis version whose behaviour it implements.
const Version = "0.1.0"

// RedisVersion is the Redis release whose behaviour miniwatchd reproduces.
const RedisVersion = "7.0.15"

// Server is one miniwatchd instance: listeners, clients, the keyspace and
// the engine lock. Create it with New, then Serve or ListenAndServe; or use
// Start for an instance on a free port (tests).
type Server struct {
	// mu is the engine lock. It stands for Redis's single thread: every
	// command, EXEC, script, the active expiry cycle and every change to the
	// keyspace, the clients registry, the configuration or the statistics
	// happens while holding it. Functions that expect it held end in Locked.
	mu engineLock

	cfg     Config         // mu
	params  *paramRegistry // mu
	ks      *db.Keyspace   // mu
	clock   *expire.Clock
	table   *commandTable
	log     *slog.Logger
	clients map[int64]*client // mu
	ring    clientRing        // mu: the clients in clientsCron's rotation (clients_cron.go)
	nextID  atomic.Int64
	stats   stats // mu unless atomic

	lnMu      sync.Mutex
	lns       listenerSet // lnMu: the TCP, TLS and Unix socket listeners (listen.go)
	closing   atomic.Bool
	done      chan struct{}
	stopped   chan struct{} // closed once Close has finished (close hooks included)
	wg        sync.WaitGroup
	startTime time.Time
	runID     string

	scripting scripting // mu: Lua scripts and functions (script_run.go)

	ps           pubsubState  // mu: pub/sub, keyspace notifications, client-side caching
	activeExpire bool         // mu: DEBUG SET-ACTIVE-EXPIRE
	expireCycle  expire.Cycle // used only by the cron goroutine
	configFile   string       // absolute path of the config file, "" if none
	mem          memState
	blk          blockingState              // mu: blocked clients and ready keys (blocking.go)
	wobs         watchObs                   // mu: WATCH observability (watch_obs.go)
	loop         *eventLoop                 // client I/O (eventloop.go)
	aof          aofState                   // mu (aof.go)
	acl          aclState                   // mu: ACL users and log (acl.go)
	hooks        hooks                      // filled once by wire (wiring.go); read-only after New but for test seams
	ops          opsState                   // mu: MONITOR, SLOWLOG, LATENCY, CLIENT PAUSE (ops.go)
	rdb          rdbState                   // mu: RDB snapshots (rdb_save.go)
	cluster      clusterMode                // mu, but for on (set in New): cluster mode (cluster.go)
	migrate      migrateCache               // mu: MIGRATE's cached connections (cmd_migrate.go)
	faults       faultState                 // mu: injected faults (fault.go)
	repl         replState                  // mu: replication, both sides (repl_master.go, repl_replica.go)
	lim          limitsState                // mu: client limits (limits.go)
	idleBuf      idleBufferState            // mu: idle clients' released buffers (idle_buffers.go)
	qbufs        [][]byte                   // mu: query buffers of freed clients for new ones (conn.go)
	tlsCfg       atomic.Pointer[tls.Config] // the TLS port's configuration, nil until loaded (tls.go)
	// cmdStart is when the next top-level command starts (wall clock): set
	// by the connection loop at the start of a batch and advanced by each
	// command to its end, so the clock is read once per command (mu).
	cmdStart time.Time
}

// stats are the counters INFO reports that the keyspace does not keep.
type stats struct {
	totalConnections    atomic.Int64
	totalCommands       atomic.Int64
	rejectedConnections atomic.Int64
	totalErrorReplies   int64            // mu
	errors              map[string]int64 // mu: error replies by prefix (errorstats)
	netInputBytes       atomic.Int64
	netOutputBytes      atomic.Int64
}

// New returns a server for cfg; it does not listen yet.
func New(cfg Config) (*Server, error) { return newServer(cfg, nil) }

// newServer is New; prepare, when not nil, runs once the hooks are wired
// and before the start and load hooks (tests set their seams there).
func newServer(cfg Config, prepare func(s *Server)) (*Server, error) {
	if cfg.Databases <= 0 {
		return nil, errors.New("databases must be at least 1")
	}
	table, err := serverTable()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	clock := cfg.Clock
	if clock == nil {
		clock = expire.NewClock()
	}
	s := &Server{
		cfg:          cfg,
		ks:           db.NewKeyspace(cfg.Databases),
		clock:        clock,
		table:        table,
		log:          log,
		clients:      make(map[int64]*client),
		done:         make(chan struct{}),
		stopped:      make(chan struct{}),
		startTime:    time.Now(),
		runID:        newRunID(),
		activeExpire: true,
	}
	loop, err := newEventLoop(s)
	if err != nil {
		return nil, err
	}
	s.loop = loop
	s.params = newParamRegistry(s)
	s.initEncodingLimits()
	s.wire()
	if prepare != nil {
		prepare(s)
	}
	s.ks.SetObserver(observer{s})
	s.mu.Lock()
	for _, fn := range s.hooks.start {
		fn(s)
	}
	for _, fn := range s.hooks.load {
		if err := fn(s); err != nil {
			s.mu.Unlock()
			s.runCloseHooks()
			return nil, err
		}
	}
	s.mu.Unlock()
	return s, nil
}

// Start creates a server for cfg and serves it on its Bind/Port in the
// background (Port 0 picks a free port; see Addr).
func Start(cfg Config) (*Server, error) { return start(cfg, nil) }

// StartWith is Start with a setup step that runs once the server exists and
// before it loads its data (the AOF or dump.rdb) or serves anyone: an
// embedding test package sets the clock there, so keys loaded again after a
// restart see the clock the test had moved.
func StartWith(cfg Config, setup func(s *Server)) (*Server, error) { return start(cfg, setup) }

// start is Start with newServer's prepare.
func start(cfg Config, prepare func(s *Server)) (*Server, error) {
	s, err := newServer(cfg, prepare)
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		return nil, err
	}
	go s.Serve()
	return s, nil
}

// Clock returns the server's clock: tests freeze, set and advance it.
func (s *Server) Clock() *expire.Clock { return s.clock }

// ListenAndServe listens and serves until Close or SHUTDOWN.
func (s *Server) ListenAndServe() error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.Serve()
}

// Close stops accepting, disconnects every client, stops background
// tasks and runs the close hooks (the AOF's final write and fsync). It is
// safe to call more than once; every call returns once all of it is done,
// and so does Serve.
func (s *Server) Close() error {
	if !s.closing.CompareAndSwap(false, true) {
		<-s.stopped
		return nil
	}
	s.closeListeners()
	s.loop.p.Wake()
	s.mu.Lock()
	for _, c := range s.clients {
		if c.fd >= 0 {
			s.loop.freeLocked(c)
		}
	}
	s.mu.Unlock()
	s.loop.p.Wake() // the loop may have gone back to waiting meanwhile
	close(s.done)
	s.wg.Wait()
	s.runCloseHooks()
	s.loop.p.Close()
	close(s.stopped)
	return nil
}

// runCloseHooks runs the close hooks.
func (s *Server) runCloseHooks() {
	for _, fn := range s.hooks.close {
		fn(s)
	}
}

// Done is closed when the server has stopped (Close or SHUTDOWN).
func (s *Server) Done() <-chan struct{} { return s.done }

// cron runs Redis's serverCron duties that matter here, hz times a second
// (table maintenance, client timeouts, the slow active expiry cycle), and,
// while the last cycle found much stale data or ran out of time, also gives
// the fast expiry cycle a chance every 2ms (Redis runs it before each event
// loop sleep). One goroutine runs both, so the cycle state needs no lock; an
// idle server wakes only hz times a second.
func (s *Server) cron() {
	timer := time.NewTimer(0)
	defer timer.Stop()
	nextSlow := time.Now()
	for {
		select {
		case <-s.done:
			return
		case <-timer.C:
		}
		s.mu.Lock()
		hz := max(s.cfg.Hz, 1)
		active := s.activeExpire && !s.ops.pause.active() && !s.ops.cronPaused && s.repl.link == nil // no expiry while paused (ops.go); a replica's keys expire by its master's DEL
		p := expire.Params{Hz: hz, Effort: s.cfg.ActiveExpireEffort}
		s.mu.Unlock()
		now := time.Now()
		if !now.Before(nextSlow) {
			nextSlow = now.Add(time.Second / time.Duration(hz))
			s.cronOnce()
			p.Kind = expire.Slow
		} else {
			p.Kind = expire.Fast
		}
		if active {
			t0 := time.Now()
			s.expireCycle.Run(s.ks, engineLocker{s}, s.clock.UnixMilli, p)
			s.latencySampleUnlocked("expire-cycle", time.Since(t0)) // latency.go
		}
		wait := time.Until(nextSlow)
		if active && s.expireCycle.WantsFast(p.Effort) && wait > 2*time.Millisecond {
			wait = 2 * time.Millisecond
		}
		timer.Reset(max(wait, 0))
	}
}

// cronOnce runs one round of background work under the engine lock.
func (s *Server) cronOnce() {
	engineLocker{s}.Lock()
	defer s.mu.Unlock()
	if s.ops.cronPaused { // DEBUG PAUSE-CRON (debug_ops.go)
		return
	}
	s.ks.SetTime(s.clock.UnixMilli())
	s.ks.DatabasesCron(time.Millisecond)
	s.clientsCronLocked() // clients_cron.go
	for _, fn := range s.hooks.cron {
		fn(s)
	}
}

func newRunID() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 40)
	seed := uint64(time.Now().UnixNano())
	for i := range b {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		b[i] = hex[seed%16]
	}
	return string(b)
}
