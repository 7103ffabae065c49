package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/aof"
	"github.com/miniwatchd/miniwatchd/db"
)

// rewriteStream writes a stream as Redis's rewriteStreamObject does: XADD
// of every entry with its ID (or, for an empty stream, an XADD MAXLEN 0 of
// a dummy entry that leaves the key empty), XSETID with the last ID,
// ENTRIESADDED and MAXDELETEDID, then per group XGROUP CREATE ...
// ENTRIESREAD, XGROUP CREATECONSUMER for every consumer, and an XCLAIM ...
// FORCE JUSTID per pending entry.
func rewriteStream(b []byte, key string, v any) []byte {
	s := v.(*db.Stream)
	k := []byte(key)
	cmd := func(args ...[]byte) { b = aof.AppendCommand(b, args...) }
	if s.Len() > 0 {
		s.Range(db.StreamID{}, db.MaxStreamID, false, func(id db.StreamID, fv [][]byte) bool {
			args := make([][]byte, 0, 3+len(fv))
			args = append(args, []byte("XADD"), k, id.Append(nil))
			args = append(args, fv...)
			cmd(args...)
			return true
		})
	} else {
		cmd([]byte("XADD"), k, []byte("MAXLEN"), []byte("0"), []byte("0-1"), []byte("x"), []byte("y"))
	}
	cmd([]byte("XSETID"), k, s.LastID().Append(nil),
		[]byte("ENTRIESADDED"), strconv.AppendUint(nil, s.EntriesAdded(), 10),
		[]byte("MAXDELETEDID"), s.MaxDeletedID().Append(nil))
	for _, g := range s.Groups() {
		name := []byte(g.Name())
		cmd([]byte("XGROUP"), []byte("CREATE"), k, name, g.LastID.Append(nil),
			[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
		for _, c := range g.Consumers() {
			if c.Pending() == 0 {
				cmd([]byte("XGROUP"), []byte("CREATECONSUMER"), k, name, []byte(c.Name()))
				continue
			}
			g.PendingRange(c, db.StreamID{}, db.MaxStreamID, func(p *db.PendingEntry) bool {
				cmd([]byte("XCLAIM"), k, name, []byte(c.Name()), []byte("0"), p.ID.Append(nil),
					[]byte("TIME"), strconv.AppendInt(nil, p.DeliveryTime, 10),
					[]byte("RETRYCOUNT"), strconv.AppendUint(nil, p.DeliveryCount, 10),
					[]byte("JUSTID"), []byte("FORCE"))
				return true
			})
		}
	}
	return b
}
