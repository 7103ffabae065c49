package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Error is RDB data that cannot be read. Offset is the byte where the
// problem was found.
type Error struct {
	Offset int64
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid RDB data at byte offset %d: %s", e.Offset, e.Reason)
}

// ErrEmptyKey is a collection with no elements (RDB_LOAD_ERR_EMPTY_KEY):
// loading a file skips it, RESTORE refuses it.
var ErrEmptyKey = errors.New("empty key")

// maxChunk bounds one allocation made on the word of a length read from
// the data when the total size is not known: longer strings are read in
// chunks, so a corrupt length costs at most the bytes really there.
const maxChunk = 1 << 20

// decoder reads RDB data with bounds checks, keeping the offset and the
// running checksum.
type decoder struct {
	br      *bufio.Reader
	off     int64
	size    int64 // total bytes of the source, -1 if unknown
	crc     uint64
	noCRC   bool
	deep    bool // sanitize-dump-payload: also check duplicates in compact blobs
	scratch [16]byte
	keyBuf  []byte // reused by load for keys
	valBuf  []byte // reused by load for string values
	strVal  Value
}

func newDecoder(r io.Reader, size int64) *decoder {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &decoder{br: br, size: size}
}

func (d *decoder) fail(format string, args ...any) error {
	return &Error{d.off, fmt.Sprintf(format, args...)}
}

// remaining reports how many bytes may still be read (math.MaxInt64 when
// unknown).
func (d *decoder) remaining() int64 {
	if d.size < 0 {
		return math.MaxInt64
	}
	return d.size - d.off
}

func (d *decoder) sum(b []byte) {
	if !d.noCRC {
		d.crc = CRC64(d.crc, b)
	}
}

// readFull reads exactly n bytes into a new slice.
func (d *decoder) readFull(n uint64) ([]byte, error) { return d.readFullInto(nil, n) }

// readFullInto reads exactly n bytes into buf's storage when it is large
// enough, else into a new slice.
func (d *decoder) readFullInto(buf []byte, n uint64) ([]byte, error) {
	if n > uint64(d.remaining()) {
		return nil, d.fail("unexpected end of data")
	}
	if n <= maxChunk {
		b := buf[:0]
		if uint64(cap(b)) < n {
			b = make([]byte, n)
		}
		b = b[:n]
		if _, err := io.ReadFull(d.br, b); err != nil {
			return nil, d.eof(err)
		}
		d.off += int64(n)
		d.sum(b)
		return b, nil
	}
	var b []byte
	for uint64(len(b)) < n {
		k := min(n-uint64(len(b)), maxChunk)
		start := len(b)
		b = append(b, make([]byte, k)...)
		if _, err := io.ReadFull(d.br, b[start:]); err != nil {
			return nil, d.eof(err)
		}
		d.off += int64(k)
		d.sum(b[start:])
	}
	return b, nil
}

// readSmall reads n <= 16 bytes into the scratch buffer.
func (d *decoder) readSmall(n int) ([]byte, error) {
	b := d.scratch[:n]
	if _, err := io.ReadFull(d.br, b); err != nil {
		return nil, d.eof(err)
	}
	d.off += int64(n)
	d.sum(b)
	return b, nil
}

func (d *decoder) eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.fail("unexpected end of data")
	}
	return err
}

func (d *decoder) readByte() (byte, error) {
	b, err := d.readSmall(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// readLen is rdbLoadLenByRef: a length, or with encoded set a special
// string encoding number.
func (d *decoder) readLen() (n uint64, encoded bool, err error) {
	b, err := d.readByte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case len6:
		return uint64(b & 0x3f), false, nil
	case len14:
		b2, err := d.readByte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3f)<<8 | uint64(b2), false, nil
	case lenEnc:
		return uint64(b & 0x3f), true, nil
	}
	switch b {
	case len32:
		x, err := d.readSmall(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(x)), false, nil
	case len64:
		x, err := d.readSmall(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(x), false, nil
	}
	return 0, false, d.fail("unknown length encoding %d", b)
}

// readCount reads a length that counts elements: each takes at least one
// byte, so it cannot exceed what is left.
func (d *decoder) readCount() (int, error) {
	n, enc, err := d.readLen()
	if err != nil {
		return 0, err
	}
	if enc || n > uint64(d.remaining()) || n > math.MaxInt32*16 {
		return 0, d.fail("invalid element count")
	}
	return int(n), nil
}

// readString reads a string in any encoding (rdbGenericLoadStringObject).
func (d *decoder) readString() ([]byte, error) { return d.readStringInto(nil) }

// readStringInto is readString reusing buf's storage when it can.
func (d *decoder) readStringInto(buf []byte) ([]byte, error) {
	n, enc, err := d.readLen()
	if err != nil {
		return nil, err
	}
	if !enc {
		return d.readFullInto(buf, n)
	}
	switch n {
	case encInt8, encInt16, encInt32:
		b, err := d.readSmall(1 << n)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(buf[:0], signedLE(b), 10), nil
	case encLZF:
		clen, _, err := d.readLen()
		if err != nil {
			return nil, err
		}
		ulen, _, err := d.readLen()
		if err != nil {
			return nil, err
		}
		// One LZF back reference (3 bytes) expands to at most 264 bytes.
		if clen == 0 || clen > uint64(d.remaining()) || ulen > clen*100+64 || ulen == 0 {
			return nil, d.fail("invalid LZF lengths")
		}
		c, err := d.readFull(clen)
		if err != nil {
			return nil, err
		}
		out, err := LZFDecompress(c, int(ulen))
		if err != nil {
			return nil, d.fail("%v", err)
		}
		return out, nil
	}
	return nil, d.fail("unknown string encoding %d", n)
}

// readDouble reads RDB_TYPE_ZSET's textual double (rdbLoadDoubleValue).
func (d *decoder) readDouble() (float64, error) {
	n, err := d.readByte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	b, err := d.readFull(uint64(n))
	if err != nil {
		return 0, err
	}
	f, ok := protocol.ParseStrtod(b)
	if !ok {
		return 0, d.fail("invalid double %q", b)
	}
	return f, nil
}

func (d *decoder) readBinaryDouble() (float64, error) {
	b, err := d.readSmall(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}
