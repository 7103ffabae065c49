package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// conn is one connection with a small buffered reader and writer: commands
// are encoded as RESP arrays by send and written by flush; readLine reads
// one simple reply (status, error, integer, or a bulk string's text).
type conn struct {
	nc      net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
}

func dial(addr string, timeout time.Duration) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 512), w: bufio.NewWriterSize(nc, 512), timeout: timeout}, nil
}

// dialMany opens n connections and checks each answers PING, so every one
// is registered by the server before anything is measured.
func dialMany(addr string, n int, timeout time.Duration) ([]*conn, error) {
	conns := make([]*conn, 0, n)
	fail := func(err error) ([]*conn, error) {
		for _, c := range conns {
			c.close()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		c, err := dial(addr, timeout)
		if err != nil {
			return fail(fmt.Errorf("connection %d: %v", i+1, err))
		}
		conns = append(conns, c)
		c.send("PING")
		if err := c.flush(); err != nil {
			return fail(err)
		}
	}
	for _, c := range conns {
		if err := c.expect("PONG"); err != nil {
			return fail(err)
		}
	}
	return conns, nil
}

func (c *conn) close() { c.nc.Close() }

func (c *conn) send(args ...string) {
	c.w.WriteByte('*')
	c.w.WriteString(strconv.Itoa(len(args)))
	c.w.WriteString("\r\n")
	for _, a := range args {
		c.bulk(a)
	}
}

func (c *conn) bulk(a string) {
	c.w.WriteByte('$')
	c.w.WriteString(strconv.Itoa(len(a)))
	c.w.WriteString("\r\n")
	c.w.WriteString(a)
	c.w.WriteString("\r\n")
}

func (c *conn) flush() error {
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.w.Flush()
}

// readLine returns one reply: its type byte and its text (a bulk string's
// content; "" and n=-1 for nulls).
func (c *conn) readLine() (byte, string, error) {
	c.nc.SetReadDeadline(time.Now().Add(c.timeout))
	line, err := c.r.ReadString('\n')
	if err != nil {
		return 0, "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return 0, "", errors.New("empty reply line")
	}
	kind, text := line[0], line[1:]
	if kind == '$' {
		n, err := strconv.Atoi(text)
		if err != nil || n > 1<<24 {
			return 0, "", fmt.Errorf("bad bulk length %q", text)
		}
		if n < 0 {
			return '$', "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return 0, "", err
		}
		return '$', string(buf[:n]), nil
	}
	return kind, text, nil
}

// expect reads a status reply that must be want.
func (c *conn) expect(want string) error {
	kind, text, err := c.readLine()
	if err != nil {
		return err
	}
	if kind != '+' || text != want {
		return fmt.Errorf("reply %c%s, want +%s", kind, text, want)
	}
	return nil
}

// connectedClients asks INFO clients for connected_clients.
func (c *conn) connectedClients() (int, error) {
	c.send("INFO", "clients")
	if err := c.flush(); err != nil {
		return 0, err
	}
	kind, text, err := c.readLine()
	if err != nil {
		return 0, err
	}
	if kind != '$' {
		return 0, fmt.Errorf("INFO reply %c%s", kind, text)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, "connected_clients:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, errors.New("INFO clients has no connected_clients")
}
