package server

import (
	"bytes"
	"math"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Generic key commands (Redis db.c and expire.c).

var keyCommands = []commandDef{
	{"del", cmdDel},
	{"unlink", cmdDel},
	{"exists", cmdExists},
	{"type", cmdType},
	{"rename", cmdRename},
	{"renamenx", cmdRenameNX},
	{"keys", cmdKeys},
	{"scan", cmdScan},
	{"randomkey", cmdRandomKey},
	{"move", cmdMove},
	{"copy", cmdCopy},
	{"dbsize", cmdDBSize},
	{"touch", cmdTouch},
	{"object|encoding", cmdObjectEncoding},
	{"object|refcount", cmdObjectRefcount},
	{"object|idletime", cmdObjectIdletime},
	{"object|freq", cmdObjectFreq},
	{"object|help", cmdHelp},
	{"expire", cmdExpire},
	{"pexpire", cmdPExpire},
	{"expireat", cmdExpireAt},
	{"pexpireat", cmdPExpireAt},
	{"ttl", cmdTTL},
	{"pttl", cmdPTTL},
	{"expiretime", cmdExpireTime},
	{"pexpiretime", cmdPExpireTime},
	{"persist", cmdPersist},
}

func cmdDel(c *client, args [][]byte) {
	n := 0
	for _, key := range args[1:] {
		if c.db.Delete(key) {
			n++
		}
	}
	c.w.Int(int64(n))
}

func cmdExists(c *client, args [][]byte) {
	n := 0
	for _, key := range args[1:] {
		if c.db.Exists(key) {
			n++
		}
	}
	c.w.Int(int64(n))
}

func cmdType(c *client, args [][]byte) { c.w.Status(c.db.TypeOf(args[1]).String()) }

func cmdRename(c *client, args [][]byte) {
	if _, err := c.db.Rename(args[1], args[2], false); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

func cmdRenameNX(c *client, args [][]byte) {
	ok, err := c.db.Rename(args[1], args[2], true)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(b2i(ok))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmdKeys(c *client, args [][]byte) {
	d := c.w.DeferLen()
	n := 0
	c.db.Keys(args[1], func(key string) {
		c.w.BulkString(key)
		n++
	})
	c.w.SetArrayLen(d, n)
}

var errInvalidCursor = protocol.Error("ERR invalid cursor")

func cmdScan(c *client, args [][]byte) {
	cursor, ok := protocol.ParseScanCursor(args[1])
	if !ok {
		c.fail(errInvalidCursor)
		return
	}
	opt, err := parseScanOptions(args, 2, true)
	if err != nil {
		c.fail(err)
		return
	}
	next, keys := c.db.Scan(cursor, opt, nil)
	c.w.Array(2)
	var buf [24]byte
	c.w.Bulk(appendUint(buf[:0], next))
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func appendUint(b []byte, n uint64) []byte {
	if n == 0 {
		return append(b, '0')
	}
	var tmp [20]byte
	i := len(tmp)
	for n > 0 {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, tmp[i:]...)
}

// parseScanOptions parses SCAN-family options from args[i:] (Redis's
// scanGenericCommand step 1). TYPE is accepted only for the keyspace SCAN.
func parseScanOptions(args [][]byte, i int, allowType bool) (db.ScanOptions, error) {
	opt := db.ScanOptions{Count: 10}
	for i < len(args) {
		more := len(args) - i
		switch {
		case bytes.EqualFold(args[i], []byte("count")) && more >= 2:
			n, ok := protocol.ParseInt(args[i+1])
			if !ok {
				return opt, protocol.ErrNotInteger
			}
			if n < 1 {
				return opt, protocol.ErrSyntax
			}
			if n > math.MaxInt32 {
				n = math.MaxInt32
			}
			opt.Count = int(n)
			i += 2
		case bytes.EqualFold(args[i], []byte("match")) && more >= 2:
			opt.Pattern = args[i+1]
			i += 2
		case allowType && bytes.EqualFold(args[i], []byte("type")) && more >= 2:
			opt.Type = args[i+1]
			i += 2
		default:
			return opt, protocol.ErrSyntax
		}
	}
	return opt, nil
}

func cmdRandomKey(c *client, args [][]byte) {
	key, ok := c.db.RandomKey()
	if !ok {
		c.w.Null()
		return
	}
	c.w.BulkString(key)
}

// dbIndex parses a database index argument (getIntFromObjectOrReply, then
// the range check of selectDb).
func dbIndex(c *client, arg []byte) (*db.DB, error) {
	id, perr := intArg(arg)
	if perr != "" {
		return nil, perr
	}
	if id < 0 || int(id) >= c.srv.ks.Len() {
		return nil, protocol.ErrDBIndex
	}
	return c.srv.ks.DB(int(id)), nil
}

func cmdMove(c *client, args [][]byte) {
	if c.srv.cluster.on {
		c.fail(protocol.Error("ERR MOVE is not allowed in cluster mode"))
		return
	}
	dst, err := dbIndex(c, args[2])
	if err != nil {
		c.fail(err)
		return
	}
	if dst == c.db {
		c.fail(protocol.ErrSameObject)
		return
	}
	c.w.Int(b2i(c.db.Move(args[1], dst)))
}

func cmdCopy(c *client, args [][]byte) {
	dst := c.db
	replace := false
	for j := 3; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case bytes.EqualFold(args[j], []byte("replace")):
			replace = true
		case bytes.EqualFold(args[j], []byte("db")) && more >= 1:
			d, err := dbIndex(c, args[j+1])
			if err != nil {
				c.fail(err)
				return
			}
			dst = d
			j++
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if c.srv.cluster.on && (c.db.ID() != 0 || dst.ID() != 0) {
		c.fail(protocol.Error("ERR Copying to another database is not allowed in cluster mode"))
		return
	}
	if dst == c.db && bytes.Equal(args[1], args[2]) {
		c.fail(protocol.ErrSameObject)
		return
	}
	c.w.Int(b2i(c.db.Copy(args[1], dst, args[2], replace)))
}

func cmdDBSize(c *client, args [][]byte) { c.w.Int(int64(c.db.Size())) }

func cmdTouch(c *client, args [][]byte) {
	n := 0
	for _, key := range args[1:] {
		if c.db.Touch(key) {
			n++
		}
	}
	c.w.Int(int64(n))
}

// objectInfo looks the key up for OBJECT; a missing key replies null.
func objectInfo(c *client, key []byte) (db.ObjectInfo, bool) {
	info, ok := c.db.Object(key)
	if !ok {
		c.w.Null()
	}
	return info, ok
}

func cmdObjectEncoding(c *client, args [][]byte) {
	if info, ok := objectInfo(c, args[2]); ok {
		c.w.BulkString(info.Encoding)
	}
}

func cmdObjectRefcount(c *client, args [][]byte) {
	info, ok := objectInfo(c, args[2])
	if !ok {
		return
	}
	if info.SharedInteger && !c.srv.ks.NoSharedIntegers() {
		c.w.Int(math.MaxInt32) // OBJ_SHARED_REFCOUNT: a shared integer object
		return
	}
	c.w.Int(1)
}

var (
	errNoLRU = protocol.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	errNoLFU = protocol.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
)

func cmdObjectIdletime(c *client, args [][]byte) {
	info, ok := objectInfo(c, args[2])
	if !ok {
		return
	}
	if c.srv.ks.LFU() {
		c.fail(errNoLRU)
		return
	}
	c.w.Int(info.IdleMs / 1000)
}

func cmdObjectFreq(c *client, args [][]byte) {
	info, ok := objectInfo(c, args[2])
	if !ok {
		return
	}
	if !c.srv.ks.LFU() {
		c.fail(errNoLFU)
		return
	}
	c.w.Int(int64(info.Freq))
}

// Expire options (Redis's EXPIRE_NX ... flags).
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// expireGeneric is expireGenericCommand; basetime is 0 for the *AT forms.
func expireGeneric(c *client, args [][]byte, name string, basetime int64, seconds bool) {
	flags := 0
	for _, opt := range args[3:] {
		switch {
		case cstrEqualFold(opt, "nx"):
			flags |= expireNX
		case cstrEqualFold(opt, "xx"):
			flags |= expireXX
		case cstrEqualFold(opt, "gt"):
			flags |= expireGT
		case cstrEqualFold(opt, "lt"):
			flags |= expireLT
		default:
			c.fail(protocol.Error("ERR Unsupported option " + string(cstrBytes(opt))))
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.fail(protocol.Error("ERR NX and XX, GT or LT options at the same time are not compatible"))
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.fail(protocol.Error("ERR GT and LT options at the same time are not compatible"))
		return
	}
	when, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.fail(protocol.ErrInvalidExpire(name))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-basetime {
		c.fail(protocol.ErrInvalidExpire(name))
		return
	}
	when += basetime
	cur := c.db.DeadlineForWrite(args[1])
	if cur == -2 {
		c.w.Int(0)
		return
	}
	if (flags&expireNX != 0 && cur != -1) ||
		(flags&expireXX != 0 && cur == -1) ||
		(flags&expireGT != 0 && (when <= cur || cur == -1)) ||
		(flags&expireLT != 0 && cur != -1 && when >= cur) {
		c.w.Int(0)
		return
	}
	c.db.Expire(args[1], when)
	if name != "pexpireat" || when <= c.srv.ks.Now() {
		propagateExpireAt(c, args[1], when, args[3:])
	}
	c.w.Int(1)
}

func cmdExpire(c *client, args [][]byte) {
	expireGeneric(c, args, "expire", c.srv.ks.Now(), true)
}
func cmdPExpire(c *client, args [][]byte) {
	expireGeneric(c, args, "pexpire", c.srv.ks.Now(), false)
}
func cmdExpireAt(c *client, args [][]byte)  { expireGeneric(c, args, "expireat", 0, true) }
func cmdPExpireAt(c *client, args [][]byte) { expireGeneric(c, args, "pexpireat", 0, false) }

// ttlGeneric is ttlGenericCommand.
func ttlGeneric(c *client, key []byte, ms, absolute bool) {
	when := c.db.Deadline(key)
	if when < 0 {
		c.w.Int(when)
		return
	}
	if absolute {
		if ms {
			c.w.Int(when)
		} else {
			c.w.Int(when / 1000)
		}
		return
	}
	ttl := when - c.srv.ks.Now()
	if ttl < 0 {
		ttl = 0
	}
	if ms {
		c.w.Int(ttl)
	} else {
		c.w.Int((ttl + 500) / 1000)
	}
}

func cmdTTL(c *client, args [][]byte)         { ttlGeneric(c, args[1], false, false) }
func cmdPTTL(c *client, args [][]byte)        { ttlGeneric(c, args[1], true, false) }
func cmdExpireTime(c *client, args [][]byte)  { ttlGeneric(c, args[1], false, true) }
func cmdPExpireTime(c *client, args [][]byte) { ttlGeneric(c, args[1], true, true) }

func cmdPersist(c *client, args [][]byte) { c.w.Int(b2i(c.db.Persist(args[1]))) }
