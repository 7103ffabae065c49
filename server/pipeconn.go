package server

import (
	"net"
	"os"
	"syscall"
)

// DialPipe connects a new client to the server without a listener: the
// two ends of a Unix socketpair (no address, no port), the server's end
// handed to the event loop like an accepted connection, so the client is
// served by the same dispatch as any TCP client. The caller owns the
// returned end and closes it; CLIENT LIST shows the client as
// addr=pipe:0. The server must be serving (Serve or Start).
func (s *Server) DialPipe() (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	mine, err := fileConn(fds[0], "miniwatchd-pipe-client")
	if err != nil {
		syscall.Close(fds[1])
		return nil, err
	}
	theirs, err := fileConn(fds[1], "miniwatchd-pipe-server")
	if err != nil {
		mine.Close()
		return nil, err
	}
	s.serveConn(pipeConn{theirs.(*net.UnixConn)})
	return mine, nil
}

// fileConn turns a socket fd into a net.Conn (the fd is closed: net.FileConn
// keeps a duplicate).
func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return net.FileConn(f)
}

// pipeConn is the server's end of DialPipe: an unnamed Unix socket has no
// addresses, so it reports the ones CLIENT LIST shows.
type pipeConn struct{ *net.UnixConn }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "unix" }
func (pipeAddr) String() string  { return "pipe:0" }

func (pipeConn) RemoteAddr() net.Addr { return pipeAddr{} }
func (pipeConn) LocalAddr() net.Addr  { return pipeAddr{} }
