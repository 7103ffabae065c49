package aof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCRC64(t *testing.T) {
	// The check value of Redis's crc64.c test.
	if got := crc64Update(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 %#x", got)
	}
}

func TestLZF(t *testing.T) {
	tests := []struct {
		in   []byte
		n    int
		want string
		ok   bool
	}{
		{[]byte{2, 'a', 'b', 'c'}, 3, "abc", true},
		// literal "ab", then a back reference of length 3+2... copying
		// overlapping bytes: ctrl = (len-2)<<5 | offset>>8, then offset low.
		{[]byte{1, 'a', 'b', 3 << 5, 1}, 7, "abababa", true},
		{[]byte{0, 'a', 7 << 5, 3, 0}, 13, strings.Repeat("a", 13), true},
		{[]byte{2, 'a', 'b'}, 3, "", false},       // literal past the input
		{[]byte{0, 'a', 1 << 5, 5}, 4, "", false}, // reference before the start
		{[]byte{2, 'a', 'b', 'c'}, 4, "", false},  // wrong length
	}
	for i, tt := range tests {
		got, err := lzfDecompress(tt.in, tt.n)
		if (err == nil) != tt.ok || (tt.ok && string(got) != tt.want) {
			t.Errorf("%d: got %q, %v; want %q ok=%v", i, got, err, tt.want, tt.ok)
		}
	}
}

func TestListpackDecode(t *testing.T) {
	// "a", 5, -1 (13-bit), 1000 (13-bit), 100000 (24-bit), a 70-byte string.
	long := strings.Repeat("x", 70)
	var body []byte
	add := func(enc []byte) {
		body = append(body, enc...)
		body = append(body, byte(len(enc)))
	}
	add([]byte{0x80 | 1, 'a'})
	add([]byte{5})
	add([]byte{0xc0 | 0x1f, 0xff})
	add([]byte{0xc0 | 0x03, 0xe8})
	add([]byte{0xf2, 0xa0, 0x86, 0x01})
	add(append([]byte{0xe0, 70}, long...))
	lp := make([]byte, 6, 6+len(body)+1)
	lp = append(lp, body...)
	lp = append(lp, 0xff)
	lp[0], lp[1], lp[2], lp[3] = byte(len(lp)), byte(len(lp)>>8), 0, 0
	lp[4], lp[5] = 6, 0
	got, err := decodeListpack(lp)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "5", "-1", "1000", "100000", long}
	if fmt.Sprint(strs(got)) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", strs(got), want)
	}
	bad := append([]byte(nil), lp...)
	bad[4] = 7 // wrong element count
	if _, err := decodeListpack(bad); err == nil {
		t.Fatal("wrong count accepted")
	}
	if _, err := decodeListpack(lp[:len(lp)-1]); err == nil {
		t.Fatal("missing terminator accepted")
	}
}

func TestZiplistAndIntsetDecode(t *testing.T) {
	// entries: "ab", 7 (4-bit immediate), -2 (int8), 300 (int16).
	body := []byte{0, 0x02, 'a', 'b', 4, 0xf8, 2, 0xfe, 0xfe, 3, 0xc0, 0x2c, 0x01}
	zl := make([]byte, 10, 10+len(body)+1)
	zl = append(zl, body...)
	zl = append(zl, 0xff)
	zl[0] = byte(len(zl))
	zl[8] = 4
	got, err := decodeZiplist(zl)
	if err != nil || fmt.Sprint(strs(got)) != "[ab 7 -2 300]" {
		t.Fatalf("ziplist: %q %v", strs(got), err)
	}
	is := []byte{2, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 1, 0, 0x10, 0x27}
	got, err = decodeIntset(is)
	if err != nil || fmt.Sprint(strs(got)) != "[-1 1 10000]" {
		t.Fatalf("intset: %q %v", strs(got), err)
	}
	if _, err := decodeIntset(is[:13]); err == nil {
		t.Fatal("short intset accepted")
	}
}

func strs(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}

// TestRDBFromRedis decodes a dump written by redis-server 7.0 holding every
// encoding it uses, replays the commands into a second, empty redis-server
// and compares the two datasets' DEBUG DIGEST (values and TTLs).
func TestRDBFromRedis(t *testing.T) {
	needRedis(t)
	src := startRedis(t, t.TempDir())
	c, err := dialResp(src.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	must := func(args ...string) {
		t.Helper()
		if err, ok := c.do(args...).(error); ok {
			t.Fatalf("%v: %v", args, err)
		}
	}
	must("SET", "int", "12345")
	must("SET", "neg", "-9223372036854775808")
	must("SET", "small", "x")
	must("SET", "empty", "")
	must("SET", "lzf", strings.Repeat("abcdefgh", 100))
	must("SET", "bin", "a\x00b\r\nc\xff")
	must("SET", "ttl", "v", "PX", "100000000")
	must("RPUSH", "list", "a", "1", "-70000", strings.Repeat("z", 300))
	for i := 0; i < 1000; i++ {
		must("RPUSH", "biglist", strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	must("SADD", "intset", "1", "-5", "100000", "9223372036854775807")
	must("SADD", "strset", "a", "b", "c")
	for i := 0; i < 600; i++ {
		must("SADD", "bigset", strconv.Itoa(i*7))
	}
	must("ZADD", "zs", "1.5", "a", "-2", "b", "inf", "c", "0.1", "d")
	for i := 0; i < 200; i++ {
		must("ZADD", "bigzs", strconv.Itoa(i)+".25", "m"+strconv.Itoa(i))
	}
	must("HSET", "h", "f1", "v1", "f2", "22", "n", "-3")
	must("HSET", "bigh", "f", strings.Repeat("y", 100))
	must("PEXPIRE", "h", "50000000")
	must("SELECT", "3")
	must("SET", "db3", "three")
	must("SAVE")
	want := c.do("DEBUG", "DIGEST")

	data, err := os.ReadFile(filepath.Join(src.cmd.Args[indexOf(src.cmd.Args, "--dir")+1], "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	dst := startRedis(t, t.TempDir())
	d, err := dialResp(dst.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	n := 0
	err = Scan(bytes.NewReader(data), int64(len(data)), func(args [][]byte, start, end int64) error {
		n++
		if err, ok := d.doBytes(args).(error); ok {
			return fmt.Errorf("%q: %w", args, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.do("DEBUG", "DIGEST"); got != want {
		t.Fatalf("digest after replaying %d commands: %v, want %v", n, got, want)
	}

	// A damaged checksum is refused with its offset.
	bad := append([]byte(nil), data...)
	bad[len(bad)-1] ^= 0xff
	err = Scan(bytes.NewReader(bad), int64(len(bad)), func([][]byte, int64, int64) error { return nil })
	var re *RDBError
	if !errors.As(err, &re) || re.Offset != int64(len(bad)-8) || !strings.Contains(re.Reason, "checksum") {
		t.Fatalf("damaged checksum: %v", err)
	}
	// A cut file is an error, not a silent truncation.
	err = Scan(bytes.NewReader(data[:len(data)/2]), int64(len(data)/2), func([][]byte, int64, int64) error { return nil })
	if !errors.As(err, &re) {
		t.Fatalf("cut RDB: %v", err)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
