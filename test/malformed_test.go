package test

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Malformed requests: the reply bytes and whether the connection is closed
// must be the same as redis-server's, and other connections must keep
// being served.

// malformedCase sends chunks (with a short pause between them), collects
// everything the server sends for a while, then optionally sends then and
// collects again.
type malformedCase struct {
	name   string
	chunks []string
	then   string
}

var malformedCases = []malformedCase{
	{name: "multibulk count not a number", chunks: []string{"*abc\r\n"}},
	{name: "multibulk count negative", chunks: []string{"*-5\r\n"}, then: "PING\r\n"},
	{name: "multibulk count zero", chunks: []string{"*0\r\n"}, then: "PING\r\n"},
	{name: "multibulk count too big", chunks: []string{"*2147483648\r\n"}},
	{name: "multibulk count with sign", chunks: []string{"*+1\r\n$4\r\nPING\r\n"}},
	{name: "bulk length not a number", chunks: []string{"*1\r\n$abc\r\n"}},
	{name: "bulk length negative", chunks: []string{"*1\r\n$-1\r\n"}},
	{name: "bulk length over proto-max-bulk-len", chunks: []string{"*1\r\n$536870913\r\n"}},
	{name: "bulk length over int32", chunks: []string{"*1\r\n$2147483648\r\n"}},
	{name: "bulk without dollar", chunks: []string{"*1\r\n+PING\r\n"}},
	{name: "bulk with colon", chunks: []string{"*2\r\n$4\r\nECHO\r\n:1\r\n"}},
	{name: "bulk payload followed by garbage", chunks: []string{"*1\r\n$4\r\nPINGxx"}},
	{name: "empty bulk argument", chunks: []string{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"}, then: "GET k\r\n"},
	{name: "truncated frame completed later", chunks: []string{"*2\r\n$3\r\nGET\r\n$1\r\n"}, then: "k\r\n"},
	{name: "truncated count line", chunks: []string{"*2"}, then: "\r\n$4\r\nECHO\r\n$1\r\nx\r\n"},
	{name: "frame byte by byte", chunks: strings.Split("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n", "")},
	{name: "huge declared bulk, truncated", chunks: []string{"*2\r\n$4\r\nECHO\r\n$10000000\r\nabc"}},
	{name: "empty inline line", chunks: []string{"\r\n"}, then: "PING\r\n"},
	{name: "blank inline line", chunks: []string{"   \t \r\n"}, then: "PING\r\n"},
	{name: "bare LF inline line", chunks: []string{"\n"}, then: "PING\n"},
	{name: "inline command", chunks: []string{"ECHO \"a\\x41\\n\" 'b'\r\n"}},
	{name: "inline unbalanced double quote", chunks: []string{"SET \"k v\r\n"}},
	{name: "inline unbalanced single quote", chunks: []string{"GET 'k\r\n"}},
	{name: "inline quote not followed by space", chunks: []string{"SET \"a\"b c\r\n"}},
	{name: "inline NUL hides the terminator", chunks: []string{"PING\x00\r\n"}},
	{name: "inline too big", chunks: []string{strings.Repeat("a", 70000)}},
	{name: "count line too big", chunks: []string{"*" + strings.Repeat("1", 70000)}},
	{name: "bulk length line too big", chunks: []string{"*1\r\n$" + strings.Repeat("1", 70000)}},
	{name: "valid then invalid in one batch", chunks: []string{"PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n"}},
	{name: "error then more commands", chunks: []string{"*1\r\n$x\r\nPING\r\n"}},
	{name: "POST line", chunks: []string{"POST / HTTP/1.1\r\n"}},
	{name: "Host: line", chunks: []string{"Host: example.com\r\n"}},
	{name: "post as multibulk", chunks: []string{"*1\r\n$4\r\npost\r\n"}},
}

func TestMalformedRequests(t *testing.T) {
	requireRedis(t)
	for _, mc := range malformedCases {
		t.Run(mc.name, func(t *testing.T) {
			t.Parallel()
			rs := leaseServer(t, redis)
			ms := leaseServer(t, ours)
			if selfCheck() {
				ms = leaseServer(t, redis)
			}
			type outcome struct {
				first, second       []byte
				closed, closedAfter bool
			}
			run := func(srv *leasedServer) outcome {
				c := srv.dial(t)
				for i, ch := range mc.chunks {
					if i > 0 {
						time.Sleep(2 * time.Millisecond)
					}
					if err := c.SendRaw([]byte(ch)); err != nil {
						break // the server closed early: the reads below show it
					}
				}
				var o outcome
				o.first, o.closed = c.ReadAllUntilClose(400 * time.Millisecond)
				if mc.then != "" && !o.closed {
					c.SendRaw([]byte(mc.then))
					o.second, o.closedAfter = c.ReadAllUntilClose(400 * time.Millisecond)
				}
				return o
			}
			ch := make(chan outcome, 1)
			go func() { ch <- run(rs) }()
			got := run(ms)
			want := <-ch
			if !bytes.Equal(want.first, got.first) || want.closed != got.closed ||
				!bytes.Equal(want.second, got.second) || want.closedAfter != got.closedAfter {
				t.Errorf("sent %s\n  redis-server: %s closed=%v, then %s closed=%v\n  miniwatchd:   %s closed=%v, then %s closed=%v",
					quoteRaw([]byte(strings.Join(mc.chunks, "")), 200),
					quoteRaw(want.first, 300), want.closed, quoteRaw(want.second, 300), want.closedAfter,
					quoteRaw(got.first, 300), got.closed, quoteRaw(got.second, 300), got.closedAfter)
			}
			// Whatever happened to that connection, the server serves others.
			if n := mustDo(t, ms.dial(t), "PING"); n.Str != "PONG" {
				t.Errorf("miniwatchd: PING on another connection replied %s", fmtNode(n))
			}
		})
	}
}

// TestOtherConnectionsServedMeanwhile keeps partial requests pending on
// some connections (a truncated frame, a huge declared bulk, a partial
// inline line) and requires another connection to be served normally all
// along, and the pending ones to complete afterwards.
func TestOtherConnectionsServedMeanwhile(t *testing.T) {
	srv := leaseServer(t, ours)
	pending := map[string][2]string{ // first part, completion
		"truncated frame": {"*2\r\n$4\r\nECHO\r\n$5\r\nhel", "lo\r\n"},
		"huge bulk":       {"*2\r\n$4\r\nECHO\r\n$3000000\r\nabc", strings.Repeat("x", 3000000-3) + "\r\n"},
		"partial inline":  {"ECHO hel", "lo\r\n"},
	}
	conns := map[string]*respConn{}
	for name, parts := range pending {
		c := srv.dial(t)
		if err := c.SendRaw([]byte(parts[0])); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		conns[name] = c
	}
	other := srv.dial(t)
	for i := 0; i < 50; i++ {
		if n := mustDo(t, other, "INCR", "counter"); n.Int != int64(i+1) {
			t.Fatalf("INCR replied %s", fmtNode(n))
		}
	}
	for name, c := range conns {
		if st, data := c.Watch(50 * time.Millisecond); st != connOpen {
			t.Errorf("%s: connection %s with %q before the request was complete", name, st, data)
		}
	}
	for name, parts := range pending {
		c := conns[name]
		if err := c.SendRaw([]byte(parts[1])); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n, err := c.Read(replyTimeout)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := "hello"
		if name == "huge bulk" {
			want = "abc" + strings.Repeat("x", 3000000-3)
		}
		if n.Kind != '$' || n.Str != want {
			t.Errorf("%s: reply %s", name, quoteRaw(n.Raw, 100))
		}
	}
	if n := mustDo(t, other, "GET", "counter"); n.Str != "50" {
		t.Errorf("GET counter replied %s", fmtNode(n))
	}
}
