//go:build linux

package server

import (
	"errors"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// epollPoller is the Linux poller: level-triggered epoll plus an eventfd
// for wake-ups.
type epollPoller struct {
	epfd    int
	wakefd  int
	waking  atomic.Bool // a wake-up is pending; the loop clears it
	raw     []syscall.EpollEvent
	writing map[int]bool
}

func newPoller() (poller, error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	r, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		syscall.Close(epfd)
		return nil, errno
	}
	p := &epollPoller{epfd: epfd, wakefd: int(r), writing: map[int]bool{}}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p.wakefd)}
	if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, p.wakefd, &ev); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *epollPoller) add(fd int, _ syscall.RawConn) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Fd: int32(fd)}
	return syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
}

func (p *epollPoller) setWrite(fd int, on bool) error {
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

func (p *epollPoller) remove(fd int) {
	delete(p.writing, fd)
	syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
}

func (p *epollPoller) wait(events []pollEvent, timeout time.Duration) (int, error) {
	if cap(p.raw) < len(events) {
		p.raw = make([]syscall.EpollEvent, len(events))
	}
	raw := p.raw[:len(events)]
	ms := -1
	if timeout >= 0 {
		ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
	}
	// Under load sockets are usually ready already: poll without telling
	// the scheduler first, and block (a real system call, whose processor
	// the runtime may hand to another thread) only when nothing is ready.
	n, err := epollWaitRaw(p.epfd, raw)
	if err == nil && n == 0 && ms != 0 {
		n, err = syscall.EpollWait(p.epfd, raw, ms)
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
		events[out] = pollEvent{
			fd:       fd,
			readable: ev.Events&(syscall.EPOLLIN|syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0,
			writable: ev.Events&(syscall.EPOLLOUT|syscall.EPOLLHUP|syscall.EPOLLERR) != 0,
		}
		out++
	}
	return out, nil
}

func (p *epollPoller) wake() {
	if p.waking.Swap(true) {
		return // already pending
	}
	one := uint64(1)
	syscall.Write(p.wakefd, (*[8]byte)(unsafe.Pointer(&one))[:])
}

func (p *epollPoller) close() error {
	syscall.Close(p.wakefd)
	return syscall.Close(p.epfd)
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
