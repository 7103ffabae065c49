package test

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Listeners and CONFIG SET bind / port, against redis-server: each server
// runs the same script on its own ports, and the transcripts (replies,
// with the port numbers named, and whether each port answers) must be
// equal, in RESP2 and RESP3.

// listenScript is one server's run of the rebinding script.
type listenScript struct {
	t     *testing.T
	p     *serverProc
	proto int
	keep  *respConn         // a connection kept open across every rebind
	names map[string]string // port number -> its name in the transcript
	out   []string
}

func newListenScript(t *testing.T, p *serverProc, proto int) *listenScript {
	t.Helper()
	keep, err := dialRESP(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keep.Close() })
	s := &listenScript{t: t, p: p, proto: proto, keep: keep,
		names: map[string]string{strconv.Itoa(p.port): "PORT0"}}
	if proto == 3 {
		mustDo(t, keep, "HELLO", "3")
	}
	return s
}

// port names a port number for the transcript.
func (s *listenScript) port(name string, n int) string {
	s.names[strconv.Itoa(n)] = name
	return strconv.Itoa(n)
}

// do runs a command on the kept connection and records its reply.
func (s *listenScript) do(args ...string) {
	s.t.Helper()
	n := mustDo(s.t, s.keep, args...)
	raw := string(n.Raw)
	for num, name := range s.names {
		raw = strings.ReplaceAll(raw, "$"+strconv.Itoa(len(num))+"\r\n"+num+"\r\n", "<"+name+">")
		raw = strings.ReplaceAll(raw, ":"+num+"\r\n", "<"+name+">")
	}
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = a
		if name, ok := s.names[a]; ok {
			shown[i] = "<" + name + ">"
		}
	}
	s.out = append(s.out, fmt.Sprintf("%q -> %q", strings.Join(shown, " "), raw))
}

// probe records whether a new connection to 127.0.0.1:port answers PING.
func (s *listenScript) probe(name string, port int) {
	s.t.Helper()
	s.out = append(s.out, name+": "+pingPort(port))
}

// pingPort dials 127.0.0.1:port and sends PING: "PONG", "refused" or the
// reply or error seen.
func pingPort(port int) string {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return "refused"
	}
	rc := resptest.NewConn(c)
	defer rc.Close()
	n, err := rc.Do("PING")
	if err != nil {
		return "error " + err.Error()
	}
	return n.Text()
}

// occupy listens on 127.0.0.1 on a free port until the test ends.
func occupy(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func mustFreePort(t *testing.T) int {
	t.Helper()
	p, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runListenScript is the script: a port in use and an address the
// machine lacks fail and roll the whole CONFIG SET back, the server
// serving on where it was; an optional address is skipped; a new port
// answers while the kept connection stays; port 0 closes the TCP port.
func runListenScript(s *listenScript) []string {
	t := s.t
	busy := s.port("BUSY", occupy(t))
	s.do("CONFIG", "SET", "port", busy)
	s.do("CONFIG", "SET", "maxmemory", "5mb", "port", busy)
	s.do("CONFIG", "SET", "port", busy, "maxmemory", "5mb")
	s.do("CONFIG", "GET", "maxmemory")
	s.do("CONFIG", "GET", "port")
	s.probe("old port after failed port", s.p.port)
	s.do("CONFIG", "SET", "bind", "10.255.255.1")
	s.do("CONFIG", "SET", "bind", "127.0.0.1 10.255.255.1", "maxmemory", "5mb")
	s.do("CONFIG", "SET", "bind", "nonsense.invalid")
	s.do("CONFIG", "GET", "bind")
	s.do("CONFIG", "GET", "maxmemory")
	s.probe("old port after failed bind", s.p.port)
	s.do("CONFIG", "SET", "bind", "-10.255.255.1 127.0.0.1")
	s.do("CONFIG", "GET", "bind")
	s.probe("after optional bind", s.p.port)
	next := mustFreePort(t)
	s.do("CONFIG", "SET", "port", s.port("NEXT", next))
	s.do("PING")
	s.probe("new port", next)
	s.probe("old port after move", s.p.port)
	last := mustFreePort(t)
	s.do("CONFIG", "SET", "bind", "127.0.0.1", "port", s.port("LAST", last))
	s.do("CONFIG", "GET", "port")
	s.probe("last port", last)
	s.probe("next port after move", next)
	s.do("CONFIG", "SET", "bind", "* -::*")
	s.probe("last port on every address", last)
	s.do("CONFIG", "SET", "bind", "127.0.0.1")
	s.probe("last port back on loopback", last)
	s.do("CONFIG", "SET", "port", "0")
	s.do("CONFIG", "GET", "port")
	s.probe("port 0", last)
	s.do("CONFIG", "SET", "port", strconv.Itoa(last))
	s.probe("port back", last)
	s.do("PING")
	return s.out
}

func TestDiffConfigSetRebind(t *testing.T) {
	requireRedis(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rp, err := startRedis()
			if err != nil {
				t.Fatal(err)
			}
			defer rp.stop()
			op, err := startOurs()
			if err != nil {
				t.Fatal(err)
			}
			defer op.stop()
			want := runListenScript(newListenScript(t, rp, proto))
			got := runListenScript(newListenScript(t, op, proto))
			compareTranscripts(t, want, got)
			if !strings.Contains(op.logTail(), "Failed applying new configuration. Possibly related to new port setting. Restoring previous settings.") {
				t.Errorf("miniwatchd did not log the rollback:\n%s", op.logTail())
			}
		})
	}
}

// compareTranscripts fails t at the first line that differs.
func compareTranscripts(t *testing.T, want, got []string) {
	t.Helper()
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Fatalf("step %d differs\n  redis-server: %s\n  miniwatchd:   %s\n(redis-server's transcript:\n%s)",
				i, w, g, strings.Join(want, "\n"))
		}
	}
}
