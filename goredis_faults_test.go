package miniwatchd_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
)

// incrWithRetries is go-redis's documented optimistic-locking loop (the
// Watch helper around TxPipelined): it reports how many attempts the
// increment took.
func incrWithRetries(ctx context.Context, rdb *redis.Client, key string, maxRetries int) (int, error) {
	attempts := 0
	for range maxRetries {
		attempts++
		err := rdb.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.Get(ctx, key).Int()
			if err != nil && !errors.Is(err, redis.Nil) {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				pipe.Set(ctx, key, strconv.Itoa(n+1), 0)
				return nil
			})
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue // a conflict: try again
		}
		return attempts, err
	}
	return attempts, errors.New("increment reached maximum number of retries")
}

// TestGoRedisWatchRetriesForcedConflicts: faults force exactly the number
// of WATCH conflicts a retry loop must absorb.
func TestGoRedisWatchRetriesForcedConflicts(t *testing.T) {
	s := miniwatchd.Run(t)
	ctx := context.Background()
	rdb := client(t, s)
	s.Set("counter", "10")

	// A conflicting write just before each of the next three EXECs.
	s.AddFault(miniwatchd.Fault{Command: "exec", Times: 3, Action: miniwatchd.RunBefore("INCRBY", "counter", "100")})
	attempts, err := incrWithRetries(ctx, rdb, "counter", 10)
	if err != nil || attempts != 4 {
		t.Fatalf("attempts %d err %v, want 4 attempts", attempts, err)
	}
	s.CheckGet(t, "counter", "311") // 10 + 3*100 + 1
	s.ClearFaults()

	// A conflict right after the second WATCH of counter only.
	s.AddFault(miniwatchd.Fault{Command: "watch", Key: "counter", Nth: 2, Action: miniwatchd.RunAfter("INCR", "counter")})
	for i, want := range []int{1, 2, 1} {
		if attempts, err := incrWithRetries(ctx, rdb, "counter", 10); err != nil || attempts != want {
			t.Fatalf("increment %d: attempts %d err %v, want %d", i, attempts, err, want)
		}
	}
	s.CheckGet(t, "counter", "315")
	s.ClearFaults()

	// More conflicts than the loop allows: it gives up.
	s.AddFault(miniwatchd.Fault{Command: "exec", Key: "counter", Action: miniwatchd.AbortExec()})
	if attempts, err := incrWithRetries(ctx, rdb, "counter", 5); err == nil || attempts != 5 {
		t.Fatalf("with every EXEC aborted: attempts %d err %v", attempts, err)
	}
	if f := s.Faults(); f[0].Fired != 5 {
		t.Fatalf("ABORT-EXEC fired %d times, want 5", f[0].Fired)
	}
	s.CheckGet(t, "counter", "315")
}

// TestGoRedisRetriesInjectedErrors: go-redis retries LOADING, TRYAGAIN and
// friends up to MaxRetries; the fault counts show each attempt.
func TestGoRedisRetriesInjectedErrors(t *testing.T) {
	s := miniwatchd.Run(t)
	ctx := context.Background()
	s.Set("k", "v")
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: 3, MinRetryBackoff: -1, MaxRetryBackoff: -1})
	defer rdb.Close()

	s.AddFault(miniwatchd.Fault{Command: "get", Times: 2, Action: miniwatchd.Reject("LOADING Redis is loading the dataset in memory")})
	if v, err := rdb.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET with 2 LOADING replies: %q %v", v, err)
	}
	if f := s.Faults(); f[0].Fired != 2 || f[0].Matched != 3 {
		t.Fatalf("fault counts %+v, want fired 2 of 3 calls", f[0])
	}
	s.ClearFaults()

	// More failures than retries: the error reaches the caller.
	s.AddFault(miniwatchd.Fault{Command: "set", Action: miniwatchd.Reject("TRYAGAIN Multiple keys request during rehashing of slot")})
	err := rdb.Set(ctx, "k", "w", 0).Err()
	if err == nil || err.Error() != "TRYAGAIN Multiple keys request during rehashing of slot" {
		t.Fatalf("SET: %v", err)
	}
	if f := s.Faults(); f[0].Fired != 4 { // the first try and 3 retries
		t.Fatalf("TRYAGAIN fired %d times, want 4", f[0].Fired)
	}
	s.CheckGet(t, "k", "v")
	s.ClearFaults()

	// A connection closed before the command ran: go-redis redials and retries.
	s.AddFault(miniwatchd.Fault{Command: "incr", Times: 1, Action: miniwatchd.CloseBefore()})
	if n, err := rdb.Incr(ctx, "n").Result(); err != nil || n != 1 {
		t.Fatalf("INCR after a closed connection: %d %v", n, err)
	}
	s.CheckGet(t, "n", "1")
}
