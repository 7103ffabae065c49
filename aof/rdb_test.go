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
