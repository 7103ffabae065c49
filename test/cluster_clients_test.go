package test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cluster"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// Cluster clients end to end, each against miniwatchd in cluster mode and,
// to prove the test, against a redis-server node given every slot.

// forBothClusterNodes runs fn against a fresh cluster-mode miniwatchd and
// a redis-server cluster node owning all slots.
func forBothClusterNodes(t *testing.T, fn func(t *testing.T, addr string)) {
	t.Run("miniwatchd", func(t *testing.T) {
		n := startClusterNode(t, ours, "")
		waitClusterOK(t, n.addr)
		fn(t, n.addr)
	})
	t.Run("redis-server", func(t *testing.T) {
		n := startClusterNode(t, redis, "")
		clusterDo(t, n.addr, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")
		waitClusterOK(t, n.addr)
		fn(t, n.addr)
	})
}

// go-redis's ClusterClient: topology from CLUSTER SLOTS, commands routed
// by slot, CROSSSLOT errors surfaced, pipelines, TxPipelined and WATCH on
// one slot.
func TestGoRedisClusterClient(t *testing.T) {
	forBothClusterNodes(t, func(t *testing.T, addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rdb := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: []string{addr}})
		defer rdb.Close()
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatalf("PING: %v", err)
		}
		slots, err := rdb.ClusterSlots(ctx).Result()
		if err != nil || len(slots) != 1 || slots[0].Start != 0 || slots[0].End != 16383 {
			t.Fatalf("CLUSTER SLOTS = %+v, %v", slots, err)
		}
		for i := 0; i < 200; i++ {
			k := fmt.Sprintf("key:%d", i)
			if err := rdb.Set(ctx, k, i, 0).Err(); err != nil {
				t.Fatalf("SET %s: %v", k, err)
			}
		}
		if v, err := rdb.Get(ctx, "key:17").Int(); err != nil || v != 17 {
			t.Fatalf("GET key:17 = %d, %v", v, err)
		}
		n, err := rdb.ClusterCountKeysInSlot(ctx, int(rdb.ClusterKeySlot(ctx, "key:17").Val())).Result()
		if err != nil || n < 1 {
			t.Fatalf("COUNTKEYSINSLOT = %d, %v", n, err)
		}
		if err := rdb.MSet(ctx, "{u}a", 1, "{u}b", 2).Err(); err != nil {
			t.Fatalf("MSET one slot: %v", err)
		}
		if err := rdb.MSet(ctx, "a", 1, "b", 2).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
			t.Fatalf("MSET across slots: %v, want CROSSSLOT", err)
		}
		// A pipeline over many slots: go-redis splits it by node.
		cmds, err := rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for i := 0; i < 50; i++ {
				p.Incr(ctx, fmt.Sprintf("counter:%d", i))
			}
			return nil
		})
		if err != nil || len(cmds) != 50 {
			t.Fatalf("Pipelined: %d cmds, %v", len(cmds), err)
		}
		// A transaction on one slot.
		_, err = rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
			p.Incr(ctx, "{u}a")
			p.IncrBy(ctx, "{u}b", 10)
			return nil
		})
		if err != nil {
			t.Fatalf("TxPipelined: %v", err)
		}
		if v := rdb.MGet(ctx, "{u}a", "{u}b").Val(); fmt.Sprint(v) != "[2 12]" {
			t.Fatalf("after TxPipelined: %v", v)
		}
		// WATCH aborts when another client writes the key in between.
		other := goredis.NewClient(&goredis.Options{Addr: addr})
		defer other.Close()
		err = rdb.Watch(ctx, func(tx *goredis.Tx) error {
			if err := other.Set(ctx, "{u}a", "changed", 0).Err(); err != nil {
				return err
			}
			_, err := tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				p.Set(ctx, "{u}a", "mine", 0)
				return nil
			})
			return err
		}, "{u}a")
		if !errors.Is(err, goredis.TxFailedErr) {
			t.Fatalf("WATCH + foreign write: %v, want TxFailedErr", err)
		}
		if v := rdb.Get(ctx, "{u}a").Val(); v != "changed" {
			t.Fatalf("{u}a = %q after the aborted transaction", v)
		}
		// A script on one slot, and one touching keys it did not declare.
		if v, err := rdb.Eval(ctx, "#!lua\nreturn redis.call('incr', KEYS[1])", []string{"{u}c"}).Int(); err != nil || v != 1 {
			t.Fatalf("EVAL: %d, %v", v, err)
		}
		err = rdb.Eval(ctx, "#!lua\nreturn redis.call('get', 'elsewhere')", []string{"{u}c"}).Err()
		if err == nil || !strings.Contains(err.Error(), "Script attempted to access keys that do not hash to the same slot") {
			t.Fatalf("EVAL of an undeclared key: %v", err)
		}
		if err := rdb.ForEachShard(ctx, func(ctx context.Context, c *goredis.Client) error {
			return c.Ping(ctx).Err()
		}); err != nil {
			t.Fatalf("ForEachShard: %v", err)
		}
	})
}

// rueidis notices cluster mode (CLUSTER SLOTS) and runs as a cluster
// client: single commands, DoMulti across slots, and a MULTI on one slot.
func TestRueidisCluster(t *testing.T) {
	forBothClusterNodes(t, func(t *testing.T, addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		client, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
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
		if v, err := client.Do(ctx, client.B().Get().Key("k7").Build()).ToString(); err != nil || v != "7" {
			t.Fatalf("GET k7 = %q, %v", v, err)
		}
		// rueidis refuses a cross-slot MGET itself; sent as plain
		// arguments, the server refuses it.
		err = client.Do(ctx, client.B().Arbitrary("MGET").Args("k1", "k2").Build()).Error()
		if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Fatalf("MGET across slots: %v", err)
		}
		dc, cancelDC := client.Dedicate()
		defer cancelDC()
		res := dc.DoMulti(ctx,
			dc.B().Multi().Build(),
			dc.B().Set().Key("{t}x").Value("1").Build(),
			dc.B().Incr().Key("{t}x").Build(),
			dc.B().Exec().Build())
		if v, err := res[3].ToArray(); err != nil || len(v) != 2 {
			t.Fatalf("MULTI/EXEC on one slot: %v, %v", v, err)
		}
	})
}

// redis-cli -c prints the same as against redis-server, redirections or
// not.
func TestRedisCLICluster(t *testing.T) {
	cli := requireRedisCLI(t)
	var outs []string
	forBothClusterNodes(t, func(t *testing.T, addr string) {
		srv := &leasedServer{serverProc: &serverProc{addr: addr, port: portOf(t, addr), name: addr}}
		outs = append(outs, runCLI(t, cli, srv, "SET foo 1\nGET foo\nMSET a 1 b 2\nMSET {a}1 1 {a}2 2\nMGET {a}1 {a}2\nCLUSTER KEYSLOT foo\nCLUSTER COUNTKEYSINSLOT 12182\nSELECT 1\n", "-c"))
	})
	if len(outs) == 2 && outs[0] != outs[1] {
		t.Fatalf("redis-cli -c output differs\nminiwatchd:\n%s\nredis-server:\n%s", outs[0], outs[1])
	}
}

func portOf(t *testing.T, addr string) int {
	t.Helper()
	var port int
	if _, err := fmt.Sscanf(addr[strings.LastIndexByte(addr, ':')+1:], "%d", &port); err != nil {
		t.Fatal(err)
	}
	return port
}

// clusterScriptTargets are the clusters the redis-py and ioredis cluster
// scripts run against: the emulated three-node cluster, a one-node
// miniwatchd cluster and, to prove the test, the same two with
// redis-server (three nodes joined by redis-cli --cluster create). extra
// goes to the one-node servers.
func clusterScriptTargets(t *testing.T, fn func(t *testing.T, addr string, masters int), extra ...string) {
	t.Run("emulated3", func(t *testing.T) {
		fn(t, startEmulated(t, 3)[0], 3)
	})
	t.Run("redis-server3", func(t *testing.T) {
		fn(t, startRedisCluster(t, requireRedisCLI(t), 3)[0], 3)
	})
	t.Run("one-node", func(t *testing.T) {
		n := startClusterNode(t, ours, "", extra...)
		waitClusterOK(t, n.addr)
		fn(t, n.addr, 1)
	})
	t.Run("redis-server-one-node", func(t *testing.T) {
		n := startClusterNode(t, redis, "", extra...)
		clusterDo(t, n.addr, "CLUSTER", "ADDSLOTSRANGE", "0", "16383")
		waitClusterOK(t, n.addr)
		fn(t, n.addr, 1)
	})
}

// checkClusterRouting checks what a cluster script saw of the topology and
// of routing: masters nodes, 100 keys each on its slot's node, spread
// over every master.
func checkClusterRouting(t *testing.T, masters, misplaced int, gotMasters []int, dbsizes []int) {
	t.Helper()
	total := 0
	for _, n := range dbsizes {
		if n == 0 {
			t.Errorf("a master holds no key: DBSIZEs %v", dbsizes)
		}
		total += n
	}
	if len(gotMasters) != masters || len(dbsizes) != masters || total != 100 || misplaced != 0 {
		t.Errorf("routing: masters %v, DBSIZEs %v, %d keys not on their slot's node; want %d masters holding 100 keys, none misplaced",
			gotMasters, dbsizes, misplaced, masters)
	}
}

const crossSlotText = "Keys in request don't hash to the same slot"

// redis-py's RedisCluster (issue 24, clients end to end).
func TestRedisPyCluster(t *testing.T) {
	py := pythonWithRedis()
	requireTool(t, py != "" && exec.Command(py, "-c", "from redis.cluster import RedisCluster").Run() == nil,
		"python3 with redis-py's redis.cluster (apt-get install python3-redis)")
	clusterScriptTargets(t, func(t *testing.T, addr string, masters int) {
		var got struct {
			Masters                   []int  `json:"masters"`
			Misplaced                 int    `json:"misplaced"`
			DBSizes                   []int  `json:"dbsizes"`
			ClientCrossSlot           string `json:"client_crossslot"`
			CrossSlot                 string `json:"crossslot"`
			ExistsAfterCrossSlot      int    `json:"exists_after_crossslot"`
			MultiExec                 []any  `json:"multi_exec"`
			Balance                   string `json:"balance"`
			CrossSlotExec             string `json:"crossslot_exec"`
			BalanceAfterCrossSlotExec string `json:"balance_after_crossslot_exec"`
			Migrate                   string `json:"migrate"`
			Moved                     string `json:"moved"`
			MovedTo                   int    `json:"moved_to"`
			GetAfterMove              string `json:"get_after_move"`
			NodeAfterMove             int    `json:"node_after_move"`
			SetAfterMove              bool   `json:"set_after_move"`
			OnTarget                  string `json:"on_target"`
		}
		runScriptAt(t, addr, &got, py, filepath.Join("clients", "python", "cluster.py"))
		checkClusterRouting(t, masters, got.Misplaced, got.Masters, got.DBSizes)
		if got.ClientCrossSlot != "RedisClusterException" || got.CrossSlot != "ClusterCrossSlotError: "+crossSlotText || got.ExistsAfterCrossSlot != 0 {
			t.Errorf("MSET across slots: client %q, server %q, %d keys written; want RedisClusterException, CROSSSLOT, none",
				got.ClientCrossSlot, got.CrossSlot, got.ExistsAfterCrossSlot)
		}
		if fmt.Sprint(got.MultiExec) != "[true 105 1]" || got.Balance != "105" {
			t.Errorf("MULTI/EXEC on one slot: %v, balance %q; want [true 105 1], 105", got.MultiExec, got.Balance)
		}
		if got.CrossSlotExec != "ClusterCrossSlotError: "+crossSlotText || got.BalanceAfterCrossSlotExec != "105" {
			t.Errorf("EXEC across slots: %q, balance %q; want CROSSSLOT, 105", got.CrossSlotExec, got.BalanceAfterCrossSlotExec)
		}
		if masters == 1 {
			return
		}
		slot := cluster.KeyHashSlot("{moved}k")
		if got.Migrate != "OK" || got.Moved != fmt.Sprintf("MovedError: %d 127.0.0.1:%d", slot, got.MovedTo) {
			t.Errorf("moving slot %d: MIGRATE %q, GET on the old node %q", slot, got.Migrate, got.Moved)
		}
		if got.GetAfterMove != "before the move" || got.NodeAfterMove != got.MovedTo || !got.SetAfterMove || got.OnTarget != "after the move" {
			t.Errorf("after the move: GET %q via port %d (moved to %d), SET %v, on the new node %q",
				got.GetAfterMove, got.NodeAfterMove, got.MovedTo, got.SetAfterMove, got.OnTarget)
		}
	})
}

// ioredis's Cluster (issue 24, clients end to end). ioredis 5 drops a CLUSTER
// SLOTS entry whose IP is empty, as a node that never met another reports
// it (redis-server and miniwatchd alike), so the one-node clusters announce
// 127.0.0.1 (cluster-announce-ip).
func TestIoredisCluster(t *testing.T) {
	node := nodeWithIoredis()
	requireTool(t, node != "", "node with ioredis (npm ci in test/clients/node)")
	clusterScriptTargets(t, func(t *testing.T, addr string, masters int) {
		var got struct {
			Masters              []int    `json:"masters"`
			Misplaced            int      `json:"misplaced"`
			DBSizes              []int    `json:"dbsizes"`
			CrossSlot            string   `json:"crossslot"`
			ExistsAfterCrossSlot int      `json:"existsAfterCrossslot"`
			MultiExec            [][2]any `json:"multiExec"`
			Balance              string   `json:"balance"`
			Migrate              string   `json:"migrate"`
			Moved                string   `json:"moved"`
			MovedTo              int      `json:"movedTo"`
			GetAfterMove         string   `json:"getAfterMove"`
			SlotBefore           string   `json:"slotBefore"`
			SlotAfter            string   `json:"slotAfter"`
			SetAfterMove         string   `json:"setAfterMove"`
			OnTarget             string   `json:"onTarget"`
		}
		runScriptAt(t, addr, &got, node, filepath.Join("clients", "node", "cluster.js"))
		checkClusterRouting(t, masters, got.Misplaced, got.Masters, got.DBSizes)
		if got.CrossSlot != "CROSSSLOT "+crossSlotText || got.ExistsAfterCrossSlot != 0 {
			t.Errorf("MSET across slots: %q, %d keys written; want CROSSSLOT, none", got.CrossSlot, got.ExistsAfterCrossSlot)
		}
		if fmt.Sprint(got.MultiExec) != "[[<nil> OK] [<nil> 105] [<nil> 1]]" || got.Balance != "105" {
			t.Errorf("MULTI/EXEC on one slot: %v, balance %q; want [[nil OK] [nil 105] [nil 1]], 105", got.MultiExec, got.Balance)
		}
		if masters == 1 {
			return
		}
		slot := cluster.KeyHashSlot("{moved}k")
		target := fmt.Sprintf("127.0.0.1:%d", got.MovedTo)
		if got.Migrate != "OK" || got.Moved != fmt.Sprintf("MOVED %d %s", slot, target) {
			t.Errorf("moving slot %d: MIGRATE %q, GET on the old node %q", slot, got.Migrate, got.Moved)
		}
		if got.GetAfterMove != "before the move" || got.SlotBefore == target || got.SlotAfter != target ||
			got.SetAfterMove != "OK" || got.OnTarget != "after the move" {
			t.Errorf("after the move: GET %q, slot map %q -> %q (moved to %s), SET %q, on the new node %q",
				got.GetAfterMove, got.SlotBefore, got.SlotAfter, target, got.SetAfterMove, got.OnTarget)
		}
	}, "--cluster-announce-ip", "127.0.0.1")
}
