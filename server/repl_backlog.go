package server

// The replication backlog (Redis 7.0 replication.c: createReplicationBacklog,
// feedReplicationBuffer, addReplyReplicationBacklog): the last
// repl-backlog-size bytes of the replication stream, kept so a replica
// that lost its link can continue from its offset (PSYNC ... +CONTINUE)
// instead of loading a new snapshot.
//
// Offsets are stream offsets: the first byte ever written after the
// backlog was created is master_repl_offset+1 at that time. The backlog
// holds the bytes [first, first+histlen), and the next byte written is at
// first+histlen, which is master_repl_offset+1.
//
// Engine lock.

// replBacklog is a ring buffer of the stream's last bytes.
type replBacklog struct {
	buf     []byte // the ring, len(buf) == repl-backlog-size
	idx     int    // where the next byte goes
	histlen int64  // bytes held, at most len(buf)
	first   int64  // stream offset of the oldest byte held
}

// newReplBacklog returns an empty backlog whose next byte is at offset
// next.
func newReplBacklog(size int64, next int64) *replBacklog {
	return &replBacklog{buf: make([]byte, max(size, 1)), first: next}
}

// write appends p, dropping the oldest bytes beyond the ring's size.
func (b *replBacklog) write(p []byte) {
	n := len(b.buf)
	for len(p) > 0 {
		k := copy(b.buf[b.idx:], p)
		b.idx += k
		if b.idx == n {
			b.idx = 0
		}
		p = p[k:]
		b.histlen += int64(k)
	}
	if over := b.histlen - int64(n); over > 0 {
		b.first += over
		b.histlen = int64(n)
	}
}

// next is the stream offset of the next byte written.
func (b *replBacklog) next() int64 { return b.first + b.histlen }

// has reports whether a replica asking for offset (the first byte it
// lacks) can be served from the backlog.
func (b *replBacklog) has(offset int64) bool {
	return offset >= b.first && offset <= b.first+b.histlen
}

// appendFrom appends to dst the bytes from stream offset offset to the
// end (offset must satisfy has).
func (b *replBacklog) appendFrom(dst []byte, offset int64) []byte {
	n := int64(len(b.buf))
	start := (int64(b.idx) - b.histlen + n) % n // oldest byte
	skip := offset - b.first
	pos := (start + skip) % n
	left := b.histlen - skip
	for left > 0 {
		k := min(n-pos, left)
		dst = append(dst, b.buf[pos:pos+k]...)
		left -= k
		pos = 0
	}
	return dst
}

// resize changes the ring's size keeping the newest bytes.
func (b *replBacklog) resize(size int64) {
	size = max(size, 1)
	if size == int64(len(b.buf)) {
		return
	}
	next := b.next()
	keep := min(b.histlen, size)
	data := b.appendFrom(nil, next-keep)
	*b = replBacklog{buf: make([]byte, size), first: next - keep}
	b.write(data)
}
