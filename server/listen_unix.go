package server

import (
	"errors"
	"io/fs"
	"net"
	"os"
)

// The Unix socket listener (unixsocket, unixsocketperm), as Redis's
// listenToPort for the unix socket: a stale socket file is removed first,
// the permissions are applied when unixsocketperm is set, and the file is
// removed when the server closes. Clients connected through it are local
// (enable-debug-command local), carry CLIENT LIST flag U and show
// "<path>:0" as addr and laddr, and MONITOR shows them as "unix:<path>".

// listenUnix opens the Unix socket listener when unixsocket is set (lnMu).
func (s *Server) listenUnix() error {
	path := s.ops.unixSocket
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	if s.ops.unixSocketPerms != 0 {
		if err := os.Chmod(path, fs.FileMode(s.ops.unixSocketPerms)); err != nil {
			ln.Close()
			return err
		}
	}
	s.lns.unix = ln
	return nil
}

// initUnixClient marks a client that connected through the Unix socket.
func (s *Server) initUnixClient(c *client, conn net.Conn) {
	if _, ok := conn.(*net.UnixConn); !ok {
		return
	}
	c.ops.unix = true
	c.addr = s.ops.unixSocket + ":0"
	c.laddr = c.addr
}
