package test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// End-to-end tests with go-redis, a real client with default options: it
// connects with HELLO 3 and CLIENT SETINFO, pools connections, pipelines
// and runs WATCH/MULTI/EXEC transactions. Each test runs against
// miniwatchd and, to prove the test itself, against redis-server when it
// is installed.

// forBothServers runs fn as a subtest against miniwatchd and redis-server.
func forBothServers(t *testing.T, fn func(t *testing.T, addr string)) {
	t.Run("miniwatchd", func(t *testing.T) {
		t.Parallel()
		fn(t, leaseServer(t, ours).addr)
	})
	t.Run("redis-server", func(t *testing.T) {
		t.Parallel()
		fn(t, leaseServer(t, redis).addr)
	})
}

func newGoRedis(t *testing.T, addr string) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestGoRedisConnectDefaults(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		rdb := newGoRedis(t, addr)
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatalf("PING: %v", err)
		}
		info, err := rdb.ClientInfo(ctx).Result()
		if err != nil {
			t.Fatalf("CLIENT INFO: %v", err)
		}
		if info.Resp != 3 {
			t.Errorf("connection speaks RESP%d, want RESP3 (go-redis sends HELLO 3)", info.Resp)
		}
		if err := rdb.Set(ctx, "k", "v", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
			t.Errorf("GET k = %q, %v", v, err)
		}
		if _, err := rdb.Get(ctx, "nosuch").Result(); !errors.Is(err, goredis.Nil) {
			t.Errorf("GET nosuch: %v, want redis.Nil", err)
		}
		if ttl, err := rdb.TTL(ctx, "k").Result(); err != nil || ttl <= 0 || ttl > time.Minute {
			t.Errorf("TTL k = %v, %v", ttl, err)
		}
	})
}

func TestGoRedisLibNameOnOurs(t *testing.T) {
	ctx := testContext(t)
	rdb := newGoRedis(t, leaseServer(t, ours).addr)
	info, err := rdb.ClientInfo(ctx).Result()
	if err != nil {
		t.Fatalf("CLIENT INFO: %v", err)
	}
	if !strings.HasPrefix(info.LibName, "go-redis") || info.LibVer == "" {
		t.Errorf("lib-name=%q lib-ver=%q: go-redis's CLIENT SETINFO did not stick", info.LibName, info.LibVer)
	}
}

// TestGoRedisOptimisticLocking is the WATCH example from the Redis docs:
// 20 goroutines each increment one key through WATCH + MULTI/EXEC,
// retrying when EXEC aborts. The final count must equal the number of
// transactions that went through, and contention must have aborted some.
func TestGoRedisOptimisticLocking(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		rdb := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 20})
		t.Cleanup(func() { rdb.Close() })
		const workers, perWorker = 20, 25
		var committed, aborted atomic.Int64
		increment := func() error {
			for attempt := 0; attempt < 10000; attempt++ {
				err := rdb.Watch(ctx, func(tx *goredis.Tx) error {
					n, err := tx.Get(ctx, "counter").Int()
					if err != nil && !errors.Is(err, goredis.Nil) {
						return err
					}
					_, err = tx.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
						pipe.Set(ctx, "counter", n+1, 0)
						return nil
					})
					return err
				}, "counter")
				if errors.Is(err, goredis.TxFailedErr) {
					aborted.Add(1)
					continue
				}
				if err == nil {
					committed.Add(1)
				}
				return err
			}
			return errors.New("too many retries")
		}
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < perWorker; i++ {
					if err := increment(); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		final, err := rdb.Get(ctx, "counter").Int64()
		if err != nil {
			t.Fatal(err)
		}
		if final != committed.Load() || final != workers*perWorker {
			t.Errorf("counter = %d, committed transactions = %d, want %d", final, committed.Load(), workers*perWorker)
		}
		t.Logf("%d transactions committed, %d aborted by WATCH", committed.Load(), aborted.Load())
	})
}

func TestGoRedisWatchAbort(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		rdb := newGoRedis(t, addr)
		other := newGoRedis(t, addr)
		err := rdb.Watch(ctx, func(tx *goredis.Tx) error {
			if err := other.Set(ctx, "w", "changed", 0).Err(); err != nil {
				return err
			}
			_, err := tx.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
				pipe.Set(ctx, "w", "mine", 0)
				return nil
			})
			return err
		}, "w")
		if !errors.Is(err, goredis.TxFailedErr) {
			t.Fatalf("Watch returned %v, want TxFailedErr", err)
		}
		if v := rdb.Get(ctx, "w").Val(); v != "changed" {
			t.Errorf("w = %q after the aborted transaction", v)
		}
		// A queued command that fails at run time does not stop the others.
		cmds, err := rdb.TxPipelined(ctx, func(pipe goredis.Pipeliner) error {
			pipe.Set(ctx, "s", "abc", 0)
			pipe.Incr(ctx, "s")
			pipe.Set(ctx, "t", "1", 0)
			return nil
		})
		if err == nil || len(cmds) != 3 || cmds[0].Err() != nil || cmds[1].Err() == nil || cmds[2].Err() != nil {
			t.Errorf("TxPipelined: %v, %v", err, cmds)
		}
	})
}

func TestGoRedisPipeline(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		rdb := newGoRedis(t, addr)
		const n = 500
		cmds, err := rdb.Pipelined(ctx, func(pipe goredis.Pipeliner) error {
			for i := 0; i < n; i++ {
				pipe.Set(ctx, "p:"+strconv.Itoa(i), i, 0)
				pipe.IncrBy(ctx, "p:"+strconv.Itoa(i), 10)
			}
			pipe.Get(ctx, "nosuch")
			pipe.MGet(ctx, "p:0", "nosuch", "p:1")
			return nil
		})
		if !errors.Is(err, goredis.Nil) {
			t.Fatalf("Pipelined: %v (want redis.Nil from the GET of a missing key)", err)
		}
		if len(cmds) != 2*n+2 {
			t.Fatalf("%d results", len(cmds))
		}
		for i := 0; i < n; i++ {
			if v := cmds[2*i+1].(*goredis.IntCmd).Val(); v != int64(i+10) {
				t.Fatalf("INCRBY p:%d = %d", i, v)
			}
		}
		mget := cmds[2*n+1].(*goredis.SliceCmd).Val()
		if fmt.Sprint(mget) != "[10 <nil> 11]" {
			t.Errorf("MGET = %v", mget)
		}
		if size := rdb.DBSize(ctx).Val(); size != n {
			t.Errorf("DBSIZE = %d", size)
		}
	})
}

// TestGoRedisRESP3Maps reads replies that are maps in RESP3.
func TestGoRedisRESP3Maps(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		rdb := newGoRedis(t, addr)
		cfg, err := rdb.ConfigGet(ctx, "maxmemory*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if cfg["maxmemory"] != "0" || cfg["maxmemory-policy"] != "noeviction" {
			t.Errorf("CONFIG GET maxmemory* = %v", cfg)
		}
		hello, err := rdb.Do(ctx, "HELLO", "3").Result()
		if err != nil {
			t.Fatal(err)
		}
		m, ok := hello.(map[interface{}]interface{})
		if !ok {
			t.Fatalf("HELLO 3 returned %T, want a map", hello)
		}
		if m["server"] != "redis" || m["version"] != "7.0.15" || m["proto"] != int64(3) || m["mode"] != "standalone" {
			t.Errorf("HELLO 3 = %v", m)
		}
		rdb.MSet(ctx, "a", "ohmytext", "b", "mynewtext")
		lcs, err := rdb.LCS(ctx, &goredis.LCSQuery{Key1: "a", Key2: "b", Idx: true, WithMatchLen: true}).Result()
		if err != nil {
			t.Fatal(err)
		}
		if lcs.Len != 6 || len(lcs.Matches) != 2 || lcs.Matches[0].MatchLen != 4 {
			t.Errorf("LCS IDX = %+v", lcs)
		}
		docs, err := rdb.Do(ctx, "COMMAND", "DOCS", "get").Result()
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := docs.(map[interface{}]interface{}); !ok || d["get"] == nil {
			t.Errorf("COMMAND DOCS get = %#v", docs)
		}
	})
}
