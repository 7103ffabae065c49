package db

import (
	"encoding/binary"
	"strconv"
)

// A stream's entries are kept in nodes that mirror Redis's listpacks in the
// stream's radix tree: a node holds up to stream-node-max-entries entries
// (live and deleted) and is closed when its listpack would reach
// stream-node-max-bytes, so XINFO's radix-tree-keys and the whole-node
// behaviour of approximate trimming (MAXLEN ~, MINID ~) are Redis's. The
// node's lpBytes is the size the node's listpack has in Redis (computed
// with listpack's encoding rules); the entries themselves are packed in a
// byte buffer of our own:
//
//	flags | uvarint ms-delta | uvarint seq-delta | [uvarint nfields | fields]
//	| values
//
// where every field and value is a uvarint length and its bytes, and the
// fields are omitted when they equal the node's master fields (flag
// entrySameFields), as Redis's listpack entries omit them. Deleted entries
// stay in their node, flagged, until the node has no live entry left.

const (
	entryDeleted    = 1 << 0
	entrySameFields = 1 << 1
)

type streamNode struct {
	master  StreamID
	fields  []string // master fields
	buf     []byte
	live    int32
	deleted int32
	lpFixed int32 // listpack bytes other than the live and deleted counters
	lastOff int32 // offset of the last entry in buf (appendEntry)
}

// lpBytes is the size of the node's listpack in Redis.
func (n *streamNode) lpBytes() int64 {
	return int64(n.lpFixed) + lpIntSize(int64(n.live)) + lpIntSize(int64(n.deleted))
}

// lpIntSize is the size of an integer element of a listpack, backlen
// included.
func lpIntSize(v int64) int64 {
	var l int64
	switch {
	case v >= 0 && v <= 127:
		l = 1
	case v >= -4096 && v <= 4095:
		l = 2
	case v >= -32768 && v <= 32767:
		l = 3
	case v >= -8388608 && v <= 8388607:
		l = 4
	case v >= -2147483648 && v <= 2147483647:
		l = 5
	default:
		l = 9
	}
	return l + lpBacklenSize(l)
}

func lpBacklenSize(l int64) int64 {
	switch {
	case l < 128:
		return 1
	case l < 16384:
		return 2
	case l < 2097152:
		return 3
	case l < 268435456:
		return 4
	}
	return 5
}

// lpStrSize is the size of a string element, which listpack stores as an
// integer when it is one (lpStringToInt64).
func lpStrSize(s []byte) int64 {
	if len(s) > 0 && len(s) <= 20 {
		if v, err := strconv.ParseInt(string(s), 10, 64); err == nil && strconv.FormatInt(v, 10) == string(s) {
			return lpIntSize(v)
		}
	}
	var l int64
	switch n := int64(len(s)); {
	case n < 64:
		l = 1 + n
	case n < 4096:
		l = 2 + n
	default:
		l = 5 + n
	}
	return l + lpBacklenSize(l)
}

// newStreamNode starts a node whose master entry is id with fields fv[0],
// fv[2], ...: the listpack header and terminator, count and deleted (kept
// apart), num-fields, the fields and the master terminator.
func newStreamNode(id StreamID, fv [][]byte) *streamNode {
	n := &streamNode{master: id, fields: make([]string, len(fv)/2)}
	fixed := int64(7) + lpIntSize(int64(len(fv)/2)) + lpIntSize(0)
	for i := range n.fields {
		n.fields[i] = string(fv[2*i])
		fixed += lpStrSize(fv[2*i])
	}
	n.lpFixed = int32(fixed)
	return n
}

// sameFields reports whether fv's fields are the master fields.
func (n *streamNode) sameFields(fv [][]byte) bool {
	if len(fv)/2 != len(n.fields) {
		return false
	}
	for i, f := range n.fields {
		if f != string(fv[2*i]) {
			return false
		}
	}
	return true
}

// appendEntry adds the entry id (>= every ID in the node) with fields and
// values fv, and returns the bytes the buffer grew by.
func (n *streamNode) appendEntry(id StreamID, fv [][]byte) {
	same := n.sameFields(fv)
	flags := byte(0)
	if same {
		flags = entrySameFields
	}
	msd, seqd := id.Ms-n.master.Ms, id.Seq-n.master.Seq
	n.lastOff = int32(len(n.buf))
	b := append(n.buf, flags)
	b = binary.AppendUvarint(b, msd)
	b = binary.AppendUvarint(b, seqd)
	nf := int64(len(fv) / 2)
	lp := lpIntSize(int64(flags)) + lpIntSize(int64(msd)) + lpIntSize(int64(seqd))
	lpCount := nf + 3
	if !same {
		b = binary.AppendUvarint(b, uint64(nf))
		lp += lpIntSize(nf)
		for i := 0; i < len(fv); i += 2 {
			b = binary.AppendUvarint(b, uint64(len(fv[i])))
			b = append(b, fv[i]...)
			lp += lpStrSize(fv[i])
		}
		lpCount += nf + 1
	}
	for i := 1; i < len(fv); i += 2 {
		b = binary.AppendUvarint(b, uint64(len(fv[i])))
		b = append(b, fv[i]...)
		lp += lpStrSize(fv[i])
	}
	lp += lpIntSize(lpCount)
	n.buf = b
	n.live++
	n.lpFixed += int32(lp)
}

// nodeEntry is a decoded entry: its offset in buf, its ID, flags and the
// offset of its fields.
type nodeEntry struct {
	off   int
	id    StreamID
	flags byte
	body  int // offset past the IDs
	end   int // offset of the next entry
}

// decodeAt decodes the entry at off.
func (n *streamNode) decodeAt(off int) nodeEntry {
	e := nodeEntry{off: off, flags: n.buf[off]}
	p := off + 1
	msd, k := binary.Uvarint(n.buf[p:])
	p += k
	seqd, k := binary.Uvarint(n.buf[p:])
	p += k
	e.id = StreamID{n.master.Ms + msd, n.master.Seq + seqd}
	e.body = p
	nf := uint64(len(n.fields))
	if e.flags&entrySameFields == 0 {
		nf, k = binary.Uvarint(n.buf[p:])
		p += k
		nf *= 2
	}
	for i := uint64(0); i < nf; i++ {
		l, k := binary.Uvarint(n.buf[p:])
		p += k + int(l)
	}
	e.end = p
	return e
}

// fieldValues appends the entry's fields and values (alternating) to out;
// they alias the node and stay valid until the stream's next write.
func (n *streamNode) fieldValues(e nodeEntry, out [][]byte) [][]byte {
	p := e.body
	next := func() []byte {
		l, k := binary.Uvarint(n.buf[p:])
		p += k
		v := n.buf[p : p+int(l) : p+int(l)]
		p += int(l)
		return v
	}
	if e.flags&entrySameFields != 0 {
		for _, f := range n.fields {
			out = append(out, sbytes(f), next())
		}
		return out
	}
	nf, k := binary.Uvarint(n.buf[p:])
	p += k
	for i := uint64(0); i < nf; i++ {
		f := next()
		out = append(out, f, nil)
	}
	for i := uint64(0); i < nf; i++ {
		out[len(out)-2*int(nf)+2*int(i)+1] = next()
	}
	return out
}

// lastID returns the ID of the node's last entry, deleted or not
// (lpGetEdgeStreamID).
func (n *streamNode) lastID() StreamID { return n.decodeAt(int(n.lastOff)).id }

// markDeleted flags the entry at off as deleted.
func (n *streamNode) markDeleted(off int) {
	n.buf[off] |= entryDeleted
	n.live--
	n.deleted++
}

// memBytes is the node's heap footprint.
func (n *streamNode) memBytes() int64 {
	m := int64(96) + allocSize(cap(n.buf)) + allocSize(16*len(n.fields))
	for _, f := range n.fields {
		m += allocSize(len(f))
	}
	return m
}

// seal trims the buffer's spare capacity once the node is full.
func (n *streamNode) seal() {
	if cap(n.buf)-len(n.buf) > len(n.buf)/8 {
		n.buf = append([]byte(nil), n.buf...)
	}
}

// reserve sizes a new node's buffer, holding its first entry, for a full
// node of entries like it (at most 8 KiB): streams of similar entries then
// fill their nodes without regrowing them or leaving garbage behind.
func (n *streamNode) reserve(lim *EncodingLimits) {
	per := len(n.buf)
	want := per * 100
	if lim.StreamNodeMaxEntries > 0 && lim.StreamNodeMaxEntries < 100 {
		want = per * int(lim.StreamNodeMaxEntries)
	}
	want = min(want, 8<<10)
	if want > cap(n.buf) {
		b := make([]byte, len(n.buf), want)
		copy(b, n.buf)
		n.buf = b
	}
}
