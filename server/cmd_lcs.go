package server

import (
	"bytes"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// LCS (Redis t_string.c lcsCommand): the longest common subsequence of two
// strings by the classic dynamic programme, with LEN, IDX, MINMATCHLEN and
// WITHMATCHLEN, emitting ranges in the same order as Redis.
func cmdLCS(c *client, args [][]byte) {
	a, errA := c.db.GetString(args[1])
	b, errB := c.db.GetString(args[2])
	if errA != nil || errB != nil {
		c.fail(protocol.Error("ERR The specified keys must contain string values"))
		return
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		switch {
		case bytes.EqualFold(args[j], []byte("idx")):
			getIdx = true
		case bytes.EqualFold(args[j], []byte("len")):
			getLen = true
		case bytes.EqualFold(args[j], []byte("withmatchlen")):
			withMatchLen = true
		case bytes.EqualFold(args[j], []byte("minmatchlen")) && more > 0:
			n, ok := protocol.ParseInt(args[j+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if n < 0 {
				n = 0
			}
			minMatchLen = n
			j++
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.fail(protocol.Error("ERR If you want both the length and indexes, please just use IDX."))
		return
	}
	alen, blen := len(a), len(b)
	size := int64(alen+1) * int64(blen+1) * 4
	if size > c.srv.cfg.ProtoMaxBulkLen {
		c.fail(protocol.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"))
		return
	}
	stride := blen + 1
	lcs := make([]uint32, (alen+1)*stride)
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				lcs[i*stride+j] = lcs[(i-1)*stride+j-1] + 1
			} else {
				l1, l2 := lcs[(i-1)*stride+j], lcs[i*stride+j-1]
				lcs[i*stride+j] = max(l1, l2)
			}
		}
	}
	idx := int(lcs[alen*stride+blen])
	total := idx
	computeLCS := getIdx || !getLen
	var result []byte
	if computeLCS {
		result = make([]byte, idx)
	}
	w := &c.w
	var arrayLen int
	var deferred protocol.Deferred
	if getIdx {
		w.Map(2)
		w.BulkString("matches")
		deferred = w.DeferLen()
	}
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no range
	i, j := alen, blen
	for computeLCS && i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if lcs[(i-1)*stride+j] > lcs[i*stride+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		matchLen := aEnd - aStart + 1
		if emit {
			if (minMatchLen == 0 || int64(matchLen) >= minMatchLen) && getIdx {
				if withMatchLen {
					w.Array(3)
				} else {
					w.Array(2)
				}
				w.Array(2)
				w.Int(int64(aStart))
				w.Int(int64(aEnd))
				w.Array(2)
				w.Int(int64(bStart))
				w.Int(int64(bEnd))
				if withMatchLen {
					w.Int(int64(matchLen))
				}
				arrayLen++
			}
			aStart = alen
		}
	}
	switch {
	case getIdx:
		w.SetArrayLen(deferred, arrayLen)
		w.BulkString("len")
		w.Int(int64(total))
	case getLen:
		w.Int(int64(total))
	default:
		w.Bulk(result)
	}
}
