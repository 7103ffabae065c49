package rdb

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCRC64(t *testing.T) {
	// The check value of Redis's crc64.c test.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 %#x", got)
	}
	if got := CRC64(0, nil); got != 0 {
		t.Fatalf("crc64() %#x", got)
	}
	// Slicing by 8 agrees with the byte loop at every split.
	data := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 7))
	want := uint64(0)
	for _, b := range data {
		want = crcTables[0][byte(want)^b] ^ want>>8
	}
	for i := 0; i <= len(data); i += 3 {
		if got := CRC64(CRC64(0, data[:i]), data[i:]); got != want {
			t.Fatalf("split %d: %#x want %#x", i, got, want)
		}
	}
}

func TestLZFDecompress(t *testing.T) {
	tests := []struct {
		in   []byte
		n    int
		want string
		ok   bool
	}{
		{[]byte{2, 'a', 'b', 'c'}, 3, "abc", true},
		{[]byte{1, 'a', 'b', 3 << 5, 1}, 7, "abababa", true},
		{[]byte{0, 'a', 7 << 5, 3, 0}, 13, strings.Repeat("a", 13), true},
		{[]byte{2, 'a', 'b'}, 3, "", false},       // literal past the input
		{[]byte{0, 'a', 1 << 5, 5}, 4, "", false}, // reference before the start
		{[]byte{2, 'a', 'b', 'c'}, 4, "", false},  // wrong length
		{[]byte{0xe0}, 10, "", false},             // truncated back reference
	}
	for i, tt := range tests {
		got, err := LZFDecompress(tt.in, tt.n)
		if (err == nil) != tt.ok || (tt.ok && string(got) != tt.want) {
			t.Errorf("%d: got %q, %v; want %q ok=%v", i, got, err, tt.want, tt.ok)
		}
	}
}

func TestLZFRoundTrip(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 100),
		strings.Repeat("abcdefgh", 100),
		"the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog",
	} {
		c := LZFCompress([]byte(s), len(s)-4)
		if c == nil {
			t.Errorf("%.20q did not compress", s)
			continue
		}
		if got, err := LZFDecompress(c, len(s)); err != nil || string(got) != s {
			t.Errorf("round trip of %.20q: %q %v", s, got, err)
		}
		// A second call on the same pooled state gives the same bytes.
		if c2 := LZFCompress([]byte(s), len(s)-4); !bytes.Equal(c, c2) {
			t.Errorf("%.20q: second compression differs", s)
		}
	}
	if c := LZFCompress([]byte("abcdefghijklmnopqrstuvwxyz"), 22); c != nil {
		t.Errorf("incompressible input compressed to %q", c)
	}
}

func TestStrings(t *testing.T) {
	for _, s := range []string{
		"", "a", "12", "-100", "32767", "-2147483648", "007", "12345678901",
		strings.Repeat("ab", 30), strings.Repeat("x", 70000),
	} {
		enc := AppendString(nil, s, true)
		d := newDecoder(bytes.NewReader(enc), int64(len(enc)))
		got, err := d.readString()
		if err != nil || string(got) != s || d.remaining() != 0 {
			t.Errorf("round trip of %.40q failed: %q %v rest=%d", s, got, err, d.remaining())
		}
	}
	for _, tc := range []struct {
		s    string
		want []byte
	}{
		{"12", []byte{0xC0, 12}},
		{"-1", []byte{0xC0, 0xff}},
		{"300", []byte{0xC1, 0x2c, 0x01}},
		{"70000", []byte{0xC2, 0x70, 0x11, 0x01, 0x00}},
		{"007", []byte{3, '0', '0', '7'}},
		{"+1", []byte{2, '+', '1'}},
		{"-0", []byte{2, '-', '0'}},
	} {
		if got := AppendString(nil, tc.s, true); !bytes.Equal(got, tc.want) {
			t.Errorf("encoding of %q: %x, want %x", tc.s, got, tc.want)
		}
	}
}

func TestListpackRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 70)
	huge := strings.Repeat("y", 5000)
	in := []string{"a", "5", "-1", "1000", "100000", long, huge, "-9223372036854775808", "4095", "-4096", "127", "128", "8388607", "2147483648", ""}
	var lb ListpackBuilder
	for _, s := range in {
		lb.Append(s)
	}
	lp := lb.Bytes()
	got, err := DecodeListpack(lp)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(in) {
		t.Fatalf("got %q %v", got, err)
	}
	bad := append([]byte(nil), lp...)
	bad[4] = 7 // wrong element count
	if _, err := DecodeListpack(bad); err == nil {
		t.Fatal("wrong count accepted")
	}
	if _, err := DecodeListpack(lp[:len(lp)-1]); err == nil {
		t.Fatal("missing terminator accepted")
	}
	for i := lpHeaderSize; i < len(lp)-1; i++ { // no flipped byte panics
		c := append([]byte(nil), lp...)
		c[i] ^= 0x5a
		_, _ = DecodeListpack(c)
	}
}

func TestZiplistAndIntset(t *testing.T) {
	// entries: "ab", 7 (4-bit immediate), -2 (int8), 300 (int16).
	body := []byte{0, 0x02, 'a', 'b', 4, 0xf8, 2, 0xfe, 0xfe, 3, 0xc0, 0x2c, 0x01}
	zl := make([]byte, 10, 10+len(body)+1)
	zl = append(zl, body...)
	zl = append(zl, 0xff)
	zl[0] = byte(len(zl))
	zl[8] = 4
	got, err := DecodeZiplist(zl)
	if err != nil || fmt.Sprint(got) != "[ab 7 -2 300]" {
		t.Fatalf("ziplist: %q %v", got, err)
	}
	is := []byte{2, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 1, 0, 0x10, 0x27}
	ints, err := DecodeIntset(is)
	if err != nil || fmt.Sprint(ints) != "[-1 1 10000]" {
		t.Fatalf("intset: %v %v", ints, err)
	}
	if enc := AppendIntset(nil, ints); !bytes.Equal(enc, is) {
		t.Fatalf("intset encoding %x, want %x", enc, is)
	}
	if _, err := DecodeIntset(is[:13]); err == nil {
		t.Fatal("short intset accepted")
	}
	unsorted := append([]byte(nil), is...)
	unsorted[12], unsorted[13] = 0, 0
	if _, err := DecodeIntset(unsorted); err == nil {
		t.Fatal("unsorted intset accepted")
	}
}

func TestZipmap(t *testing.T) {
	// Redis 2.x: {"foo": "bar", "k": "vv"} with one free byte after "bar".
	zm := []byte{2, 3, 'f', 'o', 'o', 3, 1, 'b', 'a', 'r', 0, 1, 'k', 2, 0, 'v', 'v', 0xff}
	got, err := DecodeZipmap(zm)
	if err != nil || fmt.Sprint(got) != "[foo bar k vv]" {
		t.Fatalf("zipmap: %q %v", got, err)
	}
	if _, err := DecodeZipmap(zm[:8]); err == nil {
		t.Fatal("cut zipmap accepted")
	}
}

// redisFunctionDump is FUNCTION DUMP of one library on redis-server 7.0.15.
const redisFunctionCode = "#!lua name=mylib\nredis.register_function{function_name='h', callback=function() end, description=5, flags={'no-writes','allow-stale'}}"

var redisFunctionDump = []byte("\xf5\xc3@{@\x86\x1f#!lua name=mylib\nredis.register_\x08function{\xc0\x08\x00_`+\r'h', callback=\xc0\x1b\x0e() end, descrip@7\x17=5, flags={'no-writes',' :\now-stale'}}\n\x00FL\xd204[\\\x1e")

func TestFunctionDumpMatchesRedis(t *testing.T) {
	if got := DumpFunctions([]string{redisFunctionCode}); !bytes.Equal(got, redisFunctionDump) {
		t.Errorf("dump:\n got  %q\n want %q", got, redisFunctionDump)
	}
	codes, err := ParseFunctions(redisFunctionDump)
	if err != nil || len(codes) != 1 || codes[0] != redisFunctionCode {
		t.Errorf("parse: %q %v", codes, err)
	}
}

func TestFunctionDumpErrors(t *testing.T) {
	good := DumpFunctions([]string{"#!lua name=a\nredis.register_function('f', function() end)"})
	bad := append([]byte(nil), good...)
	bad[3] ^= 1
	newer := append([]byte(nil), good...)
	newer[len(newer)-10] = 11
	for _, tc := range []struct {
		name    string
		payload []byte
		want    error
	}{
		{"short", []byte("xx"), ErrPayloadFooter},
		{"checksum", bad, ErrPayloadFooter},
		{"version", newer, ErrPayloadFooter},
		{"pre-GA", AppendFooter([]byte{OpFunctionPre, 0}), ErrFunctionPreGA},
		{"type", AppendFooter([]byte{0, 0}), ErrNotFunction},
		{"truncated", AppendFooter([]byte{OpFunction2, 10, 'a'}), ErrFunctionPayload},
		{"empty", AppendFooter(nil), nil},
	} {
		if _, got := ParseFunctions(tc.payload); !errors.Is(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
