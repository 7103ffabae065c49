package db

import (
	"slices"
	"strings"
)

// Consumer groups (Redis's streamCG, streamConsumer and streamNACK): each
// group has its last delivered ID, its logical read counter, its pending
// entries list (PEL, by ID) and its consumers (by name), each with its own
// PEL holding the same entries.

// InvalidEntriesRead is SCG_INVALID_ENTRIES_READ: the group's read counter
// is not known.
const InvalidEntriesRead int64 = -1

// StreamGroup is a consumer group.
type StreamGroup struct {
	name        string
	LastID      StreamID
	EntriesRead int64
	pel         pel
	consumers   []*StreamConsumer
}

// StreamConsumer is a consumer of a group.
type StreamConsumer struct {
	name     string
	SeenTime int64 // unix ms of its last interaction
	pel      pel
}

// PendingEntry is one entry of a PEL (streamNACK).
type PendingEntry struct {
	ID            StreamID
	DeliveryTime  int64 // unix ms
	DeliveryCount uint64
	Consumer      *StreamConsumer
}

// Name returns the group's name.
func (g *StreamGroup) Name() string { return g.name }

// Name returns the consumer's name.
func (c *StreamConsumer) Name() string { return c.name }

// Pending returns the number of pending entries of the group.
func (g *StreamGroup) Pending() int { return len(g.pel) }

// Pending returns the number of entries pending for the consumer.
func (c *StreamConsumer) Pending() int { return len(c.pel) }

// Consumers returns the group's consumers in name order.
func (g *StreamGroup) Consumers() []*StreamConsumer { return g.consumers }

// Consumer returns the consumer called name, or nil.
func (g *StreamGroup) Consumer(name []byte) *StreamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, string(name), func(c *StreamConsumer, n string) int { return strings.Compare(c.name, n) })
	if !ok {
		return nil
	}
	return g.consumers[i]
}

// PendingRange calls fn for the group's (or with c, the consumer's)
// pending entries with start <= ID <= end in ID order until fn returns
// false.
func (g *StreamGroup) PendingRange(c *StreamConsumer, start, end StreamID, fn func(*PendingEntry) bool) {
	p := g.pel
	if c != nil {
		p = c.pel
	}
	for i := p.search(start); i < len(p) && !end.Less(p[i].ID); i++ {
		if !fn(p[i]) {
			return
		}
	}
}

// PendingEntry returns the group's pending entry id, or nil.
func (g *StreamGroup) PendingEntry(id StreamID) *PendingEntry { return g.pel.find(id) }

// Groups returns the stream's groups in name order.
func (s *Stream) Groups() []*StreamGroup { return s.groups }

// Group returns the group called name, or nil.
func (s *Stream) Group(name []byte) *StreamGroup {
	i, ok := s.groupIndex(name)
	if !ok {
		return nil
	}
	return s.groups[i]
}

func (s *Stream) groupIndex(name []byte) (int, bool) {
	return slices.BinarySearchFunc(s.groups, string(name), func(g *StreamGroup, n string) int { return strings.Compare(g.name, n) })
}

// pel is a PEL: entries in ID order.
type pel []*PendingEntry

func (p pel) search(id StreamID) int {
	i, _ := slices.BinarySearchFunc(p, id, func(e *PendingEntry, id StreamID) int { return e.ID.Cmp(id) })
	return i
}

func (p pel) find(id StreamID) *PendingEntry {
	if i := p.search(id); i < len(p) && p[i].ID == id {
		return p[i]
	}
	return nil
}

func (p *pel) insert(e *PendingEntry) {
	if n := len(*p); n == 0 || (*p)[n-1].ID.Less(e.ID) {
		*p = append(*p, e)
		return
	}
	i := p.search(e.ID)
	*p = slices.Insert(*p, i, e)
}

func (p *pel) remove(id StreamID) {
	if len(*p) > 0 && (*p)[0].ID == id {
		(*p)[0] = nil
		*p = (*p)[1:]
		return
	}
	if i := p.search(id); i < len(*p) && (*p)[i].ID == id {
		*p = slices.Delete(*p, i, i+1)
	}
}

// Memory estimates of the group structures.
const (
	groupBytes    = 128
	consumerBytes = 96
	pendingBytes  = 80 // the entry and its slots in two PELs
)

// createGroup adds a group; nil when one of that name exists.
func (s *Stream) createGroup(name []byte, id StreamID, entriesRead int64) *StreamGroup {
	i, ok := s.groupIndex(name)
	if ok {
		return nil
	}
	g := &StreamGroup{name: string(name), LastID: id, EntriesRead: entriesRead}
	s.groups = slices.Insert(s.groups, i, g)
	s.groupBytes += groupBytes + allocSize(len(name))
	return g
}

// destroyGroup removes a group; false when missing.
func (s *Stream) destroyGroup(name []byte) bool {
	i, ok := s.groupIndex(name)
	if !ok {
		return false
	}
	g := s.groups[i]
	s.groupBytes -= groupBytes + allocSize(len(g.name)) + int64(len(g.pel))*pendingBytes
	for _, c := range g.consumers {
		s.groupBytes -= consumerBytes + allocSize(len(c.name))
	}
	s.groups = slices.Delete(s.groups, i, i+1)
	return true
}

// createConsumer adds a consumer; nil when one of that name exists.
func (s *Stream) createConsumer(g *StreamGroup, name []byte, now int64) *StreamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, string(name), func(c *StreamConsumer, n string) int { return strings.Compare(c.name, n) })
	if ok {
		return nil
	}
	c := &StreamConsumer{name: string(name), SeenTime: now}
	g.consumers = slices.Insert(g.consumers, i, c)
	s.groupBytes += consumerBytes + allocSize(len(name))
	return c
}

// deleteConsumer removes a consumer and its pending entries from the
// group's PEL, returning how many were pending.
func (s *Stream) deleteConsumer(g *StreamGroup, c *StreamConsumer) int {
	n := len(c.pel)
	for _, e := range c.pel {
		g.pel.remove(e.ID)
	}
	s.groupBytes -= int64(n)*pendingBytes + consumerBytes + allocSize(len(c.name))
	i, _ := slices.BinarySearchFunc(g.consumers, c.name, func(c *StreamConsumer, n string) int { return strings.Compare(c.name, n) })
	g.consumers = slices.Delete(g.consumers, i, i+1)
	return n
}

// addPending creates a pending entry for c.
func (s *Stream) addPending(g *StreamGroup, c *StreamConsumer, id StreamID, now int64) *PendingEntry {
	e := &PendingEntry{ID: id, DeliveryTime: now, DeliveryCount: 1, Consumer: c}
	g.pel.insert(e)
	c.pel.insert(e)
	s.groupBytes += pendingBytes
	return e
}

// ackPending removes e from both PELs.
func (s *Stream) ackPending(g *StreamGroup, e *PendingEntry) {
	g.pel.remove(e.ID)
	e.Consumer.pel.remove(e.ID)
	s.groupBytes -= pendingBytes
}

// movePending gives e to consumer c.
func movePending(e *PendingEntry, c *StreamConsumer) {
	if e.Consumer == c {
		return
	}
	e.Consumer.pel.remove(e.ID)
	e.Consumer = c
	c.pel.insert(e)
}

func (g *StreamGroup) dup() *StreamGroup {
	n := &StreamGroup{name: g.name, LastID: g.LastID, EntriesRead: g.EntriesRead}
	byOld := make(map[*StreamConsumer]*StreamConsumer, len(g.consumers))
	n.consumers = make([]*StreamConsumer, len(g.consumers))
	for i, c := range g.consumers {
		nc := &StreamConsumer{name: c.name, SeenTime: c.SeenTime}
		n.consumers[i] = nc
		byOld[c] = nc
	}
	n.pel = make(pel, len(g.pel))
	for i, e := range g.pel {
		ne := *e
		ne.Consumer = byOld[e.Consumer]
		n.pel[i] = &ne
		ne.Consumer.pel = append(ne.Consumer.pel, &ne)
	}
	return n
}
