//go:build linux

package poll

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// TakeSocket takes conn's socket out of Go's network poller for the event
// loop: it returns a non-blocking duplicate of the socket that the runtime
// does not watch, and closes conn. A socket the runtime still watched
// would wake the runtime's poller thread at every request besides the
// event loop's own (two thread wake-ups per request instead of one).
// The descriptor is duplicated while conn is open, and the duplicate is
// wrapped while in blocking mode (os.NewFile registers a non-blocking
// descriptor with the poller) and made non-blocking afterwards.
func TakeSocket(conn net.Conn) (*os.File, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		conn.Close()
		return nil, errors.New("not a socket connection")
	}
	nfd, err := dupSocket(sc)
	conn.Close()
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(nfd, false); err != nil {
		syscall.Close(nfd)
		return nil, err
	}
	return SocketFile(nfd)
}

// dupSocket duplicates sc's descriptor (close-on-exec); the duplicate
// shares the socket and its file status flags (O_NONBLOCK).
func dupSocket(sc syscall.Conn) (int, error) {
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			derr = os.NewSyscallError("fcntl", errno)
			return
		}
		nfd = int(r)
	}); err != nil {
		return -1, err
	}
	return nfd, derr
}
