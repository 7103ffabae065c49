package test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// TestRueidisClientSideCaching connects github.com/redis/rueidis with its
// default options (RESP3, CLIENT TRACKING ON OPTIN, DoCache wrapping reads
// in CLIENT CACHING YES + MULTI/EXEC) and checks that a cached GET is
// invalidated when another client writes the key.
func TestRueidisClientSideCaching(t *testing.T) {
	srv := psOurServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.addr}})
	if err != nil {
		t.Fatalf("rueidis refused to start: %v", err)
	}
	defer client.Close()

	if err := client.Do(ctx, client.B().Set().Key("k").Value("v1").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	get := func() (string, bool) {
		t.Helper()
		resp := client.DoCache(ctx, client.B().Get().Key("k").Cache(), time.Minute)
		v, err := resp.ToString()
		if err != nil {
			t.Fatalf("DoCache GET: %v", err)
		}
		return v, resp.IsCacheHit()
	}
	if v, hit := get(); v != "v1" || hit {
		t.Fatalf("first DoCache = %q hit=%v, want v1 from the server", v, hit)
	}
	if v, hit := get(); v != "v1" || !hit {
		t.Fatalf("second DoCache = %q hit=%v, want v1 from the cache", v, hit)
	}

	// Another client writes the key: the tracking connection must get an
	// invalidation, after which DoCache goes to the server again.
	other := psDial(t, srv.addr, "W")
	other.send("SET", "k", "v2")
	if f, err := other.readFrame(5 * time.Second); err != nil || string(f) != "+OK\r\n" {
		t.Fatalf("SET from another client: %q %v", f, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, hit := get()
		if v == "v2" && !hit {
			break
		}
		if v != "v1" || !hit {
			t.Fatalf("DoCache after the write = %q hit=%v", v, hit)
		}
		if time.Now().After(deadline) {
			t.Fatal("the cached value was never invalidated")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v, hit := get(); v != "v2" || !hit {
		t.Fatalf("DoCache after refetch = %q hit=%v, want v2 from the cache", v, hit)
	}

	// A flush invalidates everything the client cached.
	other.send("FLUSHALL")
	if f, err := other.readFrame(5 * time.Second); err != nil || string(f) != "+OK\r\n" {
		t.Fatalf("FLUSHALL: %q %v", f, err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		resp := client.DoCache(ctx, client.B().Get().Key("k").Cache(), time.Minute)
		if rueidis.IsRedisNil(resp.Error()) && !resp.IsCacheHit() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still cached after FLUSHALL: %v hit=%v", resp.Error(), resp.IsCacheHit())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
