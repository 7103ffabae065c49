//go:build !linux

package server

import "net"

// loopAccept is Linux's state for accepting in the event loop
// (accept_linux.go); elsewhere every listener keeps acceptLoop's path.
type loopAccept struct{}

// watchListener reports false: acceptLoop accepts on every listener.
func (s *Server) watchListener(ln net.Listener) bool { return false }

// acceptReadyLocked has no listener to accept on outside Linux.
func (l *eventLoop) acceptReadyLocked(fd int) {}

// wrapListener keeps ln: acceptLoop accepts on it.
func wrapListener(ln net.Listener) net.Listener { return ln }
