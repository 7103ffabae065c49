package miniwatchd

import (
	"time"

	"github.com/miniwatchd/miniwatchd/server"
)

// Fault selects calls of the test's clients and says what to do to them
// (see server.Fault: Command, Key, Client, DB, Nth, Every, Probability,
// Seed, Times, Action). Faults never apply to this package's typed
// methods, Do or Check helpers; FLUSHALL keeps them, Restart does not.
type Fault = server.Fault

// FaultAction is what a fault does to the calls it selects; Reject, Delay,
// CloseBefore, CloseAfter, TruncateReply, DropReply, AbortExec, RunBefore
// and RunAfter make one.
type FaultAction = server.FaultAction

// FaultInfo is an installed fault with its counts (ID, Spec, Matched,
// Fired).
type FaultInfo = server.FaultInfo

// Reject makes the call fail with the error line text, as a rejection
// by the server would ("LOADING ...", "READONLY ...", "MOVED 3999
// 127.0.0.1:6381", "TRYAGAIN ...", "OOM ...", "CLUSTERDOWN ..."): the
// command is not run.
func Reject(text string) FaultAction { return server.FaultError(text) }

// Delay runs the call and sends its reply d later; the client's next
// commands wait behind it, other clients do not.
func Delay(d time.Duration) FaultAction { return server.FaultDelay(d) }

// CloseBefore closes the connection instead of running the call.
func CloseBefore() FaultAction { return server.FaultCloseBefore() }

// CloseAfter runs the call, drops its reply and closes the connection.
func CloseAfter() FaultAction { return server.FaultCloseAfter() }

// TruncateReply runs the call, sends the first n bytes of its reply (n <= 0:
// all but the last) and closes the connection.
func TruncateReply(n int) FaultAction { return server.FaultTruncate(n) }

// DropReply runs the call and never sends its reply.
func DropReply() FaultAction { return server.FaultDropReply() }

// AbortExec makes the EXEC of a client that watches a key (matching the
// fault's Key, when set) reply nil, as if a watched key had been touched.
func AbortExec() FaultAction { return server.FaultAbortExec() }

// RunBefore runs the command args in the client's database just before the
// call: with Command "exec", a write to a watched key aborts the EXEC.
func RunBefore(args ...string) FaultAction { return server.FaultRunBefore(args...) }

// RunAfter runs the command args in the client's database just after the
// call: with Command "watch" and Nth, a write to the key makes that
// transaction's EXEC abort.
func RunAfter(args ...string) FaultAction { return server.FaultRunAfter(args...) }

// AddFault installs a fault (as DEBUG FAULT ADD) and returns its ID.
func (s *Server) AddFault(f Fault) int {
	s.t.Helper()
	id, err := s.Engine().AddFault(f)
	if err != nil {
		s.t.Fatalf("miniwatchd: AddFault: %v", err)
	}
	return id
}

// DelFault removes the fault id and reports whether it existed.
func (s *Server) DelFault(id int) bool { return s.Engine().DelFault(id) }

// ClearFaults removes every fault and returns how many there were.
func (s *Server) ClearFaults() int { return s.Engine().ClearFaults() }

// Faults lists the installed faults with their counts.
func (s *Server) Faults() []FaultInfo { return s.Engine().Faults() }
