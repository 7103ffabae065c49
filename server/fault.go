package server

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Fault injection (issue 22 item 2): a test makes chosen commands of its
// clients fail, lag, lose their reply or lose their connection, and forces
// WATCH conflicts, from Go (AddFault) or over RESP (DEBUG FAULT,
// fault_cmd.go).
//
// Contracts:
//   - Faults join the dispatch at one point, hooks.intercept (wiring.go):
//     runCommandLocked hands every command a connection sent (MULTI-queued
//     ones as they are queued) to faultInterceptLocked, which runs it
//     unchanged unless a fault matches. A command no fault matches is run
//     exactly as without faults: same reply bytes, same statistics.
//   - Faults never apply to local clients (LocalClient: the Go test
//     package's typed access, the faults' own RUN-BEFORE/RUN-AFTER
//     commands), to scripts' redis.call or to the commands EXEC runs.
//   - Faults live on the Server, not in a database: FLUSHALL, FLUSHDB and
//     SWAPDB keep them. Only DEBUG FAULT DEL/CLEAR and DelFault/ClearFaults
//     remove them; a fault whose TIMES are used up stays listed (spent).
//   - The first fault that matches a command and fires acts (in the order
//     they were added; the faults after it do not see the call); each fault counts the calls it matched and the times it
//     fired (DEBUG FAULT LIST, INFO faults), and every firing is logged at
//     notice level.
//   - A DELAY holds the reply in a timer, never the event loop: the client's
//     later commands wait behind it (replies stay in order), other clients
//     are served meanwhile.
//
// Locking: everything here runs under the engine lock, the delay timers
// take it when they fire.

// Fault is one fault: which calls it matches and what it does to them.
// Every set condition must hold for a call to match; the zero Fault
// matches every command of every client.
type Fault struct {
	Command string // command name, case-insensitive ("get", "client|kill" or "client"); "" = any
	Key     string // glob over the command's key arguments (for EXEC: the keys the client watches); "" = any
	Client  string // glob over the client's name (CLIENT SETNAME); "" = any
	DB      *int   // the client's selected database; nil = any

	// Which matching calls fire: Nth only the n-th, Every every n-th,
	// Probability (0 < p <= 1) each with that chance from a generator
	// seeded with Seed; Times bounds how often the fault fires (0: no
	// bound).
	Nth, Every  int
	Probability float64
	Seed        uint64
	Times       int

	Action FaultAction
}

// FaultAction is what a fault does to a call; build it with FaultError,
// FaultDelay, FaultCloseBefore, FaultCloseAfter, FaultTruncate,
// FaultDropReply, FaultAbortExec, FaultRunBefore or FaultRunAfter.
type FaultAction struct {
	kind  faultKind
	text  string        // faultError
	delay time.Duration // faultDelay
	n     int           // faultTruncate: bytes of the reply sent
	args  []string      // faultRunBefore/After
}

type faultKind uint8

const (
	faultNone faultKind = iota
	faultError
	faultDelay
	faultCloseBefore
	faultCloseAfter
	faultTruncate
	faultDropReply
	faultAbortExec
	faultRunBefore
	faultRunAfter
)

// faultKindNames are the actions' names in DEBUG FAULT ADD and LIST.
var faultKindNames = [...]string{"", "ERROR", "DELAY", "CLOSE-BEFORE", "CLOSE-AFTER", "TRUNCATE", "DROP-REPLY", "ABORT-EXEC", "RUN-BEFORE", "RUN-AFTER"}

// FaultError replies text as an error instead of running the command, as
// a rejection in processCommand would: text is the whole error line
// ("LOADING Redis is loading the dataset in memory", "READONLY You can't
// write against a read only replica.", "MOVED 3999 127.0.0.1:6381"). Inside
// MULTI the transaction is poisoned; on EXEC the reply is EXECABORT ...,
// except for the cluster codes MOVED, ASK, TRYAGAIN, CLUSTERDOWN and
// CROSSSLOT, which discard the transaction and reply the error itself, as
// Redis 7.0's cluster redirection does.
func FaultError(text string) FaultAction { return FaultAction{kind: faultError, text: text} }

// FaultDelay runs the command at once and sends its reply d later.
func FaultDelay(d time.Duration) FaultAction { return FaultAction{kind: faultDelay, delay: d} }

// FaultCloseBefore closes the connection instead of running the command
// (replies of the commands before it are still sent).
func FaultCloseBefore() FaultAction { return FaultAction{kind: faultCloseBefore} }

// FaultCloseAfter runs the command, drops its reply and closes the
// connection.
func FaultCloseAfter() FaultAction { return FaultAction{kind: faultCloseAfter} }

// FaultTruncate runs the command, sends only the first n bytes of its
// reply (n <= 0 or n too big: all but the last byte) and closes the
// connection.
func FaultTruncate(n int) FaultAction { return FaultAction{kind: faultTruncate, n: n} }

// FaultDropReply runs the command and drops its reply; the connection
// stays open, so the client reads the next command's reply in its place.
func FaultDropReply() FaultAction { return FaultAction{kind: faultDropReply} }

// FaultAbortExec makes EXEC fail as if a watched key had been touched (a
// null reply): it matches only EXEC of a client in MULTI that watches a
// key (one matching Key, when set).
func FaultAbortExec() FaultAction { return FaultAction{kind: faultAbortExec} }

// FaultRunBefore runs the command args, as a local client in the matching
// client's database, just before the matching command (before EXEC: a
// write to a watched key makes it abort).
func FaultRunBefore(args ...string) FaultAction {
	return FaultAction{kind: faultRunBefore, args: args}
}

// FaultRunAfter runs the command args, as a local client in the matching
// client's database, just after the matching command (after WATCH: a
// write to the key makes the coming EXEC abort).
func FaultRunAfter(args ...string) FaultAction {
	return FaultAction{kind: faultRunAfter, args: args}
}

// FaultInfo is a fault as DEBUG FAULT LIST shows it.
type FaultInfo struct {
	ID      int
	Spec    string // the arguments of DEBUG FAULT ADD that create it
	Matched int64  // calls it matched
	Fired   int64  // times it acted
}

// faultState is the server's faults (mu).
type faultState struct {
	list   []*fault
	nextID int
	fired  int64   // every fault's firings, removed ones included (INFO faults_fired)
	runner *client // the local client of RUN-BEFORE/RUN-AFTER
}

// fault is one installed fault.
type fault struct {
	id      int
	f       Fault
	rng     *rand.Rand
	matched int64
	fired   int64
}

// AddFault installs a fault and returns its ID.
func (s *Server) AddFault(f Fault) (int, error) {
	if err := f.validate(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addFaultLocked(f), nil
}

// DelFault removes the fault id and reports whether it existed.
func (s *Server) DelFault(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delFaultLocked(id)
}

// ClearFaults removes every fault and returns how many there were.
func (s *Server) ClearFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.faults.list)
	s.faults.list = nil
	return n
}

// Faults lists the faults in the order they were added.
func (s *Server) Faults() []FaultInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]FaultInfo, len(s.faults.list))
	for i, f := range s.faults.list {
		out[i] = FaultInfo{ID: f.id, Spec: f.f.spec(), Matched: f.matched, Fired: f.fired}
	}
	return out
}

func (s *Server) addFaultLocked(f Fault) int {
	st := &s.faults
	st.nextID++
	nf := &fault{id: st.nextID, f: f}
	nf.f.Command = strings.ToLower(f.Command)
	if f.Probability > 0 {
		nf.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
	st.list = append(st.list, nf)
	s.log.Info(fmt.Sprintf("Fault %d added: %s", nf.id, nf.f.spec()))
	return nf.id
}

func (s *Server) delFaultLocked(id int) bool {
	for i, f := range s.faults.list {
		if f.id == id {
			s.faults.list = append(s.faults.list[:i], s.faults.list[i+1:]...)
			return true
		}
	}
	return false
}

// validate checks what the types do not.
func (f Fault) validate() error {
	switch {
	case f.Action.kind == faultNone:
		return errors.New("fault without an action")
	case f.Nth < 0 || f.Every < 0 || f.Times < 0:
		return errors.New("NTH, EVERY and TIMES must be positive")
	case f.Probability < 0 || f.Probability > 1:
		return errors.New("PROB must be between 0 and 1")
	case f.Action.kind == faultDelay && (f.Action.delay < 0 || f.Action.delay > time.Hour):
		return errors.New("DELAY must be between 0 and 3600000 milliseconds")
	case (f.Action.kind == faultRunBefore || f.Action.kind == faultRunAfter) && len(f.Action.args) == 0:
		return errors.New("RUN-BEFORE and RUN-AFTER need a command")
	case f.Action.kind == faultError && strings.ContainsAny(f.Action.text, "\r\n"):
		return errors.New("the error text may not contain newlines")
	}
	return nil
}

// faultInterceptLocked is hooks.intercept: it runs c's command args through
// run (runCommandPlainLocked), applying the first fault that matches.
func (s *Server) faultInterceptLocked(c *client, args [][]byte, run func(*Server, *client, [][]byte) bool) bool {
	if len(s.faults.list) == 0 || c.local {
		return run(s, c, args)
	}
	cmd, _ := s.table.lookup(args)
	var fired *fault
	for _, f := range s.faults.list {
		if f.matchesLocked(c, cmd, args) && f.firesLocked() {
			fired = f
			break
		}
	}
	if fired == nil {
		return run(s, c, args)
	}
	fired.fired++
	s.faults.fired++
	a := fired.f.Action
	s.log.Info(fmt.Sprintf("Fault %d fired: %s on '%s' from client id=%d name=%s",
		fired.id, faultKindNames[a.kind], strings.ToLower(string(args[0])), c.id, c.name))

	switch a.kind {
	case faultError:
		s.faultRejectLocked(c, cmd, a.text)
		return true
	case faultCloseBefore:
		c.closeAfterRply = true
		return true
	case faultAbortExec:
		c.watch.MarkDirty()
		return run(s, c, args)
	case faultRunBefore:
		s.faultRunLocked(c, a.args)
		return run(s, c, args)
	case faultRunAfter:
		ok := run(s, c, args)
		s.faultRunLocked(c, a.args)
		return ok
	}

	// The actions on the reply: run, then take what the command wrote.
	at := len(c.w.Buf)
	ok := run(s, c, args)
	if c.blocked != nil || c.wpos > at || len(c.w.Buf) < at {
		return ok // blocked (the reply comes later) or already written: left alone
	}
	reply := c.w.Buf[at:]
	switch a.kind {
	case faultDelay:
		held := append([]byte(nil), reply...)
		c.w.Buf = c.w.Buf[:at]
		s.holdReplyLocked(c, held, a.delay)
	case faultDropReply:
		c.w.Buf = c.w.Buf[:at]
	case faultCloseAfter:
		c.w.Buf = c.w.Buf[:at]
		c.closeAfterRply = true
	case faultTruncate:
		n := a.n
		if n <= 0 || n >= len(reply) {
			n = max(len(reply)-1, 0)
		}
		c.w.Buf = c.w.Buf[:at+n]
		c.closeAfterRply = true
	}
	return ok
}

// matchesLocked reports whether c's call matches f's conditions, and
// counts it.
func (f *fault) matchesLocked(c *client, cmd *command, args [][]byte) bool {
	ff := &f.f
	if ff.Command != "" {
		name := strings.ToLower(string(args[0]))
		if cmd != nil {
			name = cmd.name
		}
		top, _, _ := strings.Cut(name, "|")
		if ff.Command != name && ff.Command != top && strings.ReplaceAll(ff.Command, " ", "|") != name {
			return false
		}
	}
	if ff.Action.kind == faultAbortExec && (cmd == nil || cmd.name != "exec" || !c.multi.Active() || c.watch.Count() == 0) {
		return false
	}
	if ff.DB != nil && c.db.ID() != *ff.DB {
		return false
	}
	if ff.Client != "" && !glob.MatchString(ff.Client, c.name) {
		return false
	}
	if ff.Key != "" && !faultKeyMatches(ff.Key, c, cmd, args) {
		return false
	}
	f.matched++
	return true
}

// faultKeyMatches reports whether one of the call's keys matches pattern:
// the key arguments (Redis's key specs), or for EXEC the watched keys.
func faultKeyMatches(pattern string, c *client, cmd *command, args [][]byte) bool {
	if cmd == nil {
		return false
	}
	if cmd.name == "exec" {
		for _, r := range c.watch.Records() {
			if glob.MatchString(pattern, r.Key()) {
				return true
			}
		}
		return false
	}
	if cmd.meta == nil || !cmd.meta.HasKeys() {
		return false
	}
	for _, r := range cmd.meta.KeyRefs(args) {
		if r.Pos < len(args) && glob.Match([]byte(pattern), args[r.Pos]) {
			return true
		}
	}
	return false
}

// firesLocked decides whether a matched call fires the fault.
func (f *fault) firesLocked() bool {
	ff := &f.f
	switch {
	case ff.Times > 0 && f.fired >= int64(ff.Times):
		return false
	case ff.Nth > 0 && f.matched != int64(ff.Nth):
		return false
	case ff.Every > 0 && f.matched%int64(ff.Every) != 0:
		return false
	case ff.Probability > 0 && f.rng.Float64() >= ff.Probability:
		return false
	}
	return true
}

// faultRedirectCodes are the error codes of processCommand's cluster
// redirection, which on EXEC discards the transaction and replies the
// error itself instead of EXECABORT.
var faultRedirectCodes = map[string]bool{"MOVED": true, "ASK": true, "TRYAGAIN": true, "CLUSTERDOWN": true, "CROSSSLOT": true}

// faultRejectLocked replies text as processCommand's rejection of cmd.
func (s *Server) faultRejectLocked(c *client, cmd *command, text string) {
	if text == "" {
		text = "ERR"
	}
	code, _, _ := strings.Cut(text, " ")
	if !faultRedirectCodes[code] {
		s.rejectCommand(c, cmd, protocol.Error(text))
		return
	}
	if cmd != nil && cmd.name == "exec" {
		s.discardTransactionLocked(c)
	} else {
		c.multi.Poison()
	}
	if cmd != nil {
		cmd.rejected.Add(1)
	}
	c.fail(protocol.Error(text))
}

// faultRunLocked runs a RUN-BEFORE/RUN-AFTER command in c's database.
func (s *Server) faultRunLocked(c *client, args []string) {
	st := &s.faults
	if st.runner == nil {
		st.runner = s.newLocalClientLocked("fault")
	}
	r := st.runner
	r.db = c.db
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	out := s.runLocalLocked(r, b)
	if len(out) > 0 && out[0] == '-' {
		s.log.Info(fmt.Sprintf("Fault command '%s' failed: %s", strings.ToLower(args[0]), strings.TrimSpace(string(out[1:]))))
	}
}

// holdReplyLocked keeps reply from c for d: c runs no further command
// until a timer appends the reply and lets it go on.
func (s *Server) holdReplyLocked(c *client, reply []byte, d time.Duration) {
	c.faultHold = true
	time.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c.killed.Load() || !s.loop.registered(c) {
			return
		}
		c.w.Buf = append(c.w.Buf, reply...)
		c.faultHold = false
		s.loop.reprocessLocked(c) // what it sent meanwhile, and the write
	})
}

// spec renders f as the arguments of DEBUG FAULT ADD.
func (f Fault) spec() string {
	var b []byte
	word := func(w string) { b = append(append(b, ' '), w...) }
	quoted := func(w string) { b = protocol.AppendRepr(append(b, ' '), w) }
	if f.Command != "" {
		word("CMD")
		quoted(f.Command)
	}
	if f.Key != "" {
		word("KEY")
		quoted(f.Key)
	}
	if f.Client != "" {
		word("CLIENT")
		quoted(f.Client)
	}
	if f.DB != nil {
		word("DB " + strconv.Itoa(*f.DB))
	}
	if f.Nth > 0 {
		word("NTH " + strconv.Itoa(f.Nth))
	}
	if f.Every > 0 {
		word("EVERY " + strconv.Itoa(f.Every))
	}
	if f.Probability > 0 {
		word("PROB " + strconv.FormatFloat(f.Probability, 'g', -1, 64) + " SEED " + strconv.FormatUint(f.Seed, 10))
	}
	if f.Times > 0 {
		word("TIMES " + strconv.Itoa(f.Times))
	}
	a := f.Action
	word(faultKindNames[a.kind])
	switch a.kind {
	case faultError:
		quoted(a.text)
	case faultDelay:
		word(strconv.FormatInt(a.delay.Milliseconds(), 10))
	case faultTruncate:
		word(strconv.Itoa(a.n))
	case faultRunBefore, faultRunAfter:
		for _, arg := range a.args {
			quoted(arg)
		}
	}
	return string(b[1:])
}

// infoFaults is INFO's faults section.
func infoFaults(s *Server, b *strings.Builder) {
	st := &s.faults
	field(b, "faults", len(st.list))
	field(b, "faults_fired", st.fired)
	for _, f := range st.list {
		spent := 0
		if f.f.Times > 0 && f.fired >= int64(f.f.Times) {
			spent = 1
		}
		fmt.Fprintf(b, "fault_%d:action=%s,matched=%d,fired=%d,spent=%d\r\n",
			f.id, strings.ToLower(faultKindNames[f.f.Action.kind]), f.matched, f.fired, spent)
	}
}
