package test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// TestSlowSubscriberIsDisconnected: a publisher sends to 100 subscribers,
// one of which never reads. The publisher must keep its throughput (it
// never waits for the stalled socket), the stalled subscriber must be
// disconnected by client-output-buffer-limit, and the 99 others must get
// every message, in order.
//
// The healthy subscribers are real readers on a shared machine, so the
// publisher is paced by them (it stays at most maxLag messages ahead of the
// slowest), exactly as in the baseline run with 100 healthy subscribers
// that the throughput is compared with.
func TestSlowSubscriberIsDisconnected(t *testing.T) {
	if testing.Short() {
		t.Skip("moves a few hundred MB over loopback")
	}
	const (
		subscribers = 100
		maxLag      = 1000    // messages a healthy subscriber may be behind
		hardLimit   = 2 << 20 // client-output-buffer-limit pubsub hard limit
		limitArg    = "pubsub 2mb 0 0"
		maxMessages = 200_000 // give up if the stalled client is never dropped
		batch       = 50      // PUBLISH commands per pipelined round trip
	)
	// Under -race (server binary included) every message costs ten times
	// more: fewer, bigger messages move the same bytes.
	payload, after, baseline := 256, 3000, 15000
	if raceEnabled {
		payload, after, baseline = 4096, 300, 1000
	}
	srv := psOurServer(t, "--client-output-buffer-limit", limitArg)

	run := func(stalled bool, total int) (published int, elapsed time.Duration, disconnectedAt int) {
		readers := subscribers
		if stalled {
			readers--
		}
		counts := make([]atomic.Int64, readers)
		errs := make(chan error, readers)
		var wg sync.WaitGroup
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
			wg.Wait()
		}()
		for i := 0; i < readers; i++ {
			c, r := slowSubscribe(t, srv.addr, "ch", 0)
			conns = append(conns, c)
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs <- countMessages(r, &counts[i])
			}(i)
		}
		var stalledConn net.Conn
		if stalled {
			stalledConn, _ = slowSubscribe(t, srv.addr, "ch", 4096)
			conns = append(conns, stalledConn)
		}

		pub, err := net.Dial("tcp", srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, pub)
		pr := bufio.NewReader(pub)
		msg := bytes.Repeat([]byte("x"), payload)
		minCount := func() int64 {
			m := counts[0].Load()
			for i := range counts {
				m = min(m, counts[i].Load())
			}
			return m
		}
		start := time.Now()
		limit := total
		var cmd []byte
		for published < limit {
			for int64(published)-minCount() > maxLag {
				select {
				case err := <-errs:
					t.Fatalf("a healthy subscriber failed: %v", err)
				case <-time.After(time.Millisecond):
				}
			}
			cmd = cmd[:0]
			n := min(batch, limit-published)
			for j := 0; j < n; j++ {
				seq := strconv.Itoa(published + j)
				copy(msg, seq+":")
				cmd = resptest.AppendCommand(cmd, "PUBLISH", "ch", string(msg))
			}
			pub.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := pub.Write(cmd); err != nil {
				t.Fatalf("publisher blocked or failed: %v", err)
			}
			for j := 0; j < n; j++ {
				line, err := pr.ReadString('\n')
				if err != nil {
					t.Fatalf("publisher blocked or failed after %d messages: %v", published, err)
				}
				receivers, _ := strconv.Atoi(line[1 : len(line)-2])
				if stalled && disconnectedAt == 0 && receivers == subscribers-1 {
					disconnectedAt = published + j
					limit = disconnectedAt + after
				}
			}
			published += n
		}
		// Every healthy subscriber gets every message.
		deadline := time.Now().Add(60 * time.Second)
		for minCount() < int64(published) {
			select {
			case err := <-errs:
				t.Fatalf("a healthy subscriber failed: %v", err)
			case <-time.After(5 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("healthy subscribers got %d of %d messages", minCount(), published)
			}
		}
		elapsed = time.Since(start)
		for i := range counts {
			if got := counts[i].Load(); got != int64(published) {
				t.Fatalf("subscriber %d got %d messages, want %d", i, got, published)
			}
		}
		if stalled {
			// The stalled connection was closed by the server: once we read
			// what the kernel buffered, we hit the end of the stream.
			stalledConn.SetReadDeadline(time.Now().Add(30 * time.Second))
			buf := make([]byte, 1<<20)
			for {
				if _, err := stalledConn.Read(buf); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						t.Fatal("the stalled subscriber's connection is still open")
					}
					break
				}
			}
		}
		return published, elapsed, disconnectedAt
	}

	// Healthy baseline first (it also warms the server up), then the run
	// with a stalled subscriber, which goes on until that subscriber is
	// disconnected and then for `after` more messages.
	nBase, baseTime, _ := run(false, baseline)
	n, stalledTime, at := run(true, maxMessages)
	if at == 0 {
		t.Fatalf("the stalled subscriber was not disconnected after %d messages", n)
	}
	stalledRate := float64(n) / stalledTime.Seconds()
	baseRate := float64(nBase) / baseTime.Seconds()
	t.Logf("%d subscribers, %d-byte messages, pubsub hard limit %d bytes (%s)", subscribers, payload, hardLimit, limitArg)
	t.Logf("stalled subscriber disconnected after message %d; %d messages to each of the other %d, all received in order",
		at, n, subscribers-1)
	t.Logf("publisher: %.0f msg/s with a stalled subscriber, %.0f msg/s with 100 healthy ones (%.2fx)",
		stalledRate, baseRate, stalledRate/baseRate)
	// The publisher is never blocked (its reads and writes have deadlines
	// above); its rate is also compared, loosely, as the machine is shared.
	if !raceEnabled && stalledRate < baseRate/4 {
		t.Errorf("publisher throughput fell from %.0f to %.0f msg/s with a stalled subscriber", baseRate, stalledRate)
	}
}

// slowSubscribe opens a connection subscribed to channel; a positive
// rcvbuf shrinks its socket receive buffer first (a stalled reader).
func slowSubscribe(t *testing.T, addr, channel string, rcvbuf int) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{}
	if rcvbuf > 0 {
		d.Control = func(network, address string, c syscall.RawConn) error {
			var serr error
			c.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
			})
			return serr
		}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(resptest.Command("SUBSCRIBE", channel))
	r := bufio.NewReaderSize(c, 64<<10)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	f, err := resptest.ReadRaw(r)
	if err != nil || !bytes.Contains(f, []byte("subscribe")) {
		t.Fatalf("SUBSCRIBE: %q %v", f, err)
	}
	c.SetReadDeadline(time.Time{})
	return c, r
}

// countMessages reads "message" frames until the connection closes,
// checking that each carries the next sequence number.
func countMessages(r *bufio.Reader, n *atomic.Int64) error {
	for {
		f, err := resptest.ReadRaw(r)
		if err != nil {
			if n.Load() > 0 {
				return nil // closed by the test
			}
			return err
		}
		// *3 $7 message $2 ch $<len> <seq>:xxx
		i := bytes.LastIndex(f, []byte("\r\n$"))
		body := f[i+3:]
		body = body[bytes.IndexByte(body, '\n')+1:]
		seq, err := strconv.Atoi(string(body[:bytes.IndexByte(body, ':')]))
		if err != nil {
			return fmt.Errorf("bad message %q", f)
		}
		if int64(seq) != n.Load() {
			return fmt.Errorf("got message %d, want %d", seq, n.Load())
		}
		n.Add(1)
	}
}
