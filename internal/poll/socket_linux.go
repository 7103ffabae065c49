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
	rc, err := sc.SyscallConn()
	if err != nil {
		conn.Close()
		return nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) {
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if errno != 0 {
			derr = errno
			return
		}
		nfd = int(r)
	}); err != nil && derr == nil {
		derr = err
	}
	conn.Close()
	if derr != nil {
		return nil, derr
	}
	if err := syscall.SetNonblock(nfd, false); err != nil {
		syscall.Close(nfd)
		return nil, err
	}
	f := os.NewFile(uintptr(nfd), "socket")
	if err := syscall.SetNonblock(nfd, true); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
