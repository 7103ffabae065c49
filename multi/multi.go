// Package multi holds a client's MULTI state (Redis multi.c's mstate and the
// CLIENT_MULTI / CLIENT_DIRTY_EXEC flags): the queue of commands waiting for
// EXEC, the poisoned flag, and the EXEC decision (spec M-1 .. M-9).
//
// Queued arguments are copied into one arena per transaction, because the
// arguments handed to Queue alias the connection's read buffer.
//
// Nothing here is safe for concurrent use; the server calls it under its
// engine lock (or from the client's own goroutine for client-local state).
package multi

// State is one client's transaction state. The zero value is "not in MULTI".
type State struct {
	active     bool
	poisoned   bool // CLIENT_DIRTY_EXEC: a command was rejected while queueing
	cmds       []queued
	arena      []byte
	argOffs    []int // start offsets into arena; arg i spans argOffs[i]..argOffs[i+1]
	anyWrite   bool
	anyDenyOOM bool
	scratch    [][]byte // the argument vector Each hands out, reused
}

type queued struct {
	cmd      any // the server's command table row
	firstArg int // index into argOffs
	nargs    int
}

// Active reports whether the client is inside MULTI.
func (s *State) Active() bool { return s.active }

// Poisoned reports CLIENT_DIRTY_EXEC.
func (s *State) Poisoned() bool { return s.poisoned }

// Begin enters MULTI. The caller rejects a nested MULTI.
func (s *State) Begin() {
	s.active = true
	s.poisoned = false
	s.anyWrite, s.anyDenyOOM = false, false
}

// Poison marks the transaction as failed to queue: EXEC will reply EXECABORT.
// A poisoned transaction keeps nothing it queues (spec M-4).
func (s *State) Poison() {
	if s.active {
		s.poisoned = true
	}
}

// Queue appends a command with a private copy of args. write and denyOOM are
// the command's flags; EXEC counts as a write (or deny-oom) command when any
// queued command is one (spec M-6). A poisoned transaction stores nothing,
// and neither does a transaction whose client is already dirty (dirty), as
// Redis's queueMultiCommand does.
func (s *State) Queue(cmd any, args [][]byte, write, denyOOM, dirty bool) {
	if s.poisoned || dirty {
		return
	}
	q := queued{cmd: cmd, firstArg: len(s.argOffs), nargs: len(args)}
	for _, a := range args {
		s.argOffs = append(s.argOffs, len(s.arena))
		s.arena = append(s.arena, a...)
	}
	s.cmds = append(s.cmds, q)
	s.anyWrite = s.anyWrite || write
	s.anyDenyOOM = s.anyDenyOOM || denyOOM
}

// Len returns the number of stored commands (CLIENT LIST multi=).
func (s *State) Len() int { return len(s.cmds) }

// HasWrite reports whether any queued command is a write command.
func (s *State) HasWrite() bool { return s.anyWrite }

// HasDenyOOM reports whether any queued command is flagged deny-oom.
func (s *State) HasDenyOOM() bool { return s.anyDenyOOM }

// Each calls fn with each queued command and its arguments, in order. The
// argument slices are valid until Reset.
func (s *State) Each(fn func(cmd any, args [][]byte)) {
	args := s.scratch[:0]
	for _, q := range s.cmds {
		args = args[:0]
		for i := q.firstArg; i < q.firstArg+q.nargs; i++ {
			end := len(s.arena)
			if i+1 < len(s.argOffs) {
				end = s.argOffs[i+1]
			}
			start := s.argOffs[i]
			args = append(args, s.arena[start:end:end])
		}
		fn(q.cmd, args)
	}
	clear(args)
	s.scratch = args[:0]
}

// Reset leaves MULTI and drops the queue and the poisoned flag (the end of
// every EXEC, DISCARD and RESET).
func (s *State) Reset() {
	s.active = false
	s.poisoned = false
	for i := range s.cmds {
		s.cmds[i].cmd = nil
	}
	s.cmds = s.cmds[:0]
	s.argOffs = s.argOffs[:0]
	if cap(s.arena) > 64<<10 {
		s.arena = nil // do not keep a huge transaction's memory
	} else {
		s.arena = s.arena[:0]
	}
	s.anyWrite, s.anyDenyOOM = false, false
}

// Outcome is the EXEC decision.
type Outcome uint8

// EXEC outcomes, in the order they are checked (spec M-7).
const (
	Run       Outcome = iota // run the queue
	AbortExec                // poisoned: -EXECABORT ... previous errors.
	AbortCAS                 // a watched key changed: null array
)

// Decide returns what EXEC does given whether the client's watch state is
// dirty (after the caller applied the EXEC-time deadline check, T-3).
// Poison wins over dirty.
func (s *State) Decide(casDirty bool) Outcome {
	switch {
	case s.poisoned:
		return AbortExec
	case casDirty:
		return AbortCAS
	}
	return Run
}
