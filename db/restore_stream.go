package db

import "github.com/miniwatchd/miniwatchd/rdb"

// Streams in and out of the RDB codec. A node becomes one listpack of
// Redis's radix tree and back, deleted entries included, so node
// boundaries, XINFO's radix-tree-keys and approximate trimming stay what
// they were on the server that saved the stream.

// streamValue converts a stream to the codec's form; the bytes alias the
// stream.
func streamValue(s *Stream) *rdb.Stream {
	v := &rdb.Stream{
		Nodes:        make([]rdb.StreamNode, len(s.nodes)),
		Length:       s.length,
		LastID:       rdb.StreamID(s.lastID),
		FirstID:      rdb.StreamID(s.firstID),
		MaxDeletedID: rdb.StreamID(s.maxDeleted),
		EntriesAdded: s.entriesAdded,
		Groups:       make([]rdb.StreamGroup, len(s.groups)),
	}
	for i, n := range s.nodes {
		rn := &v.Nodes[i]
		rn.Master = rdb.StreamID(n.master)
		rn.MasterFields = make([][]byte, len(n.fields))
		for j, f := range n.fields {
			rn.MasterFields[j] = sbytes(f)
		}
		rn.Entries = make([]rdb.StreamEntry, 0, n.live+n.deleted)
		for off := 0; off < len(n.buf); {
			e := n.decodeAt(off)
			rn.Entries = append(rn.Entries, rdb.StreamEntry{
				ID:      rdb.StreamID(e.id),
				Deleted: e.flags&entryDeleted != 0,
				FV:      n.fieldValues(e, nil),
			})
			off = e.end
		}
	}
	for i, g := range s.groups {
		rg := &v.Groups[i]
		rg.Name = sbytes(g.name)
		rg.LastID = rdb.StreamID(g.LastID)
		rg.EntriesRead = g.EntriesRead
		rg.PEL = make([]rdb.StreamNACK, len(g.pel))
		for j, p := range g.pel {
			rg.PEL[j] = rdb.StreamNACK{ID: rdb.StreamID(p.ID), DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount}
		}
		rg.Consumers = make([]rdb.StreamConsumer, len(g.consumers))
		for j, c := range g.consumers {
			rc := &rg.Consumers[j]
			rc.Name = sbytes(c.name)
			rc.SeenTime = c.SeenTime
			rc.PEL = make([]rdb.StreamID, len(c.pel))
			for k, p := range c.pel {
				rc.PEL[k] = rdb.StreamID(p.ID)
			}
		}
	}
	return v
}

// newStreamFrom builds a stream from the codec's form, which the decoder
// has checked (ascending IDs, counts, PEL ownership). A stream of the old
// type 15 gets the counters rdbLoadObject derives: entries-added is the
// length, no deleted ID, the first live entry as first ID (the largest ID
// when there is none) and estimated read counters for the groups.
func newStreamFrom(v *rdb.Stream) *Stream {
	s := newStream()
	s.nodes = make([]*streamNode, 0, len(v.Nodes))
	for i := range v.Nodes {
		rn := &v.Nodes[i]
		fv := make([][]byte, 2*len(rn.MasterFields))
		for j, f := range rn.MasterFields {
			fv[2*j] = f
		}
		n := newStreamNode(StreamID(rn.Master), fv)
		for _, e := range rn.Entries {
			off := len(n.buf)
			n.appendEntry(StreamID(e.ID), e.FV)
			if e.Deleted {
				n.markDeleted(off)
			}
		}
		n.seal()
		s.nodes = append(s.nodes, n)
		s.nodeBytes += n.memBytes()
	}
	s.length = v.Length
	s.lastID = StreamID(v.LastID)
	s.firstID = StreamID(v.FirstID)
	s.maxDeleted = StreamID(v.MaxDeletedID)
	s.entriesAdded = v.EntriesAdded
	if v.Legacy {
		s.entriesAdded = s.length
		s.maxDeleted = StreamID{}
		s.firstID = MaxStreamID
		s.Range(StreamID{}, MaxStreamID, false, func(id StreamID, _ [][]byte) bool {
			s.firstID = id
			return false
		})
	}
	for i := range v.Groups {
		rg := &v.Groups[i]
		entriesRead := rg.EntriesRead
		if v.Legacy {
			entriesRead = s.estimateDistance(StreamID(rg.LastID))
		}
		g := s.createGroup(rg.Name, StreamID(rg.LastID), entriesRead)
		if g == nil {
			continue // a duplicate name, refused by the decoder
		}
		byID := make(map[StreamID]*PendingEntry, len(rg.PEL))
		g.pel = make(pel, 0, len(rg.PEL))
		for _, p := range rg.PEL {
			e := &PendingEntry{ID: StreamID(p.ID), DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount}
			g.pel = append(g.pel, e)
			byID[e.ID] = e
		}
		s.groupBytes += int64(len(g.pel)) * pendingBytes
		for _, rc := range rg.Consumers {
			c := s.createConsumer(g, rc.Name, rc.SeenTime)
			if c == nil {
				continue // a duplicate name, refused by the decoder
			}
			c.pel = make(pel, 0, len(rc.PEL))
			for _, id := range rc.PEL {
				if e := byID[StreamID(id)]; e != nil && e.Consumer == nil {
					e.Consumer = c
					c.pel = append(c.pel, e)
				}
			}
		}
	}
	return s
}
