package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Hot-path benchmarks of the engine, from the cheapest layer up:
//
//   - BenchmarkDispatch*: processCommand for one command under the engine
//     lock (lookup, arity, checks, call, statistics, the handler, the reply);
//   - BenchmarkExec*: the transactions of the contention benchmark;
//   - BenchmarkProcessInput*: a whole batch as the connection loop runs it
//     (parse, dispatch, hand the replies to the socket), with a socket that
//     discards what it is given;
//   - BenchmarkLoopback*: a real client over 127.0.0.1, one round trip per
//     op, which is what redis-benchmark -P 1 is bound by.
//
// Run with: go test ./server -run '^$' -bench . -benchmem

// benchServer returns a server that is not listening, with benchKeys keys
// "key:<12 digits>" = "xxx" in db 0.
func benchServer(b *testing.B) *Server {
	b.Helper()
	s, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	s.mu.Lock()
	d := s.ks.DB(0)
	s.ks.SetTime(s.clock.UnixMilli())
	for i := range benchKeys {
		d.SetString(benchKey(i), []byte("xxx"), db.TTLClear, 0, db.EvSet)
	}
	s.mu.Unlock()
	return s
}

const benchKeys = 100_000

func benchKey(i int) []byte { return fmt.Appendf(nil, "key:%012d", i%benchKeys) }

// discardConn is a net.Conn whose writes succeed and vanish; only the
// methods the reply path calls are implemented.
type discardConn struct{ net.Conn }

func (discardConn) Write(p []byte) (int, error) { return len(p), nil }
func (discardConn) Close() error                { return nil }

// benchClient returns an authenticated RESP2 client of s on db 0 whose
// socket discards output.
func benchClient(s *Server) *client {
	c := &client{fd: -1, srv: s, id: s.nextID.Add(1), db: s.ks.DB(0), addr: "127.0.0.1:1", authenticated: true}
	c.w.Proto = 2
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	return c
}

// run dispatches one command under the engine lock and fails on an error
// reply; the reply buffer is emptied afterwards.
func benchRun(b *testing.B, s *Server, c *client, args [][]byte) {
	s.mu.Lock()
	s.runCommandLocked(c, args) // as the connection loop runs it: the intercept hook included
	if len(c.w.Buf) > 0 && c.w.Buf[0] == '-' {
		s.mu.Unlock()
		b.Fatalf("%q: %q", args, c.w.Buf)
	}
	c.w.Buf = c.w.Buf[:0]
	s.mu.Unlock()
}

func argv(args ...string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

func benchDispatch(b *testing.B, build func(i int) [][]byte) {
	s := benchServer(b)
	c := benchClient(s)
	const variants = 1024
	cmds := make([][][]byte, variants)
	for i := range cmds {
		cmds[i] = build(i * 97)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		benchRun(b, s, c, cmds[i%variants])
		i++
	}
}

func BenchmarkDispatchPing(b *testing.B) {
	benchDispatch(b, func(int) [][]byte { return argv("PING") })
}

func BenchmarkDispatchGet(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte { return [][]byte{[]byte("GET"), benchKey(i)} })
}

func BenchmarkDispatchSet(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte { return [][]byte{[]byte("SET"), benchKey(i), []byte("xxx")} })
}

func BenchmarkDispatchIncr(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte { return argv("INCR", "counter:"+strconv.Itoa(i)) })
}

func BenchmarkDispatchMSet10(b *testing.B) {
	benchDispatch(b, func(i int) [][]byte {
		args := argv("MSET")
		for j := range 10 {
			args = append(args, benchKey(i+j), []byte("xxx"))
		}
		return args
	})
}

// BenchmarkExecWatchSet is one committed increment of watchbench's
// watch-hot loop with one client: WATCH k; GET k; MULTI; SET k v; EXEC, as
// three batches (WATCH, GET, then MULTI+SET+EXEC).
func BenchmarkExecWatchSet(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	watchCmd, get := argv("WATCH", "hot"), argv("GET", "hot")
	multiCmd, set, exec := argv("MULTI"), argv("SET", "hot", "12345"), argv("EXEC")
	b.ReportAllocs()
	for b.Loop() {
		benchRun(b, s, c, watchCmd)
		benchRun(b, s, c, get)
		s.mu.Lock()
		s.processCommand(c, multiCmd)
		s.processCommand(c, set)
		s.processCommand(c, exec)
		if !bytes.Equal(c.w.Buf, []byte("+OK\r\n+QUEUED\r\n*1\r\n+OK\r\n")) {
			b.Fatalf("replies %q", c.w.Buf)
		}
		c.w.Buf = c.w.Buf[:0]
		s.mu.Unlock()
	}
}

// BenchmarkExecWatchAbort is an increment that loses the race: another
// client writes the watched key before EXEC, which replies with a null array.
func BenchmarkExecWatchAbort(b *testing.B) {
	s := benchServer(b)
	c, other := benchClient(s), benchClient(s)
	watchCmd, get := argv("WATCH", "hot"), argv("GET", "hot")
	multiCmd, set, exec := argv("MULTI"), argv("SET", "hot", "12345"), argv("EXEC")
	b.ReportAllocs()
	for b.Loop() {
		benchRun(b, s, c, watchCmd)
		benchRun(b, s, c, get)
		benchRun(b, s, other, set)
		s.mu.Lock()
		s.processCommand(c, multiCmd)
		s.processCommand(c, set)
		s.processCommand(c, exec)
		if !bytes.Equal(c.w.Buf, []byte("+OK\r\n+QUEUED\r\n*-1\r\n")) {
			b.Fatalf("replies %q", c.w.Buf)
		}
		c.w.Buf = c.w.Buf[:0]
		s.mu.Unlock()
	}
}

// BenchmarkExecMultiIncr is MULTI; INCR k; EXEC in one batch.
func BenchmarkExecMultiIncr(b *testing.B) {
	s := benchServer(b)
	c := benchClient(s)
	multiCmd, incr, exec := argv("MULTI"), argv("INCR", "hot"), argv("EXEC")
	b.ReportAllocs()
	for b.Loop() {
		s.mu.Lock()
		s.processCommand(c, multiCmd)
		s.processCommand(c, incr)
		s.processCommand(c, exec)
		c.w.Buf = c.w.Buf[:0]
		s.mu.Unlock()
	}
}

// repeatReader returns the same batch on every Read.
type repeatReader struct{ batch []byte }

func (r *repeatReader) Read(p []byte) (int, error) { return copy(p, r.batch), nil }

// benchProcessInput runs the event loop's read path (Fill, then
// processLocked) on a batch of perBatch identical commands; ns/op is per
// command. The replies are dropped instead of written.
func benchProcessInput(b *testing.B, perBatch int, args ...string) {
	s := benchServer(b)
	c := benchClient(s)
	var w protocol.Writer
	for range perBatch {
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	r := &repeatReader{batch: w.Buf}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += perBatch {
		if _, err := c.parser.Fill(r); err != nil {
			b.Fatal(err)
		}
		s.mu.Lock()
		s.processLocked(c)
		c.w.Buf = c.w.Buf[:0]
		s.mu.Unlock()
	}
}

func BenchmarkProcessInputGet(b *testing.B) { benchProcessInput(b, 1, "GET", "key:000000012345") }
func BenchmarkProcessInputSet(b *testing.B) {
	benchProcessInput(b, 1, "SET", "key:000000012345", "xxx")
}
func BenchmarkProcessInputSetP16(b *testing.B) {
	benchProcessInput(b, 16, "SET", "key:000000012345", "xxx")
}

// startLoopbackServer starts a server with the default configuration on
// a free port, closed when the benchmark ends.
func startLoopbackServer(b *testing.B) *Server {
	cfg := DefaultConfig()
	cfg.Port = 0
	s, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// benchLoopback sends perBatch copies of a command over a real connection
// to a listening server and waits for all replies, b.N/perBatch times.
func benchLoopback(b *testing.B, perBatch int, args ...string) {
	s := startLoopbackServer(b)
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var w protocol.Writer
	for range perBatch {
		w.Array(len(args))
		for _, a := range args {
			w.BulkString(a)
		}
	}
	r := bufio.NewReader(conn)
	conn.SetDeadline(time.Now().Add(10 * time.Minute))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += perBatch {
		if _, err := conn.Write(w.Buf); err != nil {
			b.Fatal(err)
		}
		for range perBatch {
			line, err := r.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			switch line[0] {
			case '-':
				b.Fatalf("error reply %q", line)
			case '$':
				if n, _ := strconv.Atoi(string(line[1 : len(line)-2])); n >= 0 {
					if _, err := r.Discard(n + 2); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}

func BenchmarkLoopbackPing(b *testing.B) { benchLoopback(b, 1, "PING") }
func BenchmarkLoopbackSet(b *testing.B)  { benchLoopback(b, 1, "SET", "key:000000012345", "xxx") }
func BenchmarkLoopbackGet(b *testing.B)  { benchLoopback(b, 1, "GET", "key:000000012345") }
func BenchmarkLoopbackSetP16(b *testing.B) {
	benchLoopback(b, 16, "SET", "key:000000012345", "xxx")
}

// BenchmarkLoopbackConnectPing opens a connection, sends PING, reads
// PONG and closes, as connbench -mode acceptping: the server's cost of a
// connection from accept to free (the client's dial is counted too).
func BenchmarkLoopbackConnectPing(b *testing.B) {
	addr := startLoopbackServer(b).Addr().String()
	buf := make([]byte, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Write([]byte("PING\r\n")); err != nil {
			b.Fatal(err)
		}
		if n, err := io.ReadAtLeast(conn, buf, 7); err != nil || string(buf[:n]) != "+PONG\r\n" {
			b.Fatalf("%q %v", buf[:n], err)
		}
		conn.Close()
	}
}
