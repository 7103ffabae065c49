package server

import (
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Consumer group commands (Redis t_stream.c): XGROUP and its subcommands,
// XACK, XPENDING, XCLAIM, XAUTOCLAIM. XCLAIM and XAUTOCLAIM are
// propagated as one XCLAIM ... FORCE JUSTID per claimed entry, as
// streamPropagateXCLAIM does.

var streamGroupCommands = []commandDef{
	{"xgroup|create", cmdXGroupCreate},
	{"xgroup|setid", cmdXGroupSetID},
	{"xgroup|destroy", cmdXGroupDestroy},
	{"xgroup|createconsumer", cmdXGroupCreateConsumer},
	{"xgroup|delconsumer", cmdXGroupDelConsumer},
	{"xgroup|help", cmdHelp},
	{"xack", cmdXAck},
	{"xpending", cmdXPending},
	{"xclaim", cmdXClaim},
	{"xautoclaim", cmdXAutoClaim},
}

var errEntriesReadNeg = protocol.Error("ERR value for ENTRIESREAD must be positive or -1")

// parseEntriesRead parses CREATE's and SETID's options from index 5.
func parseGroupOptions(c *client, args [][]byte, allowMk bool) (mk bool, entriesRead int64, ok bool) {
	entriesRead = db.InvalidEntriesRead
	for i := 5; i < len(args); {
		switch {
		case allowMk && cstrEqualFold(args[i], "mkstream"):
			mk = true
			i++
		case cstrEqualFold(args[i], "entriesread") && i+1 < len(args):
			n, okn := protocol.ParseInt(args[i+1])
			if !okn {
				c.fail(protocol.ErrNotInteger)
				return false, 0, false
			}
			if n < 0 && n != db.InvalidEntriesRead {
				c.fail(errEntriesReadNeg)
				return false, 0, false
			}
			entriesRead = n
			i += 2
		default:
			subcommandSyntaxError(c, args)
			return false, 0, false
		}
	}
	return mk, entriesRead, true
}

// groupID parses CREATE's and SETID's ID: "$" or an ID.
func groupID(arg []byte, strict bool) (id db.StreamID, dollar bool, err error) {
	if len(arg) == 1 && arg[0] == '$' {
		return id, true, nil
	}
	id, _, err = db.ParseStreamID(arg, 0, strict, false)
	return id, false, err
}

func cmdXGroupCreate(c *client, args [][]byte) {
	if len(args) > 8 {
		subcommandSyntaxError(c, args)
		return
	}
	mk, er, ok := parseGroupOptions(c, args, true)
	if !ok {
		return
	}
	if err := xgroupKeyCheck(c, args, mk); err != nil {
		c.fail(err)
		return
	}
	id, dollar, err := groupID(args[4], true)
	if err != nil {
		c.fail(err)
		return
	}
	if err := c.db.XGroupCreate(args[2], args[3], id, dollar, er, mk); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

// xgroupKeyCheck is xgroupCommand's common lookup: WRONGTYPE, then the
// missing key error (unless CREATE ... MKSTREAM), then -NOGROUP for the
// subcommands that need the group.
func xgroupKeyCheck(c *client, args [][]byte, mk bool) error {
	s, err := c.db.LookupStreamForWrite(args[2])
	if err != nil {
		return err
	}
	sub := args[1]
	if s == nil && !(mk && cstrEqualFold(sub, "create")) {
		return db.ErrStreamNoGroupKey
	}
	needGroup := cstrEqualFold(sub, "setid") || cstrEqualFold(sub, "createconsumer") || cstrEqualFold(sub, "delconsumer")
	if needGroup && s.Group(args[3]) == nil {
		return db.NoGroupError(args[3], args[2])
	}
	return nil
}

func cmdXGroupSetID(c *client, args [][]byte) {
	if len(args) != 5 && len(args) != 7 {
		subcommandSyntaxError(c, args)
		return
	}
	_, er, ok := parseGroupOptions(c, args, false)
	if !ok {
		return
	}
	if err := xgroupKeyCheck(c, args, false); err != nil {
		c.fail(err)
		return
	}
	id, dollar, err := groupID(args[4], false)
	if err != nil {
		c.fail(err)
		return
	}
	if err := c.db.XGroupSetID(args[2], args[3], id, dollar, er); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

func cmdXGroupDestroy(c *client, args [][]byte) {
	if err := xgroupKeyCheck(c, args, false); err != nil {
		c.fail(err)
		return
	}
	ok, err := c.db.XGroupDestroy(args[2], args[3])
	xgroupIntReply(c, b2i(ok), err)
}

func cmdXGroupCreateConsumer(c *client, args [][]byte) {
	if err := xgroupKeyCheck(c, args, false); err != nil {
		c.fail(err)
		return
	}
	ok, err := c.db.XGroupCreateConsumer(args[2], args[3], args[4])
	xgroupIntReply(c, b2i(ok), err)
}

func cmdXGroupDelConsumer(c *client, args [][]byte) {
	if err := xgroupKeyCheck(c, args, false); err != nil {
		c.fail(err)
		return
	}
	n, err := c.db.XGroupDelConsumer(args[2], args[3], args[4])
	xgroupIntReply(c, int64(n), err)
}

// xgroupIntReply replies err, or n: the integer reply of XGROUP DESTROY,
// CREATECONSUMER and DELCONSUMER.
func xgroupIntReply(c *client, n int64, err error) {
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(n)
}

func cmdXAck(c *client, args [][]byte) {
	ids := make([]db.StreamID, 0, len(args)-3)
	for _, a := range args[3:] {
		id, _, err := db.ParseStreamID(a, 0, true, false)
		if err != nil {
			c.fail(err)
			return
		}
		ids = append(ids, id)
	}
	n, err := c.db.XAck(args[1], args[2], ids)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

// noGroupKeyError is XCLAIM's, XAUTOCLAIM's and XPENDING's -NOGROUP.
func noGroupKeyError(key, group []byte) protocol.Error {
	return protocol.Error("NOGROUP No such key '" + cstr(string(key)) + "' or consumer group '" + cstr(string(group)) + "'")
}

func cmdXPending(c *client, args [][]byte) {
	justInfo := len(args) == 3
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		c.fail(protocol.ErrSyntax)
		return
	}
	var start, end db.StreamID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		si := 3
		if cstrEqualFold(args[3], "idle") {
			n, ok := protocol.ParseInt(args[4])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			minIdle = n
			if len(args) < 8 {
				c.fail(protocol.ErrSyntax)
				return
			}
			si += 2
		}
		n, ok := protocol.ParseInt(args[si+2])
		if !ok {
			c.fail(protocol.ErrNotInteger)
			return
		}
		count = max(n, 0)
		var err error
		if start, err = parseIntervalID(args[si], 0, true); err != nil {
			c.fail(err)
			return
		}
		if end, err = parseIntervalID(args[si+1], math.MaxUint64, false); err != nil {
			c.fail(err)
			return
		}
		if si+3 < len(args) {
			consumer = args[si+3]
		}
	}
	s, err := c.db.LookupStream(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	var g *db.StreamGroup
	if s != nil {
		g = s.Group(args[2])
	}
	if g == nil {
		c.fail(noGroupKeyError(args[1], args[2]))
		return
	}
	if justInfo {
		c.w.Array(4)
		c.w.Int(int64(g.Pending()))
		if g.Pending() == 0 {
			c.w.Null()
			c.w.Null()
			c.w.NullArray()
			return
		}
		var first, last db.StreamID
		n := 0
		g.PendingRange(nil, db.StreamID{}, db.MaxStreamID, func(p *db.PendingEntry) bool {
			if n == 0 {
				first = p.ID
			}
			last = p.ID
			n++
			return true
		})
		writeID(c, first)
		writeID(c, last)
		d := c.w.DeferLen()
		k := 0
		for _, cons := range g.Consumers() {
			if cons.Pending() == 0 {
				continue
			}
			c.w.Array(2)
			c.w.BulkString(cons.Name())
			c.w.BulkString(strconv.Itoa(cons.Pending()))
			k++
		}
		c.w.SetArrayLen(d, k)
		return
	}
	var cons *db.StreamConsumer
	if consumer != nil {
		if cons = g.Consumer(consumer); cons == nil {
			c.w.Array(0)
			return
		}
	}
	now := c.srv.ks.StreamNow()
	d := c.w.DeferLen()
	k := 0
	g.PendingRange(cons, start, end, func(p *db.PendingEntry) bool {
		if count == 0 {
			return false
		}
		if minIdle != 0 && now-p.DeliveryTime < minIdle {
			return true
		}
		k++
		count--
		c.w.Array(4)
		writeID(c, p.ID)
		c.w.BulkString(p.Consumer.Name())
		c.w.Int(max(now-p.DeliveryTime, 0))
		c.w.Int(int64(p.DeliveryCount))
		return true
	})
	c.w.SetArrayLen(d, k)
}

// propagateXClaim records the state of the pending entry p as XCLAIM (and
// dropped entries the same way: replaying it deletes them).
func propagateXClaim(c *client, key, group []byte, p *db.PendingEntry, consumer string, lastID db.StreamID) {
	if !c.propagating() {
		return
	}
	c.alsoPropagate(c.db, xclaimArgs(key, group, p, []byte(consumer), lastID)...)
}

// xclaimArgs is the XCLAIM streamPropagateXCLAIM writes.
func xclaimArgs(key, group []byte, p *db.PendingEntry, consumer []byte, lastID db.StreamID) [][]byte {
	return [][]byte{[]byte("XCLAIM"), key, group, consumer, []byte("0"), p.ID.Append(nil),
		[]byte("TIME"), strconv.AppendInt(nil, p.DeliveryTime, 10),
		[]byte("RETRYCOUNT"), strconv.AppendUint(nil, p.DeliveryCount, 10),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), lastID.Append(nil)}
}

// propagateGroupSetID records XGROUP SETID with the group's last ID and
// read counter (streamPropagateGroupID).
func propagateGroupSetID(c *client, d *db.DB, key, group []byte, g *db.StreamGroup) {
	if !c.propagating() {
		return
	}
	streamPropagate(c, d, []byte("XGROUP"), []byte("SETID"), key, group, g.LastID.Append(nil),
		[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
}

// propagateCreateConsumer records XGROUP CREATECONSUMER.
func propagateCreateConsumer(c *client, d *db.DB, key, group, consumer []byte) {
	if !c.propagating() {
		return
	}
	streamPropagate(c, d, []byte("XGROUP"), []byte("CREATECONSUMER"), key, group, consumer)
}

func cmdXClaim(c *client, args [][]byte) {
	key, group := args[1], args[2]
	s, err := c.db.LookupStream(key)
	if err != nil {
		c.fail(err)
		return
	}
	if s == nil || s.Group(group) == nil {
		c.fail(noGroupKeyError(key, group))
		return
	}
	minIdle, ok := protocol.ParseInt(args[4])
	if !ok {
		c.fail(protocol.Error("ERR Invalid min-idle-time argument for XCLAIM"))
		return
	}
	minIdle = max(minIdle, 0)
	var ids []db.StreamID
	j := 5
	for ; j < len(args); j++ {
		id, _, err := db.ParseStreamID(args[j], 0, true, false)
		if err != nil {
			break
		}
		ids = append(ids, id)
	}
	now := c.srv.ks.StreamNow()
	deliveryTime, retry := int64(-1), int64(-1)
	force, justid := false, false
	var lastID db.StreamID
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		switch {
		case cstrEqualFold(opt, "force"):
			force = true
		case cstrEqualFold(opt, "justid"):
			justid = true
		case cstrEqualFold(opt, "idle") && more > 0:
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok {
				c.fail(protocol.Error("ERR Invalid IDLE option argument for XCLAIM"))
				return
			}
			deliveryTime = now - n
		case cstrEqualFold(opt, "time") && more > 0:
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok {
				c.fail(protocol.Error("ERR Invalid TIME option argument for XCLAIM"))
				return
			}
			deliveryTime = n
		case cstrEqualFold(opt, "retrycount") && more > 0:
			j++
			n, ok := protocol.ParseInt(args[j])
			if !ok {
				c.fail(protocol.Error("ERR Invalid RETRYCOUNT option argument for XCLAIM"))
				return
			}
			retry = n
		case cstrEqualFold(opt, "lastid") && more > 0:
			j++
			id, _, err := db.ParseStreamID(args[j], 0, true, false)
			if err != nil {
				c.fail(err)
				return
			}
			lastID = id
		default:
			c.fail(protocol.Error("ERR Unrecognized XCLAIM option '" + cstr(string(opt)) + "'"))
			return
		}
	}
	gs, _, _ := c.db.OpenGroup(key, group)
	propagateLast := gs.SetLastID(lastID)
	if deliveryTime != -1 {
		if deliveryTime < 0 || deliveryTime > now {
			deliveryTime = now
		}
	} else {
		deliveryTime = now
	}
	c.preventPropagation()
	d := c.w.DeferLen()
	n := 0
	consumerResolved := false
	var fvBuf [16][]byte
	for _, id := range ids {
		p := gs.G.PendingEntry(id)
		fv, exists := gs.S.Get(id, fvBuf[:0])
		if !exists {
			if p != nil {
				propagateXClaim(c, key, group, p, p.Consumer.Name(), gs.G.LastID)
				propagateLast = false
				gs.Drop(p)
			}
			continue
		}
		if p == nil && !force {
			continue
		}
		if p != nil && p.Consumer != nil && minIdle != 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		if !consumerResolved {
			gs.Consumer(args[3], true) // not logged: the XCLAIM creates it (Redis 7.0.15)
			consumerResolved = true
		}
		p = gs.Claim(p, id, deliveryTime, retry, justid)
		if justid {
			writeID(c, id)
		} else {
			writeEntry(c, id, fv)
		}
		n++
		propagateXClaim(c, key, group, p, string(args[3]), gs.G.LastID)
		propagateLast = false
	}
	if propagateLast {
		propagateGroupSetID(c, c.db, key, group, gs.G)
	}
	c.w.SetArrayLen(d, n)
	gs.End()
}

func cmdXAutoClaim(c *client, args [][]byte) {
	key, group := args[1], args[2]
	minIdle, ok := protocol.ParseInt(args[4])
	if !ok {
		c.fail(protocol.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM"))
		return
	}
	minIdle = max(minIdle, 0)
	start, err := parseIntervalID(args[5], 0, true)
	if err != nil {
		c.fail(err)
		return
	}
	count := int64(100)
	justid := false
	for j := 6; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case cstrEqualFold(args[j], "count") && more > 0:
			n, err := parseRangeLong(args[j+1], 1, math.MaxInt64/16, protocol.Error("ERR COUNT must be > 0"))
			if err != nil {
				c.fail(err)
				return
			}
			count = n
			j++
		case cstrEqualFold(args[j], "justid"):
			justid = true
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	s, err := c.db.LookupStream(key)
	if err != nil {
		c.fail(err)
		return
	}
	if s == nil || s.Group(group) == nil {
		c.fail(noGroupKeyError(key, group))
		return
	}
	gs, _, _ := c.db.OpenGroup(key, group)
	c.preventPropagation()
	now := c.srv.ks.StreamNow()
	attempts := count * 10
	var pending []*db.PendingEntry
	gs.G.PendingRange(nil, start, db.MaxStreamID, func(p *db.PendingEntry) bool {
		pending = append(pending, p)
		return true
	})
	// The loop's course does not depend on its changes: find where it
	// stops first, so the cursor can be written ahead of the entries.
	end := 0
	for a, k := attempts, count; a > 0 && k > 0 && end < len(pending); end++ {
		a--
		p := pending[end]
		if !gs.S.Has(p.ID) {
			k--
			continue
		}
		if minIdle != 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		k--
	}
	var cursor db.StreamID
	if end < len(pending) {
		cursor = pending[end].ID
	}
	c.w.Array(3)
	writeID(c, cursor)
	d := c.w.DeferLen()
	n := 0
	var deleted []db.StreamID
	consumerResolved := false
	var fvBuf [16][]byte
	for i := 0; i < end; i++ {
		p := pending[i]
		fv, exists := gs.S.Get(p.ID, fvBuf[:0])
		if !exists {
			propagateXClaim(c, key, group, p, p.Consumer.Name(), gs.G.LastID)
			deleted = append(deleted, p.ID)
			gs.Drop(p)
			continue
		}
		if minIdle != 0 && now-p.DeliveryTime < minIdle {
			continue
		}
		if !consumerResolved {
			gs.Consumer(args[3], true) // not logged: the XCLAIM creates it (Redis 7.0.15)
			consumerResolved = true
		}
		gs.Claim(p, p.ID, now, -1, justid)
		if justid {
			writeID(c, p.ID)
		} else {
			writeEntry(c, p.ID, fv)
		}
		n++
		propagateXClaim(c, key, group, p, string(args[3]), gs.G.LastID)
	}
	c.w.SetArrayLen(d, n)
	c.w.Array(len(deleted))
	for _, id := range deleted {
		writeID(c, id)
	}
	gs.End()
}
