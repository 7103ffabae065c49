package rdb

import (
	"bytes"
	"errors"
	"testing"
)

// Payloads DUMP returned on redis-server 7.0.15 (redis-cli --no-raw).
var redisPayloads = []struct {
	name string
	v    *Value
	dump string
}{
	{"SET s 12", &Value{Kind: KindString, Str: []byte("12")}, "\x00\xc0\x0c\n\x00<*\xf8Q\\\x04\xbc\xd5"},
	{"ZADD z 1.5 a 1 b 0.1 c 3e20 d", &Value{Kind: KindZSet, Compact: true, Elems: []string{"c", "b", "a", "d"}, Scores: []float64{0.1, 1, 1.5, 3e20}},
		"\x11\xc3-6\r6\x00\x00\x00\b\x00\x81c\x02\x930.10\xe0\x05\x00\x191\x14\x81b\x02\x01\x01\x81a\x02\x831.5\x04\x81d\x02\x853e+20\x06\xff\n\x00\x17\xf2\xc3\xea*\xf1\xfe\xea"},
	{"HSET h f 1 g 300", &Value{Kind: KindHash, Compact: true, Elems: []string{"f", "1", "g", "300"}},
		"\x10\x12\x12\x00\x00\x00\x04\x00\x81f\x02\x01\x01\x81g\x02\xc1,\x02\xff\n\x00Q:n\x03C\\\x0c\x8d"},
	{"SADD st 1 2 70000", &Value{Kind: KindSet, Compact: true, Ints: []int64{1, 2, 70000}},
		"\x0b\x14\x04\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00p\x11\x01\x00\n\x00\x85\xd5\xc1\x06[\x1d\xd0U"},
	{"RPUSH l a 1 -5000 100000", &Value{Kind: KindList, Elems: []string{"a", "1", "-5000", "100000"}},
		"\x12\x01\x02\x15\x15\x00\x00\x00\x04\x00\x81a\x02\x01\x01\xf1x\xec\x03\xf2\xa0\x86\x01\x04\xff\n\x000.\x066(\xef\xfb\xa9"},
}

func TestDumpMatchesRedis(t *testing.T) {
	o := DefaultOptions()
	for _, tc := range redisPayloads {
		if got := DumpPayload(tc.v, &o); string(got) != tc.dump {
			t.Errorf("%s:\n got  %q\n want %q", tc.name, got, tc.dump)
		}
		v, err := ParsePayload([]byte(tc.dump), true)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if v.Kind != tc.v.Kind || !bytes.Equal(DumpPayload(v, &o), []byte(tc.dump)) {
			t.Errorf("%s: decoded value re-encodes differently", tc.name)
		}
	}
}

func TestPayloadErrors(t *testing.T) {
	good := []byte(redisPayloads[0].dump)
	flip := append([]byte(nil), good...)
	flip[1] ^= 1
	noSum := append([]byte(nil), good[:len(good)-8]...)
	noSum = append(noSum, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, tc := range []struct {
		name string
		p    []byte
		want error
	}{
		{"short", good[:9], ErrPayloadFooter},
		{"checksum", flip, ErrPayloadFooter},
		{"version", AppendFooterVersion([]byte{0, 0xc0, 1}, 11), ErrPayloadFooter},
		{"bad type", AppendFooter([]byte{7, 0}), ErrBadFormat},
		{"truncated", AppendFooter([]byte{0, 0x3f, 'a'}), ErrBadFormat},
		{"empty list", AppendFooter([]byte{TypeList, 0}), ErrBadFormat},
		{"dup set", AppendFooter([]byte{TypeSet, 2, 1, 'a', 1, 'a'}), ErrBadFormat},
		{"zero checksum", noSum, ErrPayloadFooter},
	} {
		if _, err := ParsePayload(tc.p, false); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// AppendFooterVersion is AppendFooter with another version number.
func AppendFooterVersion(b []byte, ver uint16) []byte {
	b = append(b, byte(ver), byte(ver>>8))
	sum := CRC64(0, b)
	for i := 0; i < 8; i++ {
		b = append(b, byte(sum>>(8*i)))
	}
	return b
}
