package server

import (
	"net"
	"strings"
)

// Protected mode (protected-mode yes, Redis's default): while the default
// user has no password, a client that connects from anywhere but the
// loopback interface or the Unix socket gets deniedText and is closed
// (Redis 7.0 networking.c clientAcceptHandler). Redis 7.0 applies it
// whatever bind says. TLS clients get it after the handshake, as in Redis.
// The connection counts in rejected_connections and not in
// total_connections_received.

// deniedText is Redis 7.0.15's reply, byte for byte (its typo included).
const deniedText = "-DENIED Redis is running in protected mode because protected mode is enabled and no " +
	"password is set for the default user. In this mode connections are only accepted from " +
	"the loopback interface. If you want to connect from external computers to Redis you " +
	"may adopt one of the following solutions: 1) Just disable protected mode sending the " +
	"command 'CONFIG SET protected-mode no' from the loopback interface by connecting to " +
	"Redis from the same host the server is running, however MAKE SURE Redis is not " +
	"publicly accessible from internet if you do so. Use CONFIG REWRITE to make this " +
	"change permanent. 2) Alternatively you can just disable the protected mode by editing " +
	"the Redis configuration file, and setting the protected mode option to 'no', and then " +
	"restarting the server. 3) If you started the server manually just for testing, " +
	"restart it with the '--protected-mode no' option. 4) Setup a an authentication " +
	"password for the default user. NOTE: You only need to do one of the above things in " +
	"order for the server to start accepting connections from the outside.\r\n"

// protectedDenyLocked reports whether protected mode refuses conn.
func (s *Server) protectedDenyLocked(conn net.Conn) bool {
	if s.paramText("protected-mode") != "yes" {
		return false
	}
	if d := s.acl.users["default"]; d == nil || !d.nopass {
		return false
	}
	return !connIsLocal(conn)
}

// connIsLocal is Redis's connIsLocal: a Unix socket (or DialPipe's
// socketpair), or a peer address starting with "127." or equal to ::1.
func connIsLocal(conn net.Conn) bool {
	switch a := conn.RemoteAddr().(type) {
	case *net.TCPAddr:
		if ip4 := a.IP.To4(); ip4 != nil {
			return ip4[0] == 127
		}
		return a.IP.Equal(net.IPv6loopback)
	case *net.UnixAddr, pipeAddr:
		return true
	case nil:
		return false
	default:
		return strings.HasPrefix(a.String(), "127.")
	}
}
