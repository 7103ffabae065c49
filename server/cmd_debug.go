package server

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/expire"
	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// DEBUG: the subcommands of Redis's that a test suite uses, plus our own
// for driving time (spec: enable-debug-command governs all of them).
//
//	DEBUG SET-ACTIVE-EXPIRE 0|1     turn the active expiry cycle off/on (as Redis)
//	DEBUG SLEEP <seconds>           block the server (as Redis)
//	DEBUG POPULATE <n> [prefix] [size]  create keys (as Redis)
//	DEBUG OBJECT <key>              low-level key info (as Redis; address, refcount approximated)
//	DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]  save and load dbfilename back (as Redis)
//	DEBUG CLOCK                     print the server clock: unix ms and "frozen" or "running"
//	DEBUG CLOCK FREEZE|UNFREEZE|RESET
//	DEBUG CLOCK SET <unix-ms>
//	DEBUG CLOCK ADVANCE <ms>        (negative to go back)
//	DEBUG ACTIVE-EXPIRE-CYCLE       run one full active expiry cycle now
//	DEBUG FAULT ADD|LIST|DEL|CLEAR  injected faults (fault_cmd.go)
//	DEBUG LOAD-FIXTURE <file>       run a file of redis-cli-style command lines (fixture.go)

var debugCommands = []commandDef{{"debug", cmdDebug}}

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ACTIVE-EXPIRE-CYCLE",
	"    Delete every key past its deadline now, through the expiry path (miniwatchd).",
	"CLOCK [FREEZE|UNFREEZE|RESET|SET <unix-ms>|ADVANCE <ms>]",
	"    Show or drive the server clock used for TTLs, TIME and timeouts (miniwatchd).",
	"OBJECT <key>",
	"    Show low level info about the `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"WATCH WHY|HOTKEYS [COUNT <n>]|RESET",
	"    Explain this client's aborted EXEC, list or reset the hot watched keys (miniwatchd).",
	"FAULT ADD [CMD <name>] [KEY <pattern>] [CLIENT <pattern>] [DB <n>] [NTH <n>] [EVERY <n>] [PROB <p> [SEED <s>]] [TIMES <n>] <action>",
	"    Inject a fault into matching commands; <action> is ERROR <text>, DELAY <ms>, CLOSE-BEFORE, CLOSE-AFTER,",
	"    TRUNCATE <bytes>, DROP-REPLY, ABORT-EXEC, RUN-BEFORE <command...> or RUN-AFTER <command...> (miniwatchd).",
	"FAULT LIST|DEL <id> [<id> ...]|CLEAR",
	"    List, remove or remove all injected faults (miniwatchd).",
	"LOAD-FIXTURE <file>",
	"    Run the redis-cli-style command lines of <file>; reply how many ran (miniwatchd).",
	"HELP",
	"    Print this help.",
}

// serializedLengthLocked is DEBUG OBJECT's serializedlength: the bytes of
// the key's value in RDB format (rdbSavedObjectLen).
func (s *Server) serializedLengthLocked(c *client, key []byte) int {
	kv, ok := c.db.View(string(key))
	if !ok {
		return 0
	}
	o := s.rdbOptionsLocked()
	return len(rdb.AppendBody(nil, db.ValueOf(kv), &o))
}

func debugSyntaxError(c *client, args [][]byte) {
	c.fail(protocol.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try DEBUG HELP.", cstrBytes(args[1]))))
}

func cmdDebug(c *client, args [][]byte) {
	s := c.srv
	sub := strings.ToLower(string(args[1]))
	switch {
	case sub == "help" && len(args) == 2:
		c.w.Array(len(debugHelp))
		for _, l := range debugHelp {
			c.w.Status(l)
		}
	case sub == "set-active-expire" && len(args) == 3:
		n, ok := protocol.ParseInt(args[2])
		if !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		s.activeExpire = n != 0
		c.w.OK()
	case sub == "sleep" && len(args) == 3:
		f, ok := protocol.ParseFloat(args[2])
		if !ok {
			c.fail(protocol.ErrNotFloat)
			return
		}
		time.Sleep(time.Duration(f * float64(time.Second))) // holds the engine lock, as Redis blocks
		c.w.OK()
	case sub == "populate" && len(args) >= 3 && len(args) <= 5:
		debugPopulate(c, args)
	case sub == "object" && len(args) == 3:
		info, ok := c.db.Object(args[2])
		if !ok {
			c.fail(protocol.ErrNoSuchKey)
			return
		}
		c.w.Status(fmt.Sprintf("Value at:0x0 refcount:1 encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
			info.Encoding, s.serializedLengthLocked(c, args[2]), s.ks.LRUClock(), info.IdleMs/1000))
	case sub == "clock":
		debugClock(c, args)
	case sub == "watch": // debug_watch.go: WHY, HOTKEYS, RESET
		debugWatch(c, args)
	case sub == "reload": // debug_reload.go
		debugReload(c, args)
	case sub == "fault": // fault_cmd.go: ADD, LIST, DEL, CLEAR
		debugFault(c, args)
	case sub == "load-fixture" && len(args) == 3: // fixture.go
		debugLoadFixture(c, args)
	case sub == "active-expire-cycle" && len(args) == 2:
		c.w.Int(int64(expire.SweepLocked(s.ks, s.clock.UnixMilli)))
	default:
		if !debugOpsSubcommand(c, sub, args) { // DIGEST, DIGEST-VALUE, PROTOCOL (debug_ops.go)
			debugSyntaxError(c, args)
		}
	}
}

func debugPopulate(c *client, args [][]byte) {
	count, ok := protocol.ParseInt(args[2])
	if !ok || count < 0 {
		c.fail(protocol.ErrNotPositive)
		return
	}
	prefix := []byte("key")
	if len(args) >= 4 {
		prefix = args[3]
	}
	size := int64(-1)
	if len(args) == 5 {
		n, ok := protocol.ParseInt(args[4])
		if !ok || n < 0 {
			c.fail(protocol.ErrNotPositive)
			return
		}
		size = n
	}
	key := make([]byte, 0, len(prefix)+24)
	val := make([]byte, 0, 32)
	for i := int64(0); i < count; i++ {
		key = append(append(append(key[:0], prefix...), ':'), strconv.FormatInt(i, 10)...)
		if c.db.Exists(key) {
			continue
		}
		val = append(append(val[:0], "value:"...), strconv.FormatInt(i, 10)...)
		v := val
		if size >= 0 {
			v = make([]byte, size)
			copy(v, val)
		}
		c.db.SetString(key, v, db.TTLClear, 0, db.EvSet)
	}
	c.w.OK()
}

func debugClock(c *client, args [][]byte) {
	s := c.srv
	clk := s.clock
	op := ""
	if len(args) >= 3 {
		op = strings.ToLower(string(args[2]))
	}
	argMs := func() (int64, bool) {
		if len(args) != 4 {
			debugSyntaxError(c, args)
			return 0, false
		}
		n, ok := protocol.ParseInt(args[3])
		if !ok {
			c.fail(protocol.ErrNotInteger)
		}
		return n, ok
	}
	switch {
	case op == "" && len(args) == 2:
		state := "running"
		if clk.Frozen() {
			state = "frozen"
		}
		c.w.Array(2)
		c.w.Int(clk.UnixMilli())
		c.w.BulkString(state)
		return
	case op == "freeze" && len(args) == 3:
		clk.Freeze()
	case op == "unfreeze" && len(args) == 3:
		clk.Unfreeze()
	case op == "reset" && len(args) == 3:
		clk.Reset()
	case op == "set":
		ms, ok := argMs()
		if !ok {
			return
		}
		clk.Set(time.UnixMilli(ms))
	case op == "advance":
		ms, ok := argMs()
		if !ok {
			return
		}
		clk.Advance(time.Duration(ms) * time.Millisecond)
	default:
		debugSyntaxError(c, args)
		return
	}
	s.ks.SetTime(clk.UnixMilli())
	c.w.OK()
}

var _ = bytes.EqualFold
