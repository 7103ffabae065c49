//go:build linux

package poll

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// epollPoller is the Linux poller: level-triggered epoll plus an eventfd
// for wake-ups.
//
// How the loop goroutine sleeps depends on how many processors the Go
// runtime has (GOMAXPROCS, read once by New):
//
//   - Two or more: in epoll_wait as an ordinary blocking system call, as
//     Redis's ae loop sleeps. The kernel wakes the loop's own thread when a
//     socket becomes ready, and the thread takes its processor straight
//     back: the runtime hands a processor in a system call to another
//     thread only when it has other work for it or after 10 ms while
//     another processor is idle (sysmon's retake), and the other processor
//     runs every other goroutine (accept, cron, timers) meanwhile. One
//     wake-up and three system calls per request at one client, as Redis.
//   - One: parked in the runtime's poller (epfd is registered there). A
//     blocking system call would have its only processor handed to a
//     freshly woken thread 20 us into every wait, and the loop would then
//     move between threads at every wake-up (measured: 0.85-0.9x of the
//     throughput at -P 1); parked, the thread that sleeps in the runtime's
//     own epoll_wait runs the loop when it wakes.
type epollPoller struct {
	epfd   int
	epfile *os.File             // epfd in the Go runtime's poller, to park on
	eprc   syscall.RawConn      // epfile's raw connection
	ready  func(uintptr) bool   // pollReady, made once (no closure per park)
	cur    []syscall.EpollEvent // pollReady's buffer: raw cut to the caller's
	n      int                  // pollReady's result
	err    error                // pollReady's error
	wakefd int
	// spin is how long wait polls before it sleeps while the server is
	// busy (spinning: the last sleep was short); 0 never polls.
	spin     time.Duration
	spinning bool
	// readyAvg is a moving average of the sockets a wait without timeout
	// found ready, times 16 (readyAvg' = 7/8 readyAvg + 2n): the loop
	// polls only while several clients keep it busy (spinMinReady), and
	// only while its thread gets a CPU at once (cont).
	readyAvg int
	cont     contention
	waking   atomic.Bool // a wake-up is pending; the loop clears it
	parks    bool        // sleep parked in the runtime's poller (epfile)
	raw      []syscall.EpollEvent
	writing  map[int]bool
}

// New returns the epoll poller; spin is how long Wait polls before it
// sleeps while requests arrive back to back (0: never).
func New(spin time.Duration) (Poller, error) {
	return newEpoll(spin, runtime.GOMAXPROCS(0) < 2)
}

// newEpoll is New with the way of sleeping chosen: park in the runtime's
// poller, or block in epoll_wait.
func newEpoll(spin time.Duration, park bool) (*epollPoller, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	r, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		syscall.Close(epfd)
		return nil, errno
	}
	p := &epollPoller{epfd: epfd, wakefd: int(r), writing: map[int]bool{}, spin: spin, spinning: true}
	if park {
		if err := p.registerForParking(); err != nil {
			p.Close()
			return nil, err
		}
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p.wakefd)}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, p.wakefd, &ev); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// registerForParking registers epfd with the runtime's poller: an epoll
// descriptor is itself pollable (readable while events are ready), so the
// loop goroutine can park on it. A file the runtime could not register
// has no deadlines: the poller then blocks in epoll_wait instead.
func (p *epollPoller) registerForParking() error {
	if err := syscall.SetNonblock(p.epfd, true); err != nil {
		return err
	}
	p.ready = p.pollReady
	p.epfile = os.NewFile(uintptr(p.epfd), "epoll")
	var err error
	if p.eprc, err = p.epfile.SyscallConn(); err != nil {
		return err
	}
	p.parks = !errors.Is(p.epfile.SetReadDeadline(time.Time{}), os.ErrNoDeadline)
	return nil
}

func (p *epollPoller) Add(fd int, _ syscall.RawConn) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(fd)}
	return syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
}

func (p *epollPoller) SetWrite(fd int, on bool) error {
	if p.writing[fd] == on {
		return nil
	}
	events := uint32(syscall.EPOLLIN | syscall.EPOLLRDHUP)
	if on {
		events |= syscall.EPOLLOUT
		p.writing[fd] = true
	} else {
		delete(p.writing, fd)
	}
	ev := syscall.EpollEvent{Events: events, Fd: int32(fd)}
	return syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_MOD, fd, &ev)
}

func (p *epollPoller) Remove(fd int) {
	delete(p.writing, fd)
	syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
}

func (p *epollPoller) Wait(events []Event, timeout time.Duration) (int, error) {
	if cap(p.raw) < len(events) {
		p.raw = make([]syscall.EpollEvent, len(events))
	}
	raw := p.raw[:len(events)]
	var n int
	var err error
	switch {
	case timeout == 0 || timeout > 0 && p.parks:
		// (A park with a deadline may time out before its first poll.)
		n, err = epollWaitRaw(p.epfd, raw)
	case p.spin > 0 && p.spinning && timeout < 0 && p.readyAvg >= spinMinReady && !p.cont.update(time.Now()):
		n, err = p.busyPoll(raw)
	}
	if n == 0 && err == nil && timeout != 0 {
		var slept time.Time
		if p.spin > 0 {
			slept = time.Now()
		}
		if p.parks {
			n, err = p.park(raw, timeout)
		} else {
			n, err = p.block(raw, timeout)
		}
		if p.spin > 0 {
			// A short sleep means requests come back to back: poll for
			// them next time. A long one means a quiet server: sleep at
			// once.
			p.spinning = time.Since(slept) <= 2*p.spin
		}
	}
	if err != nil {
		if errors.Is(err, syscall.EINTR) {
			return 0, nil
		}
		return 0, err
	}
	out := 0
	for _, ev := range raw[:n] {
		fd := int(ev.Fd)
		if fd == p.wakefd {
			var buf [8]byte
			syscall.Read(p.wakefd, buf[:])
			p.waking.Store(false)
			continue
		}
		events[out] = Event{
			Fd:       fd,
			Readable: ev.Events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0,
			Writable: ev.Events&(syscall.EPOLLOUT|syscall.EPOLLHUP|syscall.EPOLLERR) != 0,
		}
		out++
	}
	if timeout < 0 {
		p.readyAvg += 2*out - p.readyAvg/8
	}
	return out, nil
}

// spinMinReady is the readyAvg from which a wait polls before it sleeps:
// 1.5 sockets a wait. One client that waits for each reply before it
// sends again finds the loop asleep whether it polled or not, unless the
// reply and the next request cross within the window: polling for it
// doubles the server's CPU per request for a few microseconds of latency.
// Several such clients keep each other's requests coming while the loop
// works, and there polling saves most wake-ups.
const spinMinReady = 24

func (p *epollPoller) Wake() {
	if p.waking.Swap(true) {
		return // already pending
	}
	one := uint64(1)
	syscall.Write(p.wakefd, (*[8]byte)(unsafe.Pointer(&one))[:])
}

func (p *epollPoller) Close() error {
	syscall.Close(p.wakefd)
	if p.epfile != nil {
		return p.epfile.Close()
	}
	return syscall.Close(p.epfd)
}

// block waits in epoll_wait as a blocking system call.
func (p *epollPoller) block(raw []syscall.EpollEvent, timeout time.Duration) (int, error) {
	if timeout > 0 {
		ms := int((timeout + time.Millisecond - 1) / time.Millisecond)
		return syscall.EpollWait(p.epfd, raw, ms)
	}
	for {
		// The runtime's preemption signal interrupts the wait (EINTR):
		// without a deadline, wait again.
		n, err := syscall.EpollWait(p.epfd, raw, -1)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// park parks the goroutine in the runtime's poller until epfd is ready or
// timeout (negative: none) passes; the park polls once before it sleeps.
func (p *epollPoller) park(raw []syscall.EpollEvent, timeout time.Duration) (int, error) {
	if timeout > 0 {
		p.epfile.SetReadDeadline(time.Now().Add(timeout))
	}
	p.cur, p.n, p.err = raw, 0, nil
	rerr := p.eprc.Read(p.ready)
	n, err := p.n, p.err
	if timeout > 0 {
		p.epfile.SetReadDeadline(time.Time{})
	}
	if errors.Is(rerr, os.ErrDeadlineExceeded) {
		return 0, nil
	}
	if err == nil {
		err = rerr
	}
	return n, err
}

// busyPoll polls raw for up to p.spin, letting other goroutines run
// between polls. When the last park was short, the next request usually
// arrives within microseconds of the replies; catching it here saves the
// wake-up of a sleeping thread (tens of microseconds on virtual machines).
func (p *epollPoller) busyPoll(raw []syscall.EpollEvent) (int, error) {
	deadline := time.Now().Add(p.spin)
	for {
		n, err := epollWaitRaw(p.epfd, raw)
		if n > 0 || err != nil || !time.Now().Before(deadline) {
			return n, err
		}
		// Let other goroutines run, and other threads: when the client
		// shares this CPU, it must run to send what we wait for.
		runtime.Gosched()
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// pollReady polls p.cur once for the runtime's poller: true ends the wait.
func (p *epollPoller) pollReady(uintptr) bool {
	p.n, p.err = epollWaitRaw(p.epfd, p.cur)
	return p.n > 0 || (p.err != nil && !errors.Is(p.err, syscall.EINTR))
}

// epollWaitRaw is epoll_wait with a zero timeout as a raw system call.
func epollWaitRaw(epfd int, events []syscall.EpollEvent) (int, error) {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
