package test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Many blocked clients served by one pushing client. Every element must
// reach exactly one client: none lost, none duplicated. The tests run on
// miniwatchd and, when it is installed, on redis-server (which proves them
// and gives a time to compare with; both are logged).

const manyClients = 1000

// manyBlockers is a go-redis client with one pooled connection per blocked
// client.
func manyBlockers(t *testing.T, addr string) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{
		Addr: addr, PoolSize: manyClients, MaxRetries: -1,
		PoolTimeout: time.Minute, DialTimeout: time.Minute,
	})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func forManyServers(t *testing.T, fn func(t *testing.T, addr string)) {
	kinds := []string{ours}
	if redisServerPath() != "" {
		kinds = append(kinds, redis)
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			l := leaseServer(t, kind)
			l.taint() // a thousand connections: do not hand it to the next test
			fn(t, l.addr)
		})
	}
}

// popped is one element a blocked client received.
type popped struct {
	client int
	key    string
	val    string
}

// TestBlockingThousandKeys: 1000 clients block on 1000 distinct keys;
// one client pushes one element to every key in a pipeline, three rounds.
func TestBlockingThousandKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	forManyServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		blockers := manyBlockers(t, addr)
		const rounds = 3
		got := make(chan popped, manyClients*rounds)
		errs := make(chan error, manyClients)
		var wg sync.WaitGroup
		for i := 0; i < manyClients; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				key := "key:" + strconv.Itoa(i)
				for r := 0; r < rounds; r++ {
					v, err := blockers.BLPop(ctx, 0, key).Result()
					if err != nil {
						errs <- fmt.Errorf("client %d round %d: %v", i, r, err)
						return
					}
					got <- popped{i, v[0], v[1]}
				}
			}(i)
		}
		var served, blocked []time.Duration
		var all []popped
		for r := 0; r < rounds; r++ {
			start := time.Now()
			waitBlockedOrFail(ctx, t, admin, manyClients, errs)
			blocked = append(blocked, time.Since(start))
			start = time.Now()
			_, err := admin.Pipelined(ctx, func(p goredis.Pipeliner) error {
				for i := 0; i < manyClients; i++ {
					p.RPush(ctx, "key:"+strconv.Itoa(i), "r"+strconv.Itoa(r)+":"+strconv.Itoa(i))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, receive(t, got, manyClients, errs)...)
			served = append(served, time.Since(start))
		}
		wg.Wait()
		seen := map[string]int{}
		for _, p := range all {
			i := strconv.Itoa(p.client)
			if p.key != "key:"+i || p.val[len(p.val)-len(i)-1:] != ":"+i {
				t.Errorf("client %d received %s from %s", p.client, p.val, p.key)
			}
			seen[p.val]++
		}
		for r := 0; r < rounds; r++ {
			for i := 0; i < manyClients; i++ {
				if v := "r" + strconv.Itoa(r) + ":" + strconv.Itoa(i); seen[v] != 1 {
					t.Errorf("element %s received %d times", v, seen[v])
				}
			}
		}
		if n := admin.DBSize(ctx).Val(); n != 0 {
			t.Errorf("DBSIZE = %d after every element was popped", n)
		}
		if n := blockedClients(ctx, t, admin); n != 0 {
			t.Errorf("blocked_clients = %d", n)
		}
		t.Logf("%d clients on %d keys: %d elements received exactly once; per round, all blocked after %v, push to all served %v",
			manyClients, manyClients, len(seen), blocked, served)
	})
}

// TestBlockingThousandOnOneKey: 1000 clients block on one key; one LPUSH
// of 1000 elements serves them all in that pass, first-blocked-first.
func TestBlockingThousandOnOneKey(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	forManyServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		blockers := manyBlockers(t, addr)
		got := make(chan popped, manyClients)
		errs := make(chan error, manyClients)
		// Clients block in batches of 100 (TestBlockingFairness checks the
		// order among blocked clients).
		for i := 0; i < manyClients; i++ {
			go func(i int) {
				v, err := blockers.BLPop(ctx, 0, "q").Result()
				if err != nil {
					errs <- fmt.Errorf("client %d: %v", i, err)
					return
				}
				got <- popped{i, v[0], v[1]}
			}(i)
			if i%100 == 99 || i == manyClients-1 {
				waitBlockedOrFail(ctx, t, admin, i+1, errs)
			}
		}
		vals := make([]any, manyClients)
		for i := range vals {
			vals[i] = "e" + strconv.Itoa(i)
		}
		start := time.Now()
		if err := admin.LPush(ctx, "q", vals...).Err(); err != nil {
			t.Fatal(err)
		}
		// The ready key is served right after the LPUSH, before the next
		// command runs: nobody is blocked any more.
		if n := blockedClients(ctx, t, admin); n != 0 {
			t.Errorf("%d clients still blocked after the LPUSH's pass", n)
		}
		all := receive(t, got, manyClients, errs)
		elapsed := time.Since(start)
		seen := map[string]int{}
		for _, p := range all {
			seen[p.val]++
		}
		for i := 0; i < manyClients; i++ {
			if v := "e" + strconv.Itoa(i); seen[v] != 1 {
				t.Errorf("element %s received %d times", v, seen[v])
			}
		}
		if n := admin.Exists(ctx, "q").Val(); n != 0 {
			t.Errorf("q still exists after %d pops of %d elements", manyClients, manyClients)
		}
		t.Logf("%d clients on one key, one LPUSH of %d elements: all served in %v", manyClients, manyClients, elapsed)
	})
}

// waitBlockedOrFail is waitBlocked that also reports a blocked client's
// early error.
func waitBlockedOrFail(ctx context.Context, t *testing.T, rdb *goredis.Client, n int, errs <-chan error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		got := blockedClients(ctx, t, rdb)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked_clients stayed %d, want %d", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// receive takes n elements from got.
func receive(t *testing.T, got <-chan popped, n int, errs <-chan error) []popped {
	t.Helper()
	out := make([]popped, 0, n)
	deadline := time.After(time.Minute)
	for len(out) < n {
		select {
		case p := <-got:
			out = append(out, p)
		case err := <-errs:
			t.Fatal(err)
		case <-deadline:
			t.Fatalf("%d of %d elements received", len(out), n)
		}
	}
	return out
}
