package rdb

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// RDB files (rdb.c rdbSaveRio / rdbLoadRio): "REDIS" and the version as
// four digits, aux fields, functions, then per non-empty database
// SELECTDB, RESIZEDB and its keys (each optionally preceded by its expiry
// and LRU/LFU data), EOF and the CRC64 of everything before it (0 when
// rdbchecksum is off).

// Writer writes an RDB file. Its methods buffer; errors are sticky and
// returned by Close.
type Writer struct {
	w    io.Writer
	buf  []byte
	crc  uint64
	opt  Options
	sum  bool
	err  error
	size int64
}

// NewWriter starts an RDB file on w with the header; checksum is
// rdbchecksum.
func NewWriter(w io.Writer, o Options, checksum bool) *Writer {
	wr := &Writer{w: w, opt: o, sum: checksum, buf: make([]byte, 0, 64<<10)}
	wr.buf = fmt.Appendf(wr.buf, "REDIS%04d", Version)
	return wr
}

// flush writes the buffer out once it holds more than limit bytes.
func (w *Writer) flush(limit int) {
	if len(w.buf) <= limit || w.err != nil {
		return
	}
	if w.sum {
		w.crc = CRC64(w.crc, w.buf)
	}
	_, w.err = w.w.Write(w.buf)
	w.size += int64(len(w.buf))
	w.buf = w.buf[:0]
}

// Aux writes an aux field (rdbSaveAuxFieldStrStr; an integer value is
// written as its decimal string, which the string encoder stores as an
// integer, as rdbSaveAuxFieldStrInt does).
func (w *Writer) Aux(key, val string) {
	w.buf = append(w.buf, OpAux)
	w.buf = AppendString(w.buf, key, w.opt.Compress)
	w.buf = AppendString(w.buf, val, w.opt.Compress)
	w.flush(32 << 10)
}

// Function writes one library's code (rdbSaveFunctions).
func (w *Writer) Function(code string) {
	w.buf = AppendFunction(w.buf, code, w.opt.Compress)
	w.flush(32 << 10)
}

// SelectDB starts database id holding size keys, expires of them with a TTL.
func (w *Writer) SelectDB(id, size, expires int) {
	w.buf = append(w.buf, OpSelectDB)
	w.buf = AppendLen(w.buf, uint64(id))
	w.buf = append(w.buf, OpResizeDB)
	w.buf = AppendLen(w.buf, uint64(size))
	w.buf = AppendLen(w.buf, uint64(expires))
}

// KeyMeta is what precedes a key: its deadline (unix ms, -1 for none) and,
// under an LRU or LFU maxmemory-policy, its idle seconds or LFU counter
// (-1 for none).
type KeyMeta struct {
	ExpireAt int64
	IdleSecs int64
	Freq     int
}

// NoMeta is a key with no TTL and no access data saved.
var NoMeta = KeyMeta{ExpireAt: -1, IdleSecs: -1, Freq: -1}

// Key writes one key (rdbSaveKeyValuePair).
func (w *Writer) Key(key string, v *Value, m KeyMeta) {
	w.buf = AppendKey(w.buf, key, v, m, &w.opt)
	w.flush(32 << 10)
}

// Raw writes records encoded earlier by AppendKey with the same options.
func (w *Writer) Raw(b []byte) {
	w.buf = append(w.buf, b...)
	w.flush(32 << 10)
}

// AppendKey appends one key as an RDB file stores it (rdbSaveKeyValuePair):
// its expiry, LRU or LFU data, type, name and value.
func AppendKey(b []byte, key string, v *Value, m KeyMeta, o *Options) []byte {
	if m.ExpireAt >= 0 {
		b = append(b, OpExpireMs)
		b = AppendMillis(b, m.ExpireAt)
	}
	if m.IdleSecs >= 0 {
		b = append(b, OpIdle)
		b = AppendLen(b, uint64(m.IdleSecs))
	}
	if m.Freq >= 0 {
		b = append(b, OpFreq, byte(m.Freq))
	}
	b = append(b, ObjectType(v))
	b = AppendString(b, key, o.Compress)
	return AppendBody(b, v, o)
}

// Close writes EOF and the checksum and flushes; it returns the first
// error met and the file's size.
func (w *Writer) Close() (int64, error) {
	w.buf = append(w.buf, OpEOF)
	if w.sum {
		w.crc = CRC64(w.crc, w.buf)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, w.crc)
	} else {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, 0)
	}
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
		w.size += int64(len(w.buf))
	}
	w.buf = w.buf[:0]
	return w.size, w.err
}

// Handler receives what Load reads, in file order. A nil func skips that
// kind of record; an error returned stops the load and is returned as is.
type Handler struct {
	Aux      func(key, val []byte) error
	Function func(code []byte) error
	SelectDB func(id int) error
	ResizeDB func(size, expires uint64) error
	// Key gets each key with its value; db is the current database (0
	// before any SELECTDB). Empty collections are skipped, as Redis skips
	// them. key, v itself and a string value's Str are reused after the
	// call returns: copy what is kept.
	Key func(db int, key []byte, v *Value, m KeyMeta) error
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Deep checks compact blobs for duplicates (sanitize-dump-payload yes).
	Deep bool
}

// IsRDB reports whether data starting with head is an RDB file.
func IsRDB(head []byte) bool { return len(head) >= 5 && string(head[:5]) == "REDIS" }

// Load reads an RDB file from r (size bytes, -1 if unknown) up to and
// including its checksum, calling h for each record. It returns the bytes
// consumed. Problems in the data are *Error.
func Load(r io.Reader, size int64, h *Handler, o LoadOptions) (int64, error) {
	d := newDecoder(r, size)
	d.deep = o.Deep
	err := d.load(h)
	return d.off, err
}

func (d *decoder) load(h *Handler) error {
	head, err := d.readSmall(9)
	if err != nil {
		return err
	}
	if !IsRDB(head) {
		return d.fail("Wrong signature trying to load DB from file")
	}
	ver, err := strconv.Atoi(string(head[5:9]))
	if err != nil || ver < 1 || ver > MaxReadVersion {
		return d.fail("Can't handle RDB format version %d", ver)
	}
	db := 0
	meta := NoMeta
	for {
		op, err := d.readByte()
		if err != nil {
			return err
		}
		switch op {
		case OpEOF:
			if ver < 5 {
				return nil
			}
			want := d.crc
			sum, err := d.readSmall(8)
			if err != nil {
				return err
			}
			if got := binary.LittleEndian.Uint64(sum); got != 0 && got != want {
				return &Error{d.off - 8, "Wrong RDB checksum"}
			}
			return nil
		case OpSelectDB:
			n, _, err := d.readLen()
			if err != nil {
				return err
			}
			if n > 1<<31 {
				return d.fail("invalid database number")
			}
			db = int(n)
			if h.SelectDB != nil {
				if err := h.SelectDB(db); err != nil {
					return err
				}
			}
		case OpResizeDB:
			size, _, err := d.readLen()
			if err != nil {
				return err
			}
			expires, _, err := d.readLen()
			if err != nil {
				return err
			}
			if h.ResizeDB != nil {
				if err := h.ResizeDB(size, expires); err != nil {
					return err
				}
			}
		case OpAux:
			k, err := d.readString()
			if err != nil {
				return err
			}
			v, err := d.readString()
			if err != nil {
				return err
			}
			if h.Aux != nil {
				if err := h.Aux(k, v); err != nil {
					return err
				}
			}
		case OpExpire:
			b, err := d.readSmall(4)
			if err != nil {
				return err
			}
			meta.ExpireAt = int64(int32(binary.LittleEndian.Uint32(b))) * 1000
		case OpExpireMs:
			b, err := d.readSmall(8)
			if err != nil {
				return err
			}
			meta.ExpireAt = int64(binary.LittleEndian.Uint64(b))
		case OpFreq:
			b, err := d.readByte()
			if err != nil {
				return err
			}
			meta.Freq = int(b)
		case OpIdle:
			n, _, err := d.readLen()
			if err != nil {
				return err
			}
			meta.IdleSecs = int64(min(n, 1<<40))
		case OpFunction2:
			code, err := d.readString()
			if err != nil {
				return err
			}
			if h.Function != nil {
				if err := h.Function(code); err != nil {
					return err
				}
			}
		case OpFunctionPre:
			return d.fail("Pre-release function format not supported.")
		case OpModuleAux:
			return d.fail("The RDB file contains AUX module data I can't load: no matching module")
		default:
			if !isObjectType(op) && op != TypeSetListpack && op != TypeStreamListpack3 {
				return d.fail("Unknown RDB encoding type %d", op)
			}
			key, err := d.readStringInto(d.keyBuf)
			if err != nil {
				return err
			}
			d.keyBuf = key
			var v *Value
			if op == TypeString {
				var s []byte
				s, err = d.readStringInto(d.valBuf)
				d.valBuf = s
				d.strVal = Value{Kind: KindString, Str: s, Type: TypeString}
				v = &d.strVal
			} else {
				v, err = d.readObject(op)
			}
			if err == ErrEmptyKey {
				meta = NoMeta
				continue
			}
			if err != nil {
				return err
			}
			if h.Key != nil {
				if err := h.Key(db, key, v, meta); err != nil {
					return err
				}
			}
			meta = NoMeta
		}
	}
}
