package server

import (
	"math"
	"slices"
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Stream commands on entries (Redis t_stream.c): XADD, XRANGE, XREVRANGE,
// XLEN, XDEL, XTRIM, XSETID. Consumer groups are in cmd_streamgroup.go,
// XREAD/XREADGROUP and their blocking in cmd_streamread.go, XINFO in
// cmd_streaminfo.go.

var streamCommands = []commandDef{
	{"xadd", cmdXAdd},
	{"xrange", cmdXRange},
	{"xrevrange", cmdXRevRange},
	{"xlen", cmdXLen},
	{"xdel", cmdXDel},
	{"xtrim", cmdXTrim},
	{"xsetid", cmdXSetID},
}

// The stream family's registration (one spot, to move with the wiring).
// streamReadersKeyModified queues a changed key for the stream readers
// waiting on it: a deleted or overwritten stream, or a flush, may end their
// wait, as Redis's signalDeletedKeyAsReady; serving checks what is there.
func streamReadersKeyModified(s *Server, d *db.DB, key string) {
	if s.blk.byKind[blockStream] > 0 {
		s.signalKeyAsReadyLocked(d.ID(), key, db.TypeNone)
	}
}

// streamReadersFlushed queues every key stream readers wait on in the
// flushed database (-1: all), so XREADGROUP clients are unblocked.
func streamReadersFlushed(s *Server, dbIndex int) {
	if s.blk.byKind[blockStream] == 0 || s.blk.dbs == nil {
		return
	}
	for i := range s.blk.dbs {
		if dbIndex >= 0 && i != dbIndex {
			continue
		}
		keys := make([]string, 0, len(s.blk.dbs[i].keys))
		for k := range s.blk.dbs[i].keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			s.signalKeyAsReadyLocked(i, k, db.TypeNone)
		}
	}
}

var (
	errStreamTrimBoth     = protocol.Error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
	errStreamMaxLenNeg    = protocol.Error("ERR The MAXLEN argument must be >= 0.")
	errStreamLimitNeg     = protocol.Error("ERR The LIMIT argument must be >= 0.")
	errStreamLimitNoTrim  = protocol.Error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
	errStreamXTrimNoStrat = protocol.Error("ERR syntax error, XTRIM must be called with a trimming strategy")
	errStreamLimitNoApprx = protocol.Error("ERR syntax error, LIMIT cannot be used without the special ~ option")
	errStreamStartID      = protocol.Error("ERR invalid start ID for the interval")
	errStreamEndID        = protocol.Error("ERR invalid end ID for the interval")
)

// addTrimArgs are streamParseAddOrTrimArgsOrReply's results.
type addTrimArgs struct {
	add      db.XAddArgs
	trim     db.TrimSpec
	hasTrim  bool
	trimArg  int // index of the MAXLEN/MINID value
	approxAt int // index of "~" or "=" (0 when none)
	fieldPos int // XADD: index of the first field
}

// parseAddOrTrim is streamParseAddOrTrimArgsOrReply (xadd selects XADD's
// options and the ID).
func parseAddOrTrim(c *client, args [][]byte, xadd bool) (a addTrimArgs, err error) {
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			goto done
		case cstrEqualFold(opt, "maxlen") && more > 0, cstrEqualFold(opt, "minid") && more > 0:
			minid := cstrEqualFold(opt, "minid")
			if a.hasTrim {
				return a, errStreamTrimBoth
			}
			a.trim.Approx = false
			next := args[i+1]
			if more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				a.trim.Approx = next[0] == '~'
				a.approxAt = i + 1
				i++
			}
			if minid {
				id, _, err := db.ParseStreamID(args[i+1], 0, true, false)
				if err != nil {
					return a, err
				}
				a.trim.MinID, a.trim.ID = true, id
			} else {
				n, ok := protocol.ParseInt(args[i+1])
				if !ok {
					return a, protocol.ErrNotInteger
				}
				if n < 0 {
					return a, errStreamMaxLenNeg
				}
				a.trim.MaxLen = n
			}
			i++
			a.hasTrim, a.trimArg = true, i
		case cstrEqualFold(opt, "limit") && more > 0:
			n, ok := protocol.ParseInt(args[i+1])
			if !ok {
				return a, protocol.ErrNotInteger
			}
			if n < 0 {
				return a, errStreamLimitNeg
			}
			a.trim.Limit, limitGiven = n, true
			i++
		case xadd && cstrEqualFold(opt, "nomkstream"):
			a.add.NoMkStream = true
		case xadd:
			id, seqGiven, err := db.ParseStreamID(opt, 0, true, true)
			if err != nil {
				return a, err
			}
			a.add.ID, a.add.IDGiven, a.add.SeqGiven = id, true, seqGiven
			goto done
		default:
			return a, protocol.ErrSyntax
		}
	}
done:
	if a.trim.Limit != 0 && !a.hasTrim {
		return a, errStreamLimitNoTrim
	}
	if !xadd && !a.hasTrim {
		return a, errStreamXTrimNoStrat
	}
	if c.isAOFLoader() {
		a.trim.Limit = 0
	} else if limitGiven {
		if !a.trim.Approx {
			return a, errStreamLimitNoApprx
		}
	} else if a.trim.Approx {
		lim := c.srv.ks.EncodingLimits().StreamNodeMaxEntries * 100
		if lim <= 0 || lim > 10000 {
			lim = 10000
		}
		a.trim.Limit = lim
	} else {
		a.trim.Limit = 0
	}
	a.fieldPos = i + 1
	return a, nil
}

// isAOFLoader reports whether c replays the AOF (Redis's mustObeyClient).
func (c *client) isAOFLoader() bool { return c.replay }

func cmdXAdd(c *client, args [][]byte) {
	a, err := parseAddOrTrim(c, args, true)
	if err != nil {
		c.fail(err)
		return
	}
	if n := len(args) - a.fieldPos; n < 2 || n%2 != 0 {
		c.fail(protocol.ErrWrongArity("xadd"))
		return
	}
	a.add.FV = args[a.fieldPos:]
	if a.hasTrim {
		a.add.Trim = &a.trim
	}
	id, _, ok, err := c.db.XAdd(args[1], a.add)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok {
		c.w.Null()
		return
	}
	var buf [44]byte
	idb := id.Append(buf[:0])
	c.w.Bulk(idb)
	if c.propagating() {
		out := append([][]byte(nil), args...)
		if a.trim.Approx {
			// the trim is propagated exact, as streamRewriteApproxSpecifier
			// and streamRewriteTrimArgument rewrite it
			out[a.approxAt] = []byte("=")
			s, _ := c.db.LookupStream(args[1])
			if a.trim.MinID {
				out[a.trimArg] = firstIDArg(s)
			} else {
				out[a.trimArg] = []byte(uintString(s.Len()))
			}
		}
		out[a.fieldPos-1] = idb
		c.propagateAs(out...)
	}
}

// firstIDArg is the first entry's ID, as streamRewriteTrimArgument writes
// MINID's argument.
func firstIDArg(s *db.Stream) []byte {
	var first db.StreamID
	if s != nil && s.Len() > 0 {
		first = s.FirstID()
	}
	return first.Append(nil)
}

func uintString(n uint64) string { return strconv.FormatUint(n, 10) }

func cmdXTrim(c *client, args [][]byte) {
	a, err := parseAddOrTrim(c, args, false)
	if err != nil {
		c.fail(err)
		return
	}
	n, err := c.db.XTrim(args[1], a.trim)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(n)
	if n > 0 && a.trim.Approx && c.propagating() {
		out := append([][]byte(nil), args...)
		out[a.approxAt] = []byte("=")
		s, _ := c.db.LookupStream(args[1])
		if a.trim.MinID {
			out[a.trimArg] = firstIDArg(s)
		} else {
			out[a.trimArg] = []byte(uintString(s.Len()))
		}
		c.propagateAs(out...)
	}
}

func cmdXLen(c *client, args [][]byte) {
	s, err := c.db.LookupStream(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if s == nil {
		c.w.Int(0)
		return
	}
	c.w.Int(int64(s.Len()))
}

func cmdXDel(c *client, args [][]byte) {
	ids := make([]db.StreamID, 0, len(args)-2)
	for _, a := range args[2:] {
		id, _, err := db.ParseStreamID(a, 0, true, false)
		if err != nil {
			c.fail(err)
			return
		}
		ids = append(ids, id)
	}
	n, err := c.db.XDel(args[1], ids)
	if err != nil {
		c.fail(err)
		return
	}
	c.w.Int(int64(n))
}

func cmdXSetID(c *client, args [][]byte) {
	id, _, err := db.ParseStreamID(args[2], 0, true, false)
	if err != nil {
		c.fail(err)
		return
	}
	entriesAdded := int64(-1)
	var maxDel db.StreamID
	for i := 3; i < len(args); i += 2 {
		more := len(args) - 1 - i
		switch {
		case cstrEqualFold(args[i], "entriesadded") && more > 0:
			n, ok := protocol.ParseInt(args[i+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if n < 0 {
				c.fail(db.ErrXSetIDEntriesAdded)
				return
			}
			entriesAdded = n
		case cstrEqualFold(args[i], "maxdeletedid") && more > 0:
			m, _, err := db.ParseStreamID(args[i+1], 0, true, false)
			if err != nil {
				c.fail(err)
				return
			}
			if id.Less(m) {
				c.fail(db.ErrXSetIDMaxDeleted)
				return
			}
			maxDel = m
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if err := c.db.XSetID(args[1], id, entriesAdded, maxDel); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

func cmdXRange(c *client, args [][]byte)    { xrangeGeneric(c, args, false) }
func cmdXRevRange(c *client, args [][]byte) { xrangeGeneric(c, args, true) }

// parseIntervalID is streamParseIntervalIDOrReply plus the exclusive
// adjustment: "(" takes a strict ID and moves it one step inward.
func parseIntervalID(arg []byte, missingSeq uint64, isStart bool) (db.StreamID, error) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, err := db.ParseStreamID(arg[1:], missingSeq, true, false)
		if err != nil {
			return id, err
		}
		var ok bool
		if isStart {
			if id, ok = id.Incr(); !ok {
				return id, errStreamStartID
			}
		} else if id, ok = id.Decr(); !ok {
			return id, errStreamEndID
		}
		return id, nil
	}
	id, _, err := db.ParseStreamID(arg, missingSeq, false, false)
	return id, err
}

// xrangeGeneric is xrangeGenericCommand.
func xrangeGeneric(c *client, args [][]byte, rev bool) {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, err := parseIntervalID(startArg, 0, true)
	if err != nil {
		c.fail(err)
		return
	}
	end, err := parseIntervalID(endArg, math.MaxUint64, false)
	if err != nil {
		c.fail(err)
		return
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if cstrEqualFold(args[j], "count") && j+1 < len(args) {
			n, ok := protocol.ParseInt(args[j+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			count = max(n, 0)
			j++
			continue
		}
		c.fail(protocol.ErrSyntax)
		return
	}
	s, err := c.db.LookupStream(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if s == nil {
		c.w.Array(0)
		return
	}
	if count == 0 {
		c.w.NullArray()
		return
	}
	if count < 0 {
		count = 0
	}
	writeEntryRange(c, s, start, end, int(count), rev)
}

// writeEntryRange replies with the entries start..end (at most count, 0
// for all) as an array of [id, [field, value ...]], and returns how many.
func writeEntryRange(c *client, s *db.Stream, start, end db.StreamID, count int, rev bool) int {
	d := c.w.DeferLen()
	n := 0
	s.Range(start, end, rev, func(id db.StreamID, fv [][]byte) bool {
		writeEntry(c, id, fv)
		n++
		return count == 0 || n < count
	})
	c.w.SetArrayLen(d, n)
	return n
}

// writeEntriesFrom replies with the entries from start (inclusive) to the
// stream's end, at most count unless it is 0: XREAD's reply for a key.
func writeEntriesFrom(c *client, s *db.Stream, start db.StreamID, count int) {
	d := c.w.DeferLen()
	n := 0
	s.ReadFrom(start, func(id db.StreamID, fv [][]byte) bool {
		writeEntry(c, id, fv)
		n++
		return count == 0 || n < count
	})
	c.w.SetArrayLen(d, n)
}

// writeEntry replies with one entry.
func writeEntry(c *client, id db.StreamID, fv [][]byte) {
	var buf [44]byte
	c.w.Array(2)
	c.w.Bulk(id.Append(buf[:0]))
	c.w.Array(len(fv))
	for _, b := range fv {
		c.w.Bulk(b)
	}
}

// writeID replies with an ID as a bulk string.
func writeID(c *client, id db.StreamID) {
	var buf [44]byte
	c.w.Bulk(id.Append(buf[:0]))
}
