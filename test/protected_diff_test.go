package test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Protected mode against redis-server: a client connecting from a
// non-loopback address of this machine gets Redis's DENIED text and is
// closed while the default user has no password; a password (requirepass
// or ACL) or protected-mode no lets it in.

// nonLoopbackIPv4 returns an IPv4 address of this machine that is not a
// loopback address, or "".
func nonLoopbackIPv4() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.To4() == nil || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		ln, err := net.Listen("tcp4", net.JoinHostPort(ipn.IP.String(), "0"))
		if err != nil {
			continue
		}
		ln.Close()
		return ipn.IP.String()
	}
	return ""
}

// fromOutside connects to p's port on ip (so the peer address is ip, not
// loopback), optionally sends one command, and returns what the server
// sent until it closed the connection or went quiet (then "+open").
func fromOutside(t *testing.T, ip string, port int, cmd ...string) string {
	t.Helper()
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(ip, strconv.Itoa(port)), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := resptest.NewConn(nc)
	if len(cmd) > 0 {
		n, err := c.Do(cmd...)
		if err != nil {
			return "error " + err.Error()
		}
		return string(n.Raw)
	}
	b, closed := c.ReadAllUntilClose(2 * time.Second)
	if !closed {
		return string(b) + "+open"
	}
	return string(b)
}

// infoStat returns one field of INFO stats.
func infoStat(t *testing.T, c *respConn, field string) int {
	t.Helper()
	for _, line := range strings.Split(mustDo(t, c, "INFO", "stats").Text(), "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	t.Fatalf("INFO stats has no %s", field)
	return 0
}

func runProtectedScript(t *testing.T, p *serverProc, ip string, proto int) []string {
	local, err := dialRESP(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if proto == 3 {
		mustDo(t, local, "HELLO", "3")
	}
	var out []string
	rec := func(what, s string) { out = append(out, what+": "+strconv.Quote(s)) }
	do := func(args ...string) { rec(strings.Join(args, " "), string(mustDo(t, local, args...).Raw)) }

	rejected0 := infoStat(t, local, "rejected_connections")
	total0 := infoStat(t, local, "total_connections_received")
	rec("outside, silent", fromOutside(t, ip, p.port))
	rec("outside, silent again", fromOutside(t, ip, p.port))
	rec("rejected", strconv.Itoa(infoStat(t, local, "rejected_connections")-rejected0))
	rec("received", strconv.Itoa(infoStat(t, local, "total_connections_received")-total0))
	do("CONFIG", "GET", "protected-mode")
	do("CONFIG", "SET", "requirepass", "secret")
	rec("outside with requirepass", fromOutside(t, ip, p.port, "PING"))
	do("AUTH", "secret")
	do("CONFIG", "SET", "requirepass", "")
	rec("outside, password removed", fromOutside(t, ip, p.port))
	do("ACL", "SETUSER", "default", ">pw")
	rec("outside with an ACL password", fromOutside(t, ip, p.port, "PING"))
	do("ACL", "SETUSER", "default", "nopass")
	do("CONFIG", "SET", "protected-mode", "no")
	rec("outside, protected-mode no", fromOutside(t, ip, p.port, "PING"))
	do("CONFIG", "SET", "protected-mode", "yes")
	rec("outside, protected-mode yes", fromOutside(t, ip, p.port))
	rec("loopback", string(mustDo(t, local, "PING").Raw))
	return out
}

func TestDiffProtectedMode(t *testing.T) {
	requireRedis(t)
	ip := nonLoopbackIPv4()
	if ip == "" {
		t.Skip("this machine has no non-loopback IPv4 address to connect from")
	}
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			// The harness binds 127.0.0.1; listen on ip too. Redis 7.0
			// denies outside clients whatever bind says.
			args := []string{"--bind", "127.0.0.1", ip, "--protected-mode", "yes"}
			rp, err := startRedis(args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rp.stop()
			op, err := startOurs(args...)
			if err != nil {
				t.Fatal(err)
			}
			defer op.stop()
			want := runProtectedScript(t, rp, ip, proto)
			if !strings.Contains(want[0], "-DENIED Redis is running in protected mode") {
				t.Fatalf("redis-server did not deny the outside client: %s", want[0])
			}
			got := runProtectedScript(t, op, ip, proto)
			compareTranscripts(t, want, got)
		})
	}
}
