package cmdmeta

import (
	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// WriteInfo appends the command's COMMAND INFO element exactly as Redis
// 7.0.15 writes it, in RESP2 or RESP3 according to w.Proto, subcommands in
// name order.
func (c *Command) WriteInfo(w *protocol.Writer) { c.WriteInfoFiltered(w, nil) }

// WriteInfoFiltered is WriteInfo listing only the subcommands for which
// keep returns true (all of them when keep is nil), so that a server can
// describe only what it implements. A container whose subcommands are all
// filtered out still writes an empty subcommand array, as Redis does for an
// empty subcommand table.
func (c *Command) WriteInfoFiltered(w *protocol.Writer, keep func(*Command) bool) {
	e := c.Info().Elems
	w.Array(len(e))
	for i := 0; i < 9; i++ {
		resp.Write(w, &e[i])
	}
	if keep == nil || len(c.Subcommands) == 0 {
		resp.Write(w, &e[9])
		return
	}
	n := 0
	for _, s := range c.Subcommands {
		if keep(s) {
			n++
		}
	}
	w.Array(n)
	for _, s := range c.Subcommands {
		if keep(s) {
			s.WriteInfoFiltered(w, keep)
		}
	}
}

// WriteDocs appends the value of the command's COMMAND DOCS entry (the map
// that follows the name) exactly as Redis 7.0.15 writes it, in RESP2 or
// RESP3 according to w.Proto, subcommands in name order.
func (c *Command) WriteDocs(w *protocol.Writer) { c.WriteDocsFiltered(w, nil) }

// WriteDocsFiltered is WriteDocs listing only the subcommands for which
// keep returns true (all of them when keep is nil).
func (c *Command) WriteDocsFiltered(w *protocol.Writer, keep func(*Command) bool) {
	if keep == nil || len(c.Subcommands) == 0 {
		resp.Write(w, c.Docs())
		return
	}
	e := c.Docs().Elems
	w.Map(len(e) / 2)
	for i := 0; i+1 < len(e); i += 2 {
		resp.Write(w, &e[i])
		if e[i].Str != "subcommands" {
			resp.Write(w, &e[i+1])
			continue
		}
		n := 0
		for _, s := range c.Subcommands {
			if keep(s) {
				n++
			}
		}
		w.Map(n)
		for _, s := range c.Subcommands {
			if keep(s) {
				w.BulkString(s.FullName)
				s.WriteDocsFiltered(w, keep)
			}
		}
	}
}
