package db

import (
	"slices"
	"unsafe"
)

// Stream values (Redis t_stream.c and stream.h): entries in ID order in
// nodes (streamnode.go), the stream's counters, and its consumer groups
// (streamgroup.go). Exported methods only read; bytes they pass out alias
// the stream and are valid until its next write.

// Events raised by stream writes.
var (
	EvXAdd                 = Event{ClassStream, "xadd"}
	EvXDel                 = Event{ClassStream, "xdel"}
	EvXTrim                = Event{ClassStream, "xtrim"}
	EvXSetID               = Event{ClassStream, "xsetid"}
	EvXGroupCreate         = Event{ClassStream, "xgroup-create"}
	EvXGroupCreateConsumer = Event{ClassStream, "xgroup-createconsumer"}
	EvXGroupDelConsumer    = Event{ClassStream, "xgroup-delconsumer"}
	EvXGroupDestroy        = Event{ClassStream, "xgroup-destroy"}
	EvXGroupSetID          = Event{ClassStream, "xgroup-setid"}
)

// Stream is a stream value.
type Stream struct {
	memAccount
	nodes        []*streamNode
	length       uint64
	lastID       StreamID
	firstID      StreamID
	maxDeleted   StreamID
	entriesAdded uint64
	groups       []*StreamGroup // by name
	nodeBytes    int64          // memBytes of the nodes
	groupBytes   int64          // groups, consumers and PEL entries
	read         readHint       // where the last ReadFrom stopped
}

// readHint is where the last ReadFrom stopped: the offset in node of the
// entry after the last one it visited, whose ID was prev. Every entry
// before off has an ID <= prev, which stays true while the node is in the
// stream (a node only grows at its end; deletions flag entries in place),
// so a read from a start above prev in the same node may begin at off.
// Written only by ReadFrom and cleared when the node leaves the stream;
// it is no part of the stream's value.
type readHint struct {
	node *streamNode
	off  int
	prev StreamID
}

func newStream() *Stream { return &Stream{} }

// Len returns the number of live entries (XLEN).
func (s *Stream) Len() uint64 { return s.length }

// LastID returns the last generated ID (last-generated-id).
func (s *Stream) LastID() StreamID { return s.lastID }

// FirstID returns the recorded first entry ID (recorded-first-entry-id).
func (s *Stream) FirstID() StreamID { return s.firstID }

// MaxDeletedID returns max-deleted-entry-id.
func (s *Stream) MaxDeletedID() StreamID { return s.maxDeleted }

// EntriesAdded returns entries-added.
func (s *Stream) EntriesAdded() uint64 { return s.entriesAdded }

// Nodes returns the number of nodes (XINFO's radix-tree-keys).
func (s *Stream) Nodes() int { return len(s.nodes) }

func (s *Stream) encoding() string { return "stream" }

func (s *Stream) memUsage() int64 {
	return int64(unsafe.Sizeof(Stream{})) + allocSize(8*cap(s.nodes)) + s.nodeBytes + s.groupBytes
}

// RaxNodes returns the number of nodes a radix tree holding the nodes'
// 128-bit big-endian master IDs has in Redis (XINFO's radix-tree-nodes):
// one per branch point and key, plus one compressed node for every edge of
// two or more bytes leaving a branch point.
func (s *Stream) RaxNodes() int {
	keys := make([][16]byte, len(s.nodes))
	for i, n := range s.nodes {
		putBE(keys[i][:8], n.master.Ms)
		putBE(keys[i][8:], n.master.Seq)
	}
	if len(keys) == 0 {
		return 1
	}
	return 1 + raxCount(keys, 0)
}

func putBE(b []byte, v uint64) {
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

// raxCount counts the nodes below the position at depth d that keys (sorted,
// sharing their first d bytes) hang from.
func raxCount(keys [][16]byte, d int) int {
	if len(keys) == 1 {
		if d == 16 {
			return 0
		}
		return 1 // compressed run to the key's leaf
	}
	l := d
	for l < 16 && keys[0][l] == keys[len(keys)-1][l] {
		l++
	}
	if l > d { // a compressed node leading to the branch point at l
		return 1 + raxCount(keys, l)
	}
	n := 0
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j][d] == keys[i][d] {
			j++
		}
		group := keys[i:j]
		// depth of the child's next position
		cl := d + 1
		if len(group) == 1 {
			cl = 16
		} else {
			for cl < 16 && group[0][cl] == group[len(group)-1][cl] {
				cl++
			}
		}
		if cl-d >= 2 {
			n++ // compressed node for the rest of the edge
		}
		n++ // the position node
		n += raxChildren(group, cl)
		i = j
	}
	return n
}

// raxChildren counts below a branch point or leaf at depth d.
func raxChildren(keys [][16]byte, d int) int {
	if len(keys) == 1 {
		return 0
	}
	return raxCount(keys, d)
}

// limits of the nodes, from stream-node-max-bytes and -entries.
func (s *Stream) tailFull(n *streamNode, fv [][]byte, lim *EncodingLimits) bool {
	maxBytes := lim.StreamNodeMaxBytes
	if maxBytes <= 0 || maxBytes > 1<<30 {
		maxBytes = 1 << 30
	}
	var tot int64
	for _, b := range fv {
		tot += int64(len(b))
	}
	if n.lpBytes()+tot >= maxBytes {
		return true
	}
	return lim.StreamNodeMaxEntries > 0 && int64(n.live+n.deleted) >= lim.StreamNodeMaxEntries
}

// appendEntry adds the entry id, which must be greater than lastID.
func (s *Stream) appendEntry(id StreamID, fv [][]byte, lim *EncodingLimits) {
	var n *streamNode
	if len(s.nodes) > 0 {
		n = s.nodes[len(s.nodes)-1]
		if s.tailFull(n, fv, lim) {
			s.nodeBytes -= n.memBytes()
			n.seal()
			s.nodeBytes += n.memBytes()
			n = nil
		}
	}
	if n == nil {
		n = newStreamNode(id, fv)
		s.nodes = append(s.nodes, n)
	} else {
		s.nodeBytes -= n.memBytes()
	}
	n.appendEntry(id, fv)
	if n.live == 1 && n.deleted == 0 {
		n.reserve(lim)
	}
	s.nodeBytes += n.memBytes()
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// removeNode drops node i.
func (s *Stream) removeNode(i int) {
	s.nodeBytes -= s.nodes[i].memBytes()
	if s.read.node == s.nodes[i] {
		s.read = readHint{}
	}
	if i == 0 {
		s.nodes[0] = nil
		s.nodes = s.nodes[1:]
		if cap(s.nodes) > 64 && len(s.nodes) < cap(s.nodes)/4 {
			s.nodes = slices.Clip(append([]*streamNode(nil), s.nodes...))
		}
		return
	}
	s.nodes = slices.Delete(s.nodes, i, i+1)
}

// nodeFor returns the index of the last node whose master ID is <= id, or
// 0.
func (s *Stream) nodeFor(id StreamID) int {
	i, _ := slices.BinarySearchFunc(s.nodes, id, func(n *streamNode, id StreamID) int { return n.master.Cmp(id) })
	if i < len(s.nodes) && s.nodes[i].master == id {
		return i
	}
	if i > 0 {
		i--
	}
	return i
}

// deleteID marks the live entry id deleted (streamDeleteItem) and reports
// whether it existed.
func (s *Stream) deleteID(id StreamID) bool {
	if len(s.nodes) == 0 {
		return false
	}
	i := s.nodeFor(id)
	n := s.nodes[i]
	for off := 0; off < len(n.buf); {
		e := n.decodeAt(off)
		if e.id == id {
			if e.flags&entryDeleted != 0 {
				return false
			}
			if n.live == 1 {
				s.removeNode(i)
			} else {
				n.markDeleted(off)
			}
			s.length--
			return true
		}
		if id.Less(e.id) {
			return false
		}
		off = e.end
	}
	return false
}

// updateFirstID recomputes firstID after a removal.
func (s *Stream) updateFirstID() {
	if s.length == 0 {
		s.firstID = StreamID{}
		return
	}
	s.Range(StreamID{}, MaxStreamID, false, func(id StreamID, _ [][]byte) bool {
		s.firstID = id
		return false
	})
}

// Range calls fn for every live entry with start <= ID <= end, in ID order
// (or reverse order with rev), until fn returns false. fv holds the
// fields and values alternating; it and its bytes are reused/aliased.
func (s *Stream) Range(start, end StreamID, rev bool, fn func(id StreamID, fv [][]byte) bool) {
	if len(s.nodes) == 0 || end.Less(start) {
		return
	}
	if !rev {
		s.forward(start, end, nil, fn)
		return
	}
	var fvBuf [16][]byte
	var entBuf [128]nodeEntry
	ents := entBuf[:0]
	for i := s.nodeFor(end); i >= 0; i-- {
		n := s.nodes[i]
		ents = ents[:0]
		for off := 0; off < len(n.buf); {
			e := n.decodeAt(off)
			off = e.end
			ents = append(ents, e)
		}
		for j := len(ents) - 1; j >= 0; j-- {
			e := ents[j]
			if e.flags&entryDeleted != 0 || end.Less(e.id) {
				continue
			}
			if e.id.Less(start) {
				return
			}
			if !fn(e.id, n.fieldValues(e, fvBuf[:0])) {
				return
			}
		}
	}
}

// Get returns the live entry id's fields and values, or nil.
func (s *Stream) Get(id StreamID, out [][]byte) ([][]byte, bool) {
	found := false
	s.Range(id, id, false, func(_ StreamID, fv [][]byte) bool {
		out = append(out, fv...)
		found = true
		return false
	})
	return out, found
}

// Has reports whether id is a live entry.
func (s *Stream) Has(id StreamID) bool {
	found := false
	s.Range(id, id, false, func(StreamID, [][]byte) bool { found = true; return false })
	return found
}

// ReadFrom calls fn for every live entry with an ID >= start, in ID
// order, until fn returns false: Range to the stream's end, for the reads
// that take what follows the last ID they saw (XREADGROUP >, XREAD). A
// read that starts where the previous ReadFrom stopped (consumers taking
// turns on one stream) skips the node's entries before it instead of
// decoding them again. Engine lock held: ReadFrom updates the stream's
// read hint.
func (s *Stream) ReadFrom(start StreamID, fn func(id StreamID, fv [][]byte) bool) {
	s.forward(start, MaxStreamID, &s.read, fn)
}

// forward is Range in ID order. With a hint it begins in the hint's node
// at the hint's offset when start is past the hint's last ID, and leaves
// the hint where it stopped.
func (s *Stream) forward(start, end StreamID, hint *readHint, fn func(id StreamID, fv [][]byte) bool) {
	var fvBuf [16][]byte
	for i := s.nodeFor(start); i < len(s.nodes); i++ {
		n := s.nodes[i]
		if end.Less(n.master) {
			return
		}
		off := 0
		if hint != nil && hint.node == n && hint.prev.Less(start) && hint.off <= len(n.buf) {
			off = hint.off
		}
		for off < len(n.buf) {
			e := n.decodeAt(off)
			off = e.end
			if e.flags&entryDeleted != 0 || e.id.Less(start) {
				continue
			}
			if end.Less(e.id) {
				return
			}
			if !fn(e.id, n.fieldValues(e, fvBuf[:0])) {
				if hint != nil {
					*hint = readHint{node: n, off: off, prev: e.id}
				}
				return
			}
		}
		if hint != nil && off > 0 {
			*hint = readHint{node: n, off: off, prev: n.lastID()}
		}
	}
}

// LastValid returns the ID of the last live entry (streamLastValidID), 0-0
// when empty.
func (s *Stream) LastValid() StreamID {
	var last StreamID
	if len(s.nodes) == 0 {
		return last
	}
	// A node always holds a live entry: the last live one is in the last
	// node, and usually is its last entry (streamLastValidID's first step
	// back from the end).
	n := s.nodes[len(s.nodes)-1]
	if e := n.decodeAt(int(n.lastOff)); e.flags&entryDeleted == 0 {
		return e.id
	}
	for off := 0; off < len(n.buf); {
		e := n.decodeAt(off)
		if e.flags&entryDeleted == 0 {
			last = e.id
		}
		off = e.end
	}
	return last
}

// TrimSpec is a trimming strategy (XADD's and XTRIM's MAXLEN/MINID).
type TrimSpec struct {
	MinID  bool // MINID instead of MAXLEN
	MaxLen int64
	ID     StreamID
	Approx bool
	Limit  int64 // 0 for none
}

// trim is streamTrim: whole nodes first, then (unless approximate) entries
// inside the first node left; it returns how many entries it removed.
func (s *Stream) trim(t TrimSpec) int64 {
	var deleted int64
	for len(s.nodes) > 0 {
		if !t.MinID && s.length <= uint64(t.MaxLen) {
			break
		}
		n := s.nodes[0]
		entries := int64(n.live)
		if t.Limit != 0 && deleted+entries > t.Limit {
			break
		}
		var remove bool
		if !t.MinID {
			remove = s.length-uint64(entries) >= uint64(t.MaxLen)
		} else {
			remove = n.lastID().Less(t.ID)
		}
		if remove {
			s.removeNode(0)
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if t.Approx {
			break
		}
		for off := 0; off < len(n.buf); {
			e := n.decodeAt(off)
			if !t.MinID && s.length <= uint64(t.MaxLen) || t.MinID && !e.id.Less(t.ID) {
				break
			}
			if e.flags&entryDeleted == 0 {
				n.markDeleted(off)
				s.length--
				deleted++
			}
			off = e.end
		}
		break
	}
	s.updateFirstID()
	return deleted
}

func (s *Stream) dup() object {
	c := *s
	c.memAccount = memAccount{}
	c.read = readHint{}
	c.nodes = make([]*streamNode, len(s.nodes))
	for i, n := range s.nodes {
		nn := *n
		nn.buf = append([]byte(nil), n.buf...)
		nn.fields = slices.Clone(n.fields)
		c.nodes[i] = &nn
	}
	c.groups = make([]*StreamGroup, len(s.groups))
	for i, g := range s.groups {
		c.groups[i] = g.dup()
	}
	return &c
}
