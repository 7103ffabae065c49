package rdb

import (
	"encoding/binary"
	"strconv"
)

// Stream values (rdb.c rdbSaveObject / rdbLoadObject for OBJ_STREAM,
// t_stream.c for the listpack layout). The body is:
//
//	nodes count, then per node: the master ID (16 bytes, big endian ms and
//	seq, as the radix tree key) and the node's listpack;
//	length, last ID (ms, seq);
//	[19 only] first ID, max deleted entry ID, entries added;
//	groups count, then per group: name, last ID, [19 only] entries read,
//	the group PEL (count, then 16-byte ID, delivery time ms, delivery
//	count), the consumers (count, then name, seen time ms, and the
//	consumer PEL as count and 16-byte IDs).
//
// A node's listpack starts with its master entry (count of live entries,
// count of deleted entries, number of master fields, the fields, 0) and
// holds every entry, live or deleted: flags, ms and seq deltas from the
// master ID, [number of fields, then field, value ...] or, with the
// same-fields flag, only the values, and the entry's element count
// (lp-count).

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

func (a StreamID) less(b StreamID) bool {
	return a.Ms < b.Ms || (a.Ms == b.Ms && a.Seq < b.Seq)
}

// Stream entry flags (STREAM_ITEM_FLAG_*).
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// StreamEntry is one entry of a node, live or deleted (a tombstone).
type StreamEntry struct {
	ID      StreamID
	Deleted bool
	// FV holds the fields and values alternating.
	FV [][]byte
}

// StreamNode is one listpack of the stream's radix tree.
type StreamNode struct {
	Master       StreamID
	MasterFields [][]byte
	Entries      []StreamEntry
}

// StreamNACK is an entry of a group's PEL.
type StreamNACK struct {
	ID            StreamID
	DeliveryTime  int64
	DeliveryCount uint64
}

// StreamConsumer is a consumer and the IDs of its pending entries.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64
	PEL      []StreamID
}

// StreamGroup is a consumer group. EntriesRead is -1 when unknown; a
// stream read from RDB_TYPE_STREAM_LISTPACKS has none recorded (the
// loader estimates it, see Stream.Legacy).
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64
	PEL         []StreamNACK
	Consumers   []StreamConsumer
}

// Stream is a stream value as persisted.
type Stream struct {
	Nodes        []StreamNode
	Length       uint64
	LastID       StreamID
	FirstID      StreamID
	MaxDeletedID StreamID
	EntriesAdded uint64
	Groups       []StreamGroup
	// Legacy says the value came from RDB_TYPE_STREAM_LISTPACKS (15),
	// which lacks FirstID, MaxDeletedID, EntriesAdded and the groups'
	// EntriesRead: the loader derives them as rdbLoadObject does.
	Legacy bool
}

func appendRawID(b []byte, id StreamID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

func rawID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

// sameFields reports whether an entry's fields are the master fields.
func sameFields(master, fv [][]byte) bool {
	if len(fv)/2 != len(master) {
		return false
	}
	for i, f := range master {
		if string(f) != string(fv[2*i]) {
			return false
		}
	}
	return true
}

// AppendListpack appends node's listpack as Redis builds it
// (streamAppendItem, with the deleted flags of streamIteratorRemoveEntry).
func (n *StreamNode) AppendListpack(lb *ListpackBuilder) []byte {
	lb.Reset()
	live := 0
	for _, e := range n.Entries {
		if !e.Deleted {
			live++
		}
	}
	lb.AppendInt(int64(live))
	lb.AppendInt(int64(len(n.Entries) - live))
	lb.AppendInt(int64(len(n.MasterFields)))
	for _, f := range n.MasterFields {
		lb.Append(string(f))
	}
	lb.AppendInt(0)
	for _, e := range n.Entries {
		flags := int64(0)
		if e.Deleted {
			flags |= streamFlagDeleted
		}
		same := sameFields(n.MasterFields, e.FV)
		if same {
			flags |= streamFlagSameFields
		}
		lb.AppendInt(flags)
		lb.AppendInt(int64(e.ID.Ms - n.Master.Ms))
		lb.AppendInt(int64(e.ID.Seq - n.Master.Seq))
		nf := int64(len(e.FV) / 2)
		count := nf + 3
		if same {
			for i := 1; i < len(e.FV); i += 2 {
				lb.Append(string(e.FV[i]))
			}
		} else {
			lb.AppendInt(nf)
			for _, s := range e.FV[:2*nf] {
				lb.Append(string(s))
			}
			count += nf + 1
		}
		lb.AppendInt(count)
	}
	return lb.Bytes()
}

// appendStream appends a stream's body as RDB_TYPE_STREAM_LISTPACKS_2.
func appendStream(b []byte, s *Stream, o *Options) []byte {
	b = AppendLen(b, uint64(len(s.Nodes)))
	var lb ListpackBuilder
	var key [16]byte
	for i := range s.Nodes {
		n := &s.Nodes[i]
		b = AppendString(b, appendRawID(key[:0], n.Master), o.Compress)
		b = AppendString(b, n.AppendListpack(&lb), o.Compress)
	}
	b = AppendLen(b, s.Length)
	b = AppendLen(b, s.LastID.Ms)
	b = AppendLen(b, s.LastID.Seq)
	b = AppendLen(b, s.FirstID.Ms)
	b = AppendLen(b, s.FirstID.Seq)
	b = AppendLen(b, s.MaxDeletedID.Ms)
	b = AppendLen(b, s.MaxDeletedID.Seq)
	b = AppendLen(b, s.EntriesAdded)
	b = AppendLen(b, uint64(len(s.Groups)))
	for i := range s.Groups {
		g := &s.Groups[i]
		b = AppendString(b, g.Name, o.Compress)
		b = AppendLen(b, g.LastID.Ms)
		b = AppendLen(b, g.LastID.Seq)
		b = AppendLen(b, uint64(g.EntriesRead)) // -1 is saved as 2^64-1, as Redis saves it
		b = AppendLen(b, uint64(len(g.PEL)))
		for _, p := range g.PEL {
			b = appendRawID(b, p.ID)
			b = AppendMillis(b, p.DeliveryTime)
			b = AppendLen(b, p.DeliveryCount)
		}
		b = AppendLen(b, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			b = AppendString(b, c.Name, o.Compress)
			b = AppendMillis(b, c.SeenTime)
			b = AppendLen(b, uint64(len(c.PEL)))
			for _, id := range c.PEL {
				b = appendRawID(b, id)
			}
		}
	}
	return b
}

// readStream reads the body of a stream of type t (15, 19 or 7.2's 21). Beyond
// Redis's own checks, every listpack is checked as sanitize-dump-payload
// checks it, and the structure the keyspace relies on is checked always:
// IDs ascending within and across nodes and not above the last ID, the
// length equal to the live entries, each pending entry owned by exactly
// one consumer.
func (d *decoder) readStream(t byte) (*Value, error) {
	s := &Stream{Legacy: t == TypeStreamListpacks}
	nodes, err := d.readCount()
	if err != nil {
		return nil, err
	}
	s.Nodes = make([]StreamNode, 0, min(nodes, 1024))
	var prev, prevMaster StreamID // the previous node's last entry and master
	var live uint64
	for i := range nodes {
		key, err := d.readString()
		if err != nil {
			return nil, err
		}
		if len(key) != 16 {
			return nil, d.fail("Stream node key entry is not the size of a stream ID")
		}
		lp, err := d.readString()
		if err != nil {
			return nil, err
		}
		n, err := decodeStreamListpack(rawID(key), lp)
		if err == errEmptyStreamNode {
			return nil, d.fail("Empty listpack inside stream")
		}
		if err != nil {
			return nil, d.fail("Stream listpack integrity check failed.")
		}
		if i > 0 && !prevMaster.less(n.Master) {
			return nil, d.fail("Listpack re-added with existing key")
		}
		if i > 0 && !prev.less(n.Entries[0].ID) {
			return nil, d.fail("Stream listpack integrity check failed.")
		}
		prev, prevMaster = n.Entries[len(n.Entries)-1].ID, n.Master
		for _, e := range n.Entries {
			if !e.Deleted {
				live++
			}
		}
		s.Nodes = append(s.Nodes, n)
	}
	lens := []*uint64{&s.Length, &s.LastID.Ms, &s.LastID.Seq}
	if !s.Legacy {
		lens = append(lens, &s.FirstID.Ms, &s.FirstID.Seq, &s.MaxDeletedID.Ms, &s.MaxDeletedID.Seq, &s.EntriesAdded)
	}
	for _, p := range lens {
		if *p, _, err = d.readLen(); err != nil {
			return nil, err
		}
	}
	if s.Length != live {
		return nil, d.fail("Stream length %d does not match its %d entries", s.Length, live)
	}
	if len(s.Nodes) > 0 && s.LastID.less(prev) {
		return nil, d.fail("Stream last ID is smaller than its last entry")
	}
	groups, err := d.readCount()
	if err != nil {
		return nil, err
	}
	s.Groups = make([]StreamGroup, 0, min(groups, 1024))
	names := make(map[string]struct{}, min(groups, 1024))
	for range groups {
		g, err := d.readStreamGroup(s.Legacy, t == TypeStreamListpack3)
		if err != nil {
			return nil, err
		}
		if _, dup := names[string(g.Name)]; dup {
			return nil, d.fail("Duplicated consumer group name %s", g.Name)
		}
		names[string(g.Name)] = struct{}{}
		s.Groups = append(s.Groups, g)
	}
	return &Value{Kind: KindStream, Stream: s}, nil
}

// readStreamGroup reads one consumer group.
// Redis 7.2's type 21 adds each consumer's active time, which 7.0 does not
// keep.
func (d *decoder) readStreamGroup(legacy, activeTime bool) (StreamGroup, error) {
	var g StreamGroup
	var err error
	if g.Name, err = d.readString(); err != nil {
		return g, err
	}
	if g.LastID.Ms, _, err = d.readLen(); err != nil {
		return g, err
	}
	if g.LastID.Seq, _, err = d.readLen(); err != nil {
		return g, err
	}
	g.EntriesRead = -1
	if !legacy {
		n, _, err := d.readLen()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	}
	n, err := d.readCount()
	if err != nil {
		return g, err
	}
	g.PEL = make([]StreamNACK, 0, min(n, 1024))
	owner := make(map[StreamID]int, min(n, 1024)) // 1 once a consumer owns it
	for range n {
		b, err := d.readSmall(16)
		if err != nil {
			return g, err
		}
		p := StreamNACK{ID: rawID(b)}
		if b, err = d.readSmall(8); err != nil {
			return g, err
		}
		p.DeliveryTime = int64(binary.LittleEndian.Uint64(b))
		if p.DeliveryCount, _, err = d.readLen(); err != nil {
			return g, err
		}
		if _, dup := owner[p.ID]; dup {
			return g, d.fail("Duplicated global PEL entry loading stream consumer group")
		}
		if len(g.PEL) > 0 && p.ID.less(g.PEL[len(g.PEL)-1].ID) {
			return g, d.fail("Stream PEL entries out of order")
		}
		owner[p.ID] = 0
		g.PEL = append(g.PEL, p)
	}
	nc, err := d.readCount()
	if err != nil {
		return g, err
	}
	g.Consumers = make([]StreamConsumer, 0, min(nc, 1024))
	seen := make(map[string]struct{}, min(nc, 1024))
	for range nc {
		var c StreamConsumer
		if c.Name, err = d.readString(); err != nil {
			return g, err
		}
		if _, dup := seen[string(c.Name)]; dup {
			return g, d.fail("Duplicate stream consumer detected.")
		}
		seen[string(c.Name)] = struct{}{}
		b, err := d.readSmall(8)
		if err != nil {
			return g, err
		}
		c.SeenTime = int64(binary.LittleEndian.Uint64(b))
		if activeTime {
			if _, err := d.readSmall(8); err != nil {
				return g, err
			}
		}
		k, err := d.readCount()
		if err != nil {
			return g, err
		}
		c.PEL = make([]StreamID, 0, min(k, 1024))
		for range k {
			b, err := d.readSmall(16)
			if err != nil {
				return g, err
			}
			id := rawID(b)
			owned, ok := owner[id]
			switch {
			case !ok:
				return g, d.fail("Consumer entry not found in group global PEL")
			case owned != 0:
				return g, d.fail("Duplicated consumer PEL entry  loading a stream consumer group")
			case len(c.PEL) > 0 && id.less(c.PEL[len(c.PEL)-1]):
				return g, d.fail("Stream PEL entries out of order")
			}
			owner[id] = 1
			c.PEL = append(c.PEL, id)
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, owned := range owner {
		if owned == 0 {
			return g, d.fail("Stream CG PEL entry without consumer")
		}
	}
	return g, nil
}

var errEmptyStreamNode = &Error{Reason: "Empty listpack inside stream"}

// decodeStreamListpack parses a node's listpack (the checks of
// streamValidateListpackIntegrity in deep mode, plus ascending IDs and
// flags that agree with the master entry's counts).
func decodeStreamListpack(master StreamID, lp []byte) (StreamNode, error) {
	n := StreamNode{Master: master}
	elems, err := DecodeListpack(lp)
	if err != nil {
		return n, err
	}
	if len(elems) == 0 {
		return n, errEmptyStreamNode
	}
	p := 0
	next := func() (string, bool) {
		if p >= len(elems) {
			return "", false
		}
		p++
		return elems[p-1], true
	}
	nextInt := func() (int64, bool) {
		s, ok := next()
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil
	}
	count, ok1 := nextInt()
	deleted, ok2 := nextInt()
	nmf, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 || count < 0 || deleted < 0 || nmf < 0 || nmf > int64(len(elems)) {
		return n, ErrListpack
	}
	n.MasterFields = make([][]byte, nmf)
	for i := range n.MasterFields {
		f, ok := next()
		if !ok {
			return n, ErrListpack
		}
		n.MasterFields[i] = []byte(f)
	}
	if zero, ok := nextInt(); !ok || zero != 0 {
		return n, ErrListpack
	}
	total := count + deleted
	if total <= 0 || total > int64(len(elems)) {
		return n, ErrListpack
	}
	n.Entries = make([]StreamEntry, 0, total)
	var live int64
	for range total {
		flags, ok1 := nextInt()
		msd, ok2 := nextInt()
		seqd, ok3 := nextInt()
		if !ok1 || !ok2 || !ok3 || flags&^(streamFlagDeleted|streamFlagSameFields) != 0 {
			return n, ErrListpack
		}
		e := StreamEntry{ID: StreamID{master.Ms + uint64(msd), master.Seq + uint64(seqd)}, Deleted: flags&streamFlagDeleted != 0}
		if len(n.Entries) == 0 && e.ID.less(master) || len(n.Entries) > 0 && !n.Entries[len(n.Entries)-1].ID.less(e.ID) {
			return n, ErrListpack
		}
		nf, extra := nmf, int64(3)
		if flags&streamFlagSameFields == 0 {
			var ok bool
			if nf, ok = nextInt(); !ok || nf < 0 || nf > int64(len(elems)-p) {
				return n, ErrListpack
			}
			extra += nf + 1
		}
		e.FV = make([][]byte, 2*nf)
		for i := range nf {
			if flags&streamFlagSameFields != 0 {
				e.FV[2*i] = n.MasterFields[i]
			} else {
				f, ok := next()
				if !ok {
					return n, ErrListpack
				}
				e.FV[2*i] = []byte(f)
			}
			v, ok := next()
			if !ok {
				return n, ErrListpack
			}
			e.FV[2*i+1] = []byte(v)
		}
		if c, ok := nextInt(); !ok || c != nf+extra {
			return n, ErrListpack
		}
		if !e.Deleted {
			live++
		}
		n.Entries = append(n.Entries, e)
	}
	if p != len(elems) || live != count {
		return n, ErrListpack
	}
	return n, nil
}
