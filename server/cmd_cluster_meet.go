package server

import (
	"net"
	"net/netip"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// CLUSTER MEET ip port [cluster-bus-port] (cluster.c clusterCommand and
// clusterStartHandshake): the address is checked as Redis checks it
// (inet_pton, ports 1-65535, the bus port defaulting to port+10000) and a
// node is added in the handshake state. The handshake completes through
// the in-process bus (cluster_peers.go) when a node of this process
// listens there; otherwise the node stays in the handshake state until
// the node timeout, as with a Redis node nobody answers at that address.

func cmdClusterMeet(c *client, args [][]byte) {
	s := c.srv
	if len(args) > 5 {
		c.fail(protocol.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(string(args[1])) + "'. Try CLUSTER HELP."))
		return
	}
	port, ok := protocol.ParseInt(args[3])
	if !ok {
		c.fail(protocol.Error("ERR Invalid TCP base port specified: " + cstr(string(args[3]))))
		return
	}
	cport := port + 10000
	if len(args) == 5 {
		if cport, ok = protocol.ParseInt(args[4]); !ok {
			c.fail(protocol.Error("ERR Invalid TCP bus port specified: " + cstr(string(args[4]))))
			return
		}
	}
	ip, ok := normalizeIP(string(args[2]))
	if !ok || port <= 0 || port > 65535 || cport <= 0 || cport > 65535 {
		c.fail(protocol.Error("ERR Invalid node address specified: " + cstr(string(args[2])) + ":" + cstr(string(args[3]))))
		return
	}
	s.startHandshakeLocked(ip, int(port), int(cport))
	s.clusterChangedLocked()
	c.w.OK()
}

// normalizeIP is inet_pton followed by inet_ntop: an IPv4 address in
// dotted form (no leading zeros), else an IPv6 one, printed as glibc
// prints it (a v4-mapped address keeps its "::ffff:" prefix).
func normalizeIP(s string) (string, bool) {
	a := net.ParseIP(s)
	if a == nil {
		return "", false
	}
	if !strings.Contains(s, ":") {
		return a.To4().String(), true
	}
	addr, _ := netip.AddrFromSlice(a.To16())
	return addr.String(), true
}
