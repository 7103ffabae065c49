package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Round trips with redis-server 7.0.15 on the same AOF directory, in both
// directions. They need redis-server (skipped without it unless CI is set).

// aofFillMixed writes every type over several databases, with TTLs and a
// transaction.
func aofFillMixed(tc *aofConn, tag string) {
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
	tc.must("RPUSH", tag+":list", "a", "b", "", "1")
	tc.must("LPUSH", tag+":list", "z")
	for i := 0; i < 150; i++ {
		tc.must("RPUSH", tag+":biglist", strconv.Itoa(i))
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

// aofRedisArgs are the redis-server arguments of an AOF directory test.
func aofRedisArgs(extra ...string) []string {
	return append([]string{"--appendonly", "yes", "--appendfsync", "always"}, extra...)
}

// TestRoundTripMiniwatchdToRedis: redis-server loads a directory miniwatchd
// wrote (base from a rewrite and incremental file), appends to it, and
// miniwatchd loads the result.
func TestRoundTripMiniwatchdToRedis(t *testing.T) {
	aofNeedRedis(t)
	for _, tc := range []struct {
		rewrite  bool
		preamble bool
	}{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("rewrite=%v/aof-use-rdb-preamble=%v", tc.rewrite, tc.preamble), func(t *testing.T) {
			dir := t.TempDir()
			cfg := aofTestConfig(dir, "always")
			suffix := ".base.aof"
			if tc.preamble {
				cfg = aofRDBConfig(dir, "always")
				suffix = ".base.rdb"
			}
			s := startAOFServer(t, cfg)
			c := dialAOF(t, s)
			aofFillMixed(c, "a")
			if tc.rewrite {
				c.must("BGREWRITEAOF")
				aofWaitRewriteDone(t, c)
				aofFillMixed(c, "b")
			}
			want := aofDataset(t, c)
			s.Close()
			base := "appendonly.aof.1" + suffix
			if tc.rewrite {
				base = "appendonly.aof.2" + suffix
			}
			if manifest, _ := aofDirFiles(t, dir); !strings.Contains(manifest, "file "+base+" ") {
				t.Fatalf("manifest %q, want base %s", manifest, base)
			}

			r := startAOFRedis(t, dir, aofRedisArgs()...)
			rc := dialAOFAddr(t, r.addr)
			if got := aofDataset(t, rc); got != want {
				t.Fatalf("redis-server loaded:\n%s\nminiwatchd had:\n%s", got, want)
			}
			aofFillMixed(rc, "c")
			want = aofDataset(t, rc)
			r.stop("NOSAVE")

			s2 := startAOFServer(t, cfg)
			if got := aofDataset(t, dialAOF(t, s2)); got != want {
				t.Fatalf("miniwatchd loaded after redis-server appended:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestRoundTripRedisToMiniwatchd: miniwatchd loads a directory redis-server
// wrote, with its base in RDB format (the default) or as commands.
func TestRoundTripRedisToMiniwatchd(t *testing.T) {
	aofNeedRedis(t)
	for _, preamble := range []string{"yes", "no"} {
		t.Run("aof-use-rdb-preamble="+preamble, func(t *testing.T) {
			dir := t.TempDir()
			r := startAOFRedis(t, dir, aofRedisArgs("--aof-use-rdb-preamble", preamble)...)
			rc := dialAOFAddr(t, r.addr)
			aofFillMixed(rc, "a")
			rc.must("BGREWRITEAOF")
			aofWaitFor(t, 30*time.Second, "redis-server's rewrite", func() bool {
				return aofInfoField(t, rc, "aof_rewrite_in_progress") == "0" && aofInfoField(t, rc, "aof_rewrites") == "1"
			})
			aofFillMixed(rc, "b")
			want := aofDataset(t, rc)
			r.stop("NOSAVE")
			manifest, _ := aofDirFiles(t, dir)
			suffix := ".base.aof"
			if preamble == "yes" {
				suffix = ".base.rdb"
			}
			if !strings.Contains(manifest, "appendonly.aof.2"+suffix) {
				t.Fatalf("redis-server's manifest: %q", manifest)
			}

			cfg := aofTestConfig(dir, "always")
			if preamble == "yes" {
				cfg = aofRDBConfig(dir, "always")
			}
			s := startAOFServer(t, cfg)
			tc := dialAOF(t, s)
			if got := aofDataset(t, tc); got != want {
				t.Fatalf("miniwatchd loaded:\n%s\nredis-server had:\n%s", got, want)
			}
			// And back: miniwatchd rewrites and appends, redis-server loads it.
			tc.must("BGREWRITEAOF")
			aofWaitRewriteDone(t, tc)
			aofFillMixed(tc, "c")
			want = aofDataset(t, tc)
			s.Close()
			r2 := startAOFRedis(t, dir, aofRedisArgs()...)
			if got := aofDataset(t, dialAOFAddr(t, r2.addr)); got != want {
				t.Fatalf("redis-server reloaded:\n%s\nwant:\n%s", got, want)
			}
			if log, _ := os.ReadFile(filepath.Join(dir, "redis.log")); strings.Contains(string(log), "# Bad file format") {
				t.Fatalf("redis-server complained:\n%s", log)
			}
		})
	}
}
