package server

import (
	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS (Redis
// t_stream.c xinfoCommand, 7.0.15's fields: no active-time, no inactive).

var streamInfoCommands = []commandDef{
	{"xinfo|stream", cmdXInfoStream},
	{"xinfo|groups", cmdXInfoGroups},
	{"xinfo|consumers", cmdXInfoConsumers},
	{"xinfo|help", cmdHelp},
}

// xinfoStream looks the key up for XINFO: "ERR no such key" when missing.
func xinfoStream(c *client, key []byte) *db.Stream {
	s, err := c.db.LookupStream(key)
	if err != nil {
		c.fail(err)
		return nil
	}
	if s == nil {
		c.fail(protocol.ErrNoSuchKey)
		return nil
	}
	return s
}

func cmdXInfoConsumers(c *client, args [][]byte) {
	s := xinfoStream(c, args[2])
	if s == nil {
		return
	}
	g := s.Group(args[3])
	if g == nil {
		c.fail(protocol.Error("NOGROUP No such consumer group '" + cstr(string(args[3])) + "' for key name '" + cstr(string(args[2])) + "'"))
		return
	}
	now := c.srv.ks.StreamNow()
	c.w.Array(len(g.Consumers()))
	for _, cons := range g.Consumers() {
		c.w.Map(3)
		c.w.BulkString("name")
		c.w.BulkString(cons.Name())
		c.w.BulkString("pending")
		c.w.Int(int64(cons.Pending()))
		c.w.BulkString("idle")
		c.w.Int(max(now-cons.SeenTime, 0))
	}
}

// writeOptInt writes n, or a null when !ok.
func writeOptInt(c *client, n int64, ok bool) {
	if ok {
		c.w.Int(n)
	} else {
		c.w.Null()
	}
}

func cmdXInfoGroups(c *client, args [][]byte) {
	s := xinfoStream(c, args[2])
	if s == nil {
		return
	}
	c.w.Array(len(s.Groups()))
	for _, g := range s.Groups() {
		c.w.Map(6)
		c.w.BulkString("name")
		c.w.BulkString(g.Name())
		c.w.BulkString("consumers")
		c.w.Int(int64(len(g.Consumers())))
		c.w.BulkString("pending")
		c.w.Int(int64(g.Pending()))
		c.w.BulkString("last-delivered-id")
		writeID(c, g.LastID)
		c.w.BulkString("entries-read")
		writeOptInt(c, g.EntriesRead, g.EntriesRead != db.InvalidEntriesRead)
		c.w.BulkString("lag")
		lag, ok := s.Lag(g)
		writeOptInt(c, lag, ok)
	}
}

func cmdXInfoStream(c *client, args [][]byte) {
	s := xinfoStream(c, args[2])
	if s == nil {
		return
	}
	full, count := false, int64(10)
	if opts := args[3:]; len(opts) > 0 {
		if len(opts) != 1 && len(opts) != 3 || !cstrEqualFold(opts[0], "full") ||
			len(opts) == 3 && !cstrEqualFold(opts[1], "count") {
			subcommandSyntaxError(c, args)
			return
		}
		full = true
		if len(opts) == 3 {
			n, ok := protocol.ParseInt(opts[2])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			count = max(n, 0)
		}
	}
	if full {
		c.w.Map(9)
	} else {
		c.w.Map(10)
	}
	c.w.BulkString("length")
	c.w.Int(int64(s.Len()))
	c.w.BulkString("radix-tree-keys")
	c.w.Int(int64(s.Nodes()))
	c.w.BulkString("radix-tree-nodes")
	c.w.Int(int64(s.RaxNodes()))
	c.w.BulkString("last-generated-id")
	writeID(c, s.LastID())
	c.w.BulkString("max-deleted-entry-id")
	writeID(c, s.MaxDeletedID())
	c.w.BulkString("entries-added")
	c.w.Int(int64(s.EntriesAdded()))
	c.w.BulkString("recorded-first-entry-id")
	writeID(c, s.FirstID())
	if !full {
		c.w.BulkString("groups")
		c.w.Int(int64(len(s.Groups())))
		for _, rev := range []bool{false, true} {
			if rev {
				c.w.BulkString("last-entry")
			} else {
				c.w.BulkString("first-entry")
			}
			found := false
			s.Range(db.StreamID{}, db.MaxStreamID, rev, func(id db.StreamID, fv [][]byte) bool {
				writeEntry(c, id, fv)
				found = true
				return false
			})
			if !found {
				c.w.Null()
			}
		}
		return
	}
	c.w.BulkString("entries")
	writeEntryRange(c, s, db.StreamID{}, db.MaxStreamID, int(count), false)
	c.w.BulkString("groups")
	c.w.Array(len(s.Groups()))
	for _, g := range s.Groups() {
		c.w.Map(7)
		c.w.BulkString("name")
		c.w.BulkString(g.Name())
		c.w.BulkString("last-delivered-id")
		writeID(c, g.LastID)
		c.w.BulkString("entries-read")
		writeOptInt(c, g.EntriesRead, g.EntriesRead != db.InvalidEntriesRead)
		c.w.BulkString("lag")
		lag, ok := s.Lag(g)
		writeOptInt(c, lag, ok)
		c.w.BulkString("pel-count")
		c.w.Int(int64(g.Pending()))
		c.w.BulkString("pending")
		d := c.w.DeferLen()
		n := 0
		g.PendingRange(nil, db.StreamID{}, db.MaxStreamID, func(p *db.PendingEntry) bool {
			if count != 0 && int64(n) >= count {
				return false
			}
			c.w.Array(4)
			writeID(c, p.ID)
			c.w.BulkString(p.Consumer.Name())
			c.w.Int(p.DeliveryTime)
			c.w.Int(int64(p.DeliveryCount))
			n++
			return true
		})
		c.w.SetArrayLen(d, n)
		c.w.BulkString("consumers")
		c.w.Array(len(g.Consumers()))
		for _, cons := range g.Consumers() {
			c.w.Map(4)
			c.w.BulkString("name")
			c.w.BulkString(cons.Name())
			c.w.BulkString("seen-time")
			c.w.Int(cons.SeenTime)
			c.w.BulkString("pel-count")
			c.w.Int(int64(cons.Pending()))
			c.w.BulkString("pending")
			d := c.w.DeferLen()
			n := 0
			g.PendingRange(cons, db.StreamID{}, db.MaxStreamID, func(p *db.PendingEntry) bool {
				if count != 0 && int64(n) >= count {
					return false
				}
				c.w.Array(3)
				writeID(c, p.ID)
				c.w.Int(p.DeliveryTime)
				c.w.Int(int64(p.DeliveryCount))
				n++
				return true
			})
			c.w.SetArrayLen(d, n)
		}
	}
}
