// Command streambench measures a consumer group work loop on any RESP
// server (miniwatchd, redis-server, ...): clients that each repeat
// XREADGROUP GROUP g <client> COUNT <count> STREAMS <key> > and XACK of the
// IDs they got, as a job queue's workers do.
//
//	streambench [-addr host:port] [-clients N] [-duration D] [-count C] [-prefill E] [-key K]
//
// The stream K is deleted, filled with E small entries (pipelined XADD)
// and given the group g before the clock starts; the clients run until the
// duration is up or the stream is drained. Output: a readable line, then
// one line starting with "RESULT " holding key=value fields (clients
// seconds loops loops_per_s entries entries_per_s errors). Exit status: 0
// ok, 2 bad usage, 3 connection or command errors.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type conn struct {
	nc  net.Conn
	r   *bufio.Reader
	buf []byte
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}, nil
}

func (c *conn) send(args ...string) {
	c.buf = append(c.buf, '*')
	c.buf = strconv.AppendInt(c.buf, int64(len(args)), 10)
	c.buf = append(c.buf, '\r', '\n')
	for _, a := range args {
		c.buf = append(c.buf, '$')
		c.buf = strconv.AppendInt(c.buf, int64(len(a)), 10)
		c.buf = append(c.buf, '\r', '\n')
		c.buf = append(c.buf, a...)
		c.buf = append(c.buf, '\r', '\n')
	}
}

func (c *conn) flush() error {
	_, err := c.nc.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// reply is a parsed RESP2 reply: strings are bulk/simple texts, an array
// holds its elements.
type reply struct {
	kind  byte
	str   string
	elems []reply
}

func (c *conn) read() (reply, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return reply{}, err
	}
	if len(line) < 3 {
		return reply{}, errors.New("short line")
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', ':':
		return reply{kind: kind, str: body}, nil
	case '-':
		return reply{}, errors.New(body)
	case '$':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return reply{kind: '$'}, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return reply{}, err
		}
		return reply{kind: '$', str: string(b[:n])}, nil
	case '*':
		n, _ := strconv.Atoi(body)
		r := reply{kind: '*'}
		for i := 0; i < n; i++ {
			e, err := c.read()
			if err != nil {
				return r, err
			}
			r.elems = append(r.elems, e)
		}
		return r, nil
	}
	return reply{}, fmt.Errorf("unexpected reply type %q", kind)
}

func (c *conn) do(args ...string) (reply, error) {
	c.send(args...)
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	return c.read()
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("streambench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:6379", "server address host:port")
	clients := fs.Int("clients", 8, "concurrent consumers, one connection each")
	duration := fs.Duration("duration", 3*time.Second, "how long the consumers run")
	count := fs.Int("count", 1, "XREADGROUP COUNT")
	prefill := fs.Int("prefill", 300000, "entries added before the run")
	key := fs.String("key", "streambench:jobs", "the stream")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *clients < 1 || *count < 1 || *duration <= 0 || *prefill < 1 {
		fmt.Fprintln(stderr, "streambench: -clients, -count, -prefill and -duration must be positive")
		return 2
	}
	c, err := dial(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "streambench: %v\n", err)
		return 3
	}
	defer c.nc.Close()
	if err := setup(c, *key, *prefill); err != nil {
		fmt.Fprintf(stderr, "streambench: setup: %v\n", err)
		return 3
	}
	var loops, entries, errs atomic.Int64
	var firstErr atomic.Value
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < *clients; i++ {
		wc, err := dial(*addr)
		if err != nil {
			fmt.Fprintf(stderr, "streambench: %v\n", err)
			return 3
		}
		defer wc.nc.Close()
		name := "c" + strconv.Itoa(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := strconv.Itoa(*count)
			for !stop.Load() {
				r, err := wc.do("XREADGROUP", "GROUP", "g", name, "COUNT", n, "STREAMS", *key, ">")
				if err == nil && r.kind == '$' || err == nil && r.kind == '*' && r.elems == nil {
					return // drained
				}
				var ids []string
				if err == nil {
					if len(r.elems) != 1 || len(r.elems[0].elems) != 2 {
						err = errors.New("unexpected XREADGROUP reply")
					} else {
						for _, e := range r.elems[0].elems[1].elems {
							ids = append(ids, e.elems[0].str)
						}
					}
				}
				if err == nil {
					var a reply
					a, err = wc.do(append([]string{"XACK", *key, "g"}, ids...)...)
					if err == nil && a.str != strconv.Itoa(len(ids)) {
						err = fmt.Errorf("XACK acknowledged %s of %d", a.str, len(ids))
					}
				}
				if err != nil {
					if errs.Add(1) == 1 {
						firstErr.Store(err)
					}
					return
				}
				loops.Add(1)
				entries.Add(int64(len(ids)))
			}
		}()
	}
	timer := time.AfterFunc(*duration, func() { stop.Store(true) })
	wg.Wait()
	timer.Stop()
	secs := time.Since(start).Seconds()
	c.do("DEL", *key)
	fmt.Fprintf(stdout, "streambench: %d clients, %.2f s: %d loops (%.0f/s), %d entries acknowledged (%.0f/s), %d errors\n",
		*clients, secs, loops.Load(), float64(loops.Load())/secs, entries.Load(), float64(entries.Load())/secs, errs.Load())
	fmt.Fprintf(stdout, "RESULT clients=%d seconds=%.3f loops=%d loops_per_s=%.1f entries=%d entries_per_s=%.1f errors=%d\n",
		*clients, secs, loops.Load(), float64(loops.Load())/secs, entries.Load(), float64(entries.Load())/secs, errs.Load())
	if errs.Load() > 0 {
		fmt.Fprintf(stderr, "streambench: first error: %v\n", firstErr.Load())
		return 3
	}
	return 0
}

// setup recreates the stream with n entries and the group g.
func setup(c *conn, key string, n int) error {
	if _, err := c.do("DEL", key); err != nil {
		return err
	}
	for done := 0; done < n; {
		batch := min(1000, n-done)
		for i := 0; i < batch; i++ {
			c.send("XADD", key, "*", "job", strconv.Itoa(done+i))
		}
		if err := c.flush(); err != nil {
			return err
		}
		for i := 0; i < batch; i++ {
			if _, err := c.read(); err != nil {
				return err
			}
		}
		done += batch
	}
	_, err := c.do("XGROUP", "CREATE", key, "g", "0")
	return err
}
