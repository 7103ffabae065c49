package rdb

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// redisStreamPayloads are redis-server 7.0.15 DUMPs of streams: "s" is
// XADD s 1-1 a 1 b 2, XADD s 1-2 a 3 b 4, XADD s 2-0 c x, XDEL s 1-2,
// XGROUP CREATE s g 0, XREADGROUP GROUP g alice COUNT 1 STREAMS s >,
// XGROUP CREATECONSUMER s g bob (LZF-compressed listpack, a tombstone, a
// PEL, two consumers); "e" is XADD e 5-10 f v, XADD e 6-0 f w (a negative
// sequence delta, same fields).
var redisStreamPayloads = []string{
	"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\xc39>\x12>\x00\x00\x00\x19\x00\x02\x01\x01\x01\x02\x01\x81a\x02\x81b\x02\x00 \t\x00\x00 \x01@\x11\x02\x05\x01\x03`\t\x02\x03\x01\x04 \x0b@\x13\x01\xdf\xff +\b\x81c\x02\x81x\x02\x06\x01\xff\x02\x02\x00\x01\x01\x01\x02\x03\x01\x01g\x01\x01\x81\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x83\xf0>4\xa2\x01\x00\x00\x01\x02\x05alice\x83\xf0>4\xa2\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x03bob\xa6\xf0>4\xa2\x01\x00\x00\x00\n\x00lV\xb0+S\xc5\x02\x8b",
	"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\n))\x00\x00\x00\x0f\x00\x02\x01\x00\x01\x01\x01\x81f\x02\x00\x01\x02\x01\x00\x01\x00\x01\x81v\x02\x04\x01\x02\x01\x01\x01\xdf\xf6\x02\x81w\x02\x04\x01\xff\x02\x06\x00\x05\n\x00\x00\x02\x00\n\x002\x8c\x0c9\xf2\x19>\xc2",
}

func TestStreamPayloadsMatchRedis(t *testing.T) {
	o := DefaultOptions()
	for i, p := range redisStreamPayloads {
		for _, deep := range []bool{false, true} {
			v, err := ParsePayload([]byte(p), deep)
			if err != nil {
				t.Fatalf("payload %d: %v", i, err)
			}
			if got := DumpPayload(v, &o); string(got) != p {
				t.Errorf("payload %d re-encodes as\n %q\nwant\n %q", i, got, p)
			}
		}
	}
	v, _ := ParsePayload([]byte(redisStreamPayloads[0]), true)
	s := v.Stream
	if s.Length != 2 || len(s.Nodes) != 1 || len(s.Nodes[0].Entries) != 3 || !s.Nodes[0].Entries[1].Deleted ||
		s.LastID != (StreamID{2, 0}) || s.MaxDeletedID != (StreamID{1, 2}) || s.EntriesAdded != 3 {
		t.Fatalf("stream %+v", s)
	}
	g := s.Groups[0]
	if string(g.Name) != "g" || g.EntriesRead != -1 || len(g.PEL) != 1 || g.PEL[0].DeliveryCount != 1 ||
		len(g.Consumers) != 2 || string(g.Consumers[0].Name) != "alice" || len(g.Consumers[0].PEL) != 1 || len(g.Consumers[1].PEL) != 0 {
		t.Fatalf("group %+v", g)
	}
}

// streamBody encodes s as a type-19 payload.
func streamPayload(s *Stream) []byte {
	o := DefaultOptions()
	return DumpPayload(&Value{Kind: KindStream, Stream: s}, &o)
}

func sampleStream() *Stream {
	fv := func(kv ...string) [][]byte {
		out := make([][]byte, len(kv))
		for i, s := range kv {
			out[i] = []byte(s)
		}
		return out
	}
	return &Stream{
		Nodes: []StreamNode{
			{Master: StreamID{1, 0}, MasterFields: fv("a"), Entries: []StreamEntry{{ID: StreamID{1, 0}, FV: fv("a", "1")}, {ID: StreamID{2, 0}, FV: fv("b", "2")}}},
			{Master: StreamID{3, 0}, MasterFields: fv("a"), Entries: []StreamEntry{{ID: StreamID{3, 0}, FV: fv("a", "3")}}},
		},
		Length: 3, LastID: StreamID{3, 0}, FirstID: StreamID{1, 0}, EntriesAdded: 3,
		Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{2, 0}, EntriesRead: 2,
			PEL:       []StreamNACK{{ID: StreamID{1, 0}, DeliveryTime: 5, DeliveryCount: 1}, {ID: StreamID{2, 0}, DeliveryTime: 6, DeliveryCount: 2}},
			Consumers: []StreamConsumer{{Name: []byte("c"), SeenTime: 7, PEL: []StreamID{{1, 0}, {2, 0}}}},
		}},
	}
}

// TestStreamDecodeRefuses checks the structure the keyspace relies on,
// which Redis 7.0 does not check (it keeps such a stream and misbehaves on
// it later): IDs ascending across nodes, the last ID not below the last
// entry, the length equal to the live entries, every pending entry owned
// by exactly one consumer. Redis's own checks give Redis's reasons.
func TestStreamDecodeRefuses(t *testing.T) {
	if _, err := ParsePayload(streamPayload(sampleStream()), true); err != nil {
		t.Fatalf("sample: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(s *Stream)
		reason string
	}{
		{"nodes out of order", func(s *Stream) { s.Nodes[0], s.Nodes[1] = s.Nodes[1], s.Nodes[0] }, "Listpack re-added with existing key"},
		{"entries overlap the next node", func(s *Stream) { s.Nodes[1].Master = StreamID{2, 0}; s.Nodes[1].Entries[0].ID = StreamID{2, 0} }, "integrity"},
		{"last ID below the entries", func(s *Stream) { s.LastID = StreamID{2, 5} }, "last ID"},
		{"length", func(s *Stream) { s.Length = 4 }, "length"},
		{"PEL entry without consumer", func(s *Stream) { s.Groups[0].Consumers[0].PEL = s.Groups[0].Consumers[0].PEL[:1] }, "Stream CG PEL entry without consumer"},
		{"PEL entry owned twice", func(s *Stream) {
			s.Groups[0].Consumers = append(s.Groups[0].Consumers, StreamConsumer{Name: []byte("d"), PEL: []StreamID{{1, 0}}})
		}, "Duplicated consumer PEL entry"},
		{"consumer entry not in the group PEL", func(s *Stream) { s.Groups[0].Consumers[0].PEL = append(s.Groups[0].Consumers[0].PEL, StreamID{3, 0}) }, "Consumer entry not found in group global PEL"},
		{"duplicate group", func(s *Stream) { s.Groups = append(s.Groups, s.Groups[0]) }, "Duplicated consumer group name g"},
		{"duplicate consumer", func(s *Stream) {
			g := &s.Groups[0]
			g.Consumers = append(g.Consumers, StreamConsumer{Name: []byte("c")})
		}, "Duplicate stream consumer detected."},
	} {
		s := sampleStream()
		tc.change(s)
		p := streamPayload(s)
		if _, err := ParsePayload(p, false); !errors.Is(err, ErrBadFormat) {
			t.Errorf("%s: RESTORE gives %v", tc.name, err)
		}
		// The file loader reports the reason.
		d := newDecoder(bytes.NewReader(p), int64(len(p)))
		d.noCRC = true
		typ, _ := d.readByte()
		_, err := d.readObject(typ)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.reason)
		}
	}
	// A node key that is not 16 bytes, an empty listpack.
	for _, tc := range []struct{ body, reason string }{
		{"\x13\x01\x03abc", "not the size of a stream ID"},
		{"\x13\x01\x10" + strings.Repeat("\x00", 16) + "\x07\x07\x00\x00\x00\x00\x00\xff", "Empty listpack inside stream"},
	} {
		d := newDecoder(strings.NewReader(tc.body), int64(len(tc.body)))
		typ, _ := d.readByte()
		if _, err := d.readObject(typ); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.reason)
		}
	}
}
