package server

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// aofPropagationScript is run against redis-server 7.0.15 and miniwatchd,
// both with appendonly yes; their incremental files must hold the same
// commands (absolute times aside). A step "sleep" waits 30ms so that keys
// set with PX 1 are past their deadline (active expiry is off on both).
func aofPropagationScript() [][]string {
	future := strconv.FormatInt(time.Now().Unix()+100000, 10)
	s := func(line string) []string { return strings.Fields(line) }
	return [][]string{
		s("SET a 1"), s("SET a 1"), s("SET b 2 EX 100"), s("SET b 3 PX 100000 GET"),
		s("SET c 1 NX"), s("SET c 2 NX"), s("SET c 3 XX KEEPTTL"), s("SET d v GET"),
		s("SET d2 v get GET"), s("SET nx v NX GET"), s("SET pxat v PXAT " + future + "000"),
		s("SETEX e 100 v"), s("PSETEX e 100000 v"), s("SETNX f 1"), s("SETNX f 2"), s("GETSET f 2"),
		s("GETEX b EX 50"), s("GETEX b PERSIST"), s("GETEX b PERSIST"), s("GETEX b"),
		s("GETEX e EXAT " + future), s("GETEX c PXAT 1"), s("GETDEL f"), s("GETDEL f"),
		s("MSET m1 1 m2 2"), s("MSETNX m1 x m3 y"), s("MSETNX m4 x m5 y"),
		s("INCR n"), s("DECR n"), s("INCRBY n 10"), s("DECRBY n 3"), s("INCR a"),
		s("INCRBYFLOAT fl 1.5"), s("INCRBYFLOAT fl 0"), s("INCRBYFLOAT fl 1e3"),
		s("APPEND ap x"), s("APPEND ap"), {"APPEND", "ap2", ""}, s("SETRANGE sr 2 xy"), {"SETRANGE", "sr", "0", ""},
		s("DEL nosuch"), s("DEL a m1 nosuch"), s("UNLINK m2"),
		s("EXPIRE m4 100"), s("EXPIRE m4 200 NX"), s("EXPIRE m4 300 XX"), s("PEXPIRE m4 400000 GT"),
		s("PEXPIRE m4 1000 GT"), s("EXPIREAT m4 " + future), s("PEXPIREAT m4 " + future + "123"),
		s("EXPIRE nosuch 10"), s("EXPIRE m5 -1"), s("PEXPIREAT sr 1"), s("PERSIST m4"), s("PERSIST m4"),
		s("SET sr xyz"), s("RENAME ap r1"), s("RENAME nosuch r9"), s("RENAMENX r1 sr"), s("RENAMENX r1 r2"),
		s("MOVE r2 1"), s("MOVE nosuch 1"), s("COPY sr cp"), s("COPY sr cp2 DB 2"), s("COPY nosuch cp3"),
		s("MULTI"), s("SET t1 1"), s("SET t2 2"), s("EXEC"),
		s("MULTI"), s("SET t3 1"), s("GET t3"), s("EXEC"),
		s("MULTI"), s("GET t3"), s("EXEC"),
		s("MULTI"), s("SET t4 1"), s("SELECT 3"), s("SET t5 1"), s("EXPIRE t5 -1"), s("EXEC"),
		s("SET in3 x"), s("SELECT 0"),
		s("MULTI"), s("INCR n"), s("INCRBYFLOAT fl 2"), s("SET tx v EX 10"), s("EXEC"),
		s("SET lz v PX 1"), s("sleep"), s("GET lz"),
		s("SET lz2 v PX 1"), s("sleep"), s("SET lz2 w"),
		s("SET lz3 v PX 1"), s("sleep"), s("MULTI"), s("SET lz3 x"), s("SET lz4 y"), s("EXEC"),
		s("SET lz5 v PX 1"), s("sleep"), s("MULTI"), s("GET lz5"), s("EXEC"),
		s("SET lz6 v PX 1"), s("sleep"), s("EXISTS lz6"),
		s("SWAPDB 0 1"), s("SET after-swap 1"), s("SWAPDB 1 0"),
		s("FLUSHDB"), s("SELECT 2"), s("FLUSHALL ASYNC"), s("SET last 1"),
		// Sets, hashes, sorted sets (random pops only where the result is forced).
		s("SADD s a b c"), s("SADD s a"), s("SADD si 1 2 3"), s("SREM s a"), s("SREM s zz"),
		s("SMOVE s s2 b"), s("SMOVE s s2 nosuch"), s("SPOP s"), s("SPOP s"), s("SADD s x y"), s("SPOP s 5"),
		s("SPOP nosuch 2"), s("SADD s x"), s("SPOP s 0"),
		s("SINTERSTORE dst s2 si"), s("SUNIONSTORE dst2 s2 si"), s("SDIFFSTORE dst3 si s2"), s("SDIFFSTORE dst3 nosuch"),
		s("HSET h f v g w"), s("HSET h f v"), s("HSETNX h f x"), s("HSETNX h n1 1"), s("HMSET h a 1"), s("HDEL h nosuch"),
		s("HINCRBY h n 5"), s("HINCRBYFLOAT h fl 1.5"), s("HINCRBYFLOAT h fl 0"), s("HINCRBYFLOAT h fl 2e2"), s("HDEL h g"),
		s("ZADD z 1 a 2 b"), s("ZADD z 1 a"), s("ZADD z XX 5 c"), s("ZADD z GT CH 0 a"), s("ZINCRBY z 1.5 a"),
		s("ZADD z INCR 1 b"), s("ZREM z nosuch"), s("ZPOPMIN z"), s("ZPOPMAX z 5"), s("ZPOPMIN nosuch"),
		s("ZADD z2 1 a 2 b 3 c 4 d"), s("ZREMRANGEBYSCORE z2 2 3"), s("ZREMRANGEBYRANK z2 5 9"), s("ZRANGESTORE z3 z2 0 -1"),
		s("ZUNIONSTORE z4 2 z2 z3"), s("ZINTERSTORE z5 1 nosuch"), s("ZMPOP 1 z4 MIN"), s("ZMPOP 2 nosuch z4 MAX COUNT 5"),
		s("SINTERCARD 1 si"), s("ZRANDMEMBER z2"), s("HRANDFIELD h"), s("SRANDMEMBER si"),
		s("DEL h z2 si"),
		// Lists, and blocking commands that find data at once.
		s("RPUSH l a b c d e"), s("LPUSH l z"), s("LPOP l"), s("RPOP l 2"), s("LPOP nosuch"), s("RPOP l 0"),
		s("LINSERT l BEFORE b x"), s("LINSERT l BEFORE nosuch x"), s("LSET l 0 y"), s("LREM l 1 x"), s("LREM l 1 nosuch"),
		s("LTRIM l 0 1"), s("LMOVE l l2 LEFT RIGHT"), s("RPOPLPUSH l l2"), s("LPUSHX nosuch a"), s("RPUSHX l2 q"),
		s("LMPOP 1 l2 LEFT COUNT 2"), s("LMPOP 2 nosuch l2 RIGHT"),
		s("RPUSH b1 a b c"), s("BLPOP b1 0"), s("BRPOP nosuch b1 0"), s("BLPOP b1 0"),
		s("RPUSH l3 1 2 3 4 5"), s("BLMOVE l3 l4 RIGHT LEFT 0"), s("BRPOPLPUSH l3 l4 0"), s("BLMPOP 0 1 l3 RIGHT COUNT 2"),
		s("BLMPOP 0 1 l3 LEFT"), s("ZADD bz 1 a 2 b 3 c 4 d"), s("BZPOPMIN bz 0"), s("BZPOPMAX nosuch bz 0"),
		s("BZMPOP 0 1 bz MIN COUNT 5"), s("MULTI"), s("BLPOP nosuch 0"), s("RPUSH lt x"), s("BLPOP lt 0"), s("EXEC"),
		s("LINDEX l4 0"), s("LPOS l4 4"), s("LLEN l4"),
		// Bitmaps and SORT (no-ops must not be logged).
		s("SETBIT bm 7 1"), s("SETBIT bm 7 1"), s("SETBIT bm 30 0"), s("GETBIT bm 7"), s("BITCOUNT bm"),
		s("BITFIELD bm SET u8 0 1 GET u8 0"), s("BITFIELD bm SET u8 0 1"), s("BITFIELD bm INCRBY i4 4 3 OVERFLOW FAIL INCRBY u2 0 9"),
		s("BITFIELD bf OVERFLOW FAIL INCRBY u2 0 9"), s("BITFIELD_RO bm GET u8 0"), s("BITOP OR bo bm nosuch"),
		s("BITOP AND bo nosuch"), s("BITOP AND bo nosuch"), s("RPUSH sl 3 1 2"), s("SORT sl"), s("SORT sl STORE so"),
		s("SORT nosuch STORE so"), s("SORT nosuch STORE so"), s("SORT_RO sl"),
	}
}

// TestPropagationMatchesRedis compares what miniwatchd logs with what
// redis-server 7.0.15 logs for the same commands.
func TestPropagationMatchesRedis(t *testing.T) {
	aofNeedRedis(t)
	run := func(tc *aofConn) {
		tc.must("DEBUG", "SET-ACTIVE-EXPIRE", "0")
		for _, cmd := range aofPropagationScript() {
			if cmd[0] == "sleep" {
				time.Sleep(30 * time.Millisecond)
				continue
			}
			tc.do(cmd...)
		}
	}
	rdir := t.TempDir()
	r := startAOFRedis(t, rdir, "--appendonly", "yes", "--appendfsync", "always")
	run(dialAOFAddr(t, r.addr))
	r.stop("NOSAVE")
	want := aofIncrText(t, rdir)

	mdir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(mdir, "always"))
	run(dialAOF(t, s))
	s.Close()
	got := aofIncrText(t, mdir)
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("first difference at command %d:\n miniwatchd: %q\n redis:      %q\n\nminiwatchd log:\n%s\n\nredis log:\n%s", i, g, w, got, want)
			}
		}
	}
}

// TestPropagationNoOps: writes that change nothing are not logged (where
// Redis 7.0 forces FLUSHDB/FLUSHALL of empty databases and SWAPDB of a
// database with itself into its log, we do not).
func TestPropagationNoOps(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "everysec"))
	tc := dialAOF(t, s)
	for _, cmd := range [][]string{
		{"FLUSHDB"}, {"FLUSHALL"}, {"SWAPDB", "0", "0"}, {"DEL", "x"}, {"SET", "x", "1", "XX"},
		{"EXPIRE", "x", "10"}, {"PERSIST", "x"}, {"GET", "x"}, {"SETRANGE", "x", "0", ""},
		{"MULTI"}, {"GET", "x"}, {"EXEC"}, {"DEBUG", "POPULATE", "3"}, {"SET", "y", "1"},
	} {
		tc.do(cmd...)
	}
	s.Close()
	if got := aofIncrText(t, dir); got != "SELECT 0\nSET y 1" {
		t.Fatalf("logged %q", got)
	}
}

// TestPropagationExpiryAndEviction: keys removed by the active expiry
// cycle and by eviction are logged as DEL, or UNLINK under the lazyfree
// options, in their own database.
func TestPropagationExpiryAndEviction(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"))
	tc := dialAOF(t, s)
	tc.must("SELECT", "4")
	tc.must("SET", "gone", "v", "PX", "1")
	aofWaitFor(t, 5*time.Second, "active expiry", func() bool { return tc.must("DBSIZE").(int64) == 0 })
	tc.must("CONFIG", "SET", "lazyfree-lazy-expire", "yes")
	tc.must("SET", "gone2", "v", "PX", "1")
	aofWaitFor(t, 5*time.Second, "active expiry", func() bool { return tc.must("DBSIZE").(int64) == 0 })
	tc.must("SELECT", "0")
	for i := 0; i < 50; i++ {
		tc.must("SET", "k"+strconv.Itoa(i), strings.Repeat("v", 1000))
	}
	tc.must("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
	tc.must("CONFIG", "SET", "maxmemory", "1")
	tc.do("SET", "trigger", "1")
	tc.must("CONFIG", "SET", "maxmemory", "0")
	s.Close()
	got := aofIncrText(t, dir)
	if !strings.Contains(got, "SELECT 4\nSET gone v PXAT <T>\nDEL gone\nSET gone2 v PXAT <T>\nUNLINK gone2\nSELECT 0\n") {
		t.Fatalf("expiry not logged as expected:\n%s", got)
	}
	if strings.Count(got, "\nDEL k") < 1 {
		t.Fatalf("eviction not logged:\n%s", got)
	}
}

// TestPropagationSPopCount: SPOP with a count that leaves members is
// logged as SREM of exactly the members it returned (1024 per command, in
// one MULTI/EXEC when more than one command); a count emptying the set as
// DEL.
func TestPropagationSPopCount(t *testing.T) {
	dir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(dir, "always"))
	tc := dialAOF(t, s)
	args := []string{"SADD", "s"}
	for i := 0; i < 3000; i++ {
		args = append(args, "m"+strconv.Itoa(i))
	}
	tc.must(args...)
	popped := tc.must("SPOP", "s", "2000").([]any)
	small := tc.must("SPOP", "s", "3").([]any)
	tc.must("SPOP", "s", "5000")
	s.Close()
	lines := strings.Split(aofIncrText(t, dir), "\n")
	// SELECT, SADD, MULTI, SREM x2, EXEC, SREM, DEL
	if len(lines) != 8 || lines[2] != "MULTI" || lines[5] != "EXEC" || lines[7] != "DEL s" {
		t.Fatalf("log shape: %d lines %q", len(lines), lines[2:3])
	}
	logged := strings.Fields(lines[3] + " " + lines[4])
	var want []string
	for _, p := range popped {
		want = append(want, p.(string))
	}
	got := append([]string(nil), logged[2:1026]...)
	got = append(got, logged[1028:]...)
	if len(got) != 2000 || strings.Join(aofSorted(got), ",") != strings.Join(aofSorted(want), ",") {
		t.Fatalf("SREM members differ from the popped ones (%d logged)", len(got))
	}
	third := strings.Fields(lines[6])
	var ws []string
	for _, p := range small {
		ws = append(ws, p.(string))
	}
	if third[0] != "SREM" || strings.Join(aofSorted(third[2:]), ",") != strings.Join(aofSorted(ws), ",") {
		t.Fatalf("small SPOP logged as %q, popped %v", lines[6], ws)
	}
}

// TestPropagationServedBlockedClientsMatchesRedis: the pops of blocked
// clients served after the write that woke them are logged as Redis 7.0.15
// logs them.
func TestPropagationServedBlockedClientsMatchesRedis(t *testing.T) {
	aofNeedRedis(t)
	type step struct {
		blockers [][]string
		waker    [][]string
	}
	f := strings.Fields
	steps := []step{
		{[][]string{f("BLPOP q 0")}, [][]string{f("RPUSH q a b")}},
		{[][]string{f("BRPOP q1 0"), f("BLPOP q1 0")}, [][]string{f("RPUSH q1 x y z")}},
		{[][]string{f("BLMOVE src dst RIGHT left 0")}, [][]string{f("LPUSH src x")}},
		{[][]string{f("BRPOPLPUSH s2 d2 0")}, [][]string{f("RPUSH s2 y")}},
		{[][]string{f("BLMPOP 0 1 q3 LEFT COUNT 5")}, [][]string{f("RPUSH q3 1 2 3")}},
		{[][]string{f("BZPOPMIN z 0")}, [][]string{f("ZADD z 1 a 2 b")}},
		{[][]string{f("BZMPOP 0 1 z2 MAX COUNT 2")}, [][]string{f("ZADD z2 1 a 2 b 3 c")}},
		{[][]string{f("BLPOP q5 0")}, [][]string{f("MULTI"), f("RPUSH q5 a"), f("RPUSH q5 b"), f("EXEC")}},
		{[][]string{f("BLPOP q6 0")}, [][]string{f("MULTI"), f("RPUSH q6 a"), f("LPOP q6"), f("RPUSH q6 b"), f("EXEC")}},
	}
	run := func(addr string) {
		w := dialAOFAddr(t, addr)
		for _, st := range steps {
			var bs []*aofConn
			for _, b := range st.blockers {
				c := dialAOFAddr(t, addr)
				c.send(b...)
				bs = append(bs, c)
				time.Sleep(30 * time.Millisecond) // block in this order
			}
			time.Sleep(50 * time.Millisecond)
			for _, cmd := range st.waker {
				w.must(cmd...)
			}
			for _, c := range bs {
				if _, ok := c.reply(5 * time.Second); !ok {
					t.Fatalf("blocked client not served in step %v", st)
				}
			}
		}
	}
	rdir := t.TempDir()
	r := startAOFRedis(t, rdir, "--appendonly", "yes", "--appendfsync", "always")
	run(r.addr)
	r.stop("NOSAVE")
	want := aofIncrText(t, rdir)
	mdir := t.TempDir()
	s := startAOFServer(t, aofTestConfig(mdir, "always"))
	run(s.Addr().String())
	s.Close()
	if got := aofIncrText(t, mdir); got != want {
		t.Fatalf("miniwatchd logged:\n%s\n\nredis-server logged:\n%s", got, want)
	}
}
