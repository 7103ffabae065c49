package test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Multi-client end-to-end tests of the blocking list commands with go-redis
// (spec/watch.md section 5). Each scenario runs against redis-server and
// miniwatchd; it checks what it expects on both (which proves it on
// redis-server) and records a transcript of what every client saw, and the
// two transcripts must be equal.

// blockingScenario runs fn against both servers and compares transcripts.
func blockingScenario(t *testing.T, fn func(t *testing.T, addr string, log *transcript)) {
	t.Helper()
	requireRedis(t)
	logs := map[string]*transcript{}
	for _, kind := range []string{redis, ours} {
		log := &transcript{}
		logs[kind] = log
		t.Run(kind, func(t *testing.T) { fn(t, leaseServer(t, kind).addr, log) })
	}
	w, g := logs[redis].lines, logs[ours].lines
	if !slices.Equal(w, g) {
		t.Errorf("transcripts differ\n--- redis-server:\n  %s\n--- miniwatchd:\n  %s",
			strings.Join(w, "\n  "), strings.Join(g, "\n  "))
		return
	}
	t.Logf("both servers:\n  %s", strings.Join(g, "\n  "))
}

// transcript collects what the clients of a scenario observed, in an order
// the scenario makes deterministic.
type transcript struct {
	mu    sync.Mutex
	lines []string
}

func (l *transcript) add(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// oneConnClient is a go-redis client with a single connection, so that a
// blocking command occupies exactly one server-side client.
func oneConnClient(t *testing.T, addr string) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// blockedClients reads INFO's blocked_clients.
func blockedClients(ctx context.Context, t *testing.T, rdb *goredis.Client) int {
	t.Helper()
	info, err := rdb.Info(ctx, "clients").Result()
	if err != nil {
		t.Fatalf("INFO clients: %v", err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "blocked_clients:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("blocked_clients:%q", v)
			}
			return n
		}
	}
	t.Fatalf("INFO clients has no blocked_clients: %q", info)
	return 0
}

// waitBlocked waits until exactly n clients are blocked.
func waitBlocked(ctx context.Context, t *testing.T, rdb *goredis.Client, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := blockedClients(ctx, t, rdb)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("blocked_clients stayed %d, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// asyncResult is the outcome of a blocking command run in a goroutine.
type asyncResult struct {
	val []string
	err error
}

// goBLPop starts BLPOP (or BRPOP) on its own client and returns where its
// result arrives.
func goBLPop(ctx context.Context, rdb *goredis.Client, right bool, timeout time.Duration, keys ...string) <-chan asyncResult {
	ch := make(chan asyncResult, 1)
	go func() {
		var cmd *goredis.StringSliceCmd
		if right {
			cmd = rdb.BRPop(ctx, timeout, keys...)
		} else {
			cmd = rdb.BLPop(ctx, timeout, keys...)
		}
		v, err := cmd.Result()
		ch <- asyncResult{v, err}
	}()
	return ch
}

// await returns a blocking command's result, failing after 30 s.
func await(t *testing.T, ch <-chan asyncResult) asyncResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("a blocked client was never answered")
		return asyncResult{}
	}
}

// stillBlocked requires that no result arrives within d.
func stillBlocked(t *testing.T, ch <-chan asyncResult, d time.Duration) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("a client expected to stay blocked got %v, %v", r.val, r.err)
	case <-time.After(d):
	}
}

func describe(r asyncResult) string {
	switch {
	case errors.Is(r.err, goredis.Nil):
		return "nil"
	case r.err != nil:
		return "error " + r.err.Error()
	}
	return fmt.Sprint(r.val)
}

// TestBlockingFairness: clients blocked on one key are served in the order
// they blocked, one element each, and a push of fewer elements serves only
// the first ones.
func TestBlockingFairness(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		const n = 6
		var waits []<-chan asyncResult
		for i := 0; i < n; i++ {
			waits = append(waits, goBLPop(ctx, oneConnClient(t, addr), i%2 == 1, 0, "q"))
			waitBlocked(ctx, t, admin, i+1)
		}
		pushed := []string{"e0", "e1", "e2", "e3"}
		if err := admin.RPush(ctx, "q", pushed[0], pushed[1], pushed[2], pushed[3]).Err(); err != nil {
			t.Fatal(err)
		}
		// Client i pops in turn, from the head (BLPOP, even i) or the
		// tail (BRPOP, odd i) of what is left.
		model := pushed
		for i := 0; i < 4; i++ {
			var want string
			if i%2 == 1 {
				want, model = model[len(model)-1], model[:len(model)-1]
			} else {
				want, model = model[0], model[1:]
			}
			r := await(t, waits[i])
			if !slices.Equal(r.val, []string{"q", want}) || r.err != nil {
				t.Errorf("client %d got %s, want [q %s]", i, describe(r), want)
			}
			log.add("client %d: %s", i, describe(r))
		}
		stillBlocked(t, waits[4], 100*time.Millisecond)
		waitBlocked(ctx, t, admin, 2)
		log.add("LLEN after the first push: %d", admin.LLen(ctx, "q").Val())
		admin.LPush(ctx, "q", "f0", "f1", "f2")
		for i := 4; i < n; i++ {
			log.add("client %d: %s", i, describe(await(t, waits[i])))
		}
		left := admin.LRange(ctx, "q", 0, -1).Val()
		if len(left) != 1 {
			t.Errorf("left in q: %v, want one element", left)
		}
		log.add("left: %v", left)
	})
}

// TestBlockingServedAfterExec: the clients are served when the whole
// transaction has run (LLEN inside EXEC still sees both elements), and a
// key emptied inside the transaction serves nobody.
func TestBlockingServedAfterExec(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		c := goBLPop(ctx, oneConnClient(t, addr), false, 0, "q")
		waitBlocked(ctx, t, admin, 1)
		d := goBLPop(ctx, oneConnClient(t, addr), false, 0, "q")
		waitBlocked(ctx, t, admin, 2)
		cmds, err := admin.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.RPush(ctx, "q", "x")
			p.RPush(ctx, "q", "y")
			p.LLen(ctx, "q")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if llen := cmds[2].(*goredis.IntCmd).Val(); llen != 2 {
			t.Errorf("LLEN inside EXEC = %d, want 2: clients were served before EXEC ended", llen)
		}
		rc, rd := await(t, c), await(t, d)
		if !slices.Equal(rc.val, []string{"q", "x"}) || !slices.Equal(rd.val, []string{"q", "y"}) {
			t.Errorf("served %s and %s, want [q x] and [q y]", describe(rc), describe(rd))
		}
		log.add("EXEC: %v / C: %s / D: %s", cmds, describe(rc), describe(rd))

		e := goBLPop(ctx, oneConnClient(t, addr), false, 0, "q2")
		waitBlocked(ctx, t, admin, 1)
		cmds, err = admin.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.RPush(ctx, "q2", "x")
			p.LPop(ctx, "q2")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		stillBlocked(t, e, 200*time.Millisecond)
		log.add("EXEC: %v / blocked: %d", cmds, blockedClients(ctx, t, admin))
		admin.RPush(ctx, "q2", "z")
		log.add("E: %s", describe(await(t, e)))
	})
}

// TestBlockingServedAfterScript: a script that pushes two elements returns
// first; the blocked client then receives the first element.
func TestBlockingServedAfterScript(t *testing.T) {
	if len(missingCommands(t, []string{"eval"})) > 0 && !selfCheck() {
		t.Skip("miniwatchd does not implement EVAL yet")
	}
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		c := goBLPop(ctx, oneConnClient(t, addr), false, 0, "q")
		waitBlocked(ctx, t, admin, 1)
		n, err := admin.Eval(ctx, "redis.call('rpush', KEYS[1], 'a', 'b'); return redis.call('llen', KEYS[1])", []string{"q"}).Int()
		if err != nil || n != 2 {
			t.Errorf("EVAL = %d, %v; want 2 (the script runs before any client is served)", n, err)
		}
		r := await(t, c)
		if !slices.Equal(r.val, []string{"q", "a"}) {
			t.Errorf("served %s, want [q a]", describe(r))
		}
		log.add("EVAL: %d / C: %s / left: %v", n, describe(r), admin.LRange(ctx, "q", 0, -1).Val())
		// Inside a script BLMPOP does not block and BLPOP is refused.
		v, err := admin.Eval(ctx, "return redis.call('blmpop', 0, 1, 'nosuch', 'LEFT')", nil).Result()
		log.add("BLMPOP in a script: %v, %v", v, err)
		_, err = admin.Eval(ctx, "return redis.pcall('blpop', 'nosuch', 0)", nil).Result()
		log.add("BLPOP in a script: %v", err)
	})
}

// TestBlockingTimeouts: a timeout replies nil after about its duration,
// BLMOVE included, and leaves nobody blocked.
func TestBlockingTimeouts(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		rdb := oneConnClient(t, addr)
		start := time.Now()
		_, err := rdb.BLPop(ctx, time.Second, "q").Result()
		elapsed := time.Since(start)
		if !errors.Is(err, goredis.Nil) || elapsed < 900*time.Millisecond || elapsed > 20*time.Second {
			t.Errorf("BLPOP q 1 returned %v after %v", err, elapsed)
		}
		log.add("BLPOP: %v", err)
		// go-redis rounds timeouts up to whole seconds: send these raw.
		for _, cmd := range [][]any{
			{"BLMOVE", "q", "d", "LEFT", "RIGHT", "0.2"},
			{"BRPOPLPUSH", "q", "d", "0.2"},
			{"BLMPOP", "0.2", "2", "q", "q2", "LEFT", "COUNT", "3"},
		} {
			v, err := rdb.Do(ctx, cmd...).Result()
			log.add("%v: %v, %v", cmd[0], v, err)
		}
		if n := blockedClients(ctx, t, admin); n != 0 {
			t.Errorf("%d clients blocked after their timeouts", n)
		}
		// Two clients with different timeouts: the shorter one times out,
		// the other is still served.
		short := goBLPop(ctx, oneConnClient(t, addr), false, 200*time.Millisecond, "w")
		long := goBLPop(ctx, oneConnClient(t, addr), false, 0, "w")
		waitBlocked(ctx, t, admin, 2)
		log.add("short: %s", describe(await(t, short)))
		waitBlocked(ctx, t, admin, 1)
		admin.RPush(ctx, "w", "v")
		log.add("long: %s", describe(await(t, long)))
	})
}

// TestBlockingClientUnblock: CLIENT UNBLOCK with TIMEOUT gives the blocked
// client nil, with ERROR the UNBLOCKED error; the client then works again.
func TestBlockingClientUnblock(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		rdb := oneConnClient(t, addr)
		id, err := rdb.ClientID(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		log.add("unblock idle: %d", admin.ClientUnblock(ctx, id).Val())
		for _, mode := range []string{"TIMEOUT", "ERROR"} {
			ch := goBLPop(ctx, rdb, false, 0, "q")
			waitBlocked(ctx, t, admin, 1)
			var n int64
			if mode == "ERROR" {
				n = admin.ClientUnblockWithError(ctx, id).Val()
			} else {
				n = admin.ClientUnblock(ctx, id).Val()
			}
			r := await(t, ch)
			if n != 1 {
				t.Errorf("CLIENT UNBLOCK %s = %d", mode, n)
			}
			log.add("unblock %s: %d, client got %s", mode, n, describe(r))
			if pong := rdb.Ping(ctx).Val(); pong != "PONG" {
				t.Errorf("PING after unblock: %q", pong)
			}
		}
		if n := blockedClients(ctx, t, admin); n != 0 {
			t.Errorf("blocked_clients = %d", n)
		}
		// An unblocked BLMOVE gets the timeout reply, a null array.
		ch := make(chan asyncResult, 1)
		go func() {
			v, err := rdb.Do(ctx, "BLMOVE", "s", "d", "LEFT", "LEFT", "0").Result()
			ch <- asyncResult{[]string{fmt.Sprint(v)}, err}
		}()
		waitBlocked(ctx, t, admin, 1)
		admin.ClientUnblock(ctx, id)
		log.add("BLMOVE unblocked: %s", describe(await(t, ch)))
	})
}

// TestBlockingDisconnect: a blocked client that disconnects takes nothing;
// the client blocked after it gets the element, and nobody is left blocked.
func TestBlockingDisconnect(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		var mu sync.Mutex
		var conns []net.Conn
		leaver := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 1, MaxRetries: -1,
			Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := net.Dial(network, addr)
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				return c, err
			}})
		t.Cleanup(func() { leaver.Close() })
		gone := goBLPop(ctx, leaver, false, 0, "q", "q2")
		waitBlocked(ctx, t, admin, 1)
		stays := goBLPop(ctx, oneConnClient(t, addr), false, 0, "q")
		waitBlocked(ctx, t, admin, 2)
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		if r := await(t, gone); r.err == nil {
			t.Errorf("the closed client got %v", r.val)
		}
		waitBlocked(ctx, t, admin, 1)
		admin.RPush(ctx, "q", "a", "b")
		r := await(t, stays)
		if !slices.Equal(r.val, []string{"q", "a"}) {
			t.Errorf("the remaining client got %s, want [q a]", describe(r))
		}
		left := admin.LRange(ctx, "q", 0, -1).Val()
		if !slices.Equal(left, []string{"b"}) {
			t.Errorf("q = %v, want [b]: an element went to the closed client", left)
		}
		log.add("served: %s / left: %v / blocked: %d", describe(r), left, blockedClients(ctx, t, admin))
		admin.RPush(ctx, "q2", "z")
		log.add("q2 after a push: %v", admin.LRange(ctx, "q2", 0, -1).Val())
	})
}

// TestBlockingInsideMulti: inside MULTI the blocking commands never block:
// without data they reply nil, with data they pop.
func TestBlockingInsideMulti(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := testContext(t)
		rdb := newGoRedis(t, addr)
		start := time.Now()
		cmds, err := rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.BLPop(ctx, 0, "empty")
			p.BLMove(ctx, "empty", "d", "LEFT", "LEFT", 0)
			p.BRPopLPush(ctx, "empty", "d", 0)
			p.BLMPop(ctx, 0, "right", 3, "empty")
			p.RPush(ctx, "q", "a", "b", "c")
			p.BRPop(ctx, 0, "q")
			p.BLMove(ctx, "q", "d", "LEFT", "RIGHT", 0)
			return nil
		})
		if time.Since(start) > 10*time.Second {
			t.Error("a blocking command blocked inside MULTI")
		}
		var got []string
		for _, c := range cmds {
			got = append(got, fmt.Sprintf("%v", c))
		}
		log.add("EXEC: %v (err %v)", got, err)
		log.add("q: %v, d: %v", rdb.LRange(ctx, "q", 0, -1).Val(), rdb.LRange(ctx, "d", 0, -1).Val())
	})
}
