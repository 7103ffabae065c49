package server

import (
	"bytes"
	"strings"
	"testing"
)

func TestCRC64Jones(t *testing.T) {
	// The check value of Redis's crc64 (src/crc64.c test).
	if got := crc64Jones(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Errorf("crc64(123456789) = %x", got)
	}
	if got := crc64Jones(0, nil); got != 0 {
		t.Errorf("crc64() = %x", got)
	}
}

// redisDump is FUNCTION DUMP of one library on redis-server 7.0.15.
const redisDumpCode = "#!lua name=mylib\nredis.register_function{function_name='h', callback=function() end, description=5, flags={'no-writes','allow-stale'}}"

var redisDump = []byte("\xf5\xc3@{@\x86\x1f#!lua name=mylib\nredis.register_\x08function{\xc0\x08\x00_`+\r'h', callback=\xc0\x1b\x0e() end, descrip@7\x17=5, flags={'no-writes',' :\now-stale'}}\n\x00FL\xd204[\\\x1e")

func TestFunctionDumpMatchesRedis(t *testing.T) {
	if got := dumpFunctions([]string{redisDumpCode}); !bytes.Equal(got, redisDump) {
		t.Errorf("dump:\n got  %q\n want %q", got, redisDump)
	}
	codes, errText := parseFunctionDump(redisDump)
	if errText != "" || len(codes) != 1 || codes[0] != redisDumpCode {
		t.Errorf("parse: %q %q", codes, errText)
	}
}

func TestFunctionDumpErrors(t *testing.T) {
	good := dumpFunctions([]string{"#!lua name=a\nredis.register_function('f', function() end)"})
	bad := append([]byte(nil), good...)
	bad[3] ^= 1
	newer := append([]byte(nil), good...)
	newer[len(newer)-10] = 11
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"short", []byte("xx"), "DUMP payload version or checksum are wrong"},
		{"checksum", bad, "DUMP payload version or checksum are wrong"},
		{"version", newer, "DUMP payload version or checksum are wrong"},
		{"pre-GA", withChecksum([]byte{rdbOpcodeFunctionPreGA, 0}), "Pre-GA function format not supported"},
		{"type", withChecksum([]byte{0, 0}), "given type is not a function"},
		{"truncated", withChecksum([]byte{rdbOpcodeFunction2, 10, 'a'}), "Failed loading library payload"},
		{"empty", withChecksum(nil), ""},
	} {
		if _, got := parseFunctionDump(tc.payload); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// withChecksum appends the RDB version and the CRC to body.
func withChecksum(body []byte) []byte {
	b := append(append([]byte(nil), body...), rdbVersion, 0)
	crc := crc64Jones(0, b)
	for i := 0; i < 8; i++ {
		b = append(b, byte(crc>>(8*i)))
	}
	return b
}

func TestRDBStrings(t *testing.T) {
	for _, s := range []string{
		"", "a", "12", "-100", "32767", "-2147483648", "007", "12345678901",
		strings.Repeat("ab", 30), strings.Repeat("x", 70000),
		"#!lua name=lib\nredis.register_function('f', function() return redis.call('get', KEYS[1]) end)\n" + strings.Repeat("-- comment line\n", 40),
	} {
		enc := appendRDBString(nil, []byte(s))
		got, rest, ok := readRDBString(enc)
		if !ok || string(got) != s || len(rest) != 0 {
			t.Errorf("round trip of %.40q failed: %q ok=%v rest=%d", s, got, ok, len(rest))
		}
	}
	// Integers get the integer encodings, as rdbTryIntegerEncoding does.
	for _, tc := range []struct {
		s    string
		want []byte
	}{
		{"12", []byte{0xC0, 12}},
		{"-1", []byte{0xC0, 0xff}},
		{"300", []byte{0xC1, 0x2c, 0x01}},
		{"70000", []byte{0xC2, 0x70, 0x11, 0x01, 0x00}},
		{"007", []byte{3, '0', '0', '7'}},
	} {
		if got := appendRDBString(nil, []byte(tc.s)); !bytes.Equal(got, tc.want) {
			t.Errorf("encoding of %q: %x, want %x", tc.s, got, tc.want)
		}
	}
}

func TestLZF(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 100),
		strings.Repeat("abcdefgh", 100),
		"the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog",
	} {
		c := lzfCompress([]byte(s), len(s)-4)
		if c == nil {
			t.Errorf("%.20q did not compress", s)
			continue
		}
		if got := lzfDecompress(c, len(s)); string(got) != s {
			t.Errorf("round trip of %.20q: %q", s, got)
		}
	}
	if c := lzfCompress([]byte("abcdefghijklmnopqrstuvwxyz"), 22); c != nil {
		t.Errorf("incompressible input compressed to %q", c)
	}
	if lzfDecompress([]byte{0xe0}, 10) != nil {
		t.Error("a truncated back reference decoded")
	}
}
