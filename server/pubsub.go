package server

import (
	"sort"
	"unsafe"

	"github.com/miniwatchd/miniwatchd/glob"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Pub/Sub (Redis 7.0 pubsub.c): the subscription tables, delivery of
// messages and the subscribe/unsubscribe replies. Keyspace notifications
// (notify.go) and client-side caching invalidations (tracking.go) publish
// through the same tables and the same delivery path (push.go).
//
// Everything here runs under the engine lock.

// subKind is one of the three subscription namespaces.
type subKind uint8

const (
	kindChannel subKind = iota // SUBSCRIBE / PUBLISH
	kindPattern                // PSUBSCRIBE
	kindShard                  // SSUBSCRIBE / SPUBLISH
)

// subReplyNames are the first element of the confirmation each kind sends.
var subReplyNames = [3]struct{ sub, unsub string }{
	{"subscribe", "unsubscribe"},
	{"psubscribe", "punsubscribe"},
	{"ssubscribe", "sunsubscribe"},
}

// pubsubState is the server-wide state of pub/sub, keyspace notifications and
// client-side caching. The zero value is ready to use. Guarded by the engine
// lock.
type pubsubState struct {
	// subs maps, for each kind, a channel (or pattern) to its subscribers in
	// subscription order.
	subs [3]map[string]*orderedSet[*client]
	// patterns lists the subscribed patterns in the order they first
	// appeared; PUBLISH tries them in this order (Redis walks a dict, whose
	// order is unspecified).
	patterns orderedSet[string]

	// current is the client whose command is being processed; it is only
	// meaningful while current.executing (see currentLocked).
	current *client

	tracking trackingState

	// obufDisconnections counts clients closed for overcoming
	// client-output-buffer-limit.
	obufDisconnections int64

	// Scratch buffers reused by every publication: the channel and message
	// of a keyspace notification, and the frames of one message.
	chanBuf, msgBuf, frame2, frame3 []byte
}

// clientPubSub is a client's side of pub/sub and client-side caching.
// Guarded by the engine lock.
type clientPubSub struct {
	subs [3]orderedSet[string] // channels, patterns, shard channels
	// softLimitSince is the clock second at which the output buffer was
	// first seen above the soft limit of client-output-buffer-limit, or 0.
	softLimitSince int64
	tracking       clientTracking
}

// subscribed reports whether the client is in pub/sub mode (Redis's
// CLIENT_PUBSUB flag): it holds at least one subscription of any kind.
func (p *clientPubSub) subscribed() bool {
	return p.subs[kindChannel].len()+p.subs[kindPattern].len()+p.subs[kindShard].len() > 0
}

// count is the number Redis puts in a (un)subscribe confirmation: channels
// plus patterns, or shard channels for the shard kind.
func (p *clientPubSub) count(k subKind) int {
	if k == kindShard {
		return p.subs[kindShard].len()
	}
	return p.subs[kindChannel].len() + p.subs[kindPattern].len()
}

// currentLocked returns the client whose command is running, or nil when
// the engine works for nobody (active expiry, cron).
func (s *Server) currentLocked() *client {
	if c := s.ps.current; c != nil && c.executing {
		return c
	}
	return nil
}

// subscribeLocked adds one subscription of kind k and writes its
// confirmation (Redis's pubsubSubscribeChannel / pubsubSubscribePattern).
func (s *Server) subscribeLocked(c *client, k subKind, name []byte) {
	if c.ps.subs[k].add(string(name)) {
		m := s.ps.subs[k]
		if m == nil {
			m = make(map[string]*orderedSet[*client])
			s.ps.subs[k] = m
		}
		set := m[string(name)]
		if set == nil {
			set = &orderedSet[*client]{}
			m[string(name)] = set
			if k == kindPattern {
				s.ps.patterns.add(string(name))
			}
		}
		set.add(c)
	}
	w := &c.w
	w.Push(3)
	w.BulkString(subReplyNames[k].sub)
	w.Bulk(name)
	w.Int(int64(c.ps.count(k)))
}

// unsubscribeLocked removes one subscription and, with notify, writes the
// confirmation (which Redis sends whether or not the client was subscribed).
// It reports whether the subscription existed.
func (s *Server) unsubscribeLocked(c *client, k subKind, name string, notify bool) bool {
	removed := c.ps.subs[k].remove(name)
	if removed {
		m := s.ps.subs[k]
		if set := m[name]; set != nil {
			set.remove(c)
			if set.len() == 0 {
				delete(m, name)
				if k == kindPattern {
					s.ps.patterns.remove(name)
				}
			}
		}
	}
	if notify {
		w := &c.w
		w.Push(3)
		w.BulkString(subReplyNames[k].unsub)
		w.BulkString(name)
		w.Int(int64(c.ps.count(k)))
	}
	return removed
}

// unsubscribeAllLocked drops every subscription of kind k, in subscription
// order. With notify it confirms each one, or sends a single confirmation
// with a null name when there was none.
func (s *Server) unsubscribeAllLocked(c *client, k subKind, notify bool) int {
	n := 0
	for _, name := range c.ps.subs[k].snapshot() {
		if s.unsubscribeLocked(c, k, name, notify) {
			n++
		}
	}
	if notify && n == 0 {
		w := &c.w
		w.Push(3)
		w.BulkString(subReplyNames[k].unsub)
		w.Null()
		w.Int(int64(c.ps.count(k)))
	}
	return n
}

// dropSubscriptionsLocked removes every subscription of c without replies
// (disconnect and RESET).
func (s *Server) dropSubscriptionsLocked(c *client) {
	for k := kindChannel; k <= kindShard; k++ {
		if c.ps.subs[k].len() > 0 {
			s.unsubscribeAllLocked(c, k, false)
		}
	}
}

// hasSubscribersLocked reports whether a PUBLISH could reach anybody; the
// keyspace notifications use it to skip building channel names.
func (s *Server) hasSubscribersLocked() bool {
	return len(s.ps.subs[kindChannel]) > 0 || s.ps.patterns.len() > 0
}

// publishLocked sends msg on channel to its subscribers, then (unless shard)
// to the subscribers of every matching pattern, and returns how many
// deliveries it made (Redis's pubsubPublishMessage). channel and msg may be
// scratch buffers: they are copied into each receiver's output.
func (s *Server) publishLocked(channel, msg []byte, shard bool) int {
	ps := &s.ps
	n := 0
	k, kind := kindChannel, "message"
	if shard {
		k, kind = kindShard, "smessage"
	}
	if set := ps.subs[k][string(channel)]; set != nil {
		f2, f3 := ps.buildFrames(kind, nil, channel, msg)
		set.each(func(c *client) bool {
			s.deliverLocked(c, pickFrame(c, f2, f3))
			n++
			return true
		})
	}
	if shard || ps.patterns.len() == 0 {
		return n
	}
	ps.patterns.each(func(pat string) bool {
		if !glob.Match(strBytes(pat), channel) {
			return true
		}
		set := ps.subs[kindPattern][pat]
		if set == nil {
			return true
		}
		f2, f3 := ps.buildFrames("pmessage", strBytes(pat), channel, msg)
		set.each(func(c *client) bool {
			s.deliverLocked(c, pickFrame(c, f2, f3))
			n++
			return true
		})
		return true
	})
	return n
}

// buildFrames encodes one message for RESP2 ("*3"/"*4" array) and RESP3
// (">3"/">4" push) receivers into the state's scratch buffers. The two
// differ only in their first byte. pattern is nil for a plain message.
func (ps *pubsubState) buildFrames(kind string, pattern, channel, msg []byte) (resp2, resp3 []byte) {
	b := ps.frame2[:0]
	if pattern != nil {
		b = append(b, "*4\r\n"...)
	} else {
		b = append(b, "*3\r\n"...)
	}
	b = protocol.AppendBulkString(b, kind)
	if pattern != nil {
		b = protocol.AppendBulk(b, pattern)
	}
	b = protocol.AppendBulk(b, channel)
	b = protocol.AppendBulk(b, msg)
	ps.frame2 = b
	ps.frame3 = append(ps.frame3[:0], b...)
	ps.frame3[0] = '>'
	return ps.frame2, ps.frame3
}

// pickFrame returns the encoding of a message for c's protocol.
func pickFrame(c *client, resp2, resp3 []byte) []byte {
	if c.w.Proto == 3 {
		return resp3
	}
	return resp2
}

// channelNamesLocked returns the channels of kind k that match pattern (all
// of them when pattern is nil), sorted. Redis lists them in the order of its
// hash table, which is unspecified.
func (s *Server) channelNamesLocked(k subKind, pattern []byte) []string {
	m := s.ps.subs[k]
	out := make([]string, 0, len(m))
	for name := range m {
		if pattern == nil || glob.Match(pattern, strBytes(name)) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// subscriberCountLocked returns how many clients subscribed to name.
func (s *Server) subscriberCountLocked(k subKind, name []byte) int {
	if set := s.ps.subs[k][string(name)]; set != nil {
		return set.len()
	}
	return 0
}

// strBytes views s as bytes without copying; the result must not be
// modified.
func strBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
