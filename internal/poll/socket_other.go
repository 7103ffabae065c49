//go:build !linux

package poll

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// TakeSocket duplicates conn's socket for the event loop and closes conn;
// the duplicate stays in Go's network poller, which the portable poller
// waits through (poller_other.go).
func TakeSocket(conn net.Conn) (*os.File, error) {
	fc, ok := conn.(interface{ File() (*os.File, error) })
	if !ok {
		conn.Close()
		return nil, errors.New("not a socket connection")
	}
	f, err := fc.File()
	conn.Close()
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(int(f.Fd()), true); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
