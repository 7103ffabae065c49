package resp

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Write replays n through w. In RESP2 the RESP3-only types degrade the way
// Redis 7.0 degrades them (see protocol.Writer).
func Write(w *protocol.Writer, n *Node) {
	switch n.Kind {
	case SimpleString:
		w.Status(n.Str)
	case BulkString:
		w.BulkString(n.Str)
	case Error:
		w.Error(n.Str)
	case Integer:
		w.Int(n.Int)
	case Null:
		if n.Str == "*" {
			w.NullArray()
		} else {
			w.Null()
		}
	case Boolean:
		w.Bool(n.Bool)
	case Double:
		w.HumanDouble([]byte(n.Str))
	case BigNumber:
		w.BigNumber(n.Str)
	case Verbatim:
		format, text, ok := strings.Cut(n.Str, ":")
		if !ok {
			format, text = "txt", n.Str
		}
		w.Verbatim(format, text)
	case Array:
		w.Array(len(n.Elems))
		writeElems(w, n.Elems)
	case Map:
		w.Map(len(n.Elems) / 2)
		writeElems(w, n.Elems)
	case Set:
		w.Set(len(n.Elems))
		writeElems(w, n.Elems)
	case Push:
		w.Push(len(n.Elems))
		writeElems(w, n.Elems)
	}
}

func writeElems(w *protocol.Writer, elems []Node) {
	for i := range elems {
		Write(w, &elems[i])
	}
}
