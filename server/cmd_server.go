package server

import (
	"bytes"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Server commands: FLUSHDB FLUSHALL SWAPDB TIME SHUTDOWN CONFIG.

var serverCommands = []commandDef{
	{"flushdb", cmdFlushDB},
	{"flushall", cmdFlushAll},
	{"swapdb", cmdSwapDB},
	{"time", cmdTime},
	{"shutdown", cmdShutdown},
	{"config|get", cmdConfigGet},
	{"config|set", cmdConfigSet},
	{"config|resetstat", cmdConfigResetStat},
	{"config|help", cmdHelp},
}

// flushMode checks FLUSHDB/FLUSHALL's optional SYNC|ASYNC as
// getFlushCommandFlags does: anything but no argument or that one word is a
// syntax error.
func flushMode(args [][]byte) error {
	switch {
	case len(args) == 1:
		return nil
	case len(args) == 2 && (bytes.EqualFold(args[1], []byte("sync")) || bytes.EqualFold(args[1], []byte("async"))):
		return nil
	}
	return protocol.ErrSyntax
}

func cmdFlushDB(c *client, args [][]byte) {
	if err := flushMode(args); err != nil {
		c.fail(err)
		return
	}
	c.db.Flush()
	c.w.OK()
}

func cmdFlushAll(c *client, args [][]byte) {
	if err := flushMode(args); err != nil {
		c.fail(err)
		return
	}
	c.srv.ks.FlushAll()
	c.w.OK()
}

func cmdSwapDB(c *client, args [][]byte) {
	if c.srv.cluster.on {
		c.fail(protocol.Error("ERR SWAPDB is not allowed in cluster mode"))
		return
	}
	a, ok := parseInt32(args[1])
	if !ok {
		c.fail(protocol.Error("ERR invalid first DB index"))
		return
	}
	b, ok := parseInt32(args[2])
	if !ok {
		c.fail(protocol.Error("ERR invalid second DB index"))
		return
	}
	n := int64(c.srv.ks.Len())
	if a < 0 || a >= n || b < 0 || b >= n {
		c.fail(protocol.ErrDBIndex)
		return
	}
	c.srv.ks.SwapDB(int(a), int(b))
	c.w.OK()
}

func cmdTime(c *client, args [][]byte) {
	us := c.srv.clock.UnixMicro()
	c.w.Array(2)
	c.w.BulkInt(us / 1_000_000)
	c.w.BulkInt(us % 1_000_000)
}

func cmdShutdown(c *client, args [][]byte) {
	var nosave, save, now, force, abort bool
	for _, a := range args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave":
			nosave = true
		case "save":
			save = true
		case "now":
			now = true
		case "force":
			force = true
		case "abort":
			abort = true
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if (abort && (nosave || save || now || force)) || (nosave && save) {
		c.fail(protocol.ErrSyntax)
		return
	}
	if abort {
		c.fail(protocol.Error("ERR No shutdown in progress."))
		return
	}
	if !now && c.denyBlocking {
		c.fail(protocol.Error("ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client"))
		return
	}
	s := c.srv
	if !nosave && s.scriptBusyLocked() {
		c.fail(s.scriptBusyError())
		return
	}
	s.rdb.shutdownSave = save
	for _, fn := range s.hooks.shutdown {
		if err := fn(s, !nosave); err != nil && !force {
			s.log.Warn("Errors trying to shut down the server", "err", err)
			c.fail(protocol.Error("ERR Errors trying to SHUTDOWN. Check logs."))
			return
		}
	}
	s.log.Warn("User requested shutdown...")
	// The listeners close before the caller's connection does: a client
	// that sees it close finds new connections refused, as with Redis.
	s.ops.listenersClosed.Store(true)
	s.closeListeners()
	c.closeAfterRply = true
	go s.Close()
}

func cmdConfigGet(c *client, args [][]byte) {
	d := c.w.DeferLen()
	n := 0
	c.srv.params.get(args[2:], func(name, value string) {
		c.w.BulkString(name)
		c.w.BulkString(value)
		n++
	})
	c.w.SetMapLen(d, n)
}

func cmdConfigSet(c *client, args [][]byte) {
	if err := c.srv.params.setFrom(args[2:], c.isLocal()); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

func cmdConfigResetStat(c *client, args [][]byte) {
	c.srv.resetStatsLocked()
	c.w.OK()
}

// resetStatsLocked is CONFIG RESETSTAT's resetServerStats.
func (s *Server) resetStatsLocked() {
	st := &s.ks.Stats
	dirty := st.Dirty
	*st = s.ks.Stats
	st.ExpiredKeys, st.EvictedKeys, st.KeyspaceHits, st.KeyspaceMisses = 0, 0, 0, 0
	st.ExpiredStalePerc, st.ExpiredTimeCapReachedCnt, st.ExpireCycleCPUMillis = 0, 0, 0
	st.Dirty = dirty
	s.stats.totalConnections.Store(0)
	s.stats.totalCommands.Store(0)
	s.stats.rejectedConnections.Store(0)
	s.lim.evictedClients = 0
	s.stats.totalErrorReplies = 0
	s.stats.errors = nil
	s.stats.netInputBytes.Store(0)
	s.stats.netOutputBytes.Store(0)
	for _, cmd := range s.table.all() {
		cmd.calls.Store(0)
		cmd.usec.Store(0)
		cmd.rejected.Store(0)
		cmd.failed.Store(0)
	}
	for _, fn := range s.hooks.resetStat {
		fn(s)
	}
}
