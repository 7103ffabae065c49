package aof

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

// Reading a base file in RDB format: redis-server 7 writes its AOF base
// that way by default (aof-use-rdb-preamble yes). The decoder turns the
// snapshot into the commands that rebuild it — SELECT, SET, RPUSH, SADD,
// ZADD, HSET (at most rdbItemsPerCmd items each), PEXPIREAT, FUNCTION LOAD —
// which the server replays like any other log. It reads the RDB versions
// Redis 7.0 and 7.2 write and the older encodings they still load (ziplist,
// intset, quicklist); streams and module values are refused.

// RDBError is an RDB base file that cannot be read. Offset is the byte
// where the problem was found.
type RDBError struct {
	Offset int64
	Reason string
}

func (e *RDBError) Error() string {
	return fmt.Sprintf("invalid RDB data at byte offset %d: %s", e.Offset, e.Reason)
}

// rdbItemsPerCmd bounds the elements one emitted command carries
// (AOF_REWRITE_ITEMS_PER_CMD).
const rdbItemsPerCmd = 64

// RDB opcodes and value types (rdb.h).
const (
	rdbOpFunction2   = 245
	rdbOpFunctionPre = 246
	rdbOpModuleAux   = 247
	rdbOpIdle        = 248
	rdbOpFreq        = 249
	rdbOpAux         = 250
	rdbOpResizeDB    = 251
	rdbOpExpireMs    = 252
	rdbOpExpire      = 253
	rdbOpSelectDB    = 254
	rdbOpEOF         = 255

	rdbTypeString         = 0
	rdbTypeList           = 1
	rdbTypeSet            = 2
	rdbTypeZSet           = 3
	rdbTypeHash           = 4
	rdbTypeZSet2          = 5
	rdbTypeHashZipmap     = 9
	rdbTypeListZiplist    = 10
	rdbTypeSetIntset      = 11
	rdbTypeZSetZiplist    = 12
	rdbTypeHashZiplist    = 13
	rdbTypeListQuicklist  = 14
	rdbTypeHashListpack   = 16
	rdbTypeZSetListpack   = 17
	rdbTypeListQuicklist2 = 18
	rdbTypeSetListpack    = 20
)

// Other RDB constants: the newest format version read, quicklist node
// containers and the special string encodings.
const (
	rdbMaxVersion       = 11
	quicklistNodePlain  = 1
	quicklistNodePacked = 2
	rdbEncInt8          = 0
	rdbEncInt16         = 1
	rdbEncInt32         = 2
	rdbEncLZF           = 3
)

// IsRDB reports whether a file starting with head is in RDB format.
func IsRDB(head []byte) bool { return len(head) >= 5 && string(head[:5]) == "REDIS" }

// rdbDecoder reads an RDB stream, keeping the offset and the running
// checksum.
type rdbDecoder struct {
	br   *bufio.Reader
	off  int64
	crc  uint64
	emit func(args [][]byte) error
	db   int // last SELECT emitted, -1 before the first
	tmp  []byte
}

// decodeRDB reads an RDB stream from br up to and including its checksum
// and calls emit with the commands that rebuild it. It returns the bytes
// consumed.
func decodeRDB(br *bufio.Reader, emit func(args [][]byte) error) (int64, error) {
	d := &rdbDecoder{br: br, emit: emit, db: -1}
	err := d.run()
	var re *RDBError
	if err != nil && !errors.As(err, &re) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = &RDBError{d.off, "unexpected end of file"}
		}
	}
	return d.off, err
}

func (d *rdbDecoder) fail(format string, args ...any) error {
	return &RDBError{d.off, fmt.Sprintf(format, args...)}
}

func (d *rdbDecoder) readFull(n int) ([]byte, error) {
	if n < 0 {
		return nil, d.fail("negative length")
	}
	if cap(d.tmp) < n {
		d.tmp = make([]byte, n)
	}
	b := d.tmp[:n]
	if _, err := io.ReadFull(d.br, b); err != nil {
		return nil, err
	}
	d.off += int64(n)
	d.crc = crc64Update(d.crc, b)
	return b, nil
}

func (d *rdbDecoder) readByte() (byte, error) {
	b, err := d.br.ReadByte()
	if err != nil {
		return 0, err
	}
	d.off++
	d.crc = crc64Update(d.crc, []byte{b})
	return b, nil
}

func (d *rdbDecoder) run() error {
	head, err := d.readFull(9)
	if err != nil {
		return err
	}
	if !IsRDB(head) {
		return d.fail("wrong signature")
	}
	ver, err := strconv.Atoi(string(head[5:9]))
	if err != nil || ver < 1 || ver > rdbMaxVersion {
		return d.fail("can't handle RDB format version %q", head[5:9])
	}
	expire := int64(-1)
	for {
		op, err := d.readByte()
		if err != nil {
			return err
		}
		switch op {
		case rdbOpEOF:
			if ver < 5 {
				return nil
			}
			want := d.crc
			sum, err := d.readFull(8)
			if err != nil {
				return err
			}
			if got := binary.LittleEndian.Uint64(sum); got != 0 && got != want {
				return &RDBError{d.off - 8, "wrong RDB checksum"}
			}
			return nil
		case rdbOpSelectDB:
			n, _, err := d.readLen()
			if err != nil {
				return err
			}
			if err := d.selectDB(int(n)); err != nil {
				return err
			}
		case rdbOpResizeDB:
			if _, _, err := d.readLen(); err != nil {
				return err
			}
			if _, _, err := d.readLen(); err != nil {
				return err
			}
		case rdbOpAux:
			if _, err := d.readString(); err != nil {
				return err
			}
			if _, err := d.readString(); err != nil {
				return err
			}
		case rdbOpExpire:
			b, err := d.readFull(4)
			if err != nil {
				return err
			}
			expire = int64(int32(binary.LittleEndian.Uint32(b))) * 1000
		case rdbOpExpireMs:
			b, err := d.readFull(8)
			if err != nil {
				return err
			}
			expire = int64(binary.LittleEndian.Uint64(b))
		case rdbOpFreq:
			if _, err := d.readByte(); err != nil {
				return err
			}
		case rdbOpIdle:
			if _, _, err := d.readLen(); err != nil {
				return err
			}
		case rdbOpFunction2:
			code, err := d.readString()
			if err != nil {
				return err
			}
			if err := d.emit([][]byte{[]byte("FUNCTION"), []byte("LOAD"), code}); err != nil {
				return err
			}
		case rdbOpFunctionPre, rdbOpModuleAux:
			return d.fail("RDB opcode %d (functions of a 7.0 release candidate, or module data) is not supported", op)
		default:
			if d.db < 0 {
				if err := d.selectDB(0); err != nil {
					return err
				}
			}
			if err := d.readKey(op, expire); err != nil {
				return err
			}
			expire = -1
		}
	}
}

func (d *rdbDecoder) selectDB(n int) error {
	d.db = n
	return d.emit([][]byte{[]byte("SELECT"), strconv.AppendInt(nil, int64(n), 10)})
}

// readLen is rdbLoadLenByRef: a length, or with encoded set a special
// string encoding number.
func (d *rdbDecoder) readLen() (n uint64, encoded bool, err error) {
	b, err := d.readByte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3f), false, nil
	case 1:
		b2, err := d.readByte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3f)<<8 | uint64(b2), false, nil
	case 2:
		switch b {
		case 0x80:
			x, err := d.readFull(4)
			if err != nil {
				return 0, false, err
			}
			return uint64(binary.BigEndian.Uint32(x)), false, nil
		case 0x81:
			x, err := d.readFull(8)
			if err != nil {
				return 0, false, err
			}
			return binary.BigEndian.Uint64(x), false, nil
		}
		return 0, false, d.fail("unknown length encoding %d", b)
	}
	return uint64(b & 0x3f), true, nil
}

// readCount reads a length that counts elements, with a sanity bound.
func (d *rdbDecoder) readCount() (int, error) {
	n, enc, err := d.readLen()
	if err != nil {
		return 0, err
	}
	if enc || n > 1<<40 {
		return 0, d.fail("invalid element count")
	}
	return int(n), nil
}

// readString reads a string (rdbGenericLoadStringObject) into a new slice.
func (d *rdbDecoder) readString() ([]byte, error) {
	n, enc, err := d.readLen()
	if err != nil {
		return nil, err
	}
	if !enc {
		if n > 1<<40 {
			return nil, d.fail("invalid string length")
		}
		b, err := d.readFull(int(n))
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	}
	switch n {
	case rdbEncInt8, rdbEncInt16, rdbEncInt32:
		b, err := d.readFull(1 << n)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, signedLE(b), 10), nil
	case rdbEncLZF:
		clen, _, err := d.readLen()
		if err != nil {
			return nil, err
		}
		ulen, _, err := d.readLen()
		if err != nil {
			return nil, err
		}
		if clen > 1<<40 || ulen > 1<<40 {
			return nil, d.fail("invalid LZF lengths")
		}
		c, err := d.readFull(int(clen))
		if err != nil {
			return nil, err
		}
		out, err := lzfDecompress(c, int(ulen))
		if err != nil {
			return nil, d.fail("%v", err)
		}
		return out, nil
	}
	return nil, d.fail("unknown string encoding %d", n)
}

// readDouble reads RDB_TYPE_ZSET's textual double (rdbLoadDoubleValue).
func (d *rdbDecoder) readDouble() (float64, error) {
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
	b, err := d.readFull(int(n))
	if err != nil {
		return 0, err
	}
	f, ok := protocol.ParseFloat(b)
	if !ok {
		return 0, d.fail("invalid double %q", b)
	}
	return f, nil
}

// readKey reads one key of value type t and emits the commands that create
// it, then PEXPIREAT when expire >= 0.
func (d *rdbDecoder) readKey(t byte, expire int64) error {
	key, err := d.readString()
	if err != nil {
		return err
	}
	var made bool
	switch t {
	case rdbTypeString:
		v, err := d.readString()
		if err != nil {
			return err
		}
		made = true
		err = d.emit([][]byte{[]byte("SET"), key, v})
		if err != nil {
			return err
		}
	case rdbTypeList, rdbTypeSet:
		n, err := d.readCount()
		if err != nil {
			return err
		}
		elems := make([][]byte, 0, min(n, 1024))
		for range n {
			v, err := d.readString()
			if err != nil {
				return err
			}
			elems = append(elems, v)
		}
		cmd := "RPUSH"
		if t == rdbTypeSet {
			cmd = "SADD"
		}
		made, err = d.emitItems(cmd, key, elems, 1)
		if err != nil {
			return err
		}
	case rdbTypeZSet, rdbTypeZSet2:
		n, err := d.readCount()
		if err != nil {
			return err
		}
		pairs := make([][]byte, 0, min(2*n, 2048))
		for range n {
			m, err := d.readString()
			if err != nil {
				return err
			}
			var score float64
			if t == rdbTypeZSet {
				score, err = d.readDouble()
			} else {
				var b []byte
				b, err = d.readFull(8)
				score = math.Float64frombits(binary.LittleEndian.Uint64(b))
			}
			if err != nil {
				return err
			}
			pairs = append(pairs, protocol.AppendFloat17(nil, score), m)
		}
		made, err = d.emitItems("ZADD", key, pairs, 2)
		if err != nil {
			return err
		}
	case rdbTypeHash:
		n, err := d.readCount()
		if err != nil {
			return err
		}
		pairs := make([][]byte, 0, min(2*n, 2048))
		for range 2 * n {
			v, err := d.readString()
			if err != nil {
				return err
			}
			pairs = append(pairs, v)
		}
		made, err = d.emitItems("HSET", key, pairs, 2)
		if err != nil {
			return err
		}
	case rdbTypeListQuicklist, rdbTypeListQuicklist2:
		n, err := d.readCount()
		if err != nil {
			return err
		}
		var elems [][]byte
		for range n {
			container := uint64(quicklistNodePacked)
			if t == rdbTypeListQuicklist2 {
				if container, _, err = d.readLen(); err != nil {
					return err
				}
			}
			blob, err := d.readString()
			if err != nil {
				return err
			}
			switch {
			case container == quicklistNodePlain:
				elems = append(elems, blob)
			case t == rdbTypeListQuicklist:
				e, err := decodeZiplist(blob)
				if err != nil {
					return d.fail("%v", err)
				}
				elems = append(elems, e...)
			default:
				e, err := decodeListpack(blob)
				if err != nil {
					return d.fail("%v", err)
				}
				elems = append(elems, e...)
			}
		}
		made, err = d.emitItems("RPUSH", key, elems, 1)
		if err != nil {
			return err
		}
	case rdbTypeListZiplist, rdbTypeSetIntset, rdbTypeZSetZiplist, rdbTypeHashZiplist,
		rdbTypeHashListpack, rdbTypeZSetListpack, rdbTypeSetListpack:
		blob, err := d.readString()
		if err != nil {
			return err
		}
		var elems [][]byte
		switch t {
		case rdbTypeSetIntset:
			elems, err = decodeIntset(blob)
		case rdbTypeListZiplist, rdbTypeZSetZiplist, rdbTypeHashZiplist:
			elems, err = decodeZiplist(blob)
		default:
			elems, err = decodeListpack(blob)
		}
		if err != nil {
			return d.fail("%v", err)
		}
		switch t {
		case rdbTypeListZiplist:
			made, err = d.emitItems("RPUSH", key, elems, 1)
		case rdbTypeSetIntset, rdbTypeSetListpack:
			made, err = d.emitItems("SADD", key, elems, 1)
		case rdbTypeHashZiplist, rdbTypeHashListpack:
			if len(elems)%2 != 0 {
				return d.fail("odd number of hash elements")
			}
			made, err = d.emitItems("HSET", key, elems, 2)
		default: // sorted sets: member, score pairs; ZADD wants score first
			if len(elems)%2 != 0 {
				return d.fail("odd number of sorted set elements")
			}
			for i := 0; i < len(elems); i += 2 {
				elems[i], elems[i+1] = elems[i+1], elems[i]
			}
			made, err = d.emitItems("ZADD", key, elems, 2)
		}
		if err != nil {
			return err
		}
	case rdbTypeHashZipmap:
		return d.fail("zipmap-encoded hashes (RDB files of Redis 2.4) are not supported")
	default:
		return d.fail("value type %d (a stream or a module type) is not supported", t)
	}
	if made && expire >= 0 {
		return d.emit([][]byte{[]byte("PEXPIREAT"), key, strconv.AppendInt(nil, expire, 10)})
	}
	return nil
}

// emitItems emits cmd key items..., at most rdbItemsPerCmd items (of group
// arguments each) per command. An empty collection emits nothing (Redis
// skips empty keys when loading) and reports false.
func (d *rdbDecoder) emitItems(cmd string, key []byte, args [][]byte, group int) (bool, error) {
	if len(args) == 0 {
		return false, nil
	}
	per := rdbItemsPerCmd * group
	for len(args) > 0 {
		n := min(per, len(args))
		out := make([][]byte, 0, n+2)
		out = append(out, []byte(cmd), key)
		out = append(out, args[:n]...)
		if err := d.emit(out); err != nil {
			return true, err
		}
		args = args[n:]
	}
	return true, nil
}
