package server

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// DEBUG subcommands of the server-operations subsystem (Redis debug.c):
//
//	DEBUG DIGEST              the dataset's digest, Redis's algorithm
//	DEBUG DIGEST-VALUE key... each value's digest
//	DEBUG PROTOCOL <type>     a sample reply of each RESP type
//	DEBUG LOG <message>       write message to the log (warning level)
//	DEBUG CHANGE-REPL-ID      a new replication id (INFO master_replid)
//	DEBUG PAUSE-CRON 0|1      stop / restart the cron and the active expiry
//	DEBUG CONFIG-REWRITE-FORCE-ALL  CONFIG REWRITE writing every parameter
//
// The digest is Redis's computeDatasetDigest: per key, SHA1-mixed key,
// type and value (in the order Redis mixes them: list elements in order,
// set members and hash pairs xored so that order does not matter, sorted
// set members with their score printed as %.17g), "!!expire!!" xored for a
// key with a TTL; the keys of a database xored together after the database
// id was mixed in. A dataset therefore digests to the same 40 hex digits in
// miniwatchd and in redis-server 7.0.

// debugOpsSubcommand runs the DEBUG subcommands above; it reports false
// for any other subcommand.
func debugOpsSubcommand(c *client, sub string, args [][]byte) bool {
	switch {
	case sub == "digest" && len(args) == 2:
		var d [20]byte
		c.srv.datasetDigestLocked(&d)
		c.w.Status(hex.EncodeToString(d[:]))
	case sub == "digest-value":
		c.w.Array(len(args) - 2)
		for _, k := range args[2:] {
			var d [20]byte
			if kv, ok := c.db.View(string(k)); ok {
				xorObjectDigest(&d, kv)
			}
			c.w.Status(hex.EncodeToString(d[:]))
		}
	case sub == "protocol" && len(args) == 3:
		debugProtocol(c, strings.ToLower(string(args[2])))
	case sub == "log" && len(args) == 3:
		c.srv.log.Warn("DEBUG LOG: " + string(args[2]))
		c.w.OK()
	case sub == "change-repl-id" && len(args) == 2:
		c.srv.log.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
		c.srv.ops.replID = newRunID()
		c.w.OK()
	case sub == "pause-cron" && len(args) == 3:
		n, _, _ := protocol.Strtoll(args[2], 10) // atoi, as Redis reads it
		c.srv.ops.cronPaused = n != 0
		c.w.OK()
	case sub == "config-rewrite-force-all" && len(args) == 2:
		s := c.srv
		if s.configFile == "" {
			c.fail(protocol.Error("ERR CONFIG-REWRITE-FORCE-ALL failed: Bad address"))
			return true
		}
		if err := s.rewriteConfigForceLocked(s.configFile, true); err != nil {
			c.fail(protocol.Error("ERR CONFIG-REWRITE-FORCE-ALL failed: " + protocol.Strerror(err)))
			return true
		}
		c.w.OK()
	default:
		return false
	}
	return true
}

// xorDigest xors SHA1(b) into d.
func xorDigest(d *[20]byte, b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mixDigest sets d to SHA1(d xor SHA1(b)): order matters.
func mixDigest(d *[20]byte, b []byte) {
	xorDigest(d, b)
	*d = sha1.Sum(d[:])
}

// redisObjType is Redis's OBJ_* number of a type.
func redisObjType(t db.Type) uint32 {
	switch t {
	case db.TypeList:
		return 1
	case db.TypeSet:
		return 2
	case db.TypeZSet:
		return 3
	case db.TypeHash:
		return 4
	case db.TypeStream:
		return 6
	}
	return 0
}

// xorObjectDigest mixes one value into d (Redis's xorObjectDigest).
func xorObjectDigest(d *[20]byte, kv db.KeyView) {
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], redisObjType(kv.Type))
	mixDigest(d, aux[:])
	switch v := kv.Obj.(type) {
	case nil:
		mixDigest(d, kv.Str)
	case *db.List:
		for i := 0; i < v.Len(); i++ {
			mixDigest(d, []byte(v.At(i)))
		}
	case *db.Set:
		v.Each(func(m []byte) bool {
			xorDigest(d, m)
			return true
		})
	case *db.ZSet:
		var num []byte
		v.Each(func(n *db.ZNode) bool {
			var ele [20]byte
			mixDigest(&ele, []byte(n.Member()))
			num = strconv.AppendFloat(num[:0], n.Score(), 'g', 17, 64)
			mixDigest(&ele, formatG17(num))
			xorDigest(d, ele[:])
			return true
		})
	case *db.Hash:
		v.Each(func(field, value string) bool {
			var ele [20]byte
			mixDigest(&ele, []byte(field))
			mixDigest(&ele, []byte(value))
			xorDigest(d, ele[:])
			return true
		})
	}
	if kv.Deadline != -1 {
		xorDigest(d, []byte("!!expire!!"))
	}
}

// formatG17 turns Go's %.17g rendering into C's: the exponent has at least
// two digits in both, so only inf and nan differ.
func formatG17(b []byte) []byte {
	switch string(b) {
	case "+Inf":
		return []byte("inf")
	case "-Inf":
		return []byte("-inf")
	case "NaN":
		return []byte("nan")
	}
	return b
}

// datasetDigestLocked computes the digest of every database (Redis's
// computeDatasetDigest).
func (s *Server) datasetDigestLocked(final *[20]byte) {
	*final = [20]byte{}
	for j := 0; j < s.ks.Len(); j++ {
		d := s.ks.DB(j)
		if d.Size() == 0 {
			continue
		}
		var aux [4]byte
		binary.BigEndian.PutUint32(aux[:], uint32(j))
		mixDigest(final, aux[:])
		s.ks.HoldShrink(true)
		cur := uint64(0)
		for {
			cur = d.Walk(cur, 1000, func(kv db.KeyView) {
				var kd [20]byte
				mixDigest(&kd, []byte(kv.Key))
				xorObjectDigest(&kd, kv)
				xorDigest(final, kd[:])
			})
			if cur == 0 {
				break
			}
		}
		s.ks.HoldShrink(false)
	}
}

var errDebugProtocolType = protocol.Error("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")

// debugProtocol writes DEBUG PROTOCOL's sample reply of a RESP type.
func debugProtocol(c *client, name string) {
	w := &c.w
	switch name {
	case "string":
		w.BulkString("Hello World")
	case "integer":
		w.Int(12345)
	case "double":
		w.Double(3.141)
	case "bignum":
		w.BigNumber("1234567999999999999999999999999999999")
	case "null":
		w.Null()
	case "array":
		w.Array(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case "set":
		w.Set(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case "map":
		w.Map(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.Bool(j == 1)
		}
	case "attrib":
		if w.Resp3() {
			w.Attribute(1)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case "push":
		if !w.Resp3() {
			c.fail(protocol.Error("ERR RESP2 is not supported by this command"))
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case "true":
		w.Bool(true)
	case "false":
		w.Bool(false)
	case "verbatim":
		w.Verbatim("txt", "This is a verbatim\nstring")
	default:
		c.fail(errDebugProtocolType)
	}
}
