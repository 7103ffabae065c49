package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// TestReplSentinelFailover: redis-server in sentinel mode monitors a
// miniwatchd master with a miniwatchd replica and a redis-server replica.
// The master dies; Sentinel promotes a replica and reconfigures the other;
// a go-redis FailoverClient keeps working, and every write confirmed by
// WAIT before the failure is on the new master. replica-priority makes
// Sentinel promote the miniwatchd replica in one test and the
// redis-server one in the other.
func TestReplSentinelFailoverToOurs(t *testing.T) { testSentinelFailover(t, "miniwatchd") }

func TestReplSentinelFailoverToRedis(t *testing.T) { testSentinelFailover(t, "redis-server") }

func testSentinelFailover(t *testing.T, promote string) {
	g := startSentinelGroup(t, promote)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fc := goredis.NewFailoverClient(&goredis.FailoverOptions{
		MasterName: "mymaster", SentinelAddrs: []string{"127.0.0.1:" + strconv.Itoa(g.sentinel)},
		MaxRetries: 10, MinRetryBackoff: 100 * time.Millisecond, MaxRetryBackoff: time.Second,
	})
	defer fc.Close()
	confirmed := 0
	for i := 0; i < 200; i++ {
		if err := fc.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
		confirmed++
	}
	if n, err := fc.Do(ctx, "WAIT", "2", "5000").Int(); err != nil || n != 2 {
		t.Fatalf("WAIT 2 5000 = %v, %v", n, err)
	}
	g.master.stop()
	promoted, other := g.awaitFailover(t, promote)
	oc := dialT(t, other.addr)

	// The client follows; nothing confirmed was lost.
	for i := 0; i < confirmed; i++ {
		v, err := fc.Get(ctx, "k"+strconv.Itoa(i)).Result()
		if err != nil || v != strconv.Itoa(i) {
			t.Fatalf("after the failover k%d = %q, %v", i, v, err)
		}
	}
	if err := fc.Set(ctx, "after", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := fc.Do(ctx, "WAIT", "1", "5000").Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 on the new master = %v, %v", n, err)
	}
	if v := mustDo(t, oc, "GET", "after").Str; v != "1" {
		t.Fatalf("the other replica did not get the new master's write: %q", v)
	}
	t.Logf("failover to %s (%s); %d confirmed writes kept", promoted.addr, promoted.name, confirmed)
}

// sentinelGroup is a miniwatchd master with a miniwatchd and a
// redis-server replica, monitored by one Sentinel as "mymaster".
type sentinelGroup struct {
	master, ours, redis *serverProc
	sentinel            int // the Sentinel's port
}

// startSentinelGroup starts a sentinelGroup whose replica-priority makes
// Sentinel promote the promote ("miniwatchd" or "redis-server") replica,
// and returns once Sentinel lists both replicas.
func startSentinelGroup(t *testing.T, promote string) *sentinelGroup {
	t.Helper()
	requireRedis(t)
	oursPrio, redisPrio := "10", "100"
	if promote == "redis-server" {
		oursPrio, redisPrio = "100", "10"
	}
	g := &sentinelGroup{}
	var err error
	if g.master, err = startOurs("--repl-diskless-sync-delay", "0", "--dir", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.master.stop)
	mport := strconv.Itoa(g.master.port)
	if g.ours, err = startOurs("--replicaof", "127.0.0.1", mport, "--repl-diskless-sync-delay", "0", "--replica-priority", oursPrio, "--dir", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.ours.stop)
	if g.redis, err = startRedis("--replicaof", "127.0.0.1", mport, "--replica-priority", redisPrio, "--dir", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.redis.stop)
	for _, p := range []*serverProc{g.ours, g.redis} {
		waitInfo(t, dialT(t, p.addr), "replication", "master_link_status", "up", 20*time.Second)
	}
	g.sentinel = startSentinel(t, "mymaster", g.master.port)
	// Sentinel learns the replicas from the master's INFO.
	sc := goredis.NewSentinelClient(&goredis.Options{Addr: "127.0.0.1:" + strconv.Itoa(g.sentinel)})
	defer sc.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		reps, err := sc.Replicas(context.Background(), "mymaster").Result()
		if err == nil && len(reps) == 2 {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("sentinel does not list 2 replicas: %v %v", reps, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitFailover waits, after the master's death, until Sentinel has
// promoted the promote replica and the other replica replicates from it,
// and returns both.
func (g *sentinelGroup) awaitFailover(t *testing.T, promote string) (promoted, other *serverProc) {
	t.Helper()
	sc := goredis.NewSentinelClient(&goredis.Options{Addr: "127.0.0.1:" + strconv.Itoa(g.sentinel)})
	defer sc.Close()
	var newMaster string
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		addr, err := sc.GetMasterAddrByName(context.Background(), "mymaster").Result()
		if err == nil && addr[1] != strconv.Itoa(g.master.port) {
			newMaster = addr[0] + ":" + addr[1]
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if newMaster == "" {
		t.Fatal("no failover in time")
	}
	promoted, other = g.ours, g.redis
	if newMaster == g.redis.addr {
		promoted, other = g.redis, g.ours
	}
	if promoted.name != promote {
		t.Fatalf("Sentinel promoted %s, not the %s replica with the best replica-priority", promoted.name, promote)
	}
	// Sentinel's reconfiguration ends in CLIENT KILL TYPE normal (in the
	// MULTI with its REPLICAOF), so these polls dial anew each time.
	waitInfoAt(t, promoted.addr, "role", "master", 20*time.Second)
	waitInfoAt(t, other.addr, "master_port", strconv.Itoa(promoted.port), 30*time.Second)
	waitInfoAt(t, other.addr, "master_link_status", "up", 20*time.Second)
	return promoted, other
}

// waitInfoAt waits until INFO replication's field name at addr is want,
// on a new connection for every poll.
func waitInfoAt(t *testing.T, addr, name, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	got := ""
	for time.Now().Before(deadline) {
		if c, err := dialRESP(addr); err == nil {
			n, err := c.Do("INFO", "replication")
			c.Close()
			if err == nil {
				got = "(none)"
				for _, l := range strings.Split(n.Str, "\r\n") {
					if v, ok := strings.CutPrefix(l, name+":"); ok {
						got = v
					}
				}
				if got == want {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: INFO replication %s is %q, not %q after %v", addr, name, got, want, limit)
}

// startSentinel runs redis-server in sentinel mode monitoring name at
// 127.0.0.1:port with quorum 1 and returns its port.
func startSentinel(t *testing.T, name string, port int) int {
	t.Helper()
	sport, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s 127.0.0.1 %d 1\n"+
		"sentinel down-after-milliseconds %s 1000\nsentinel failover-timeout %s 10000\n",
		sport, dir, name, port, name, name)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "sentinel.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(redisServerPath(), conf, "--sentinel")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("sentinel log:\n%s", b)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := dialRESP("127.0.0.1:" + strconv.Itoa(sport)); err == nil {
			n, err := c.Do("PING")
			c.Close()
			if err == nil && n.Str == "PONG" {
				return sport
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("sentinel did not start")
	return 0
}
