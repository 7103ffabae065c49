package test

import (
	"regexp"
	"strings"
	"testing"
)

// DEBUG RELOAD against redis-server 7.0.15, each server in a directory of
// its own: the dataset of every type (streams with groups included) comes
// back with the same values, TTLs and OBJECT ENCODING, also under other
// encoding limits; NOSAVE, NOFLUSH and MERGE; option errors; what a reload
// does to WATCH and to rdb_changes_since_last_save.
func TestDebugReloadDiff(t *testing.T) {
	requireRedis(t)
	redis := startRDBServer(t, false, t.TempDir())
	ours := startRDBServer(t, true, t.TempDir())
	servers := []*rdbServer{redis, ours}
	same := func(args ...string) {
		t.Helper()
		w, g := redis.do(t, args...), ours.do(t, args...)
		if string(w.Raw) != string(g.Raw) {
			t.Errorf("%q:\n redis %q\n ours  %q", args, w.Raw, g.Raw)
		}
	}
	// Each server built its streams itself: delivery and seen times (unix
	// ms) differ between them, not across a reload (checked on ours).
	unixMs := regexp.MustCompile(`\(integer\) 1\d{12}\b`)
	masked := func(s *rdbServer) []string {
		out := rdbKeyDump(t, s)
		for i := range out {
			out[i] = unixMs.ReplaceAllString(out[i], "(integer) <ms>")
		}
		return out
	}
	compare := func(what string) {
		t.Helper()
		w, g := masked(redis), masked(ours)
		if len(w) < 10 {
			t.Fatalf("%s: dataset of %d keys", what, len(w))
		}
		compareDumps(t, w, g)
	}
	for _, cmd := range rdbDataset() {
		for _, s := range servers {
			if n := s.do(t, cmd...); n.Kind == '-' {
				t.Fatalf("%s %q: %s", s.p.name, cmd, n.Str)
			}
		}
	}
	before := rdbKeyDump(t, ours)
	same("DEBUG", "RELOAD")
	compare("after DEBUG RELOAD")
	compareDumps(t, before, rdbKeyDump(t, ours))
	same("DEBUG", "RELOAD", "BOGUS")
	same("DEBUG", "RELOAD", "NOSAVE", "x")

	// Other limits: the loaded values take the encodings they dictate.
	same("CONFIG", "SET", "hash-max-listpack-entries", "1", "zset-max-listpack-entries", "1", "set-max-intset-entries", "2", "list-max-listpack-size", "4")
	same("DEBUG", "RELOAD")
	compare("after DEBUG RELOAD under other limits")
	same("CONFIG", "SET", "hash-max-listpack-entries", "128", "zset-max-listpack-entries", "128", "set-max-intset-entries", "512", "list-max-listpack-size", "-2")

	// NOSAVE drops what changed since the file was written.
	same("SET", "fresh", "1")
	same("DEL", "int")
	same("DEBUG", "RELOAD", "NOSAVE")
	same("EXISTS", "fresh")
	same("GET", "int")
	// NOSAVE NOFLUSH MERGE adds the file to what is there.
	same("SET", "fresh", "1")
	same("DEL", "int")
	same("SET", "small", "changed")
	same("DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")
	same("GET", "fresh")
	same("GET", "int")
	same("GET", "small")
	same("DEBUG", "RELOAD", "MERGE")
	compare("after DEBUG RELOAD MERGE")

	// WATCH: the flush touches the watched keys, a merge does not.
	for _, merge := range []bool{false, true} {
		var watchers []*respConn
		for _, s := range servers {
			w, err := dialRESP(s.p.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.Do("WATCH", "small")
			watchers = append(watchers, w)
		}
		reload := []string{"DEBUG", "RELOAD"}
		if merge {
			reload = append(reload, "NOFLUSH", "MERGE")
		}
		same(reload...)
		var replies []string
		for _, w := range watchers {
			w.Do("MULTI")
			w.Do("PING")
			n, _ := w.Do("EXEC")
			replies = append(replies, string(n.Raw))
		}
		if replies[0] != replies[1] {
			t.Errorf("EXEC after %q: redis %q, ours %q", reload, replies[0], replies[1])
		}
	}
	for _, s := range servers {
		if info := s.do(t, "INFO", "persistence").Str; !strings.Contains(info, "rdb_changes_since_last_save:0") {
			t.Errorf("%s after DEBUG RELOAD:\n%s", s.p.name, info)
		}
	}
}

// TestDebugObjectSerializedLength compares DEBUG OBJECT's serializedlength
// (the value's RDB size) with redis-server's for values whose encoding is
// the same on both servers.
func TestDebugObjectSerializedLength(t *testing.T) {
	requireRedis(t)
	redis := startRDBServer(t, false, t.TempDir())
	ours := startRDBServer(t, true, t.TempDir())
	field := regexp.MustCompile(`serializedlength:\d+`)
	for _, cmd := range [][]string{
		{"SET", "int", "12345"}, {"SET", "lzf", strings.Repeat("abcdefgh", 100)}, {"SET", "s", "hello"},
		{"RPUSH", "list", "a", "1", "-70000"}, {"SADD", "intset", "1", "2"}, {"HSET", "h", "f", "v"},
		{"ZADD", "z", "1", "a"}, {"XADD", "st", "1-1", "a", "1"},
	} {
		for _, s := range []*rdbServer{redis, ours} {
			s.do(t, cmd...)
		}
		w, g := redis.do(t, "DEBUG", "OBJECT", cmd[1]), ours.do(t, "DEBUG", "OBJECT", cmd[1])
		if a, b := field.FindString(w.Str), field.FindString(g.Str); a == "" || a != b {
			t.Errorf("%s: redis %q, ours %q", cmd[1], w.Str, g.Str)
		}
	}
}
