package test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// replyTimeout bounds how long a read waits for a reply: generous, since
// the machine is shared and the server may be built with -race.
const replyTimeout = 10 * time.Second

// respConn is a raw RESP client: it sends commands as multibulk requests
// (or raw bytes) and reads exactly one reply frame at a time.
type respConn struct {
	addr string
	nc   net.Conn
	r    *bufio.Reader
}

// dialRESP connects to addr.
func dialRESP(addr string) (*respConn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &respConn{addr: addr, nc: nc, r: bufio.NewReaderSize(nc, 64*1024)}, nil
}

// Close closes the connection.
func (c *respConn) Close() error { return c.nc.Close() }

// Send writes one command as a multibulk request without reading a reply.
func (c *respConn) Send(args ...string) error { return c.SendRaw(encodeCommand(args)) }

// SendRaw writes b as is.
func (c *respConn) SendRaw(b []byte) error {
	c.nc.SetWriteDeadline(time.Now().Add(replyTimeout))
	_, err := c.nc.Write(b)
	return err
}

// Read reads one complete reply frame, waiting at most timeout.
func (c *respConn) Read(timeout time.Duration) (node, error) {
	c.nc.SetReadDeadline(time.Now().Add(timeout))
	defer c.nc.SetReadDeadline(time.Time{})
	return readFrame(c.r)
}

// Do sends one command and reads its reply.
func (c *respConn) Do(args ...string) (node, error) {
	if err := c.Send(args...); err != nil {
		return node{}, err
	}
	return c.Read(replyTimeout)
}

// DoRaw sends raw bytes and reads one reply.
func (c *respConn) DoRaw(b []byte) (node, error) {
	if err := c.SendRaw(b); err != nil {
		return node{}, err
	}
	return c.Read(replyTimeout)
}

// connState is what a connection shows when watched for a while.
type connState int

const (
	connOpen   connState = iota // nothing arrived and the peer kept it open
	connClosed                  // the peer closed it (EOF or reset)
	connData                    // bytes arrived
)

func (s connState) String() string {
	return [...]string{"open", "closed", "data"}[s]
}

// Watch waits up to d and reports whether the peer closed the connection,
// sent bytes (returned), or neither.
func (c *respConn) Watch(d time.Duration) (connState, []byte) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	n, err := c.r.Read(buf)
	switch {
	case n > 0:
		return connData, buf[:n]
	case isTimeout(err):
		return connOpen, nil
	default:
		return connClosed, nil
	}
}

// ReadAllUntilClose reads every byte until the peer closes or d passes,
// and reports whether it closed.
func (c *respConn) ReadAllUntilClose(d time.Duration) ([]byte, bool) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	b, err := io.ReadAll(c.r)
	if err == nil || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) {
		return b, true
	}
	return b, !isTimeout(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// mustDo runs a command and fails the test on a transport error.
func mustDo(t interface {
	Helper()
	Fatalf(string, ...any)
}, c *respConn, args ...string) node {
	t.Helper()
	n, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%s %q: %v", c.addr, args, err)
	}
	return n
}

// sleepMillis pauses the test.
func sleepMillis(ms int) { time.Sleep(time.Duration(ms) * time.Millisecond) }
