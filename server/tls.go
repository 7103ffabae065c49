package server

import "net"

func (s *Server) listenTLSLocked() error     { return nil }
func (s *Server) tlsPortLocked() int         { return 0 }
func (s *Server) serveTLSConn(conn net.Conn) { s.serveConn(conn) }
