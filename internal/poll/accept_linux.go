//go:build linux

package poll

import (
	"os"
	"syscall"
)

// Accepted is one connection taken from a listener by AcceptReady: its
// socket, close-on-exec and non-blocking, and the peer's address.
type Accepted struct {
	Fd     int
	Remote syscall.Sockaddr
}

// SocketFile wraps an accepted socket in blocking mode into an *os.File
// that Go's network poller does not watch (os.NewFile registers only
// non-blocking descriptors), then makes the socket non-blocking for the
// event loop. On error the socket is closed.
func SocketFile(fd int) (*os.File, error) {
	f := os.NewFile(uintptr(fd), "socket")
	if err := syscall.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// TuneTCP sets an accepted socket's options as Redis does
// (connCreateAcceptedSocket, anetKeepAlive): TCP_NODELAY, and with
// keepalive > 0 seconds SO_KEEPALIVE with the first probe after that many
// seconds of silence, then every third of it (at least a second), three
// probes in all. An accepted socket starts with keepalive off.
func TuneTCP(fd int, keepalive int64) {
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	if keepalive <= 0 {
		return
	}
	secs := int(min(keepalive, 1<<30))
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_KEEPALIVE, 1)
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE, secs)
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL, max(secs/3, 1))
	syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT, 3)
}

// AcceptReady, for a listening socket the event loop watches
// (AddListener), accepts up to cap(batch) pending connections
// with accept4(2) and returns when none is left (EAGAIN), without
// waiting. The sockets are close-on-exec and non-blocking, ready for the
// event loop as they are (no fcntl), as Redis's anetTcpAccept leaves
// them after connNonBlock. A batch may come back with the error that ended it (EMFILE,
// ENFILE, EINVAL once the socket no longer listens).
func AcceptReady(fd int, batch []Accepted) ([]Accepted, error) {
	batch = batch[:0]
	for len(batch) < cap(batch) {
		nfd, sa, err := syscall.Accept4(fd, syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK)
		switch err {
		case nil:
			batch = append(batch, Accepted{Fd: nfd, Remote: sa})
		case syscall.EAGAIN:
			return batch, nil
		case syscall.EINTR, syscall.ECONNABORTED:
		default:
			return batch, os.NewSyscallError("accept4", err)
		}
	}
	return batch, nil
}

// AddListener makes p's Wait report a listening socket fd (non-blocking)
// as readable while connections are pending, as Redis's ae loop watches
// its listening sockets. Call it with the engine lock held.
func AddListener(p Poller, fd int) error {
	ep, ok := p.(*epollPoller)
	if !ok {
		return syscall.ENOTSUP
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	return syscall.EpollCtl(ep.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
}

// PauseListener stops (paused) or resumes reporting fd, a listener added
// with AddListener: a loop that cannot accept for a while (EMFILE) does not
// spin on it meanwhile. It touches no state of p but the kernel's epoll
// set, so it may be called from any goroutine while fd is open.
func PauseListener(p Poller, fd int, paused bool) error {
	ep, ok := p.(*epollPoller)
	if !ok {
		return syscall.ENOTSUP
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if paused {
		ev.Events = 0
	}
	return syscall.EpollCtl(ep.epfd, syscall.EPOLL_CTL_MOD, fd, &ev)
}

// RemoveListener stops watching fd, a listener added with AddListener,
// before it is closed. Like PauseListener it may be called from any
// goroutine while fd is open.
func RemoveListener(p Poller, fd int) {
	if ep, ok := p.(*epollPoller); ok {
		syscall.EpollCtl(ep.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
	}
}

// ListenerDup returns a duplicate of sc's listening socket (close-on-exec,
// non-blocking as the original) that Go's network poller does not watch:
// closing the original afterwards takes the socket out of the runtime's
// epoll set, and the duplicate goes on listening for the event loop.
func ListenerDup(sc syscall.Conn) (int, error) { return dupSocket(sc) }
