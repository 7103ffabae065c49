package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// A minimal RESP2 client: requests are encoded with the project's reply
// writer (a request is an array of bulk strings, the same frames), replies
// are read with a small parser that accepts the five RESP2 types. Commands
// are buffered by send and written by flush, so a caller pipelines by
// sending several commands before one flush.

// Reply limits: a reply that exceeds them is a protocol error, not a panic
// or a huge allocation.
const (
	maxReplyDepth = 8
	maxBulkLen    = 512 << 20
	maxArrayLen   = 1 << 20
)

// reply is one RESP2 reply. kind is '+', '-', ':', '$' or '*'. str holds the
// text of a status, an error or a bulk string (a private copy); n holds an
// integer, or the length of a bulk or an array (-1 for null ones).
type reply struct {
	kind  byte
	str   []byte
	n     int64
	elems []reply
}

// isNull reports a null bulk or a null array.
func (r reply) isNull() bool { return (r.kind == '$' || r.kind == '*') && r.n < 0 }

// isError reports an error reply.
func (r reply) isError() bool { return r.kind == '-' }

// String renders the reply for messages.
func (r reply) String() string {
	switch r.kind {
	case '+', '-', '$':
		if r.isNull() {
			return "(nil)"
		}
		return strconv.Quote(string(r.str))
	case ':':
		return strconv.FormatInt(r.n, 10)
	case '*':
		if r.isNull() {
			return "(nil array)"
		}
		return fmt.Sprintf("array of %d", len(r.elems))
	}
	return "?"
}

// serverError is an error reply, returned as a Go error.
type serverError string

func (e serverError) Error() string { return string(e) }

// conn is one client connection. Not safe for concurrent use.
type conn struct {
	nc      net.Conn
	r       *bufio.Reader
	w       protocol.Writer
	timeout time.Duration // per flush / per reply; 0 = none
}

// dial connects to addr.
func dial(addr string, timeout time.Duration) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 16<<10), timeout: timeout}, nil
}

// Close closes the connection.
func (c *conn) Close() error { return c.nc.Close() }

// send buffers one command.
func (c *conn) send(args ...[]byte) {
	c.w.Array(len(args))
	for _, a := range args {
		c.w.Bulk(a)
	}
}

// sendStrings buffers one command given as strings.
func (c *conn) sendStrings(args ...string) {
	c.w.Array(len(args))
	for _, a := range args {
		c.w.BulkString(a)
	}
}

// flush writes the buffered commands in one write.
func (c *conn) flush() error {
	if len(c.w.Buf) == 0 {
		return nil
	}
	if c.timeout > 0 {
		c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	}
	_, err := c.nc.Write(c.w.Buf)
	c.w.Reset()
	return err
}

// do sends one command, flushes and reads its reply. An error reply is
// returned as the reply, not as an error.
func (c *conn) do(args ...string) (reply, error) {
	c.sendStrings(args...)
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	return c.read()
}

// read reads the next reply.
func (c *conn) read() (reply, error) {
	if c.timeout > 0 {
		c.nc.SetReadDeadline(time.Now().Add(c.timeout))
	}
	return readReply(c.r, 0)
}

var errProtocol = errors.New("protocol error in reply")

// readReply parses one RESP2 reply from r.
func readReply(r *bufio.Reader, depth int) (reply, error) {
	if depth > maxReplyDepth {
		return reply{}, fmt.Errorf("%w: nested too deep", errProtocol)
	}
	line, err := readLine(r)
	if err != nil {
		return reply{}, err
	}
	if len(line) == 0 {
		return reply{}, fmt.Errorf("%w: empty line", errProtocol)
	}
	kind, body := line[0], line[1:]
	switch kind {
	case '+', '-':
		return reply{kind: kind, str: append([]byte(nil), body...)}, nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return reply{}, fmt.Errorf("%w: bad integer %q", errProtocol, body)
		}
		return reply{kind: kind, n: n}, nil
	case '$':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil || n < -1 || n > maxBulkLen {
			return reply{}, fmt.Errorf("%w: bad bulk length %q", errProtocol, body)
		}
		if n < 0 {
			return reply{kind: kind, n: -1}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return reply{}, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return reply{}, fmt.Errorf("%w: bulk not terminated by CRLF", errProtocol)
		}
		return reply{kind: kind, n: n, str: buf[:n:n]}, nil
	case '*':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil || n < -1 || n > maxArrayLen {
			return reply{}, fmt.Errorf("%w: bad array length %q", errProtocol, body)
		}
		if n < 0 {
			return reply{kind: kind, n: -1}, nil
		}
		elems := make([]reply, n)
		for i := range elems {
			if elems[i], err = readReply(r, depth+1); err != nil {
				return reply{}, err
			}
		}
		return reply{kind: kind, n: n, elems: elems}, nil
	}
	return reply{}, fmt.Errorf("%w: unexpected type byte %q", errProtocol, kind)
}

// readLine returns one CRLF-terminated line without its terminator. The
// slice is valid until the next read from r.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", errProtocol)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line not terminated by CRLF", errProtocol)
	}
	return line[:len(line)-2], nil
}

// counterValue interprets a GET reply as a counter: a null bulk is 0.
func counterValue(r reply) (int64, error) {
	switch {
	case r.isError():
		return 0, serverError(r.str)
	case r.kind == '$' && r.isNull():
		return 0, nil
	case r.kind == '$':
		n, err := strconv.ParseInt(string(r.str), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("counter value %q is not an integer", r.str)
		}
		return n, nil
	}
	return 0, fmt.Errorf("unexpected reply to GET: %s", r)
}
