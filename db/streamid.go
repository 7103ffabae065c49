package db

import (
	"bytes"
	"math"
	"strconv"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// StreamID is a stream entry ID, <ms>-<seq>, ordered as a 128-bit number
// (Redis's streamID).
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID ("+" in ranges).
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// Cmp returns -1, 0 or 1 as a is less than, equal to or greater than b.
func (a StreamID) Cmp(b StreamID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports a < b.
func (a StreamID) Less(b StreamID) bool { return a.Cmp(b) < 0 }

// IsZero reports whether a is 0-0.
func (a StreamID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Incr returns the next ID (streamIncrID); ok is false for MaxStreamID.
func (a StreamID) Incr() (StreamID, bool) {
	switch {
	case a.Seq != math.MaxUint64:
		a.Seq++
	case a.Ms != math.MaxUint64:
		a.Ms, a.Seq = a.Ms+1, 0
	default:
		return a, false
	}
	return a, true
}

// Decr returns the previous ID (streamDecrID); ok is false for 0-0.
func (a StreamID) Decr() (StreamID, bool) {
	switch {
	case a.Seq != 0:
		a.Seq--
	case a.Ms != 0:
		a.Ms, a.Seq = a.Ms-1, math.MaxUint64
	default:
		return a, false
	}
	return a, true
}

// Append appends "<ms>-<seq>" to b.
func (a StreamID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, a.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.Seq, 10)
}

// String returns "<ms>-<seq>".
func (a StreamID) String() string { return string(a.Append(nil)) }

// Errors of the stream family with Redis 7.0.15's texts.
var (
	ErrStreamInvalidID   = protocol.Error("ERR Invalid stream ID specified as stream command argument")
	ErrStreamIDTooSmall  = protocol.Error("ERR The ID specified in XADD is equal or smaller than the target stream top item")
	ErrStreamIDZero      = protocol.Error("ERR The ID specified in XADD must be greater than 0-0")
	ErrStreamExhausted   = protocol.Error("ERR The stream has exhausted the last possible ID, unable to add more items")
	ErrStreamNoGroupKey  = protocol.Error("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	ErrStreamGroupExists = protocol.Error("BUSYGROUP Consumer Group name already exists")
)

// ParseStreamID parses an ID as Redis's streamGenericParseIDOrReply: "-"
// and "+" (unless strict), "<ms>" (seq = missingSeq) or "<ms>-<seq>";
// with allowStar, "<ms>-*" is accepted and seqGiven is false for it.
func ParseStreamID(arg []byte, missingSeq uint64, strict, allowStar bool) (id StreamID, seqGiven bool, err error) {
	if len(arg) > 127 {
		return id, false, ErrStreamInvalidID
	}
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i] // Redis copies the argument as a C string
	}
	if len(arg) == 1 && (arg[0] == '-' || arg[0] == '+') {
		if strict {
			return id, false, ErrStreamInvalidID
		}
		if arg[0] == '-' {
			return StreamID{}, true, nil
		}
		return MaxStreamID, true, nil
	}
	msPart, seqPart, hasSeq := bytes.Cut(arg, []byte{'-'})
	ms, ok := protocol.ParseUint(msPart)
	if !ok {
		return id, false, ErrStreamInvalidID
	}
	seq := missingSeq
	seqGiven = true
	if hasSeq {
		if allowStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = protocol.ParseUint(seqPart); !ok {
			return id, false, ErrStreamInvalidID
		}
	}
	return StreamID{ms, seq}, seqGiven, nil
}
