package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RDB files both ways with redis-server 7.0.15: a dataset with every type
// and encoding (small and large forms), expiries, several databases and
// functions is saved by one server, loaded by the other at start, and
// compared key by key (value, TTL, OBJECT ENCODING); Debian's
// redis-check-rdb must accept every file miniwatchd writes.

// rdbDataset is the commands that build the compared dataset.
func rdbDataset() [][]string {
	cmds := [][]string{
		{"SET", "int", "12345"}, {"SET", "neg", "-9223372036854775808"}, {"SET", "small", "x"},
		{"SET", "empty", ""}, {"SET", "lzf", strings.Repeat("abcdefgh", 100)}, {"SET", "bin", "a\x00b\r\nc\xff"},
		{"SET", "ttl", "v", "PX", "100000000"}, {"APPEND", "raw", strings.Repeat("r", 50)},
		{"RPUSH", "list", "a", "1", "-70000", strings.Repeat("z", 300)},
		{"SADD", "intset", "1", "-5", "100000", "9223372036854775807"},
		{"SADD", "strset", "a", "b", "c"},
		{"ZADD", "zs", "1.5", "a", "-2", "b", "inf", "c", "0.1", "d"},
		{"HSET", "h", "f1", "v1", "f2", "22", "n", "-3"},
		{"HSET", "bigh", "f", strings.Repeat("y", 100)},
		{"PEXPIRE", "h", "50000000"},
		{"FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"},
		{"SELECT", "3"}, {"SET", "db3", "three"}, {"RPUSH", "db3list", "x", "y"},
		{"SELECT", "15"}, {"HSET", "db15", "a", "b"},
		{"SELECT", "0"},
	}
	big := []string{"RPUSH", "biglist"}
	set := []string{"SADD", "bigset"}
	zset := []string{"ZADD", "bigzs"}
	for i := 0; i < 2000; i++ {
		big = append(big, strconv.Itoa(i), "v"+strconv.Itoa(i))
		set = append(set, "m"+strconv.Itoa(i))
		zset = append(zset, strconv.Itoa(i)+".25", "m"+strconv.Itoa(i))
	}
	hash := []string{"HSET", "bighash"}
	for i := 0; i < 700; i++ {
		hash = append(hash, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	cmds = append(cmds, big, set, zset, hash)
	return append(cmds, rdbStreamDataset()...)
}

// rdbStreamDataset builds streams of every shape: same and different
// fields, integer fields and values, a negative sequence delta, tombstones,
// several nodes, an emptied stream, groups with PELs, consumers with and
// without pending entries, XSETID's counters.
func rdbStreamDataset() [][]string {
	cmds := [][]string{
		{"XADD", "st", "1-1", "a", "1", "b", "2"}, {"XADD", "st", "1-2", "a", "3", "b", "4"},
		{"XADD", "st", "2-0", "c", "x"}, {"XADD", "st", "5-10", "f", "v"}, {"XADD", "st", "6-0", "a", "-7000", "b", strings.Repeat("L", 300)},
		{"XADD", "st", "7-0", "123", "9999999999", "a", ""},
		{"XDEL", "st", "1-2"},
		{"XGROUP", "CREATE", "st", "g1", "0"},
		{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "st", ">"},
		{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "1", "STREAMS", "st", ">"},
		{"XCLAIM", "st", "g1", "bob", "0", "1-1", "RETRYCOUNT", "5"},
		{"XGROUP", "CREATECONSUMER", "st", "g1", "carol"},
		{"XGROUP", "CREATE", "st", "g2", "$", "ENTRIESREAD", "3"},
		{"XGROUP", "CREATE", "st", "7", "2-0"},
		{"XSETID", "st", "100-0", "ENTRIESADDED", "50", "MAXDELETEDID", "3-0"},
		{"XGROUP", "CREATE", "emptied", "g", "$", "MKSTREAM"},
		{"XADD", "gone", "1-1", "x", "y"}, {"XDEL", "gone", "1-1"},
		{"CONFIG", "SET", "stream-node-max-entries", "10"},
	}
	for i := 1; i <= 95; i++ {
		fields := []string{"XADD", "bigst", strconv.Itoa(i) + "-0", "k", "v" + strconv.Itoa(i)}
		if i%7 == 0 {
			fields = append(fields, "extra", strconv.Itoa(i))
		}
		cmds = append(cmds, fields)
	}
	return append(cmds,
		[]string{"XDEL", "bigst", "3-0", "15-0", "16-0", "50-0"},
		[]string{"XTRIM", "bigst", "MINID", "5-0"},
		[]string{"XGROUP", "CREATE", "bigst", "grp", "0"},
		[]string{"XREADGROUP", "GROUP", "grp", "c1", "COUNT", "30", "STREAMS", "bigst", ">"},
		[]string{"XACK", "bigst", "grp", "6-0", "8-0"},
		[]string{"CONFIG", "SET", "stream-node-max-entries", "100"},
	)
}

// rdbServerPair is one server of each kind, each in its own directory.
type rdbServer struct {
	p   *serverProc
	c   *respConn
	dir string
}

func startRDBServer(t *testing.T, ours bool, dir string, extra ...string) *rdbServer {
	t.Helper()
	args := append([]string{"--dir", dir}, extra...)
	var p *serverProc
	var err error
	if ours {
		p, err = startOurs(args...)
	} else {
		p, err = startRedis(args...)
	}
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(p.stop)
	c, err := dialRESP(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rdbServer{p: p, c: c, dir: dir}
}

func (s *rdbServer) do(t *testing.T, args ...string) node {
	t.Helper()
	n, err := s.c.Do(args...)
	if err != nil {
		t.Fatalf("%s %q: %v", s.p.name, args, err)
	}
	return n
}

// rdbKeyLine renders key k of the selected database as text: type, TTL
// rounded to minutes, encoding and value, a stream's value being the reply
// to streamCmd; ok is false when k does not exist.
func rdbKeyLine(t *testing.T, s *rdbServer, k string, streamCmd ...string) (line string, ok bool) {
	t.Helper()
	typ := s.do(t, "TYPE", k).Str
	var val string
	switch typ {
	case "none":
		return "", false
	case "string":
		val = s.do(t, "GET", k).Str
	case "list":
		val = flat(s.do(t, "LRANGE", k, "0", "-1"))
	case "set":
		val = sortedFlat(s.do(t, "SMEMBERS", k), 1)
	case "hash":
		val = sortedFlat(s.do(t, "HGETALL", k), 2)
	case "zset":
		val = flat(s.do(t, "ZRANGE", k, "0", "-1", "WITHSCORES"))
	case "stream":
		val = fmtNode(s.do(t, streamCmd...))
	}
	ttl := s.do(t, "PTTL", k).Int
	if ttl > 0 {
		ttl = ttl / 60000
	}
	enc := s.do(t, "OBJECT", "ENCODING", k).Str
	return fmt.Sprintf("%s %s ttl=%d enc=%s %q", k, typ, ttl, enc, val), true
}

// rdbKeyDump is every key of every database as text: value, TTL rounded to
// minutes, encoding; and the function libraries.
func rdbKeyDump(t *testing.T, s *rdbServer) []string {
	var out []string
	for dbi := 0; dbi < 16; dbi++ {
		s.do(t, "SELECT", strconv.Itoa(dbi))
		keys := s.do(t, "KEYS", "*")
		names := make([]string, 0, len(keys.Elems))
		for _, k := range keys.Elems {
			names = append(names, k.Str)
		}
		slices.Sort(names)
		for _, k := range names {
			if line, ok := rdbKeyLine(t, s, k, "XINFO", "STREAM", k, "FULL"); ok {
				out = append(out, fmt.Sprintf("db%d %s", dbi, line))
			}
		}
	}
	s.do(t, "SELECT", "0")
	out = append(out, fmtNode(s.do(t, "FUNCTION", "LIST", "WITHCODE")))
	return out
}

func flat(n node) string {
	var b []string
	for _, e := range n.Elems {
		b = append(b, e.Str)
	}
	return strings.Join(b, "\x00")
}

// sortedFlat sorts a reply's elements taken width at a time.
func sortedFlat(n node, width int) string {
	var b []string
	for i := 0; i+width <= len(n.Elems); i += width {
		var parts []string
		for _, e := range n.Elems[i : i+width] {
			parts = append(parts, e.Str)
		}
		b = append(b, strings.Join(parts, "="))
	}
	slices.Sort(b)
	return strings.Join(b, "\x00")
}

func compareDumps(t *testing.T, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%d keys, want %d", len(got), len(want))
	}
	for i := 0; i < min(len(want), len(got)); i++ {
		if want[i] != got[i] {
			t.Errorf("key %d differs:\n want %.300s\n got  %.300s", i, want[i], got[i])
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkRDB runs redis-check-rdb on path when it is installed.
func checkRDB(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("redis-check-rdb")
	if err != nil {
		t.Log("redis-check-rdb not installed: not checked")
		return
	}
	out, err := exec.Command(bin, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK!") {
		t.Fatalf("redis-check-rdb %s: %v\n%s", path, err, out)
	}
}

func TestRDBRoundTrip(t *testing.T) {
	requireRedis(t)
	for _, fromOurs := range []bool{false, true} {
		name := "redis-to-ours"
		if fromOurs {
			name = "ours-to-redis"
		}
		t.Run(name, func(t *testing.T) {
			src := startRDBServer(t, fromOurs, t.TempDir())
			for _, cmd := range rdbDataset() {
				if n := src.do(t, cmd...); n.Kind == '-' {
					t.Fatalf("%q: %s", cmd, n.Str)
				}
			}
			want := rdbKeyDump(t, src)
			if n := src.do(t, "SAVE"); n.Str != "OK" {
				t.Fatalf("SAVE: %s", fmtNode(n))
			}
			path := filepath.Join(src.dir, "dump.rdb")
			if fromOurs {
				checkRDB(t, path)
			}
			dstDir := t.TempDir()
			copyFile(t, path, filepath.Join(dstDir, "dump.rdb"))
			dst := startRDBServer(t, !fromOurs, dstDir)
			compareDumps(t, want, rdbKeyDump(t, dst))
			// Saving again from the loaded side gives a file the first loads.
			if n := dst.do(t, "SAVE"); n.Str != "OK" {
				t.Fatalf("SAVE: %s", fmtNode(n))
			}
			if !fromOurs {
				checkRDB(t, filepath.Join(dstDir, "dump.rdb"))
			}
		})
	}
}

// TestRDBBackgroundSave checks BGSAVE while clients write: the file holds
// the dataset of one point in time (here, after the last write, once the
// writes stop before the save ends) and redis-server loads it.
func TestRDBBackgroundSave(t *testing.T) {
	requireRedis(t)
	src := startRDBServer(t, true, t.TempDir())
	for i := 0; i < 20000; i++ {
		src.c.Send("SET", "k"+strconv.Itoa(i), strconv.Itoa(i))
	}
	for i := 0; i < 20000; i++ {
		if _, err := src.c.Read(5 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// 100 us per key: the save takes about 2 s, so the writes below land
	// while it runs.
	src.do(t, "CONFIG", "SET", "rdb-key-save-delay", "100")
	if n := src.do(t, "BGSAVE"); n.Str != "Background saving started" {
		t.Fatalf("BGSAVE: %s", fmtNode(n))
	}
	// Writes while it runs: new keys, overwrites, deletions, a flush of db 1.
	src.do(t, "SET", "during", "1")
	src.do(t, "DEL", "k1")
	src.do(t, "SET", "k2", "changed")
	src.do(t, "SELECT", "1")
	src.do(t, "SET", "x", "y")
	src.do(t, "FLUSHDB")
	src.do(t, "SET", "after-flush", "z")
	src.do(t, "SELECT", "0")
	if info := src.do(t, "INFO", "persistence").Str; !strings.Contains(info, "rdb_bgsave_in_progress:1") {
		t.Fatalf("the writes did not happen during the BGSAVE:\n%s", info)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		info := src.do(t, "INFO", "persistence").Str
		if strings.Contains(info, "rdb_bgsave_in_progress:0") {
			if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
				t.Fatalf("BGSAVE failed:\n%s", info)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("BGSAVE did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	path := filepath.Join(src.dir, "dump.rdb")
	checkRDB(t, path)
	dstDir := t.TempDir()
	copyFile(t, path, filepath.Join(dstDir, "dump.rdb"))
	dst := startRDBServer(t, false, dstDir)
	if got := dst.do(t, "DBSIZE").Int; got < 19999 || got > 20000 {
		t.Fatalf("DBSIZE %d", got)
	}
	compareDumps(t, rdbKeyDump(t, src), rdbKeyDump(t, dst))
}

// TestRDBCommandsDiff compares SAVE, BGSAVE and LASTSAVE replies and the
// INFO persistence field names with redis-server's, each server in a
// directory of its own.
func TestRDBCommandsDiff(t *testing.T) {
	requireRedis(t)
	redis := startRDBServer(t, false, t.TempDir())
	ours := startRDBServer(t, true, t.TempDir())
	both := func(args ...string) (node, node) {
		t.Helper()
		return redis.do(t, args...), ours.do(t, args...)
	}
	same := func(args ...string) {
		t.Helper()
		w, g := both(args...)
		if string(w.Raw) != string(g.Raw) {
			t.Errorf("%q:\n redis %q\n ours  %q", args, w.Raw, g.Raw)
		}
	}
	waitBG := func(s *rdbServer) {
		for i := 0; i < 500; i++ {
			if strings.Contains(s.do(t, "INFO", "persistence").Str, "rdb_bgsave_in_progress:0") {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%s: BGSAVE did not finish", s.p.name)
	}
	same("SET", "k", "v")
	same("BGSAVE", "x")
	same("BGSAVE", "SCHEDULE", "x")
	same("SAVE", "x")
	same("LASTSAVE", "x")
	same("SAVE")
	same("MULTI")
	same("BGSAVE")
	same("EXEC")
	waitBG(redis)
	waitBG(ours)
	same("BGSAVE")
	waitBG(redis)
	waitBG(ours)
	w, g := both("LASTSAVE")
	if w.Kind != ':' || g.Kind != ':' || g.Int-w.Int > 2 || w.Int-g.Int > 2 {
		t.Errorf("LASTSAVE: redis %s, ours %s", fmtNode(w), fmtNode(g))
	}
	names := func(info string) []string {
		var out []string
		for _, line := range strings.Split(info, "\r\n") {
			if k, _, ok := strings.Cut(line, ":"); ok {
				out = append(out, k)
			}
		}
		return out
	}
	wi, gi := both("INFO", "persistence")
	if a, b := names(wi.Str), names(gi.Str); !slices.Equal(a, b) {
		t.Errorf("INFO persistence fields:\n redis %q\n ours  %q", a, b)
	}
	for _, f := range []string{"rdb_changes_since_last_save:0", "rdb_bgsave_in_progress:0", "rdb_last_bgsave_status:ok", "rdb_saves:3"} {
		if !strings.Contains(wi.Str, f) || !strings.Contains(gi.Str, f) {
			t.Errorf("INFO persistence %s:\n redis %s\n ours  %s", f, wi.Str, gi.Str)
		}
	}
	same("SET", "k", "w")
	wi, gi = both("INFO", "persistence")
	if !strings.Contains(wi.Str, "rdb_changes_since_last_save:1") || !strings.Contains(gi.Str, "rdb_changes_since_last_save:1") {
		t.Errorf("changes after one write:\n redis %s\n ours  %s", wi.Str, gi.Str)
	}
}
