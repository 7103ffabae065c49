package server

import (
	"math"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// String commands (Redis t_string.c).

var stringCommands = []commandDef{
	{"get", cmdGet},
	{"set", cmdSet},
	{"setnx", cmdSetNX},
	{"setex", cmdSetEX},
	{"psetex", cmdPSetEX},
	{"getset", cmdGetSet},
	{"getex", cmdGetEX},
	{"getdel", cmdGetDel},
	{"mget", cmdMGet},
	{"mset", cmdMSet},
	{"msetnx", cmdMSetNX},
	{"incr", cmdIncr},
	{"decr", cmdDecr},
	{"incrby", cmdIncrBy},
	{"decrby", cmdDecrBy},
	{"incrbyfloat", cmdIncrByFloat},
	{"append", cmdAppend},
	{"strlen", cmdStrlen},
	{"getrange", cmdGetRange},
	{"substr", cmdGetRange},
	{"setrange", cmdSetRange},
	{"lcs", cmdLCS},
}

// replyGet writes GET's reply for key; it reports false after an error
// (Redis's getGenericCommand).
func replyGet(c *client, key []byte) bool {
	v, err := c.db.GetString(key)
	if err != nil {
		c.fail(err)
		return false
	}
	if v == nil {
		c.w.Null()
		return true
	}
	c.w.Bulk(v)
	return true
}

func cmdGet(c *client, args [][]byte) { replyGet(c, args[1]) }

// String-command option flags (Redis's OBJ_SET_* / OBJ_* flags).
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT
)

// parseStringOptions is parseExtendedStringArgumentsOrReply for SET
// (forSet) and GETEX. It returns the flags and the expire argument.
func parseStringOptions(args [][]byte, forSet bool) (flags int, expire []byte, err error) {
	j := 2
	if forSet {
		j = 3
	}
	const ttlFlags = setEX | setPX | setEXAT | setPXAT
	for ; j < len(args); j++ {
		opt := args[j]
		hasNext := j < len(args)-1
		switch {
		case forSet && cstrEqualFold(opt, "nx") && flags&setXX == 0:
			flags |= setNX
		case forSet && cstrEqualFold(opt, "xx") && flags&setNX == 0:
			flags |= setXX
		case forSet && cstrEqualFold(opt, "get"):
			flags |= setGet
		case forSet && cstrEqualFold(opt, "keepttl") && flags&(setPersist|ttlFlags) == 0:
			flags |= setKeepTTL
		case !forSet && cstrEqualFold(opt, "persist") && flags&(ttlFlags|setKeepTTL) == 0:
			flags |= setPersist
		case cstrEqualFold(opt, "ex") && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0 && hasNext:
			flags |= setEX
			expire = args[j+1]
			j++
		case cstrEqualFold(opt, "px") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && hasNext:
			flags |= setPX
			expire = args[j+1]
			j++
		case cstrEqualFold(opt, "exat") && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && hasNext:
			flags |= setEXAT
			expire = args[j+1]
			j++
		case cstrEqualFold(opt, "pxat") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0 && hasNext:
			flags |= setPXAT
			expire = args[j+1]
			j++
		default:
			return 0, nil, protocol.ErrSyntax
		}
	}
	return flags, expire, nil
}

// expireMillis is getExpireMillisecondsOrReply: the absolute deadline in ms
// for an EX/PX/EXAT/PXAT argument.
func expireMillis(c *client, cmdName string, expire []byte, flags int) (int64, error) {
	ms, ok := protocol.ParseInt(expire)
	if !ok {
		return 0, protocol.ErrNotInteger
	}
	seconds := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		return 0, protocol.ErrInvalidExpire(cmdName)
	}
	if seconds {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += c.srv.ks.Now()
	}
	if ms <= 0 {
		return 0, protocol.ErrInvalidExpire(cmdName)
	}
	return ms, nil
}

// setGeneric is setGenericCommand. okReply/abortReply replace +OK / null
// for SETNX (nil = default).
func setGeneric(c *client, cmdName string, flags int, key, val, expire []byte, okReply, abortReply func()) {
	var at int64
	if expire != nil {
		var err error
		if at, err = expireMillis(c, cmdName, expire, flags); err != nil {
			c.fail(err)
			return
		}
	}
	if flags&setGet != 0 && !replyGet(c, key) {
		return
	}
	_, found, _ := c.db.GetStringForWrite(key)
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet == 0 {
			if abortReply != nil {
				abortReply()
			} else {
				c.w.Null()
			}
		}
		return
	}
	mode := db.TTLClear
	switch {
	case expire != nil:
		mode = db.TTLSet
	case flags&setKeepTTL != 0:
		mode = db.TTLKeep
	}
	c.db.SetString(key, val, mode, at, db.EvSet)
	if expire != nil {
		propagateSetPXAT(c, key, val, at)
	}
	if flags&setGet == 0 {
		if okReply != nil {
			okReply()
		} else {
			c.w.OK()
		}
	}
}

func cmdSet(c *client, args [][]byte) {
	flags, expire, err := parseStringOptions(args, true)
	if err != nil {
		c.fail(err)
		return
	}
	setGeneric(c, "set", flags, args[1], args[2], expire, nil, nil)
	if flags&setGet != 0 && expire == nil {
		propagateSetWithoutGet(c, args)
	}
}

func cmdSetNX(c *client, args [][]byte) {
	setGeneric(c, "setnx", setNX, args[1], args[2], nil,
		func() { c.w.Int(1) }, func() { c.w.Int(0) })
}

func cmdSetEX(c *client, args [][]byte) {
	setGeneric(c, "setex", setEX, args[1], args[3], args[2], nil, nil)
}

func cmdPSetEX(c *client, args [][]byte) {
	setGeneric(c, "psetex", setPX, args[1], args[3], args[2], nil, nil)
}

func cmdGetSet(c *client, args [][]byte) {
	if !replyGet(c, args[1]) {
		return
	}
	c.db.SetString(args[1], args[2], db.TTLClear, 0, db.EvSet)
	c.propagateAs(propSET, args[1], args[2])
}

func cmdGetEX(c *client, args [][]byte) {
	flags, expire, err := parseStringOptions(args, false)
	if err != nil {
		c.fail(err)
		return
	}
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if v == nil {
		c.w.Null()
		return
	}
	var at int64
	if expire != nil {
		if at, err = expireMillis(c, "getex", expire, flags); err != nil {
			c.fail(err)
			return
		}
	}
	c.w.Bulk(v) // before the key may be deleted
	switch {
	case expire != nil:
		c.db.Expire(args[1], at)
		propagateExpireAt(c, args[1], at, nil)
	case flags&setPersist != 0:
		c.db.Persist(args[1])
		c.propagateAs(propPERSIST, args[1])
	}
}

func cmdGetDel(c *client, args [][]byte) {
	if !replyGet(c, args[1]) {
		return
	}
	c.db.Delete(args[1])
	c.propagateAs(delCommand(c.srv.cfg.LazyfreeLazyUserDel), args[1])
}

func cmdMGet(c *client, args [][]byte) {
	c.w.Array(len(args) - 1)
	for _, key := range args[1:] {
		v, err := c.db.GetString(key)
		if err != nil || v == nil {
			c.w.Null()
			continue
		}
		c.w.Bulk(v)
	}
}

func cmdMSet(c *client, args [][]byte) {
	if len(args)%2 == 0 {
		c.fail(protocol.ErrWrongArity("mset"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		c.db.SetString(args[i], args[i+1], db.TTLClear, 0, db.EvSet)
	}
	c.w.OK()
}

func cmdMSetNX(c *client, args [][]byte) {
	if len(args)%2 == 0 {
		c.fail(protocol.ErrWrongArity("msetnx"))
		return
	}
	for i := 1; i < len(args); i += 2 {
		if _, found, _ := c.db.GetStringForWrite(args[i]); found {
			c.w.Int(0)
			return
		}
	}
	for i := 1; i < len(args); i += 2 {
		c.db.SetString(args[i], args[i+1], db.TTLClear, 0, db.EvSet)
	}
	c.w.Int(1)
}

// incrDecr is incrDecrCommand.
func incrDecr(c *client, key []byte, incr int64) {
	cur, found, err := c.db.GetStringForWrite(key)
	if err != nil {
		c.fail(err)
		return
	}
	var v int64
	if found {
		var ok bool
		if v, ok = protocol.ParseInt(cur); !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
	}
	if (incr < 0 && v < 0 && incr < math.MinInt64-v) || (incr > 0 && v > 0 && incr > math.MaxInt64-v) {
		c.fail(protocol.ErrIncrOverflow)
		return
	}
	v += incr
	var buf [24]byte
	c.db.SetString(key, protocol.AppendInt(buf[:0], v), db.TTLKeep, 0, db.EvIncrBy)
	c.w.Int(v)
}

func cmdIncr(c *client, args [][]byte) { incrDecr(c, args[1], 1) }
func cmdDecr(c *client, args [][]byte) { incrDecr(c, args[1], -1) }

func cmdIncrBy(c *client, args [][]byte) {
	n, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	incrDecr(c, args[1], n)
}

func cmdDecrBy(c *client, args [][]byte) {
	n, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if n == math.MinInt64 {
		c.fail(protocol.Error("ERR decrement would overflow"))
		return
	}
	incrDecr(c, args[1], -n)
}

func cmdIncrByFloat(c *client, args [][]byte) {
	cur, found, err := c.db.GetStringForWrite(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	var v protocol.LongDouble
	if found {
		var ok bool
		if v, ok = protocol.ParseLongDouble(cur); !ok {
			c.fail(protocol.ErrNotFloat)
			return
		}
	}
	incr, ok := protocol.ParseLongDouble(args[2])
	if !ok {
		c.fail(protocol.ErrNotFloat)
		return
	}
	v = v.Add(incr)
	if v.IsInfOrNaN() {
		c.fail(protocol.ErrNaNOrInf)
		return
	}
	out := protocol.AppendLongDouble(nil, v, protocol.LDStrHuman)
	c.db.SetStringNoInt(args[1], out, db.TTLKeep, 0, db.EvIncrByFloat)
	c.propagateAs(propSET, args[1], out, propKEEPTTL)
	c.w.Bulk(out)
}

func cmdAppend(c *client, args [][]byte) {
	n, err := c.db.AppendString(args[1], args[2], c.srv.cfg.ProtoMaxBulkLen)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdStrlen(c *client, args [][]byte) {
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(len(v)))
}

func cmdGetRange(c *client, args [][]byte) {
	start, ok1 := protocol.ParseInt(args[2])
	end, ok2 := protocol.ParseInt(args[3])
	if !ok1 || !ok2 {
		c.fail(protocol.ErrNotInteger)
		return
	}
	v, err := c.db.GetString(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.w.BulkString("")
		return
	}
	start, end = clampRange(start, end, n, false)
	if start > end || n == 0 {
		c.w.BulkString("")
		return
	}
	c.w.Bulk(v[start : end+1])
}

func cmdSetRange(c *client, args [][]byte) {
	offset, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if offset < 0 {
		c.fail(protocol.ErrOffsetRange)
		return
	}
	n, err := c.db.SetRange(args[1], offset, args[3], c.srv.cfg.ProtoMaxBulkLen)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}
