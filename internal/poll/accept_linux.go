//go:build linux

package poll

import (
	"os"
	"syscall"
)

// Accepted is one connection taken from a listener by AcceptBatch: its
// socket, close-on-exec and in blocking mode, and the peer's address.
type Accepted struct {
	Fd     int
	Remote syscall.Sockaddr
}

// AcceptBatch accepts up to cap(batch) pending connections of the
// listening socket behind rc with accept4(2), parking the goroutine in the
// runtime's poller while none is pending. The sockets never enter Go's
// network poller: the event loop alone waits on them (SocketFile), as
// Redis's acceptTcpHandler hands its sockets to its own loop. A batch may
// come back with the error that ended it (EMFILE, say); an error from rc
// itself (the listener was closed) comes back with an empty batch.
func AcceptBatch(rc syscall.RawConn, batch []Accepted) ([]Accepted, error) {
	batch = batch[:0]
	var aerr error
	err := rc.Read(func(fd uintptr) bool {
		for len(batch) < cap(batch) {
			nfd, sa, err := syscall.Accept4(int(fd), syscall.SOCK_CLOEXEC)
			switch err {
			case nil:
				batch = append(batch, Accepted{Fd: nfd, Remote: sa})
			case syscall.EAGAIN:
				return len(batch) > 0
			case syscall.EINTR, syscall.ECONNABORTED:
			default:
				aerr = os.NewSyscallError("accept4", err)
				return true
			}
		}
		return true
	})
	if err != nil {
		return batch, err
	}
	return batch, aerr
}

// PollableDup returns a duplicate of sc's socket (a listener, say) that
// the runtime's poller watches, so that its raw connection's Read can wait
// for readability: the duplicate is non-blocking (it shares the
// original's file status), and os.NewFile registers such a descriptor.
// Closing it wakes a goroutine waiting on it.
func PollableDup(sc syscall.Conn) (*os.File, error) {
	nfd, err := dupSocket(sc)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), "listener"), nil
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
