//go:build !linux

package server

import "net"

// acceptRaw is Linux's raw accept path (accept_linux.go); elsewhere every
// listener keeps acceptLoop's path.
func (s *Server) acceptRaw(ln net.Listener) bool { return false }

// tuneAccepted is for sockets of acceptRaw, which only Linux has.
func tuneAccepted(conn net.Conn, keepalive int64) bool { return false }

// wrapListener is for acceptRaw's listeners, which only Linux has.
func wrapListener(ln net.Listener) net.Listener { return ln }
