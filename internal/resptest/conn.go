package resptest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// ReplyTimeout bounds how long Do waits for a reply: generous, since the
// machine is shared and the server may be built with -race.
const ReplyTimeout = 10 * time.Second

// Command encodes args as a RESP multibulk request.
func Command(args ...string) []byte { return protocol.AppendCommand(nil, args...) }

// AppendCommand appends args to b as a RESP multibulk request.
func AppendCommand(b []byte, args ...string) []byte { return protocol.AppendCommand(b, args...) }

// AppendArgs is AppendCommand for binary arguments.
func AppendArgs(b []byte, args ...[]byte) []byte { return protocol.AppendCommand(b, args...) }

// Conn is a raw RESP client: it sends commands as multibulk requests (or raw
// bytes) and reads exactly one reply frame at a time. It is not safe for
// concurrent use.
type Conn struct {
	Addr string
	NC   net.Conn
	R    *bufio.Reader
}

// Dial connects to addr.
func Dial(addr string) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c := NewConn(nc)
	c.Addr = addr
	return c, nil
}

// NewConn wraps an established connection.
func NewConn(nc net.Conn) *Conn {
	return &Conn{Addr: nc.RemoteAddr().String(), NC: nc, R: bufio.NewReaderSize(nc, 64*1024)}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.NC.Close() }

// Send writes one command as a multibulk request without reading a reply.
func (c *Conn) Send(args ...string) error { return c.SendRaw(Command(args...)) }

// SendRaw writes b as is.
func (c *Conn) SendRaw(b []byte) error {
	c.NC.SetWriteDeadline(time.Now().Add(ReplyTimeout))
	_, err := c.NC.Write(b)
	return err
}

// Read reads one complete reply frame, waiting at most timeout.
func (c *Conn) Read(timeout time.Duration) (Node, error) {
	c.NC.SetReadDeadline(time.Now().Add(timeout))
	defer c.NC.SetReadDeadline(time.Time{})
	return ReadFrame(c.R)
}

// Do sends one command and reads its reply.
func (c *Conn) Do(args ...string) (Node, error) {
	if err := c.Send(args...); err != nil {
		return Node{}, err
	}
	return c.Read(ReplyTimeout)
}

// DoRaw sends raw bytes and reads one reply.
func (c *Conn) DoRaw(b []byte) (Node, error) {
	if err := c.SendRaw(b); err != nil {
		return Node{}, err
	}
	return c.Read(ReplyTimeout)
}

// ConnState is what a connection shows when watched for a while.
type ConnState int

// Connection states.
const (
	ConnOpen   ConnState = iota // nothing arrived and the peer kept it open
	ConnClosed                  // the peer closed it (EOF or reset)
	ConnData                    // bytes arrived
)

func (s ConnState) String() string {
	return [...]string{"open", "closed", "data"}[s]
}

// Watch waits up to d and reports whether the peer closed the connection,
// sent bytes (returned), or neither.
func (c *Conn) Watch(d time.Duration) (ConnState, []byte) {
	c.NC.SetReadDeadline(time.Now().Add(d))
	defer c.NC.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	n, err := c.R.Read(buf)
	switch {
	case n > 0:
		return ConnData, buf[:n]
	case IsTimeout(err):
		return ConnOpen, nil
	default:
		return ConnClosed, nil
	}
}

// ReadAllUntilClose reads every byte until the peer closes or d passes,
// and reports whether it closed.
func (c *Conn) ReadAllUntilClose(d time.Duration) ([]byte, bool) {
	c.NC.SetReadDeadline(time.Now().Add(d))
	defer c.NC.SetReadDeadline(time.Time{})
	b, err := io.ReadAll(c.R)
	if err == nil || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) {
		return b, true
	}
	return b, !IsTimeout(err)
}

// IsTimeout reports whether err is a read or write deadline passing.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
