package script

import (
	"context"
	"errors"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// HookPeriod is the number of VM instructions between two calls of
// Host.Interrupt, as Redis's count hook (lua_sethook LUA_MASKCOUNT 100000).
const HookPeriod = 100000

// closedChan is returned by hook.Done once the run is killed: gopher-lua then
// raises hook.Err() at the current instruction.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// errKilled is the error gopher-lua raises for a killed run; the VM's error
// handler replaces it with the kill message of the hook.
var errKilled = errors.New("script killed")

// hook is the interrupt hook of a VM. gopher-lua polls the context of a
// state before every instruction (mainLoopWithContext); Done counts the polls
// and every HookPeriod of them asks the VM whether to stop. Returning a nil
// channel costs one interface call and a nil-channel select per instruction.
// It is not a real context: Deadline, Err and Value only satisfy the
// interface, and it must never be handed to anything that waits on Done
// from another goroutine.
type hook struct {
	n       int
	vm      *VM
	killed  bool   // every further instruction raises
	killMsg string // the error text of the kill ("ERR Script killed ...")
	// thread is the Lua state that ran the last instruction; a coroutine
	// seen for the first time gets threadPanic (see luaerrors.go).
	thread *lua.LState
	// memErr is set while the memory error raised last is in flight
	// (memory.go); heapBase is the heap the run started from, once heapSet.
	memErr    bool
	heapSet   bool
	heapBase  int64
	allocated int64 // bytes of strings built since the heap was last looked at
}

var _ context.Context = (*hook)(nil)

func (h *hook) Deadline() (time.Time, bool) { return time.Time{}, false }
func (h *hook) Err() error                  { return errKilled }
func (h *hook) Value(any) any               { return nil }

// Done is called by gopher-lua before every instruction.
func (h *hook) Done() <-chan struct{} {
	if h.killed {
		return closedChan
	}
	if th := h.vm.L.G.CurrentThread; th != h.thread {
		h.thread = th
		if th != h.vm.L {
			th.Panic = threadPanic
		}
	}
	h.n--
	if h.n > 0 {
		return nil
	}
	h.n = HookPeriod
	if msg := h.vm.interrupt(); msg != "" {
		h.killed = true
		h.killMsg = msg
		return closedChan
	}
	return nil
}

// reset prepares the hook for a new run.
func (h *hook) reset() {
	h.n = HookPeriod
	h.killed = false
	h.killMsg = ""
	h.thread = nil
	h.memErr, h.heapSet, h.heapBase, h.allocated = false, false, 0, 0
}
