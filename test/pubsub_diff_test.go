package test

import (
	"strings"
	"testing"
	"time"
)

// Differential tests of Pub/Sub replies, keyspace notification streams and
// client-side caching invalidations against redis-server 7.0.15. Each
// script's transcript holds every frame every connection received, so
// events, their order and their encoding (RESP2 arrays, RESP3 pushes) are
// all compared.

// psDiffPair starts both servers once for a test.
func psDiffPair(t *testing.T) (redis, ours *psServer) {
	t.Helper()
	redis = psRedisServer(t)
	ours = psOurServer(t)
	return redis, ours
}

// psResp3 prefixes a script with HELLO 3 on the named connections.
func psResp3(script string, conns ...string) string {
	var b strings.Builder
	for _, c := range conns {
		b.WriteString(c + ": HELLO 3\n")
	}
	return b.String() + script
}

func TestPubSubRepliesDiff(t *testing.T) {
	redis, ours := psDiffPair(t)
	for _, tc := range []struct{ name, script string }{
		{"subscribe sequences", pubsubSequences},
		{"publish fan-out", pubsubPublish},
		{"introspection", pubsubIntrospection},
		{"subscribe in MULTI", pubsubMulti},
		{"reset and quit", pubsubReset},
	} {
		for _, proto := range []int{2, 3} {
			script := tc.script
			if proto == 3 {
				script = psResp3(script, "A", "B")
			}
			t.Run(tc.name+"/RESP"+string(rune('0'+proto)), func(t *testing.T) {
				psReset(t, redis, ours)
				psDiff(t, redis, ours, script)
			})
		}
	}
}

const pubsubSequences = `
A: SUBSCRIBE a b a
A: SUBSCRIBE
A: GET x
A: SET x 1
A: ECHO x
A: PING
A: PING hi
A: UNSUBSCRIBE b zz
A: UNSUBSCRIBE
A: UNSUBSCRIBE
A: PSUBSCRIBE p* q* p*
A: PUNSUBSCRIBE x
A: PUNSUBSCRIBE
A: PUNSUBSCRIBE
A: SSUBSCRIBE s1 s2 s1
A: SUNSUBSCRIBE s2
A: PUBLISH s1 x
A: SUNSUBSCRIBE
A: SUNSUBSCRIBE
A: PSUBSCRIBE a?
A: SUBSCRIBE c
A: SSUBSCRIBE d
A: UNSUBSCRIBE
A: PUNSUBSCRIBE
A: PING
A: SUNSUBSCRIBE
A: PING
A: GET x
A: SUBSCRIBE "with space" "" "\r\n"
A: UNSUBSCRIBE "" "with space"
A: UNSUBSCRIBE
`

const pubsubPublish = `
A: SUBSCRIBE news
B: PSUBSCRIBE n* *s
C: PUBLISH news hello :: sorted
C: PUBLISH nothing x
C: PUBLISH other x
C: PUBLISH ns "" :: sorted
A: PSUBSCRIBE ne?s
C: PUBLISH news two :: sorted
B: PUNSUBSCRIBE *s
C: PUBLISH news three
A: SSUBSCRIBE news
C: SPUBLISH news shard
C: SPUBLISH none shard
A: UNSUBSCRIBE
C: PUBLISH news four
A: PUNSUBSCRIBE
A: SUNSUBSCRIBE
C: PUBLISH news five
B: PSUBSCRIBE [nm]ews h\\*llo
C: PUBLISH mews x
C: PUBLISH h*llo x
C: PUBLISH hallo x
`

const pubsubIntrospection = `
A: SUBSCRIBE c1 c2
B: SUBSCRIBE c2 c3
B: PSUBSCRIBE p1 p2
C: PUBSUB CHANNELS :: sorted
C: PUBSUB CHANNELS c[12] :: sorted
C: PUBSUB CHANNELS nomatch
C: PUBSUB CHANNELS a b
C: PUBSUB NUMSUB
C: PUBSUB NUMSUB c1 c2 c3 c4
C: PUBSUB NUMPAT
C: PUBSUB NUMPAT x
C: PUBSUB SHARDCHANNELS
A: SSUBSCRIBE s1
C: PUBSUB SHARDCHANNELS
C: PUBSUB SHARDCHANNELS s*
C: PUBSUB SHARDNUMSUB s1 s2
C: PUBSUB SHARDNUMSUB
C: PUBSUB SHARDCHANNELS a b
C: PUBSUB HELP
C: PUBSUB NOSUCH
C: PUBSUB
B: QUIT
C: PUBSUB NUMSUB c2 c3
C: PUBSUB NUMPAT
`

const pubsubMulti = `
A: MULTI
A: SUBSCRIBE z
A: PSUBSCRIBE y*
A: SSUBSCRIBE q
A: PING
A: EXEC
A: PING
B: PUBLISH z msg
B: PUBLISH yy msg
A: UNSUBSCRIBE z
A: PUNSUBSCRIBE
A: MULTI
A: GET x
`

const pubsubReset = `
A: SUBSCRIBE a
A: PSUBSCRIBE b*
A: SSUBSCRIBE c
A: RESET
B: PUBLISH a x
B: PUBLISH bb x
B: SPUBLISH c x
B: PUBSUB NUMPAT
A: GET x
A: SUBSCRIBE d
A: QUIT
B: PUBSUB NUMSUB d
`

// keyspaceCommands exercises every string and generic command implemented
// so far, with the cases where Redis raises no event (failed conditions,
// errors, reads) between those where it does.
const keyspaceCommands = `
W: SET k v
W: SET k v2 XX
W: SET k v3 NX
W: SET n v NX
W: SET k v GET
W: SET k v EX 100
W: SET k v KEEPTTL
W: SET k v PX 100000 KEEPTTL
W: SET k v PXAT 9999999999999
W: SET k v EXAT 9999999999
W: SET k v XX GET
W: SET nk v XX GET
W: SET k v EX 0
W: SETNX k x
W: SETNX k2 x
W: SETEX k3 100 v
W: SETEX k3 -1 v
W: PSETEX k4 100000 v
W: GETSET k5 v
W: GETSET k5 w
W: GETEX k5
W: GETEX k5 EX 100
W: GETEX k5 PX 100000
W: GETEX k5 PERSIST
W: GETEX k5 PERSIST
W: GETEX k5 EXAT 1
W: GETEX nokey EX 10
W: GETDEL k4
W: GETDEL k4
W: MSET a 1 b 2 a 3
W: MSETNX a 1 c 2
W: MSETNX c 1 d 2
W: INCR i
W: INCRBY i 5
W: DECR i
W: DECRBY i 2
W: INCRBY i 0
W: INCRBYFLOAT f 1.5
W: INCRBYFLOAT f 0
W: INCR k
W: APPEND ap x
W: APPEND ap ""
W: SETRANGE sr 5 x
W: SETRANGE sr 0 ""
W: SETRANGE nosr 0 ""
W: SETRANGE nosr2 3 y
W: GET k
W: GET nokey
W: MGET k nokey a
W: STRLEN k
W: STRLEN nokey
W: GETRANGE k 0 -1
W: SUBSTR nokey 0 1
W: LCS a b
W: LCS nokey1 nokey2
W: DEL a b nokey
W: UNLINK c d
W: EXISTS k nokey
W: TYPE k
W: TYPE nokey
W: RENAME k kk
W: RENAME kk kk
W: RENAME nokey x
W: RENAMENX kk i
W: RENAMENX kk k
W: MOVE k 1
W: MOVE nokey 1
W: SELECT 1
W: SET k other
W: SELECT 0
W: SET k v
W: MOVE k 1
W: COPY k k2
W: COPY k k2
W: COPY k k2 REPLACE
W: COPY k kdb1 DB 1
W: COPY nokey x
W: EXPIRE k 100
W: EXPIRE k 100 NX
W: EXPIRE k 200 XX
W: EXPIRE k 50 GT
W: EXPIRE k 50 LT
W: PEXPIRE k 100000
W: EXPIREAT k 9999999999
W: PEXPIREAT k 9999999999999
W: PERSIST k
W: PERSIST k
W: EXPIRE nokey 10
W: TTL k
W: PTTL nokey
W: EXPIRETIME nokey
W: PEXPIRETIME k
W: EXPIRE k -1
W: EXPIRE k2 0
W: PEXPIREAT i 1
W: TOUCH kk nokey
W: OBJECT ENCODING kk
W: OBJECT ENCODING nokey
W: OBJECT REFCOUNT nokey
W: KEYS * :: sorted
W: DBSIZE
W: SET x 1
W: SWAPDB 0 1
W: SWAPDB 0 1
W: FLUSHDB
W: SET x 1
W: SELECT 1
W: FLUSHALL
W: SELECT 0
`

// keyspaceTypes covers the hash, set and sorted set commands: events,
// no-op writes that raise none, and the "del" that follows a write that
// empties a key.
const keyspaceTypes = `
W: HSET h f 1 g 2
W: HSET h f 1
W: HMSET h a 1
W: HSETNX h f 9
W: HSETNX h n 9
W: HINCRBY h i 2
W: HINCRBY h i 0
W: HINCRBYFLOAT h fl 1.5
W: HINCRBY h g notanumber
W: HGET h f
W: HGET nohash f
W: HMGET nohash a b
W: HGETALL nohash
W: HKEYS h
W: HLEN nohash
W: HEXISTS nohash f
W: HSTRLEN h f
W: HRANDFIELD nohash
W: HDEL h nofield
W: HDEL h f g n a
W: HDEL h i fl
W: HDEL h x
W: SADD s a b c
W: SADD s a
W: SREM s nomember
W: SREM s a
W: SISMEMBER nos a
W: SMEMBERS nos
W: SCARD nos
W: SMISMEMBER nos a
W: SRANDMEMBER nos
W: SMOVE s s2 b
W: SMOVE s s2 nomember
W: SMOVE s s2 c
W: SADD s a b
W: SPOP nos
W: SPOP s 0
W: SADD t b c d
W: SINTERSTORE dst s t
W: SINTERSTORE dst s nos
W: SINTERSTORE dst s nos
W: SUNIONSTORE dst s t
W: SDIFFSTORE dst s t
W: SDIFFSTORE dst t t
W: SINTER s nos
W: SUNION nos nos2
W: SDIFF nos s
W: SINTERCARD 2 s nos
W: SPOP t 5 :: sorted
W: SREM s a b
W: ZADD z 1 a 2 b
W: ZADD z 1 a
W: ZADD z XX 5 nomember
W: ZADD z NX 5 a
W: ZADD z CH 3 a
W: ZADD z INCR 1 a
W: ZINCRBY z 0 a
W: ZINCRBY z 1 c
W: ZSCORE noz a
W: ZMSCORE noz a
W: ZRANK noz a
W: ZCARD noz
W: ZCOUNT noz 0 1
W: ZRANGE noz 0 -1
W: ZRANGEBYSCORE noz 0 1
W: ZRANDMEMBER noz
W: ZRANGESTORE zd z 0 0
W: ZRANGESTORE zd noz 0 -1
W: ZRANGESTORE zd noz 0 -1
W: ZUNIONSTORE zu 2 z noz
W: ZINTERSTORE zu 2 z noz
W: ZDIFFSTORE zu 1 z
W: ZUNION 2 noz noz2
W: ZINTER 2 z noz
W: ZDIFF 1 noz
W: ZINTERCARD 1 noz
W: ZREM z nomember
W: ZREM z a
W: ZREMRANGEBYSCORE z 100 200
W: ZREMRANGEBYRANK z 0 0
W: ZADD z 0 a 0 b 0 c 0 d
W: ZREMRANGEBYLEX z [a [b
W: ZPOPMIN z
W: ZPOPMAX z 5
W: ZPOPMIN noz
W: ZADD z 1 x 2 y
W: ZMPOP 1 z MIN COUNT 10
W: ZMPOP 1 noz MAX
W: HSET tobedeleted f v
W: SADD tobedeleted x
W: DEL tobedeleted
`

// keyspaceExpiry covers lazy expiry (on reads and writes) and active
// expiry, then a transaction.
const keyspaceExpiry = `
W: DEBUG SET-ACTIVE-EXPIRE 0
W: SET e1 v PX 20
W: SET e2 v PX 20
W: SET e3 v PX 20
W: SET e4 v PX 20
sleep 120
W: GET e1
W: EXISTS e2
W: SET e3 new
W: DEL e4
W: DEBUG SET-ACTIVE-EXPIRE 1
W: SET e5 v PX 20
sleep 600
W: PING
W: MULTI
W: SET m 1
W: INCR m
W: DEL m
W: EXEC
`

func TestKeyspaceNotificationsDiff(t *testing.T) {
	redis, ours := psDiffPair(t)
	for _, flags := range []string{"KEA", "AKEmn", "Kg$", "Ex", "Km", "En", "A", "Khsz"} {
		for _, writerProto := range []int{2, 3} {
			script := "S: PSUBSCRIBE __key*__:*\n" +
				"T: HELLO 3\n" +
				"T: PSUBSCRIBE __key*__:*\n" +
				"W: CONFIG SET notify-keyspace-events " + flags + "\n" +
				keyspaceCommands
			if flags == "KEA" || flags == "AKEmn" || flags == "Ex" {
				script += keyspaceExpiry
			}
			if flags == "KEA" || flags == "AKEmn" || flags == "Km" || flags == "En" || flags == "Khsz" {
				script += keyspaceTypes
			}
			if writerProto == 3 {
				script = psResp3(script, "W")
			}
			t.Run(flags+"/writer-RESP"+string(rune('0'+writerProto)), func(t *testing.T) {
				psReset(t, redis, ours)
				psDiff(t, redis, ours, script)
			})
		}
	}
}

// TestKeyspaceNotificationsToSelf checks the order of a RESP3 client's own
// events and replies: events raised by its command come before the reply.
func TestKeyspaceNotificationsToSelf(t *testing.T) {
	redis, ours := psDiffPair(t)
	psReset(t, redis, ours)
	psDiff(t, redis, ours, `
A: HELLO 3
A: CONFIG SET notify-keyspace-events KEA
A: SUBSCRIBE __keyspace@0__:k __keyevent@0__:del
A: SET k v
A: SET k v EX 100
A: GET k
A: DEL k nokey
A: MULTI
A: SET k 1
A: DEL k
A: EXEC
A: PUBLISH __keyspace@0__:k hand-made
`)
}

func TestTrackingDiff(t *testing.T) {
	redis, ours := psDiffPair(t)
	for _, tc := range []struct{ name, script string }{
		{"options and errors", trackingOptions},
		{"redirect", trackingRedirect},
		{"optin optout noloop", trackingOptInOut},
		{"bcast", trackingBcast},
		{"own writes and transactions", trackingSelf},
		{"expiry and flush", trackingExpiry},
		{"eviction", trackingEviction},
		{"eviction order volatile-ttl", evictionOrderTTL},
		{"eviction order volatile-lru", evictionOrderLRU},
		{"scripts and functions", trackingScripts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			psReset(t, redis, ours)
			psDiff(t, redis, ours, tc.script)
		})
	}
}

// trackingScripts: a script's read commands make Redis 7.0 remember the
// keys the script declared (trackingRememberKeys on the caller's argv),
// not the keys the command read; a script that reads nothing remembers
// none, while EVAL_RO and FCALL_RO are read commands themselves.
const trackingScripts = `
A: HELLO 3
A: CLIENT TRACKING on
A: EVAL "return redis.call('get', KEYS[1])" 2 d1 d2
C: SET d1 1
C: SET d2 1
A: EVAL "return redis.call('get', 'undeclared')" 0
C: SET undeclared 1
A: EVAL "return redis.call('get', 'u2')" 1 declared
C: SET u2 1
C: SET declared 1
A: EVAL "return redis.call('set', KEYS[1], 'x')" 1 w1
C: SET w1 2
A: EVAL "return 1" 1 none
C: SET none 1
A: EVAL_RO "return 1" 1 ro1
C: SET ro1 1
A: EVAL_RO "return redis.call('get', 'u3')" 1 ro2
C: SET u3 1
C: SET ro2 1
A: FUNCTION LOAD "#!lua name=tlib\nredis.register_function{function_name='rd', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}\nredis.register_function('nothing', function() return 1 end)"
A: FCALL rd 1 f1
C: SET f1 1
A: FCALL nothing 1 f2
C: SET f2 1
A: FCALL_RO rd 1 f3
C: SET f3 1
A: FCALL_RO nothing 1 f4
C: SET f4 1
A: FUNCTION FLUSH
A: MULTI
A: EVAL "return redis.call('get', KEYS[1])" 1 m1
A: EXEC
C: SET m1 1
A: PING
`

const trackingOptions = `
A: CLIENT TRACKING
A: CLIENT TRACKING maybe
A: CLIENT TRACKING on prefix a
A: CLIENT TRACKING on bcast optin
A: CLIENT TRACKING on optin optout
A: CLIENT TRACKING on redirect 99999
A: CLIENT TRACKING on redirect abc
A: CLIENT TRACKING on redirect
A: CLIENT TRACKING on prefix
A: CLIENT TRACKING on bcast prefix ab prefix a
A: CLIENT TRACKING on bcast prefix x prefix ab prefix a
A: CLIENT TRACKINGINFO
A: CLIENT TRACKING off
A: CLIENT TRACKING on bcast prefix x
A: CLIENT TRACKING on bcast prefix xy
A: CLIENT TRACKING on bcast prefix x
A: CLIENT TRACKING on bcast prefix z
A: CLIENT TRACKINGINFO
A: CLIENT TRACKING on
A: CLIENT TRACKING off
A: CLIENT TRACKING on optin
A: CLIENT TRACKING on optout
A: CLIENT TRACKING on optin noloop
A: CLIENT TRACKINGINFO
A: CLIENT CACHING yes
A: CLIENT TRACKINGINFO
A: CLIENT CACHING no
A: CLIENT CACHING maybe
A: CLIENT GETREDIR
A: CLIENT TRACKING off
A: CLIENT GETREDIR
A: CLIENT CACHING yes
A: CLIENT TRACKINGINFO
A: CLIENT TRACKING off bcast
A: CLIENT TRACKING off redirect 99999
A: CLIENT TRACKING on noloop noloop
A: CLIENT TRACKING on redirect 0
A: CLIENT TRACKING on redirect $B redirect $C
A: CLIENT TRACKING on redirect $B
A: CLIENT GETREDIR
A: HELLO 3
A: CLIENT TRACKINGINFO
A: CLIENT TRACKING off
A: CLIENT TRACKING on bcast
A: CLIENT TRACKING on bcast prefix q
A: CLIENT TRACKINGINFO
B: PING
C: PING
`

const trackingRedirect = `
B: SUBSCRIBE __redis__:invalidate
A: CLIENT TRACKING on redirect $B
A: GET k
C: SET k 1
A: GET k
A: SET k 2
A: MGET k k2 k3
C: MSET k 3 k3 4
A: FLUSHDB
A: GET k
D: HELLO 3
E: CLIENT TRACKING on redirect $D
E: GET r
C: SET r 1
E: CLIENT TRACKING on redirect $C
E: GET r
C: SET r 2
B: QUIT
A: SET k 1
A: CLIENT TRACKINGINFO
A: GET k
C: SET k 1
A: HELLO 3
A: GET k
C: SET k 1
A: CLIENT TRACKINGINFO
A: CLIENT TRACKING on
A: CLIENT TRACKINGINFO
A: GET k
C: SET k 2
`

const trackingOptInOut = `
A: HELLO 3
A: CLIENT TRACKING on optin
A: GET a
C: SET a 1
A: CLIENT CACHING yes
A: CLIENT ID
A: GET a
C: SET a 2
A: CLIENT CACHING yes
A: PING
A: GET a
C: SET a 3
A: CLIENT CACHING yes
A: MULTI
A: GET a
A: EXEC
C: SET a 4
A: MULTI
A: CLIENT CACHING yes
A: GET a
A: EXEC
A: GET b
C: SET a 5
C: SET b 5
A: CLIENT CACHING yes
A: NOSUCHCOMMAND
A: GET b
C: SET b 6
A: CLIENT CACHING yes
A: CLIENT NOSUCH
A: GET b
C: SET b 7
A: CLIENT CACHING yes
A: CLIENT CACHING
A: GET b
C: SET b 8
A: CLIENT TRACKING off
A: CLIENT TRACKING on optout
A: GET a
C: SET a 6
A: CLIENT CACHING no
A: GET a
C: SET a 7
A: CLIENT TRACKING off
A: CLIENT TRACKING on noloop
A: GET a
A: SET a 8
A: GET a
C: SET a 9
`

const trackingBcast = `
A: HELLO 3
A: CLIENT TRACKING on bcast prefix a prefix b
D: HELLO 3
D: CLIENT TRACKING on bcast noloop
C: SET a1 1
C: SET c1 1
A: SET b1 1
D: SET a2 2
D: MULTI
D: SET a3 3
D: SET c3 3
D: SET a2 4
D: EXEC
C: MSET b2 1 a9 2 b0 3
C: DEL b2 nokey
C: FLUSHDB
A: FLUSHALL
A: CLIENT TRACKING off
C: SET a1 1
D: CLIENT TRACKINGINFO
`

const trackingSelf = `
A: HELLO 3
A: CLIENT TRACKING on
A: GET k
A: SET k 1
A: GET k
A: MULTI
A: SET k 2
A: GET k
A: SET k 3
A: EXEC
A: GET k
A: GET j
A: MSET k 1 j 2
A: GET k
A: FLUSHALL
A: GET k
A: DEL k
A: SET k 1
A: CLIENT TRACKING off
C: SET k 2
B: CLIENT TRACKING on redirect $A
B: GET k
A: SET k 3
`

const trackingExpiry = `
A: HELLO 3
A: CLIENT TRACKING on
C: DEBUG SET-ACTIVE-EXPIRE 0
C: SET e v PX 20
A: GET e
sleep 120
C: EXISTS e
A: GET e
C: SET e2 v PX 20
A: GET e2
C: DEBUG SET-ACTIVE-EXPIRE 1
sleep 600
C: PING
A: GET x
C: SET x 1
C: SWAPDB 0 1
A: GET x
C: SELECT 1
C: SET x 2
C: FLUSHDB
`

// trackingEviction: an evicted key is invalidated (signalModifiedKey) and
// then notified as "evicted", on a connection that gets both.
const trackingEviction = `
A: HELLO 3
A: CLIENT TRACKING on
A: SUBSCRIBE __keyevent@0__:evicted __keyspace@0__:big
C: CONFIG SET notify-keyspace-events KEA
C: SET big value
A: GET big
C: CONFIG SET maxmemory-policy allkeys-random
C: CONFIG SET maxmemory 1
C: GET nothing
C: CONFIG SET maxmemory 0
C: DBSIZE
`

// evictionOrderTTL: with a handful of volatile keys every one is in
// Redis's eviction pool (EVPOOL_SIZE 16, maxmemory-samples 5 per db), so
// volatile-ttl evicts them nearest deadline first, whatever the order they
// were written in; keys without a TTL stay.
const evictionOrderTTL = `
A: SUBSCRIBE __keyevent@0__:evicted
C: CONFIG SET notify-keyspace-events Ee
C: CONFIG SET maxmemory-policy volatile-ttl
C: SET p1 v
C: SET t5 v EX 5000
C: SET t2 v EX 2000
C: SET p2 v
C: SET t4 v EX 4000
C: SET t1 v EX 1000
C: SET t3 v EX 3000
C: CONFIG SET maxmemory 1
C: GET nothing
C: CONFIG SET maxmemory 0
C: DBSIZE
`

// evictionOrderLRU: volatile-lru evicts the least recently used volatile
// key first (reads set the LRU clock, OBJECT FREQ/IDLETIME aside).
const evictionOrderLRU = `
A: SUBSCRIBE __keyevent@0__:evicted
C: CONFIG SET notify-keyspace-events Ee
C: CONFIG SET maxmemory-policy volatile-lru
C: SET a v EX 1000
C: SET b v EX 1000
C: SET c v EX 1000
C: SET keep v
C: DEBUG SLEEP 1.1
C: GET c
C: DEBUG SLEEP 1.1
C: GET a
C: CONFIG SET maxmemory 1
C: GET nothing
C: CONFIG SET maxmemory 0
C: DBSIZE
`

// TestNotifyKeyspaceEventsFlag: the setting given on the command line is
// in effect from the start (CONFIG SET is covered by the scripts above).
func TestNotifyKeyspaceEventsFlag(t *testing.T) {
	srv := psOurServer(t, "--notify-keyspace-events", "gKE")
	sub, w := psDial(t, srv.addr, "S"), psDial(t, srv.addr, "W")
	w.send("CONFIG", "GET", "notify-keyspace-events")
	if f, err := w.readFrame(5 * time.Second); err != nil || string(f) != "*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\ngKE\r\n" {
		t.Fatalf("CONFIG GET: %q %v", f, err)
	}
	sub.send("SUBSCRIBE", "__keyevent@0__:del")
	sub.readFrame(5 * time.Second)
	w.send("SET", "k", "v")
	w.readFrame(5 * time.Second)
	w.send("DEL", "k")
	w.readFrame(5 * time.Second)
	if f, err := sub.readFrame(5 * time.Second); err != nil || string(f) != "*3\r\n$7\r\nmessage\r\n$18\r\n__keyevent@0__:del\r\n$1\r\nk\r\n" {
		t.Fatalf("event: %q %v", f, err)
	}
}
