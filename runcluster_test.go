package miniwatchd_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// RunCluster with go-redis's ClusterClient: the keys spread over the three
// nodes, each node's typed access sees its own keys only (MOVED for the
// others), NodeFor finds the owner, CROSSSLOT, a WATCH transaction on one
// slot broken by a typed write on its node, one clock for all nodes, and a
// node's Restart keeping its ID, slots and data.
func TestRunClusterGoRedis(t *testing.T) {
	c := miniwatchd.RunCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(c.Nodes()) != 3 || len(c.Addrs()) != 3 {
		t.Fatalf("%d nodes, %d addresses; want 3", len(c.Nodes()), len(c.Addrs()))
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer rdb.Close()

	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil || len(slots) != 3 {
		t.Fatalf("CLUSTER SLOTS = %+v, %v; want three ranges", slots, err)
	}
	for i, want := range [][2]int{{0, 5460}, {5461, 10922}, {10923, 16383}} {
		s := slots[i]
		if s.Start != want[0] || s.End != want[1] || len(s.Nodes) != 1 || s.Nodes[0].Addr != c.Node(i).Addr() {
			t.Fatalf("CLUSTER SLOTS range %d = %+v; want %v on %s", i, s, want, c.Node(i).Addr())
		}
	}
	for i := 0; i < 100; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("key:%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET key:%d: %v", i, err)
		}
	}
	total := 0
	for i, s := range c.Nodes() {
		keys := s.Keys()
		if len(keys) == 0 {
			t.Fatalf("node %d holds no key of 100", i)
		}
		for _, k := range keys {
			if c.NodeFor(k) != s {
				t.Fatalf("node %d holds %q, NodeFor says another node", i, k)
			}
		}
		total += len(keys)
	}
	if total != 100 {
		t.Fatalf("%d keys on the nodes after 100 SETs", total)
	}
	c.NodeFor("key:42").CheckGet(t, "key:42", "42")
	// foo is slot 12182, on the third node: the first refuses it.
	if _, err := c.Node(0).Do("GET", "foo"); err == nil || err.Error() != "MOVED 12182 "+c.Node(2).Addr() {
		t.Fatalf("GET foo on node 0: %v, want MOVED to node 2", err)
	}
	if c.NodeFor("foo") != c.Node(2) {
		t.Fatal("NodeFor(foo) is not node 2")
	}

	if err := rdb.MSet(ctx, "a", 1, "b", 2).Err(); err == nil || err.Error() != "CROSSSLOT Keys in request don't hash to the same slot" {
		t.Fatalf("MSET a b: %v, want CROSSSLOT", err)
	}
	err = rdb.Watch(ctx, func(tx *redis.Tx) error {
		c.NodeFor("{user:1}name").Set("{user:1}name", "bob")
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{user:1}name", "carol", 0)
			return nil
		})
		return err
	}, "{user:1}name")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("Watch with a typed write in between: %v, want TxFailedErr", err)
	}

	// One clock: TTL keys on every node expire with one FastForward; a
	// DEBUG CLOCK FREEZE sent to one node freezes all of them.
	for i := 0; i < 30; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("ttl:%d", i), i, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.FastForward(2 * time.Hour)
	for i, s := range c.Nodes() {
		for _, k := range s.Keys() {
			if strings.HasPrefix(k, "ttl:") {
				t.Fatalf("node %d still holds %s after FastForward", i, k)
			}
		}
	}
	if _, err := c.Node(1).Do("DEBUG", "CLOCK", "FREEZE"); err != nil {
		t.Fatal(err)
	}
	t0, _ := c.Node(0).Do("DEBUG", "CLOCK")
	t2, _ := c.Node(2).Do("DEBUG", "CLOCK")
	if s := fmt.Sprint(t0); !strings.HasSuffix(s, "frozen]") || s != fmt.Sprint(t2) {
		t.Fatalf("DEBUG CLOCK after a FREEZE on node 1: node 0 %v, node 2 %v", t0, t2)
	}
	if _, err := c.Node(1).Do("DEBUG", "CLOCK", "UNFREEZE"); err != nil {
		t.Fatal(err)
	}

	n1 := c.Node(1)
	id, _ := n1.Do("CLUSTER", "MYID")
	keys := n1.Keys()
	n1.Restart()
	if got, _ := n1.Do("CLUSTER", "MYID"); got != id {
		t.Fatalf("CLUSTER MYID after Restart = %v, want %v", got, id)
	}
	n1.CheckKeys(t, keys...)
	if v, err := rdb.Get(ctx, keys[0]).Result(); err != nil || v == "" {
		t.Fatalf("GET %s through the cluster client after Restart: %q, %v", keys[0], v, err)
	}
}

// The options reach every node: a password each node asks for, and an AOF
// of each node's own (appendonly-<port>.aof) that its Restart reloads.
func TestRunClusterOptions(t *testing.T) {
	c := miniwatchd.RunCluster(t, 2, miniwatchd.Password("s3cret"), miniwatchd.AppendOnly())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := redis.NewClient(&redis.Options{Addr: c.Node(1).Addr()}).Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("PING node 1 without AUTH: %v, want NOAUTH", err)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), Password: "s3cret"})
	defer rdb.Close()
	for i := 0; i < 20; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET k%d: %v", i, err)
		}
	}
	for i, s := range c.Nodes() {
		dir, _ := s.Do("CONFIG", "GET", "dir")
		file, _ := s.Do("CONFIG", "GET", "appendfilename")
		want := fmt.Sprintf("appendonly-%d.aof", s.Port())
		if f, _ := file.([]any); len(f) != 2 || f[1] != want {
			t.Fatalf("node %d appendfilename %v, want %s", i, file, want)
		}
		d, _ := dir.([]any)
		manifest := filepath.Join(d[1].(string), "appendonlydir", want+".manifest")
		if _, err := os.Stat(manifest); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		keys := s.Keys()
		if len(keys) == 0 {
			t.Fatalf("node %d holds no key", i)
		}
		s.Restart()
		s.CheckKeys(t, keys...)
		conn := s.Dial() // authenticated
		conn.Close()
	}
}

// rueidis finds every node from the seeds and routes by slot.
func TestRunClusterRueidis(t *testing.T) {
	c := miniwatchd.RunCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: c.Addrs(), DisableCache: true})
	if err != nil {
		t.Fatalf("rueidis: %v", err)
	}
	defer client.Close()
	if client.Mode() != rueidis.ClientModeCluster {
		t.Fatalf("rueidis mode %v, want cluster", client.Mode())
	}
	var batch rueidis.Commands
	for i := 0; i < 30; i++ {
		batch = append(batch, client.B().Set().Key(fmt.Sprintf("k%d", i)).Value(fmt.Sprint(i)).Build())
	}
	for i, r := range client.DoMulti(ctx, batch...) {
		if err := r.Error(); err != nil {
			t.Fatalf("DoMulti[%d]: %v", i, err)
		}
	}
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%d", i)
		c.NodeFor(k).CheckGet(t, k, fmt.Sprint(i))
	}
	for i, s := range c.Nodes() {
		if len(s.Keys()) == 0 {
			t.Fatalf("node %d holds none of 30 keys", i)
		}
	}
}

// Replicas: each master gets its replicas after the masters, with the
// password of Password as masterauth (full resyncs without delay); a go-redis ClusterClient with
// ReadOnly reads a write back from the replica, and CLUSTER FAILOVER on
// the replica makes it the master of the slots for every node.
func TestRunClusterReplicas(t *testing.T) {
	c := miniwatchd.RunCluster(t, 3, miniwatchd.Replicas(1), miniwatchd.Password("pw"), miniwatchd.Config("repl-diskless-sync-delay", "0"))
	nodes := c.Nodes()
	if len(nodes) != 6 {
		t.Fatalf("%d nodes, want 6", len(nodes))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	master := c.NodeFor("foo") // slot 12182: the third master
	if master != nodes[2] {
		t.Fatalf("foo on port %d, want the third master (%d)", master.Port(), nodes[2].Port())
	}
	replica := nodes[5]
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), Password: "pw"})
	defer rdb.Close()
	if err := rdb.Set(ctx, "foo", "bar", 0).Err(); err != nil {
		t.Fatal(err)
	}
	direct := redis.NewClient(&redis.Options{Addr: replica.Addr(), Password: "pw"})
	defer direct.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		role, err := direct.Do(ctx, "ROLE").Slice()
		if err == nil && len(role) > 3 && role[0] == "slave" && role[3] == "connected" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica ROLE: %v, %v", role, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ro := redis.NewClient(&redis.Options{Addr: replica.Addr(), Password: "pw", OnConnect: func(ctx context.Context, cn *redis.Conn) error {
		return cn.ReadOnly(ctx).Err()
	}})
	defer ro.Close()
	for v := ""; v != "bar"; {
		v, _ = ro.Get(ctx, "foo").Result()
		if time.Now().After(deadline) {
			t.Fatalf("GET foo on the READONLY replica: %q", v)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := direct.Do(ctx, "CLUSTER", "FAILOVER").Err(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for c.NodeFor("foo") != replica {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not take over foo's slot")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		role, _ := nodes[2].Do("ROLE")
		if r, _ := role.([]any); len(r) > 0 && r[0] == "slave" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("old master ROLE: %v", role)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v, err := rdb.Get(ctx, "foo").Result(); err != nil || v != "bar" {
		t.Fatalf("GET foo after the failover: %q, %v", v, err)
	}
}
