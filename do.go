package miniwatchd

import (
	"bufio"
	"bytes"
	"errors"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// ErrKeyNotFound is returned by the typed methods for a key (or field, or
// member) that does not exist.
var ErrKeyNotFound = errors.New("miniwatchd: key not found")

// ReplyError is a Redis error reply, its text as sent ("WRONGTYPE
// Operation against a key holding the wrong kind of value").
type ReplyError string

// Error returns the reply's text.
func (e ReplyError) Error() string { return string(e) }

// Do runs any command on the database chosen by Select and returns its
// reply as Go values: a status or bulk string as string, an integer as
// int64, an array (or RESP3 set, map, push) as []any, a null as nil, a
// RESP3 boolean as bool; an error reply is returned as a ReplyError.
func (s *Server) Do(args ...string) (any, error) {
	s.t.Helper()
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	s.mu.Lock()
	out := s.local.Do(b...)
	s.mu.Unlock()
	n, err := resptest.ReadFrame(bufio.NewReader(bytes.NewReader(out)))
	if err != nil {
		s.t.Fatalf("miniwatchd: %s: bad reply %q: %v", args[0], out, err)
	}
	v := value(n)
	if e, ok := v.(ReplyError); ok {
		return nil, e
	}
	return v, nil
}

// value converts a reply frame to Do's Go values: a null is nil, an error
// reply a ReplyError, the rest as resptest.Node.Value converts them.
func value(n resptest.Node) any {
	return n.Convert(nil, func(text string) any { return ReplyError(text) })
}

// do is Do for the typed methods: the reply, with a null as
// ErrKeyNotFound.
func (s *Server) do(args ...string) (any, error) {
	s.t.Helper()
	v, err := s.Do(args...)
	if err == nil && v == nil {
		return nil, ErrKeyNotFound
	}
	return v, err
}

// str, integer and strs convert a typed method's reply.
func str(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	s, _ := v.(string)
	return s, nil
}

func integer(v any, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return int(n), nil
}

func strs(v any, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out, nil
}
