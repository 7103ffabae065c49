package server

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Round trips with redis-server 7.0.15 on the same AOF directory, in both
// directions. They need redis-server (skipped without it unless CI is set).

// fillMixed writes every type over several databases, with TTLs and a
// transaction.
func fillMixed(tc *testConn, tag string) {
	tc.must("SET", tag+":str", "v")
	tc.must("SET", tag+":bin", "a\x00b\r\n\xff")
	tc.must("SET", tag+":ttl", "v", "EX", "100000")
	tc.must("INCR", tag+":n")
	tc.must("INCRBYFLOAT", tag+":f", "1.25")
	tc.must("SADD", tag+":set", "a", "b", "3")
	tc.must("SADD", tag+":ints", "1", "2", "-3")
	tc.must("HSET", tag+":hash", "f", "v", "g", strings.Repeat("w", 80))
	tc.must("ZADD", tag+":zset", "1.5", "a", "-2", "b", "inf", "c")
	for i := 0; i < 150; i++ {
		tc.must("ZADD", tag+":bigz", strconv.Itoa(i), "m"+strconv.Itoa(i))
		tc.must("SADD", tag+":bigs", "m"+strconv.Itoa(i))
	}
	tc.must("PEXPIRE", tag+":hash", "90000000")
	tc.must("MULTI")
	tc.must("SET", tag+":tx1", "1")
	tc.must("HINCRBYFLOAT", tag+":hash", "n", "0.5")
	tc.must("EXEC")
	tc.must("SELECT", "7")
	tc.must("SET", tag+":seven", "7")
	tc.must("SPOP", tag+":nosuch")
	tc.must("SELECT", "0")
	tc.must("DEL", tag+":n")
}

// redisAOFArgs are the redis-server arguments of an AOF directory test.
func redisAOFArgs(extra ...string) []string {
	return append([]string{"--appendonly", "yes", "--appendfsync", "always"}, extra...)
}

// TestRoundTripMiniwatchdToRedis: redis-server loads a directory miniwatchd
// wrote (base from a rewrite and incremental file), appends to it, and
// miniwatchd loads the result.
func TestRoundTripMiniwatchdToRedis(t *testing.T) {
	needRedis(t)
	for _, rewrite := range []bool{false, true} {
		t.Run("rewrite="+strconv.FormatBool(rewrite), func(t *testing.T) {
			dir := t.TempDir()
			s := startServer(t, aofConfig(dir, "always"))
			tc := dialServer(t, s)
			fillMixed(tc, "a")
			if rewrite {
				tc.must("BGREWRITEAOF")
				waitRewriteDone(t, tc)
				fillMixed(tc, "b")
			}
			want := dataset(t, tc)
			s.Close()

			r := startRedis(t, dir, redisAOFArgs()...)
			rc := dialAddr(t, r.addr)
			if got := dataset(t, rc); got != want {
				t.Fatalf("redis-server loaded:\n%s\nminiwatchd had:\n%s", got, want)
			}
			fillMixed(rc, "c")
			want = dataset(t, rc)
			r.stop("NOSAVE")

			s2 := startServer(t, aofConfig(dir, "always"))
			if got := dataset(t, dialServer(t, s2)); got != want {
				t.Fatalf("miniwatchd loaded after redis-server appended:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestRoundTripRedisToMiniwatchd: miniwatchd loads a directory redis-server
// wrote, with its base in RDB format (the default) or as commands.
func TestRoundTripRedisToMiniwatchd(t *testing.T) {
	needRedis(t)
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble="+preamble, func(t *testing.T) {
			dir := t.TempDir()
			r := startRedis(t, dir, redisAOFArgs("--aof-use-rdb-preamble", preamble)...)
			rc := dialAddr(t, r.addr)
			fillMixed(rc, "a")
			rc.must("BGREWRITEAOF")
			waitFor(t, 30*time.Second, "redis-server's rewrite", func() bool {
				return infoField(t, rc, "aof_rewrite_in_progress") == "0" && infoField(t, rc, "aof_rewrites") == "1"
			})
			fillMixed(rc, "b")
			want := dataset(t, rc)
			r.stop("NOSAVE")
			manifest, _ := aofFiles(t, dir)
			suffix := ".base.aof"
			if preamble == "yes" {
				suffix = ".base.rdb"
			}
			if !strings.Contains(manifest, "appendonly.aof.2"+suffix) {
				t.Fatalf("redis-server's manifest: %q", manifest)
			}

			s := startServer(t, aofConfig(dir, "always"))
			tc := dialServer(t, s)
			if got := dataset(t, tc); got != want {
				t.Fatalf("miniwatchd loaded:\n%s\nredis-server had:\n%s", got, want)
			}
			// And back: miniwatchd rewrites and appends, redis-server loads it.
			tc.must("BGREWRITEAOF")
			waitRewriteDone(t, tc)
			fillMixed(tc, "c")
			want = dataset(t, tc)
			s.Close()
			r2 := startRedis(t, dir, redisAOFArgs()...)
			if got := dataset(t, dialAddr(t, r2.addr)); got != want {
				t.Fatalf("redis-server reloaded:\n%s\nwant:\n%s", got, want)
			}
			if log, _ := os.ReadFile(filepath.Join(dir, "redis.log")); strings.Contains(string(log), "# Bad file format") {
				t.Fatalf("redis-server complained:\n%s", log)
			}
		})
	}
}
