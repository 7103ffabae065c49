package server

import (
	"bytes"
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// DUMP and RESTORE (Redis 7.0 cluster.c dumpCommand, restoreCommand): the
// payload is the value in RDB format, the RDB version and a CRC64, built
// and checked by the rdb package.

var dumpCommands = []commandDef{
	{"dump", cmdDump},
	{"restore", cmdRestore},
	{"restore-asking", cmdRestore},
}

var (
	errBusyKey        = protocol.Error("BUSYKEY Target key name already exists.")
	errInvalidTTL     = protocol.Error("ERR Invalid TTL value, must be >= 0")
	errInvalidIdle    = protocol.Error("ERR Invalid IDLETIME value, must be >= 0")
	errInvalidFreq    = protocol.Error("ERR Invalid FREQ value, must be >= 0 and <= 255")
	errPayloadFooter  = protocol.Error("ERR DUMP payload version or checksum are wrong")
	errPayloadBadData = protocol.Error("ERR Bad data format")
	// errDumpType: a value type the rdb codec does not hold (none today:
	// db.ValueOf covers every type); a guard, so a type added without a
	// codec fails its DUMP instead of the server.
	errDumpType       = protocol.Error("ERR DUMP of this value type is not supported")
	propRESTORE       = []byte("RESTORE")
	propRESTOREAsking = []byte("RESTORE-ASKING") // MIGRATE in cluster mode
	propABSTTL        = []byte("ABSTTL")
)

// rdbOptionsLocked returns the encoder's settings from the configuration.
func (s *Server) rdbOptionsLocked() rdb.Options {
	return rdb.Options{Compress: paramOr(&s.cfg, "rdbcompression", "yes") == "yes", ListFill: s.cfg.ListMaxListpackSize}
}

func cmdDump(c *client, args [][]byte) {
	kv, ok := c.db.LookupView(args[1])
	if !ok {
		c.w.Null()
		return
	}
	v := db.ValueOf(kv)
	if v == nil {
		c.fail(errDumpType)
		return
	}
	o := c.srv.rdbOptionsLocked()
	c.w.Bulk(rdb.DumpPayload(v, &o))
}

func cmdRestore(c *client, args [][]byte) {
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(args); j++ {
		more := len(args) - j - 1
		switch {
		case bytes.EqualFold(args[j], []byte("replace")):
			replace = true
		case bytes.EqualFold(args[j], []byte("absttl")):
			absTTL = true
		case bytes.EqualFold(args[j], []byte("idletime")) && more >= 1 && freq == -1:
			v, ok := protocol.ParseInt(args[j+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if v < 0 {
				c.fail(errInvalidIdle)
				return
			}
			idle = v
			j++
		case bytes.EqualFold(args[j], []byte("freq")) && more >= 1 && idle == -1:
			v, ok := protocol.ParseInt(args[j+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if v < 0 || v > 255 {
				c.fail(errInvalidFreq)
				return
			}
			freq = v
			j++
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	key := args[1]
	if !replace && c.db.ExistsForWrite(key) {
		c.fail(errBusyKey)
		return
	}
	ttl, ok := protocol.ParseInt(args[2])
	if !ok {
		c.fail(protocol.ErrNotInteger)
		return
	}
	if ttl < 0 {
		c.fail(errInvalidTTL)
		return
	}
	v, err := rdb.ParsePayload(args[3], c.srv.sanitizePayloadLocked(c))
	switch err {
	case nil:
	case rdb.ErrPayloadFooter:
		c.fail(errPayloadFooter)
		return
	default:
		c.fail(errPayloadBadData)
		return
	}
	deadline := int64(-1)
	if ttl > 0 {
		deadline = ttl
		if !absTTL {
			deadline += c.srv.ks.Now()
		}
	}
	deleted, added := c.db.Restore(key, v, db.RestoreOptions{Deadline: deadline, IdleSecs: idle, Freq: int(freq)}, replace)
	switch {
	case !added && deleted:
		del := propDEL
		if c.srv.cfg.LazyfreeLazyServerDel {
			del = propUNLINK
		}
		c.propagateAs(del, key)
	case added && ttl > 0 && !absTTL && c.propagating():
		out := append([][]byte{propRESTORE, key, strconv.AppendInt(nil, deadline, 10)}, args[3:]...)
		c.propagateAs(append(out, propABSTTL)...)
	}
	c.w.OK()
}

// sanitizePayloadLocked reports whether RESTORE checks a payload deeply
// (sanitize-dump-payload yes, or clients for a normal client).
func (s *Server) sanitizePayloadLocked(c *client) bool {
	switch paramOr(&s.cfg, "sanitize-dump-payload", "no") {
	case "yes":
		return true
	case "clients":
		return !c.replay
	}
	return false
}
