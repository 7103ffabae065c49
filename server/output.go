package server

import (
	"net"
	"sync"
)

// outbuf is a client's pending output and the rule for who writes it to the
// socket. Replies of the client's own commands and messages pushed by other
// clients (pub/sub, invalidations, blocked-command replies) all go through
// pending in the order they were produced; at most one goroutine at a time
// is the "flusher" that writes pending to the socket, so a slow reader never
// blocks the goroutine that produced a message for it.
type outbuf struct {
	mu       sync.Mutex
	pending  []byte // mu
	spare    []byte // mu: the buffer the flusher hands back, reused
	flushing bool   // mu: a goroutine is writing
	inflight int    // mu: bytes handed to conn.Write and not yet written
	closed   bool   // mu: the connection is gone; drop output
	kick     chan struct{}
	err      error // mu: the first write error
}

// take moves the bytes of w into pending; w keeps a buffer to reuse. It is
// called under the engine lock at the end of a batch so that messages pushed
// afterwards are ordered after the batch's replies.
func (o *outbuf) take(w *[]byte) {
	o.mu.Lock()
	if len(o.pending) == 0 {
		o.pending, *w = *w, o.pending[:0]
	} else {
		o.pending = append(o.pending, *w...)
		*w = (*w)[:0]
	}
	o.mu.Unlock()
}

// push appends b to pending for a client that is not executing and reports
// whether a flusher must be started.
func (o *outbuf) push(b []byte) (needFlush bool, size int) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return false, 0
	}
	o.pending = append(o.pending, b...)
	needFlush = !o.flushing
	size = len(o.pending)
	o.mu.Unlock()
	return needFlush, size
}

// size reports the bytes waiting to be written, counting those a flusher
// is writing right now.
func (o *outbuf) size() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending) + o.inflight
}

// flush writes pending to conn until it is empty, unless another goroutine is
// already doing so (that one will write what we added). It returns the first
// write error seen on this connection.
func (o *outbuf) flush(conn net.Conn) error {
	o.mu.Lock()
	if o.flushing || o.closed {
		err := o.err
		o.mu.Unlock()
		return err
	}
	o.flushing = true
	for len(o.pending) > 0 && o.err == nil {
		buf := o.pending
		o.pending = o.spare[:0]
		o.inflight = len(buf)
		o.mu.Unlock()
		_, err := conn.Write(buf)
		o.mu.Lock()
		o.inflight = 0
		if err != nil {
			o.err = err
			o.pending = o.pending[:0]
		}
		if cap(buf) <= 64<<10 {
			o.spare = buf[:0]
		} else {
			o.spare = nil // let a huge reply's buffer go
		}
	}
	o.flushing = false
	err := o.err
	o.mu.Unlock()
	return err
}

// startWriter launches the goroutine that flushes pushed output for a client
// whose own goroutine is busy reading; it runs until close. The caller holds
// o.mu or is the only goroutine that can reach o; a second call does nothing.
func (o *outbuf) startWriter(conn net.Conn) {
	if o.kick != nil || o.closed {
		return
	}
	o.kick = make(chan struct{}, 1)
	go func() {
		for range o.kick {
			o.flush(conn)
		}
	}()
}

// wake asks the writer goroutine to flush.
func (o *outbuf) wake() {
	o.mu.Lock()
	if !o.closed && o.kick != nil {
		select {
		case o.kick <- struct{}{}:
		default:
		}
	}
	o.mu.Unlock()
}

// close drops pending output and stops the writer goroutine. Closing twice
// is harmless.
func (o *outbuf) close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.closed = true
	o.pending = nil
	o.spare = nil
	if o.kick != nil {
		close(o.kick)
	}
	o.mu.Unlock()
}
