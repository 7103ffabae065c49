package test

import (
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// TestMassExpiry loads many keys with a short TTL into miniwatchd and into
// redis-server (with active expiry off, so all of them are stale when the
// load ends), turns active expiry on and measures, with no client touching
// those keys, how long the cycle takes to reclaim them all (DBSIZE falling
// to 0) and the GET latency a concurrent client sees meanwhile.
//
// It asserts that every key is reclaimed and that no GET waited behind the
// whole reclaim; the figures are logged for both servers so they can be
// quoted side by side. MASS_EXPIRY_KEYS
// overrides the number of keys (default 1,000,000; 200,000 under -race).
func TestMassExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a million keys")
	}
	n := 1_000_000
	if raceEnabled {
		n = 200_000
	}
	if v := os.Getenv("MASS_EXPIRY_KEYS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	kinds := []string{ours}
	if redisServerPath() != "" || os.Getenv("CI") != "" {
		kinds = append(kinds, redis) // leaseServer fails under CI without redis-server
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			l := leaseServer(t, kind)
			l.taint()
			res := massExpiry(t, l, n)
			t.Logf("%s: %d keys reclaimed in %v after active expiry was turned on; concurrent GET p50 %v p99 %v max %v (%d GETs)",
				kind, n, res.reclaim, res.p50, res.p99, res.max, res.gets)
			if kind != ours {
				return
			}
			// The machines are shared and noisy: by default only a stall
			// (a client waiting behind the whole reclaim) fails the test;
			// MASS_EXPIRY_STRICT=1 asserts the p99 < 5ms on a
			// binary built without -race (bench/ runs it that way).
			if res.max > 2*time.Second {
				t.Errorf("a GET waited %v during mass expiry: the cycle stalls clients", res.max)
			}
			if os.Getenv("MASS_EXPIRY_STRICT") == "1" && !raceEnabled && res.p99 > 5*time.Millisecond {
				t.Errorf("GET p99 %v during mass expiry, want < 5ms", res.p99)
			}
		})
	}
}

type massExpiryResult struct {
	reclaim       time.Duration
	p50, p99, max time.Duration
	gets          int
}

func massExpiry(t *testing.T, l *leasedServer, n int) massExpiryResult {
	// Load with active expiry off and a 1ms TTL, so every key is stale by
	// the time the load ends whatever the machine's speed; then turn the
	// cycle on and time the reclaim from there.
	loader := l.dial(t)
	mustDo(t, loader, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	start := time.Now()
	loadWithTTL(t, loader, n, time.Millisecond)
	t.Logf("loaded %d keys in %v", n, time.Since(start))
	time.Sleep(10 * time.Millisecond)
	mustDo(t, loader, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	deadline := time.Now()

	var (
		mu        sync.Mutex
		latencies []time.Duration
		stop      = make(chan struct{})
		done      = make(chan struct{})
	)
	prober := l.dial(t)
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			if _, err := prober.Do("GET", "probe"); err != nil {
				return
			}
			d := time.Since(t0)
			mu.Lock()
			latencies = append(latencies, d)
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	watcher := l.dial(t)
	var reclaimed time.Time
	for limit := time.Now().Add(120 * time.Second); time.Now().Before(limit); {
		if mustDo(t, watcher, "DBSIZE").Int == 0 {
			reclaimed = time.Now()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	<-done
	if reclaimed.IsZero() {
		t.Fatalf("the active cycle did not reclaim the keys: DBSIZE %d", mustDo(t, watcher, "DBSIZE").Int)
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	res := massExpiryResult{reclaim: reclaimed.Sub(deadline), gets: len(latencies)}
	if len(latencies) > 0 {
		res.p50 = latencies[len(latencies)/2]
		res.p99 = latencies[len(latencies)*99/100]
		res.max = latencies[len(latencies)-1]
	}
	return res
}

// loadWithTTL pipelines n SET key:<i> x PX <ttl> commands, writing and
// reading concurrently so neither side's socket buffer fills up.
func loadWithTTL(t *testing.T, c *respConn, n int, ttl time.Duration) {
	t.Helper()
	px := strconv.FormatInt(ttl.Milliseconds(), 10)
	errc := make(chan error, 1)
	go func() {
		var buf []byte
		for i := 0; i < n; i++ {
			key := "key:" + strconv.Itoa(i)
			buf = resptest.AppendCommand(buf, "SET", key, "x", "PX", px)
			if len(buf) > 64<<10 || i == n-1 {
				if err := c.SendRaw(buf); err != nil {
					errc <- err
					return
				}
				buf = buf[:0]
			}
		}
		errc <- nil
	}()
	for i := 0; i < n; i++ {
		r, err := c.Read(replyTimeout)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if r.Kind != '+' {
			t.Fatalf("reply %d: %s", i, render(r))
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
