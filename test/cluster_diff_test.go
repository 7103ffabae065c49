package test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// Differential tests of cluster mode against redis-server 7.0.15 started
// with cluster-enabled yes: a fresh node given every slot with CLUSTER
// ADDSLOTSRANGE 0 16383 (miniwatchd owns them from the start), and, for
// MOVED, ASK and TRYAGAIN, two nodes loading the same nodes.conf in which
// a second (unreachable) master owns half of the slots.

func forBothProtocols(t *testing.T, fn func(t *testing.T, proto int)) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) { fn(t, proto) })
	}
}

// Slots of random keys, with and without hash tags.
func TestDiffClusterKeySlot(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		rng := rand.New(rand.NewSource(24))
		alphabet := "ab{}x\x00\xff"
		for i := 0; i < 300; i++ {
			b := make([]byte, rng.Intn(12))
			for j := range b {
				b[j] = alphabet[rng.Intn(len(alphabet))]
			}
			c.Do("CLUSTER", "KEYSLOT", string(b))
			c.Do("CLUSTER", "KEYSLOT", fmt.Sprintf("user:%d", rng.Int63()))
			c.Do("CLUSTER", "KEYSLOT", fmt.Sprintf("{user%d}.following", rng.Intn(1000)))
		}
		for _, k := range []string{"", "{}", "{}x", "x{}", "{{}}", "{a}{b}", "a{b", "a}b{c}", "{ab}c"} {
			c.Do("CLUSTER", "KEYSLOT", k)
		}
	})
}

// Reply shapes of the topology subcommands and INFO, normalized for the
// node's ID and ports.
func TestDiffClusterTopology(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		rid, oid := c.DoMode(cmpShape, "CLUSTER", "MYID")
		redisID, ourID := rid.Str, oid.Str
		c.Do("CLUSTER", "INFO")
		for _, sub := range []string{"NODES", "SLOTS", "SHARDS"} {
			p.DoNormalized("A", redisID, ourID, "CLUSTER", sub)
		}
		c.Do("CLUSTER", "LINKS")
		c.Do("CLUSTER", "HELP")
		c.DoMode(cmpIgnore, "SET", "x", "1")
		c.Do("INFO", "CLUSTER")
		p.DoNormalized("A", redisID, ourID, "CLUSTER", "REPLICAS", "")
		// Slot changes show in every view.
		c.Do("CLUSTER", "DELSLOTSRANGE", "100", "200", "300", "300")
		c.Do("CLUSTER", "DELSLOTS", "5", "7")
		for _, sub := range []string{"NODES", "SLOTS", "SHARDS"} {
			p.DoNormalized("A", redisID, ourID, "CLUSTER", sub)
		}
		c.Do("CLUSTER", "INFO")
		c.Do("CLUSTER", "ADDSLOTS", "5", "7")
		c.Do("CLUSTER", "ADDSLOTSRANGE", "100", "200", "300", "300")
		c.Do("CLUSTER", "INFO")
		for _, id := range [][2]string{{redisID, ourID}} {
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "COUNT-FAILURE-REPORTS", id[0]}, []string{"CLUSTER", "COUNT-FAILURE-REPORTS", id[1]})
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "REPLICAS", id[0]}, []string{"CLUSTER", "REPLICAS", id[1]})
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "FORGET", id[0]}, []string{"CLUSTER", "FORGET", id[1]})
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "SETSLOT", "1", "IMPORTING", id[0]}, []string{"CLUSTER", "SETSLOT", "1", "IMPORTING", id[1]})
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "SETSLOT", "1", "NODE", id[0]}, []string{"CLUSTER", "SETSLOT", "1", "NODE", id[1]})
			p.DoNormalizedEach("A", redisID, ourID, []string{"CLUSTER", "SETSLOT", "1", "MIGRATING", id[0]}, []string{"CLUSTER", "SETSLOT", "1", "MIGRATING", id[1]})
		}
		p.DoNormalized("A", redisID, ourID, "CLUSTER", "NODES")
		c.Do("CLUSTER", "SETSLOT", "1", "STABLE")
		p.DoNormalized("A", redisID, ourID, "CLUSTER", "NODES")
		c.Do("CLUSTER", "SAVECONFIG")
		c.Do("CLUSTER", "BUMPEPOCH")
		c.Do("CLUSTER", "BUMPEPOCH")
		c.Do("CLUSTER", "SET-CONFIG-EPOCH", "5")
		c.Do("CLUSTER", "INFO")
		// RESET leaves a node without slots; HARD also zeroes the epochs
		// and gives the node a new ID.
		c.Do("CLUSTER", "RESET")
		c.Do("FLUSHALL")
		c.Do("CLUSTER", "RESET")
		c.Do("CLUSTER", "INFO")
		p.DoNormalized("A", redisID, ourID, "CLUSTER", "NODES")
		c.Do("CLUSTER", "SLOTS")
		p.DoNormalized("A", redisID, ourID, "CLUSTER", "SHARDS")
		c.Do("CLUSTER", "RESET", "HARD")
		c.Do("CLUSTER", "INFO")
		c.DoMode(cmpShape, "CLUSTER", "NODES")
		c.Do("GET", "x")
		c.Do("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
		c.Do("CLUSTER", "SET-CONFIG-EPOCH", "3")
		c.Do("CLUSTER", "BUMPEPOCH")
	})
}

// Error texts of the CLUSTER subcommands and of the commands cluster mode
// restricts.
func TestDiffClusterErrors(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		for _, cmd := range [][]string{
			{"CLUSTER", "ADDSLOTS", "0"},
			{"CLUSTER", "ADDSLOTS", "x"},
			{"CLUSTER", "ADDSLOTS", "16384"},
			{"CLUSTER", "ADDSLOTS", "-1"},
			{"CLUSTER", "ADDSLOTSRANGE", "5", "1"},
			{"CLUSTER", "ADDSLOTSRANGE", "1", "2", "3"},
			{"CLUSTER", "ADDSLOTSRANGE", "1", "x"},
			{"CLUSTER", "DELSLOTS", "1", "1"},
			{"CLUSTER", "DELSLOTSRANGE", "1", "3", "2", "4"},
			{"CLUSTER", "DELSLOTS", "1"},
			{"CLUSTER", "DELSLOTS", "1"},
			{"CLUSTER", "DELSLOTSRANGE", "0", "2"},
			{"CLUSTER", "ADDSLOTS", "1", "1"},
			{"CLUSTER", "ADDSLOTS", "1"},
			{"CLUSTER", "COUNTKEYSINSLOT", "x"},
			{"CLUSTER", "COUNTKEYSINSLOT", "16384"},
			{"CLUSTER", "COUNTKEYSINSLOT", "-1"},
			{"CLUSTER", "GETKEYSINSLOT", "1", "x"},
			{"CLUSTER", "GETKEYSINSLOT", "x", "1"},
			{"CLUSTER", "GETKEYSINSLOT", "1", "-1"},
			{"CLUSTER", "GETKEYSINSLOT", "16384", "1"},
			{"CLUSTER", "SETSLOT", "1", "MIGRATING", "abc"},
			{"CLUSTER", "SETSLOT", "1", "IMPORTING", "abc"},
			{"CLUSTER", "SETSLOT", "1", "NODE", "abc"},
			{"CLUSTER", "SETSLOT", "1", "BOGUS"},
			{"CLUSTER", "SETSLOT", "1", "STABLE", "x"},
			{"CLUSTER", "SETSLOT", "99999", "STABLE"},
			{"CLUSTER", "COUNT-FAILURE-REPORTS", "abc"},
			{"CLUSTER", "FORGET", "abc"},
			{"CLUSTER", "REPLICAS", "abc"},
			{"CLUSTER", "SLAVES", "abc"},
			{"CLUSTER", "RESET", "bogus"},
			{"CLUSTER", "RESET", "soft", "x"},
			{"CLUSTER", "SET-CONFIG-EPOCH", "-1"},
			{"CLUSTER", "SET-CONFIG-EPOCH", "x"},
			{"CLUSTER", "NOSUCH"},
			{"CLUSTER", "KEYSLOT"},
			{"CLUSTER", "INFO", "x"},
			{"READONLY"}, {"READWRITE"}, {"ASKING"},
			{"SELECT", "1"}, {"SELECT", "0"}, {"SELECT", "x"}, {"SELECT", "99"},
			{"SWAPDB", "0", "1"},
			{"MOVE", "k", "1"},
			{"SET", "{k}a", "v"},
			{"COPY", "{k}a", "{k}b", "DB", "1"},
			{"COPY", "{k}a", "{k}b", "DB", "0"},
			{"COPY", "{k}a", "{k}b", "DB", "99"},
			{"RPUSH", "l", "3", "1", "2"},
			{"SORT", "l", "BY", "w_*"},
			{"SORT", "l", "BY", "nosort"},
			{"SORT", "l", "GET", "#"},
			{"SORT", "l", "GET", "o_*"},
			{"SORT_RO", "l", "BY", "w_*"},
			{"SORT", "l", "LIMIT", "0", "1"},
			{"CLUSTER", "FLUSHSLOTS"},
			{"CLUSTER", "RESET"},
			{"MSET", "a", "1", "b", "2"},
			{"MSET", "{a}1", "1", "{a}2", "2"},
			{"MGET", "{a}1", "{a}2", "{a}1"},
			{"DEL", "a", "b"},
			{"RENAME", "{a}1", "{b}1"},
			{"SUNIONSTORE", "{s}d", "{s}a", "{s}b"},
			{"SUNIONSTORE", "{s}d", "{s}a", "b"},
			{"LMPOP", "2", "a", "b", "LEFT"},
			{"ZUNIONSTORE", "{z}d", "2", "{z}a", "{x}b"},
			{"XREAD", "STREAMS", "a", "b", "0", "0"},
			{"BLMOVE", "a", "b", "LEFT", "LEFT", "0"},
			{"SPUBLISH", "ch", "msg"},
			{"PUBLISH", "ch", "msg"},
			{"OBJECT", "ENCODING", "{a}1"},
			{"CLUSTER", "COUNTKEYSINSLOT", "15495"},
			{"CLUSTER", "GETKEYSINSLOT", "15495", "10"},
			{"DBSIZE"},
		} {
			c.Do(cmd...)
		}
	})
}

// READONLY shows in CLIENT LIST's flags (r) until READWRITE or RESET.
func TestDiffClusterReadonlyFlag(t *testing.T) {
	p := newClusterPair(t, 2, "")
	c := p.Conn("A")
	flags := func() {
		t.Helper()
		want, got := c.DoMode(cmpIgnore, "CLIENT", "INFO")
		field := func(s string) string {
			for _, f := range strings.Fields(s) {
				if strings.HasPrefix(f, "flags=") {
					return f
				}
			}
			return ""
		}
		if w, g := field(want.Str), field(got.Str); w != g {
			t.Fatalf("CLIENT INFO %s, redis-server %s", g, w)
		}
	}
	c.Do("READONLY")
	flags()
	c.Do("READWRITE")
	flags()
	c.Do("READONLY")
	c.Do("RESET")
	flags()
	c.Do("ASKING")
	c.Do("RESET")
	c.Do("GET", "a")
}

// Transactions whose keys span slots: a queued command with keys of two
// slots is refused and poisons the transaction; commands of different
// slots queue fine and EXEC replies CROSSSLOT (not EXECABORT) and discards
// the transaction.
func TestDiffClusterTransactions(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		c.Do("MULTI")
		c.Do("SET", "a", "1")
		c.Do("SET", "b", "1")
		c.Do("EXEC")
		c.Do("EXEC")
		c.Do("MGET", "a", "b")
		c.Do("MULTI")
		c.Do("SET", "{u}a", "1")
		c.Do("INCR", "{u}b")
		c.Do("PING")
		c.Do("EXEC")
		c.Do("MULTI")
		c.Do("MSET", "a", "1", "b", "2")
		c.Do("SET", "a", "1")
		c.Do("EXEC")
		c.Do("WATCH", "a")
		c.Do("MULTI")
		c.Do("GET", "a")
		c.Do("GET", "b")
		c.Do("EXEC")
		c.Do("MULTI")
		c.Do("SELECT", "1")
		c.Do("EXEC")
		c.Do("INFO", "ERRORSTATS")
	})
}

// Scripts and functions: declared keys spanning slots are CROSSSLOT; a
// script with a shebang (or a function) touching an undeclared key of
// another slot is refused with Redis's text, through call and pcall; a
// script without a shebang, or with allow-cross-slot-keys, may; a
// no-cluster script does not run.
func TestDiffClusterScripts(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		c.Do("SET", "a", "1")
		c.Do("SET", "{a}b", "2")
		shebang := "#!lua\n"
		for _, script := range []struct {
			body string
			keys []string
		}{
			{"return redis.call('get', KEYS[1])", []string{"a", "b"}},
			{"return redis.call('get', 'b')", []string{"a"}},
			{shebang + "return redis.call('get', 'b')", []string{"a"}},
			{shebang + "return redis.pcall('get', 'b')", []string{"a"}},
			{shebang + "return redis.call('get', '{a}b')", []string{"a"}},
			{shebang + "redis.call('get', 'a'); return redis.call('get', 'b')", nil},
			{shebang + "return redis.call('mget', 'a', 'b')", nil},
			{shebang + "return redis.call('mget', 'a', '{a}b')", nil},
			{shebang + "return redis.call('set', 'b', 'x')", []string{"a"}},
			{"#!lua flags=allow-cross-slot-keys\nredis.call('get', 'a'); return redis.call('get', 'b')", nil},
			{"#!lua flags=allow-cross-slot-keys\nreturn redis.call('mget', 'a', 'b')", nil},
			{"#!lua flags=no-cluster\nreturn 1", nil},
			{"#!lua flags=no-writes\nreturn redis.call('get', 'b')", []string{"a"}},
		} {
			args := append([]string{"EVAL", script.body, fmt.Sprint(len(script.keys))}, script.keys...)
			c.Do(args...)
		}
		c.Do("FUNCTION", "LOAD", "#!lua name=lib\n"+
			"redis.register_function('getb', function(keys, args) return redis.call('get', 'b') end)\n"+
			"redis.register_function{function_name='cross', callback=function(keys, args) redis.call('get', 'a'); return redis.call('get', 'b') end, flags={'allow-cross-slot-keys'}}\n"+
			"redis.register_function{function_name='nocluster', callback=function(keys, args) return 1 end, flags={'no-cluster'}}")
		c.Do("FCALL", "getb", "1", "a")
		c.Do("FCALL", "getb", "2", "a", "b")
		c.Do("FCALL", "getb", "0")
		c.Do("FCALL", "cross", "0")
		c.Do("FCALL", "nocluster", "0")
		c.Do("MULTI")
		c.Do("EVAL", shebang+"return redis.call('get', 'b')", "1", "a")
		c.Do("EVAL", shebang+"return redis.call('get', '{a}b')", "1", "a")
		c.Do("EXEC")
		c.Do("INFO", "ERRORSTATS")
	})
}

// CLUSTERDOWN: a slot without an owner, a cluster that is down because of
// it, reads allowed when down, and sharded pub/sub.
func TestDiffClusterDown(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		c := p.Conn("A")
		c.Do("SET", "bar", "1")
		c.Do("CLUSTER", "DELSLOTS", "12182") // foo's slot
		c.Do("CLUSTER", "INFO")
		c.Do("GET", "foo")
		c.Do("GET", "bar")
		c.Do("MGET", "foo", "bar")
		c.Do("MGET", "bar", "foo")
		c.Do("SPUBLISH", "foo", "m")
		c.Do("SPUBLISH", "bar", "m")
		c.Do("EVAL", "return redis.call('get', 'bar')", "0")
		c.Do("EVAL", "return redis.call('get', 'foo')", "0")
		c.Do("PING")
		c.Do("CONFIG", "SET", "cluster-allow-reads-when-down", "yes")
		c.Do("GET", "bar")
		c.Do("SET", "bar", "2")
		c.Do("EVAL", "return redis.call('set', 'bar', '3')", "0")
		c.Do("MULTI")
		c.Do("SET", "bar", "4")
		c.Do("EXEC")
		c.Do("MULTI")
		c.Do("GET", "bar")
		c.Do("EXEC")
		c.Do("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'bar')", "0")
		c.Do("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "bar")
		c.Do("CONFIG", "SET", "cluster-allow-reads-when-down", "no")
		c.Do("CONFIG", "SET", "cluster-allow-pubsubshard-when-down", "no")
		c.Do("SPUBLISH", "bar", "m")
		c.Do("CONFIG", "SET", "cluster-require-full-coverage", "no")
		time.Sleep(300 * time.Millisecond) // Redis applies it in clusterCron
		c.Do("CLUSTER", "INFO")
		c.Do("GET", "bar")
		c.Do("GET", "foo")
		c.Do("CONFIG", "SET", "cluster-require-full-coverage", "yes")
		c.Do("CLUSTER", "ADDSLOTS", "12182")
		c.Do("CLUSTER", "INFO")
		c.Do("GET", "foo")
		c.Do("INFO", "ERRORSTATS")
	})
}

// A nodes.conf in which another (unreachable) master owns slots
// 8192-16383: MOVED for its keys, ASK while this node migrates a slot and
// lacks a key, TRYAGAIN and ASKING while it imports one. Both servers load
// the same file, so node IDs are the same on both.
const twoNodesConf = "1111111111111111111111111111111111111111 127.0.0.1:{port}@{cport} myself,master - 0 0 1 connected 0-8191\n" +
	"2222222222222222222222222222222222222222 127.0.0.1:1@10001 master - 0 0 2 connected 8192-16383\n" +
	"vars currentEpoch 2 lastVoteEpoch 0\n"

func TestDiffClusterRedirections(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, twoNodesConf, "--cluster-node-timeout", "3600000")
		c := p.Conn("A")
		other := strings.Repeat("2", 40)
		me := strings.Repeat("1", 40)
		p.DoClusterInfo("A")
		p.DoNormalized("A", "", "", "CLUSTER", "SLOTS")
		c.Do("GET", "foo") // slot 12182: the other node's
		c.Do("SET", "foo", "1")
		c.Do("MGET", "bar", "foo")
		c.Do("MGET", "foo", "bar")
		c.Do("MULTI")
		c.Do("GET", "foo")
		c.Do("GET", "bar")
		c.Do("EXEC")
		c.Do("EVAL", "return 1", "1", "foo")
		c.Do("EVAL", "return redis.call('get', 'foo')", "0")
		c.Do("SPUBLISH", "foo", "m")
		c.Do("SSUBSCRIBE", "foo")
		// Migrating slot 5061 (bar) to the other node.
		c.Do("SET", "bar", "1")
		c.Do("CLUSTER", "SETSLOT", "5061", "MIGRATING", other)
		c.Do("GET", "bar")
		c.Do("GET", "{bar}x")
		c.Do("SET", "{bar}x", "1")
		c.Do("MGET", "bar", "{bar}x")
		c.Do("DEL", "bar")
		c.Do("GET", "bar")
		c.Do("SPUBLISH", "bar", "m")
		c.Do("CLUSTER", "COUNTKEYSINSLOT", "5061")
		c.Do("CLUSTER", "SETSLOT", "5061", "NODE", other)
		c.Do("GET", "bar")
		c.Do("CLUSTER", "SETSLOT", "5061", "NODE", me)
		p.DoClusterInfo("A")
		// Importing slot 12182 (foo) from the other node.
		c.Do("CLUSTER", "SETSLOT", "12182", "MIGRATING", other)
		c.Do("CLUSTER", "SETSLOT", "12182", "IMPORTING", other)
		c.Do("GET", "foo")
		c.Do("ASKING")
		c.Do("GET", "foo")
		c.Do("GET", "foo")
		c.Do("ASKING")
		c.Do("MGET", "foo", "{foo}x")
		c.Do("ASKING")
		c.Do("SET", "foo", "1")
		c.Do("ASKING")
		c.Do("MGET", "foo", "{foo}x")
		c.Do("ASKING")
		c.Do("MGET", "foo", "foo")
		c.Do("ASKING")
		c.Do("MULTI")
		c.Do("GET", "foo")
		c.Do("SET", "{foo}x", "2")
		c.Do("EXEC")
		c.Do("GET", "foo")
		c.Do("ASKING")
		c.Do("PING")
		c.Do("GET", "foo")
		c.Do("ASKING")
		c.Do("EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "foo")
		c.Do("CLUSTER", "COUNTKEYSINSLOT", "12182")
		c.Do("CLUSTER", "GETKEYSINSLOT", "12182", "5")
		c.Do("CLUSTER", "SETSLOT", "12182", "NODE", me)
		c.Do("GET", "foo")
		p.DoClusterInfo("A")
		c.Do("CLUSTER", "SETSLOT", "12182", "NODE", other)
		p.DoNormalized("A", "", "", "CLUSTER", "SLOTS")
		p.DoNormalizedSorted("A", "", "", "CLUSTER", "SHARDS")
		c.Do("CLUSTER", "REPLICAS", other)
		c.Do("CLUSTER", "COUNT-FAILURE-REPORTS", other)
		c.Do("CLUSTER", "SET-CONFIG-EPOCH", "9")
		c.Do("CONFIG", "SET", "cluster-preferred-endpoint-type", "unknown-endpoint")
		c.Do("GET", "foo")
		p.DoNormalized("A", "", "", "CLUSTER", "SLOTS")
		c.Do("CONFIG", "SET", "cluster-preferred-endpoint-type", "hostname")
		c.Do("GET", "foo")
		p.DoNormalized("A", "", "", "CLUSTER", "SLOTS")
		c.Do("INFO", "ERRORSTATS")
	})
}

// Without cluster mode every cluster command is refused with Redis's text.
func TestDiffClusterDisabled(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newDiffPairProto(t, proto)
		c := p.Conn("A")
		for _, cmd := range [][]string{
			{"CLUSTER", "INFO"}, {"CLUSTER", "KEYSLOT", "foo"}, {"CLUSTER", "HELP"},
			{"CLUSTER", "NOSUCH"}, {"CLUSTER", "SLOTS"}, {"READONLY"}, {"READWRITE"}, {"ASKING"},
			{"SELECT", "1"}, {"INFO", "CLUSTER"}, {"MSET", "a", "1", "b", "2"},
		} {
			c.Do(cmd...)
		}
	})
}

// Unassigning a slot unsubscribes the subscribers of its shard channels,
// each told with "sunsubscribe"; shard channels of several slots in one
// SSUBSCRIBE are CROSSSLOT.
func TestDiffClusterShardChannels(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, "")
		sub, sub2, c := p.Conn("sub"), p.Conn("sub2"), p.Conn("A")
		sub.Do("SSUBSCRIBE", "foo", "bar")
		sub.Send("SSUBSCRIBE", "{foo}x", "foo")
		sub.Read(cmpExact)
		sub.Read(cmpExact)
		sub.Do("SSUBSCRIBE", "{bar}y")
		sub2.Do("SSUBSCRIBE", "{foo}x")
		c.Do("SPUBLISH", "foo", "m")
		sub.Read(cmpExact)
		c.Do("PUBSUB", "SHARDNUMSUB", "foo", "{foo}x")
		c.Do("CLUSTER", "DELSLOTS", "12182") // foo's slot
		sub.Read(cmpExact)
		sub.Read(cmpExact)
		sub2.Read(cmpExact)
		c.Do("PUBSUB", "SHARDNUMSUB", "foo", "{foo}x")
		c.Do("CLUSTER", "ADDSLOTS", "12182")
		rid := clusterDo(t, p.rn.addr, "CLUSTER", "MYID").Str
		oid := clusterDo(t, p.on.addr, "CLUSTER", "MYID").Str
		p.DoNormalizedEach("A", rid, oid, []string{"CLUSTER", "SETSLOT", "5061", "NODE", rid}, []string{"CLUSTER", "SETSLOT", "5061", "NODE", oid})
		sub.Read(cmpExact) // {bar}y's slot was reassigned (to myself)
		sub.Do("PING")
		sub2.Do("PING")
	})
}

// A client blocked on a key whose slot stops being served here is
// unblocked with CLUSTERDOWN or MOVED (clusterRedirectBlockedClientIfNeeded;
// Redis from its cron, within a second).
func TestDiffClusterBlockedRedirect(t *testing.T) {
	forBothProtocols(t, func(t *testing.T, proto int) {
		p := newClusterPair(t, proto, twoNodesConf, "--cluster-node-timeout", "3600000")
		blk, c := p.Conn("blk"), p.Conn("A")
		other := strings.Repeat("2", 40)
		blk.Send("BLPOP", "bar", "0") // slot 5061, served here
		blk.ExpectNoReply(200 * time.Millisecond)
		c.Do("CLUSTER", "SETSLOT", "5061", "NODE", other)
		blk.Read(cmpExact)
		c.Do("CLUSTER", "SETSLOT", "5061", "NODE", strings.Repeat("1", 40))
		// With full coverage required, Redis's answer to a DELSLOTS of the
		// slot depends on whether its cron runs before the state update
		// (Hash slot not served) or after (The cluster is down): without
		// it the answer is one.
		c.Do("CONFIG", "SET", "cluster-require-full-coverage", "no")
		time.Sleep(300 * time.Millisecond) // Redis applies it in clusterCron
		blk.Send("BZPOPMIN", "bar", "{bar}z", "0")
		blk.ExpectNoReply(200 * time.Millisecond)
		c.Do("CLUSTER", "DELSLOTS", "5061")
		blk.Read(cmpExact)
		blk.Send("XREAD", "BLOCK", "0", "STREAMS", "baz", "$") // slot 4813
		blk.ExpectNoReply(200 * time.Millisecond)
		c.Do("CLUSTER", "DELSLOTS", "4813")
		blk.Read(cmpExact)
		blk.Send("BLPOP", "quux", "0") // slot 3850, served here and untouched
		blk.ExpectNoReply(200 * time.Millisecond)
		c.Do("CLUSTER", "DELSLOTS", "100")
		blk.ExpectNoReply(300 * time.Millisecond)
		c.Do("RPUSH", "quux", "v")
		blk.Read(cmpExact)
		c.Do("INFO", "ERRORSTATS")
	})
}
