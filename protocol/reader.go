package protocol

import (
	"bytes"
	"io"
	"math"
	"sync/atomic"
)

// Sizes from Redis 7.0.15 server.h and networking.c.
const (
	// ioBufLen is PROTO_IOBUF_LEN: Fill makes at least this much room
	// before an ordinary read.
	ioBufLen = 16 * 1024
	// inlineMaxSize is PROTO_INLINE_MAX_SIZE: more unparsed bytes than this
	// without the terminator of an inline request, a multibulk count line or
	// a bulk length line is a protocol error.
	inlineMaxSize = 64 * 1024
	// mbulkBigArg is PROTO_MBULK_BIG_ARG: for a bulk at least this long Fill
	// sizes the buffer to hold exactly the rest of the bulk and reads no more.
	mbulkBigArg = 32 * 1024
	// unauthMaxArgs and unauthMaxBulkLen are the limits Redis 7.0 puts on a
	// client that has not authenticated yet (processMultibulkBuffer).
	unauthMaxArgs    = 10
	unauthMaxBulkLen = 16384
	// greedyLimit is sdsMakeRoomFor's SDS_MAX_PREALLOC: below it the buffer
	// doubles when it grows.
	greedyLimit = 1 << 20
	// shrinkAbove: a buffer with more capacity than this is replaced by a
	// small one at the next Fill that needs at most a quarter of it.
	shrinkAbove = 1 << 20
	// maxKeptArgs: argument tables that grew past this many entries for one
	// batch are released at the next Fill.
	maxKeptArgs = 1 << 16
	// maxPrealloc bounds the up-front growth for one declared bulk; a larger
	// bulk (only possible with a MaxBulkLen above it) is read with ordinary
	// growth instead.
	maxPrealloc = 1 << 30
)

// DefaultMaxBulkLen is the default of proto-max-bulk-len (512MB).
const DefaultMaxBulkLen = 512 * 1024 * 1024

// ProtocolError is a malformed request. Its Error text is exactly what Redis
// 7.0.15 sends after "-ERR " (for example "Protocol error: invalid bulk
// length"). The server replies with it, after the replies to the commands
// parsed before it, and then closes the connection.
type ProtocolError struct{ msg string }

// Error returns the reply text without the "ERR " prefix.
func (e *ProtocolError) Error() string { return e.msg }

// Reply returns the complete error reply line, "ERR " included, in the form
// the rest of the package uses for error replies.
func (e *ProtocolError) Reply() Error { return Error("ERR " + e.msg) }

// The protocol errors of Redis 7.0.15 networking.c. Compare with ==, or use
// errors.As with *ProtocolError to catch "expected '$'" as well.
var (
	ErrTooBigInlineRequest    = &ProtocolError{"Protocol error: too big inline request"}
	ErrUnbalancedQuotes       = &ProtocolError{"Protocol error: unbalanced quotes in request"}
	ErrTooBigMultibulkCount   = &ProtocolError{"Protocol error: too big mbulk count string"}
	ErrInvalidMultibulkLength = &ProtocolError{"Protocol error: invalid multibulk length"}
	ErrUnauthMultibulkLength  = &ProtocolError{"Protocol error: unauthenticated multibulk length"}
	ErrTooBigBulkCount        = &ProtocolError{"Protocol error: too big bulk count string"}
	ErrInvalidBulkLength      = &ProtocolError{"Protocol error: invalid bulk length"}
	ErrUnauthBulkLength       = &ProtocolError{"Protocol error: unauthenticated bulk length"}
)

// errExpectedDollar is the error for a bulk that does not start with '$'.
// Redis formats the byte with %c and then turns CR and LF into spaces
// (addReplyErrorFormat); a NUL cannot get here.
func errExpectedDollar(got byte) *ProtocolError {
	if got == '\r' || got == '\n' {
		got = ' '
	}
	return &ProtocolError{"Protocol error: expected '$', got '" + string([]byte{got}) + "'"}
}

// Parser holds one client's query buffer and cuts requests out of it the way
// Redis 7.0.15 does (networking.c processInputBuffer, processInlineBuffer,
// processMultibulkBuffer), error texts and quirks included:
//
//   - A request starting with '*' is multibulk; anything else is an inline
//     (telnet) request split by sdssplitargs rules (see SplitArgs).
//   - Line terminators are looked for as strchr does on Redis's
//     NUL-terminated buffer: a NUL byte before the terminator hides it, and
//     the parser waits for more data (until the 64KB limit errors).
//   - The byte after a count line's '\r', and the two bytes after a bulk's
//     payload, are skipped without being checked.
//   - A multibulk count <= 0 is an empty command.
//
// The zero value is ready to use. A Parser is not safe for concurrent use.
//
// Lifetimes: the argument slices Next returns alias the query buffer (or, for
// inline requests with quotes, a side buffer) and stay valid until the next
// call to Fill, so a caller may keep the arguments of every command of one
// batch; it must copy what it keeps longer. It may modify argument bytes in
// place. Each Next returns a fresh slice of argument slices.
type Parser struct {
	// MaxBulkLen is proto-max-bulk-len: a longer declared bulk is
	// "invalid bulk length". Zero means DefaultMaxBulkLen.
	MaxBulkLen int64
	// Unauthenticated turns on Redis 7.0's limits for clients that have not
	// authenticated (more than 10 arguments or a bulk over 16384 bytes is an
	// error). It is read when a count or length line is parsed, so a caller
	// that runs AUTH must do so before it calls Next again.
	Unauthenticated bool

	buf []byte // query buffer; buf[pos:] is not parsed yet
	pos int    // Redis's qb_pos
	// bufCap mirrors cap(buf) for Cap, which other goroutines call (the
	// memory cron, CLIENT LIST) while the connection's goroutine fills buf.
	bufCap atomic.Int64

	// A multibulk command in progress (Redis's multibulklen and bulklen).
	pending  int       // bulks still expected; 0 when none is in progress
	bulkLen  int64     // length of the bulk being read; -1 before its length line
	cmdStart int       // offset of the command's '*' in buf
	spans    []argSpan // arguments read so far, as offsets into buf

	// Terminator search state for the line at pos, so a line that arrives a
	// byte at a time is scanned once: scanned bytes hold no terminator and no
	// NUL; scanNUL records that a NUL hides any terminator.
	scanned int
	scanNUL bool

	arena [][]byte // argument slices handed out since the last Fill
	store []byte   // bytes of quoted inline arguments since the last Fill
	err   error    // sticky protocol error
}

type argSpan struct{ start, end int }

// Buffered reports the bytes received but not parsed yet (CLIENT LIST qbuf).
func (p *Parser) Buffered() int { return len(p.buf) - p.pos }

// Unparsed returns the bytes received but not parsed yet; they stay valid
// until the next Fill or Next.
func (p *Parser) Unparsed() []byte { return p.buf[p.pos:] }

// Cap reports the capacity of the query buffer; it may be called from any
// goroutine.
func (p *Parser) Cap() int { return int(p.bufCap.Load()) }

// Free reports the room left in the query buffer (CLIENT LIST qbuf-free).
func (p *Parser) Free() int { return cap(p.buf) - len(p.buf) }

// Err returns the protocol error Next reported, if any.
func (p *Parser) Err() error { return p.err }

func (p *Parser) maxBulkLen() int64 {
	if p.MaxBulkLen > 0 {
		return p.MaxBulkLen
	}
	return DefaultMaxBulkLen
}

// Fill reads once from r into the query buffer and returns what r.Read
// returned. It first drops the bytes already parsed (invalidating every
// argument Next returned before) and makes room: at least 16KB, growing the
// buffer greedily, except while a bulk of 32KB or more is being received,
// when the buffer is sized to hold exactly the rest of that bulk and the
// read asks for exactly that many bytes (Redis readQueryFromClient does the
// same). A buffer left oversized by a big bulk is released here. After a
// protocol error Fill reads nothing and returns that error.
func (p *Parser) Fill(r io.Reader) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	p.resetBatch()
	p.compact()

	want, exact := ioBufLen, false
	if p.pending > 0 && p.bulkLen >= mbulkBigArg {
		rem := p.bulkLen + 2 - int64(len(p.buf)-p.pos)
		if rem > 0 && rem <= maxPrealloc {
			want, exact = int(rem), true
		}
	}
	p.reserve(want, exact)

	room := p.buf[len(p.buf):cap(p.buf)]
	if exact {
		room = room[:want]
	}
	n, err := r.Read(room)
	if n < 0 || n > len(room) {
		n = 0 // a broken Reader must not corrupt the buffer
	}
	p.buf = p.buf[:len(p.buf)+n]
	return n, err
}

// resetBatch forgets the arguments handed out since the last Fill, and drops
// side buffers that one unusually large batch left oversized.
func (p *Parser) resetBatch() {
	if cap(p.arena) > maxKeptArgs {
		p.arena = nil
	} else {
		clear(p.arena) // let go of old buffers the arguments may point into
		p.arena = p.arena[:0]
	}
	if cap(p.spans) > maxKeptArgs && p.pending == 0 {
		p.spans = nil
	}
	if cap(p.store) > shrinkAbove {
		p.store = nil
	}
	p.store = p.store[:0]
}

// compact moves the bytes still needed to the front of the buffer: the
// unparsed bytes, and the command in progress whose parsed arguments will be
// handed out by a later Next.
func (p *Parser) compact() {
	keep := p.pos
	if p.pending > 0 {
		keep = p.cmdStart
	}
	if keep == 0 {
		return
	}
	n := copy(p.buf, p.buf[keep:])
	p.buf = p.buf[:n]
	p.pos -= keep
	if p.pending > 0 {
		p.cmdStart -= keep
		for i := range p.spans {
			p.spans[i].start -= keep
			p.spans[i].end -= keep
		}
	}
}

// reserve makes sure want bytes of room follow the buffer's contents. Growth
// is exact for the first allocation and for a big bulk (sdsMakeRoomForNonGreedy)
// and greedy otherwise (sdsMakeRoomFor: double below 1MB, then +1MB, here +25%
// to stay linear on huge pipelines). An oversized buffer is shrunk.
func (p *Parser) reserve(want int, exact bool) {
	used := len(p.buf)
	need := used + want
	if cap(p.buf) >= need && (cap(p.buf) <= shrinkAbove || need > cap(p.buf)/4) {
		return
	}
	size := need
	switch {
	case exact || cap(p.buf) < ioBufLen:
	case size < greedyLimit:
		size *= 2
	default:
		size += size / 4
	}
	nb := make([]byte, used, size)
	copy(nb, p.buf)
	p.buf = nb
	p.bufCap.Store(int64(size))
}

// releaseAbove: Release keeps a query buffer of at most this capacity
// (Redis's clientsCronResizeQueryBuffer leaves one wasting up to 4KB).
const releaseAbove = 4 * 1024

// Release drops the query buffer and the argument tables, as Redis's
// clientsCron takes the free space of an idle client's query buffer
// (clientsCronResizeQueryBuffer), when nothing is buffered, no command is
// in progress and the buffer holds more than 4KB; the next Fill allocates
// again. Like Fill it invalidates every argument Next returned. It reports
// whether it dropped the buffer.
func (p *Parser) Release() bool {
	if cap(p.buf) <= releaseAbove || p.pending > 0 || p.pos != len(p.buf) || p.err != nil {
		return false
	}
	p.buf, p.pos, p.scanned, p.scanNUL = nil, 0, 0, false
	p.arena, p.spans, p.store = nil, nil, nil
	p.bufCap.Store(0)
	return true
}

// TakeBuffer hands over the query buffer of a Parser that is done with
// (its client is freed) for GiveBuffer of another, so a server that
// accepts and frees connections at a high rate reuses their buffers
// instead of allocating and collecting one per connection. It returns
// nil, and keeps the buffer, unless it has the capacity a first Fill
// allocates. The Parser is left empty, as after Release; every argument
// Next returned is invalid afterwards.
func (p *Parser) TakeBuffer() []byte {
	if cap(p.buf) != ioBufLen {
		return nil
	}
	b := p.buf[:0]
	p.buf, p.pos, p.pending, p.scanned, p.scanNUL = nil, 0, 0, 0, false
	p.arena, p.spans, p.store = nil, nil, nil
	p.bufCap.Store(0)
	return b
}

// GiveBuffer makes b, a buffer of TakeBuffer, the query buffer of a Parser
// that has none (before its first Fill, or after Release); the Parser's
// next Fill reads into it. Otherwise b is dropped.
func (p *Parser) GiveBuffer(b []byte) {
	if p.buf != nil || cap(b) != ioBufLen {
		return
	}
	p.buf = b[:0]
	p.bufCap.Store(int64(cap(b)))
}

// Next parses the next complete command from the buffer. ok is false when
// more data is needed (call Fill) or when err is set. A command with no
// arguments (an empty inline line, or a multibulk count <= 0) is returned
// with ok true and len(args) == 0: Redis sends no reply for it. After a
// protocol error every call returns the same *ProtocolError: reply
// "-ERR "+err.Error() and close the connection.
func (p *Parser) Next() (args [][]byte, ok bool, err error) {
	if p.err != nil {
		return nil, false, p.err
	}
	if p.pending == 0 {
		if p.pos >= len(p.buf) {
			return nil, false, nil
		}
		if p.buf[p.pos] != '*' {
			return p.nextInline()
		}
	}
	return p.nextMultibulk()
}

func (p *Parser) fail(e *ProtocolError) ([][]byte, bool, error) {
	p.err = e
	return nil, false, e
}

// advance moves the parse position n bytes on.
func (p *Parser) advance(n int) {
	p.pos += n
	p.scanned = 0
	p.scanNUL = false
}

// lineEnd returns the offset from pos of the first byte c, or -1 if there is
// none yet or a NUL byte comes first (Redis searches with strchr).
func (p *Parser) lineEnd(c byte) int {
	if p.scanNUL {
		return -1
	}
	data := p.buf[p.pos:]
	from := p.scanned
	// Count and length lines are short: a plain loop beats IndexByte's setup.
	limit := min(len(data), from+32)
	for j := from; j < limit; j++ {
		switch data[j] {
		case c:
			return j
		case 0:
			p.scanNUL = true
			return -1
		}
	}
	if limit == len(data) {
		p.scanned = limit
		return -1
	}
	rest := data[limit:]
	i := bytes.IndexByte(rest, c)
	seg := rest
	if i >= 0 {
		seg = rest[:i]
	}
	if bytes.IndexByte(seg, 0) >= 0 {
		p.scanNUL = true
		return -1
	}
	if i < 0 {
		p.scanned = len(data)
		return -1
	}
	return limit + i
}

// nextInline is processInlineBuffer.
func (p *Parser) nextInline() ([][]byte, bool, error) {
	data := p.buf[p.pos:]
	nl := p.lineEnd('\n')
	if nl < 0 {
		if len(data) > inlineMaxSize {
			return p.fail(ErrTooBigInlineRequest)
		}
		return nil, false, nil
	}
	end := nl
	if end > 0 && data[end-1] == '\r' {
		end--
	}
	start := len(p.arena)
	var ok bool
	p.arena, p.store, ok = appendSplitArgs(p.arena, p.store, data[:end])
	if !ok {
		p.arena = p.arena[:start]
		return p.fail(ErrUnbalancedQuotes)
	}
	p.advance(nl + 1)
	return p.arena[start:len(p.arena):len(p.arena)], true, nil
}

// nextMultibulk is processMultibulkBuffer.
func (p *Parser) nextMultibulk() ([][]byte, bool, error) {
	if p.pending == 0 {
		n, adv, ready, perr := p.lenLine(false)
		switch {
		case perr != nil:
			return p.fail(perr)
		case !ready:
			return nil, false, nil
		case n > math.MaxInt32:
			return p.fail(ErrInvalidMultibulkLength)
		case n > unauthMaxArgs && p.Unauthenticated:
			return p.fail(ErrUnauthMultibulkLength)
		}
		start := p.pos
		p.advance(adv)
		if n <= 0 {
			end := len(p.arena)
			return p.arena[end:end:end], true, nil
		}
		p.pending = int(n)
		p.bulkLen = -1
		p.cmdStart = start
		p.spans = p.spans[:0]
	}

	for p.pending > 0 {
		if p.bulkLen < 0 {
			n, adv, ready, perr := p.lenLine(true)
			switch {
			case perr != nil:
				return p.fail(perr)
			case !ready:
				return nil, false, nil
			case n < 0 || n > p.maxBulkLen():
				return p.fail(ErrInvalidBulkLength)
			case n > unauthMaxBulkLen && p.Unauthenticated:
				return p.fail(ErrUnauthBulkLength)
			}
			p.advance(adv)
			p.bulkLen = n
		}
		if int64(len(p.buf)-p.pos)-2 < p.bulkLen { // payload and 2 more bytes
			return nil, false, nil
		}
		end := p.pos + int(p.bulkLen)
		p.spans = append(p.spans, argSpan{p.pos, end})
		p.advance(int(p.bulkLen) + 2)
		p.bulkLen = -1
		p.pending--
	}

	start := len(p.arena)
	for _, s := range p.spans {
		p.arena = append(p.arena, p.buf[s.start:s.end:s.end])
	}
	p.spans = p.spans[:0]
	return p.arena[start:len(p.arena):len(p.arena)], true, nil
}

// lenLine reads the multibulk count line (bulk false) or bulk length line
// (bulk true) at pos as processMultibulkBuffer does: it waits (ready false)
// until a '\r' and one byte after it have arrived, fails past 64KB without
// one, checks that a length line starts with '$', and parses the number with
// string2ll rules (ParseInt). adv is the line's length including the unchecked byte
// after '\r'. Range checks are the caller's.
func (p *Parser) lenLine(bulk bool) (n int64, adv int, ready bool, perr *ProtocolError) {
	data := p.buf[p.pos:]
	if n, adv, ok := quickLenLine(data); ok && (!bulk || data[0] == '$') {
		return n, adv, true, nil
	}
	cr := p.lineEnd('\r')
	if cr < 0 {
		if len(data) > inlineMaxSize {
			if bulk {
				return 0, 0, false, ErrTooBigBulkCount
			}
			return 0, 0, false, ErrTooBigMultibulkCount
		}
		return 0, 0, false, nil
	}
	if cr > len(data)-2 { // the byte after '\r' has not arrived
		return 0, 0, false, nil
	}
	if bulk && data[0] != '$' {
		return 0, 0, false, errExpectedDollar(data[0])
	}
	n, ok := ParseInt(data[1:cr]) // string2ll
	if !ok {
		if bulk {
			return 0, 0, false, ErrInvalidBulkLength
		}
		return 0, 0, false, ErrInvalidMultibulkLength
	}
	return n, cr + 2, true, nil
}

// quickLenLine reads the usual shape of a count or length line at the start
// of data: a prefix byte, a canonical non-negative number of at most 18
// digits, '\r' and at least one more byte. It returns the number and the
// length of the line with the byte after '\r'. ok is false for anything
// else, which the general path then handles; when ok is true the general
// path would have reached the same number.
func quickLenLine(data []byte) (n int64, adv int, ok bool) {
	if len(data) < 4 {
		return 0, 0, false
	}
	c := data[1]
	if c < '0' || c > '9' {
		return 0, 0, false
	}
	n = int64(c - '0')
	i := 2
	if n != 0 {
		for ; i < len(data) && i <= 18; i++ {
			d := data[i] - '0'
			if d > 9 {
				break
			}
			n = n*10 + int64(d)
		}
	}
	if i+1 >= len(data) || data[i] != '\r' {
		return 0, 0, false
	}
	return n, i + 2, true
}
