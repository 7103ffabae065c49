package miniwatchd_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
)

// The Cluster option: a one-node Redis Cluster that go-redis's
// ClusterClient uses as a real one: routing, CROSSSLOT, pipelines,
// TxPipelined and Watch on one slot (broken by a typed write), SELECT
// refused, and the node's ID and slots kept across Restart.
func TestClusterGoRedis(t *testing.T) {
	s := miniwatchd.Run(t, miniwatchd.Cluster())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addr()}})
	defer rdb.Close()

	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil || len(slots) != 1 || slots[0].Start != 0 || slots[0].End != 16383 ||
		len(slots[0].Nodes) != 1 || slots[0].Nodes[0].Addr != s.Addr() {
		t.Fatalf("CLUSTER SLOTS = %+v, %v; want 0-16383 served by %s", slots, err, s.Addr())
	}
	// CLUSTER NODES: 127.0.0.1:port@busport, a bus port that is a port.
	nodes, err := rdb.ClusterNodes(ctx).Result()
	var port, bus int
	if f := strings.Fields(nodes); err != nil || len(f) < 2 {
		t.Fatalf("CLUSTER NODES = %q, %v", nodes, err)
	} else if _, err := fmt.Sscanf(f[1], "127.0.0.1:%d@%d", &port, &bus); err != nil || port != s.Port() || bus < 1 || bus > 65535 {
		t.Fatalf("CLUSTER NODES address %q (%v); want 127.0.0.1:%d@<a port>", f[1], err, s.Port())
	}
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil || !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_assigned:16384") {
		t.Fatalf("CLUSTER INFO = %q, %v", info, err)
	}
	for i := 0; i < 100; i++ {
		if err := rdb.Set(ctx, fmt.Sprintf("key:%d", i), i, 0).Err(); err != nil {
			t.Fatalf("SET key:%d: %v", i, err)
		}
	}
	s.CheckGet(t, "key:42", "42")
	if n := len(s.Keys()); n != 100 {
		t.Fatalf("%d keys after 100 SETs", n)
	}

	// Keys of two slots: CROSSSLOT, from go-redis and from Do alike.
	if err := rdb.MSet(ctx, "a", 1, "b", 2).Err(); err == nil || err.Error() != "CROSSSLOT Keys in request don't hash to the same slot" {
		t.Fatalf("MSET a b: %v, want CROSSSLOT", err)
	}
	if _, err := s.Do("DEL", "key:1", "key:2"); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
		t.Fatalf("Do DEL of two slots: %v, want CROSSSLOT", err)
	}
	if err := s.Select(1); err == nil || err.Error() != "ERR SELECT is not allowed in cluster mode" {
		t.Fatalf("Select(1): %v", err)
	}

	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < 20; i++ {
			p.Incr(ctx, fmt.Sprintf("counter:%d", i))
		}
		return nil
	})
	if err != nil || len(cmds) != 20 {
		t.Fatalf("Pipelined: %d commands, %v", len(cmds), err)
	}
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{user:1}name", "alice", 0)
		p.IncrBy(ctx, "{user:1}visits", 3)
		return nil
	}); err != nil {
		t.Fatalf("TxPipelined on one slot: %v", err)
	}
	s.CheckGet(t, "{user:1}visits", "3")

	// A typed write between WATCH and EXEC aborts the transaction.
	err = rdb.Watch(ctx, func(tx *redis.Tx) error {
		s.Set("{user:1}name", "bob")
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{user:1}name", "carol", 0)
			return nil
		})
		return err
	}, "{user:1}name")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("Watch with a typed write in between: %v, want TxFailedErr", err)
	}
	s.CheckGet(t, "{user:1}name", "bob")

	id, err := rdb.ClusterMyID(ctx).Result()
	if err != nil || len(id) != 40 {
		t.Fatalf("CLUSTER MYID = %q, %v", id, err)
	}
	s.Restart()
	if v, err := s.Do("CLUSTER", "MYID"); err != nil || v != id {
		t.Fatalf("CLUSTER MYID after Restart = %v, %v; want %s", v, err, id)
	}
	if v, err := rdb.Get(ctx, "key:7").Result(); err != nil || v != "7" {
		t.Fatalf("GET key:7 after Restart = %q, %v", v, err)
	}
	if v, err := rdb.ClusterCountKeysInSlot(ctx, int(rdb.ClusterKeySlot(ctx, "key:7").Val())).Result(); err != nil || v < 1 {
		t.Fatalf("COUNTKEYSINSLOT after Restart = %d, %v", v, err)
	}
}
