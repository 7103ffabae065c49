package db

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/rdb"
)

// The write choke point, checked without redis-server (STYLE.md principle 1,
// spec/watch.md §2). Every exported method of package db that can change a
// key has rows in mutatorCases: each row builds a keyspace, runs one call and
// lists the announcements the observer must hear, in order: "k" for one
// Modified of key k in db 0 ("1:k" in db 1), "flushed:N" and "swapped:A:B"
// for the whole-db writes. A modification must be announced exactly once,
// and a no-op that Redis does not signal (the "-" rows of spec T-5) not at
// all. TestEveryMutatorHasRows parses the package and fails when an exported
// method is neither in the table nor in readOnlyMethods, so a new mutator
// cannot be added without saying how it signals.

// touchRecorder records what the observer hears about modifications.
type touchRecorder struct{ got []string }

func (r *touchRecorder) Modified(d *DB, key string) {
	if d.ID() == 0 {
		r.got = append(r.got, key)
	} else {
		r.got = append(r.got, fmt.Sprintf("%d:%s", d.ID(), key))
	}
}
func (r *touchRecorder) Notify(d *DB, ev Event, key string) {}
func (r *touchRecorder) Ready(d *DB, key string, t Type)    {}
func (r *touchRecorder) Flushed(db int)                     { r.got = append(r.got, fmt.Sprintf("flushed:%d", db)) }
func (r *touchRecorder) Swapped(a, b int)                   { r.got = append(r.got, fmt.Sprintf("swapped:%d:%d", a, b)) }

type mutatorCase struct {
	method string // Receiver.Method the row exercises
	what   string // the Redis command or situation
	setup  func(d *DB)
	run    func(d *DB)
	want   []string // announcements, in order (nil: none)
}

// b is []byte(s), to keep the rows short.
func b(s string) []byte { return []byte(s) }

// mutatorsNow is the keyspace time of every row; stale keys have deadlines
// before it.
const mutatorsNow = 1_000_000

func setStr(d *DB, k, v string) { d.SetString(b(k), b(v), TTLClear, 0, EvSet) }
func setStale(d *DB, k string)  { d.SetString(b(k), b("v"), TTLSet, mutatorsNow+10, EvSet) }
func setTTL(d *DB, k string)    { d.SetString(b(k), b("v"), TTLSet, mutatorsNow+100_000, EvSet) }
func rpush(d *DB, k string, vals ...string) {
	d.ListPush(b(k), bs(vals...), false, false)
}
func sadd(d *DB, k string, ms ...string) { d.SetAdd(b(k), bs(ms...)) }
func hset(d *DB, k string, fv ...string) { d.HashSet(b(k), bs(fv...)) }
func zadd(d *DB, k string, score float64, m string) {
	d.ZAdd(b(k), []float64{score}, bs(m), 0)
}

// makeStale moves the clock past the deadlines setStale gives.
func makeStale(d *DB) { d.Keyspace().SetTime(mutatorsNow + 20) }

func allScores() *ScoreRange { return &ScoreRange{Min: -1e300, Max: 1e300} }

func readZ(d *DB, keys ...string) []ZSource {
	srcs, err := d.ReadZSources(bs(keys...))
	if err != nil {
		panic(err)
	}
	return srcs
}

func readS(d *DB, keys ...string) []*Set {
	sets, err := d.ReadSets(bs(keys...))
	if err != nil {
		panic(err)
	}
	return sets
}

func zseq(d *DB, key string) func(func(*ZNode) bool) {
	return func(yield func(*ZNode) bool) {
		z, _ := d.LookupZSet(b(key))
		if z == nil {
			return
		}
		z.Each(yield)
	}
}

func none(d *DB) {}

func xadd(d *DB, k string, ms uint64) {
	d.XAdd(b(k), XAddArgs{ID: StreamID{ms, 0}, IDGiven: true, SeqGiven: true, FV: bs("f", "v")})
}

// xaddGroup makes stream s with entry 5-0 and group g.
func xaddGroup(d *DB) {
	xadd(d, "s", 5)
	d.XGroupCreate(b("s"), b("g"), StreamID{}, false, -1, false)
}

var mutatorCases = []mutatorCase{
	// Strings.
	{"DB.SetString", "SET k v", none, func(d *DB) { setStr(d, "k", "v") }, []string{"k"}},
	{"DB.SetString", "SET k v (same value)", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { setStr(d, "k", "v") }, []string{"k"}},
	{"DB.SetStringNoInt", "INCRBYFLOAT's store", none, func(d *DB) { d.SetStringNoInt(b("k"), b("1.5"), TTLKeep, 0, EvIncrByFloat) }, []string{"k"}},
	{"DB.AppendString", "APPEND k x", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.AppendString(b("k"), b("x"), 1<<20) }, []string{"k"}},
	{"DB.AppendString", "APPEND k '' (creates the key)", none, func(d *DB) { d.AppendString(b("k"), nil, 1<<20) }, []string{"k"}},
	{"DB.AppendString", "APPEND k '' on an existing key", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.AppendString(b("k"), nil, 1<<20) }, []string{"k"}},
	{"DB.AppendString", "APPEND to a list (WRONGTYPE)", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.AppendString(b("k"), b("x"), 1<<20) }, nil},
	{"DB.SetRange", "SETRANGE k 1 x", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.SetRange(b("k"), 1, b("x"), 1<<20) }, []string{"k"}},
	{"DB.SetRange", "SETRANGE k 0 '' (existing)", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.SetRange(b("k"), 0, nil, 1<<20) }, nil},
	{"DB.SetRange", "SETRANGE k 0 '' (missing)", none, func(d *DB) { d.SetRange(b("k"), 0, nil, 1<<20) }, nil},

	// Bitmaps (bitops.c: SETBIT and BITFIELD signal only when a bit changed
	// or the string grew; BITOP signals its destination, or its deletion).
	{"DB.SetBit", "SETBIT k 7 1 (new key)", none, func(d *DB) { d.SetBit(b("k"), 7, true) }, []string{"k"}},
	{"DB.SetBit", "SETBIT k 7 0 (changes the bit)", func(d *DB) { d.SetBit(b("k"), 7, true) }, func(d *DB) { d.SetBit(b("k"), 7, false) }, []string{"k"}},
	{"DB.SetBit", "SETBIT k 7 1 (bit already set)", func(d *DB) { d.SetBit(b("k"), 7, true) }, func(d *DB) { d.SetBit(b("k"), 7, true) }, nil},
	{"DB.SetBit", "SETBIT on a list (WRONGTYPE)", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.SetBit(b("k"), 7, true) }, nil},
	{"DB.Bitfield", "BITFIELD k SET u8 0 5", none, func(d *DB) {
		d.Bitfield(b("k"), []BitfieldOp{{Kind: BitfieldSetOp, Bits: 8, Value: 5}}, nil)
	}, []string{"k"}},
	{"DB.Bitfield", "BITFIELD k SET u8 0 5 (same value)", func(d *DB) {
		d.Bitfield(b("k"), []BitfieldOp{{Kind: BitfieldSetOp, Bits: 8, Value: 5}}, nil)
	}, func(d *DB) {
		d.Bitfield(b("k"), []BitfieldOp{{Kind: BitfieldSetOp, Bits: 8, Value: 5}}, nil)
	}, nil},
	{"DB.BitOp", "BITOP OR d a", func(d *DB) { setStr(d, "a", "x") }, func(d *DB) { d.BitOp(BitOpOr, b("d"), bs("a")) }, []string{"d"}},
	{"DB.BitOp", "BITOP OR d missing (d exists: deleted)", func(d *DB) { setStr(d, "d", "x") }, func(d *DB) { d.BitOp(BitOpOr, b("d"), bs("m")) }, []string{"d"}},
	{"DB.BitOp", "BITOP OR d missing (d missing)", none, func(d *DB) { d.BitOp(BitOpOr, b("d"), bs("m")) }, nil},

	// HyperLogLog (hyperloglog.c: PFADD signals when a register changed or
	// the key was created; PFCOUNT of one key when it writes the cached
	// cardinality; PFMERGE always; PFDEBUG never).
	{"DB.PFAdd", "PFADD h a", none, func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000) }, []string{"h"}},
	{"DB.PFAdd", "PFADD h a (already counted)", func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000) }, func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000) }, nil},
	{"DB.PFCount", "PFCOUNT h (stale cache: written)", func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000) }, func(d *DB) { d.PFCount(b("h")) }, []string{"h"}},
	{"DB.PFCount", "PFCOUNT h (cached)", func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000); d.PFCount(b("h")) }, func(d *DB) { d.PFCount(b("h")) }, nil},
	{"DB.PFCount", "PFCOUNT of a missing key", none, func(d *DB) { d.PFCount(b("h")) }, nil},
	{"DB.PFMerge", "PFMERGE d h", func(d *DB) { d.PFAdd(b("h"), bs("a"), 3000) }, func(d *DB) { d.PFMerge(bs("d", "h"), 3000) }, []string{"d"}},
	{"DB.PFMerge", "PFMERGE d (nothing to merge: still signals)", none, func(d *DB) { d.PFMerge(bs("d"), 3000) }, []string{"d"}},

	// Geo and SORT stores: the destination is replaced (or deleted when the
	// result is empty and it existed).
	{"DB.GeoStore", "GEOSEARCHSTORE d ...", none, func(d *DB) { d.GeoStore(b("d"), []string{"m"}, []float64{1}, EvGeoSearchStore) }, []string{"d"}},
	{"DB.GeoStore", "GEOSEARCHSTORE d (empty result, d exists)", func(d *DB) { setStr(d, "d", "v") }, func(d *DB) { d.GeoStore(b("d"), nil, nil, EvGeoSearchStore) }, []string{"d"}},
	{"DB.GeoStore", "GEOSEARCHSTORE d (empty result, d missing)", none, func(d *DB) { d.GeoStore(b("d"), nil, nil, EvGeoSearchStore) }, nil},
	{"DB.StoreList", "SORT k STORE d", none, func(d *DB) { d.StoreList(b("d"), []string{"a"}, EvSortStore) }, []string{"d"}},
	{"DB.StoreList", "SORT k STORE d (empty result, d exists)", func(d *DB) { setStr(d, "d", "v") }, func(d *DB) { d.StoreList(b("d"), nil, EvSortStore) }, []string{"d"}},
	{"DB.StoreList", "SORT k STORE d (empty result, d missing)", none, func(d *DB) { d.StoreList(b("d"), nil, EvSortStore) }, nil},

	// Streams (t_stream.c): XADD, XDEL, XTRIM and XGROUP CREATE MKSTREAM
	// signal the key; the group and PEL writes do not (unsignalledMutators).
	{"DB.XAdd", "XADD s 5-0 f v", none, func(d *DB) { xadd(d, "s", 5) }, []string{"s"}},
	{"DB.XAdd", "XADD s 1-0 f v (ID too small)", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { xadd(d, "s", 1) }, nil},
	{"DB.XAdd", "XADD s NOMKSTREAM (missing)", none, func(d *DB) { d.XAdd(b("s"), XAddArgs{NoMkStream: true, FV: bs("f", "v")}) }, nil},
	{"DB.XTrim", "XTRIM s MAXLEN 1", func(d *DB) { xadd(d, "s", 5); xadd(d, "s", 6) }, func(d *DB) { d.XTrim(b("s"), TrimSpec{MaxLen: 1}) }, []string{"s"}},
	{"DB.XTrim", "XTRIM s MAXLEN 5 (nothing trimmed)", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { d.XTrim(b("s"), TrimSpec{MaxLen: 5}) }, nil},
	{"DB.XDel", "XDEL s 5-0", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { d.XDel(b("s"), []StreamID{{5, 0}}) }, []string{"s"}},
	{"DB.XDel", "XDEL s 9-0 (missing ID)", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { d.XDel(b("s"), []StreamID{{9, 0}}) }, nil},
	{"DB.XSetID", "XSETID s 50-0 (not signalled by 7.0)", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { d.XSetID(b("s"), StreamID{50, 0}, -1, StreamID{}) }, nil},
	{"DB.XGroupCreate", "XGROUP CREATE m g 0 MKSTREAM", none, func(d *DB) { d.XGroupCreate(b("m"), b("g"), StreamID{}, false, -1, true) }, []string{"m"}},
	{"DB.XGroupCreate", "XGROUP CREATE s g 0 (not signalled)", func(d *DB) { xadd(d, "s", 5) }, func(d *DB) { d.XGroupCreate(b("s"), b("g"), StreamID{}, false, -1, false) }, nil},
	{"DB.XGroupSetID", "XGROUP SETID s g $", func(d *DB) { xaddGroup(d) }, func(d *DB) { d.XGroupSetID(b("s"), b("g"), StreamID{}, true, -1) }, nil},
	{"DB.XGroupCreateConsumer", "XGROUP CREATECONSUMER s g c", func(d *DB) { xaddGroup(d) }, func(d *DB) { d.XGroupCreateConsumer(b("s"), b("g"), b("c")) }, nil},
	{"DB.XGroupDelConsumer", "XGROUP DELCONSUMER s g c", func(d *DB) { xaddGroup(d); d.XGroupCreateConsumer(b("s"), b("g"), b("c")) }, func(d *DB) { d.XGroupDelConsumer(b("s"), b("g"), b("c")) }, nil},
	{"DB.XGroupDestroy", "XGROUP DESTROY s g", func(d *DB) { xaddGroup(d) }, func(d *DB) { d.XGroupDestroy(b("s"), b("g")) }, nil},
	{"DB.XAck", "XACK s g 5-0 (not pending)", func(d *DB) { xaddGroup(d) }, func(d *DB) { d.XAck(b("s"), b("g"), []StreamID{{5, 0}}) }, nil},

	// RESTORE (cluster.c restoreCommand): the key is added or replaced and
	// signalled once; a deadline already past adds nothing and signals only
	// the deletion of a replaced key. LoadKey (loading an RDB file at start,
	// before anything can watch) never signals.
	{"DB.Restore", "RESTORE k 0 payload", none, func(d *DB) {
		d.Restore(b("k"), &rdb.Value{Kind: rdb.KindString, Str: b("v")}, RestoreOptions{Deadline: -1}, false)
	}, []string{"k"}},
	{"DB.Restore", "RESTORE k 0 payload REPLACE", func(d *DB) { setStr(d, "k", "old") }, func(d *DB) {
		d.Restore(b("k"), &rdb.Value{Kind: rdb.KindString, Str: b("v")}, RestoreOptions{Deadline: -1}, true)
	}, []string{"k"}},
	{"DB.Restore", "RESTORE k past-deadline ABSTTL REPLACE (replaced key deleted)", func(d *DB) { setStr(d, "k", "old") }, func(d *DB) {
		d.Restore(b("k"), &rdb.Value{Kind: rdb.KindString, Str: b("v")}, RestoreOptions{Deadline: 1}, true)
	}, []string{"k"}},
	{"DB.Restore", "RESTORE k past-deadline ABSTTL (missing key)", none, func(d *DB) {
		d.Restore(b("k"), &rdb.Value{Kind: rdb.KindString, Str: b("v")}, RestoreOptions{Deadline: 1}, false)
	}, nil},
	{"DB.LoadKey", "a key of an RDB file at start", none, func(d *DB) {
		d.LoadKey(b("k"), &rdb.Value{Kind: rdb.KindString, Str: b("v")}, RestoreOptions{Deadline: -1})
	}, nil},

	// Generic.
	{"DB.Delete", "DEL k", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Delete(b("k")) }, []string{"k"}},
	{"DB.Delete", "DEL of a missing key", none, func(d *DB) { d.Delete(b("k")) }, nil},
	{"DB.Delete", "DEL of a stale key (the lazy expiry signals, DEL does not)", func(d *DB) { setStale(d, "k"); makeStale(d) }, func(d *DB) { d.Delete(b("k")) }, []string{"k"}},
	{"DB.Expire", "EXPIRE k 100", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Expire(b("k"), mutatorsNow+100_000) }, []string{"k"}},
	{"DB.Expire", "EXPIRE k -1 (deletes)", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Expire(b("k"), mutatorsNow-1) }, []string{"k"}},
	{"DB.Expire", "EXPIRE of a missing key", none, func(d *DB) { d.Expire(b("k"), mutatorsNow+100_000) }, nil},
	{"DB.Persist", "PERSIST k (has a TTL)", func(d *DB) { setTTL(d, "k") }, func(d *DB) { d.Persist(b("k")) }, []string{"k"}},
	{"DB.Persist", "PERSIST k (no TTL)", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Persist(b("k")) }, nil},
	{"DB.Persist", "PERSIST of a missing key", none, func(d *DB) { d.Persist(b("k")) }, nil},
	{"DB.Rename", "RENAME a b", func(d *DB) { setStr(d, "a", "v") }, func(d *DB) { d.Rename(b("a"), b("b"), false) }, []string{"a", "b"}},
	{"DB.Rename", "RENAME a a", func(d *DB) { setStr(d, "a", "v") }, func(d *DB) { d.Rename(b("a"), b("a"), false) }, nil},
	{"DB.Rename", "RENAMENX a b, b exists", func(d *DB) { setStr(d, "a", "v"); setStr(d, "b", "w") }, func(d *DB) { d.Rename(b("a"), b("b"), true) }, nil},
	{"DB.Rename", "RENAME of a missing key", none, func(d *DB) { d.Rename(b("a"), b("b"), false) }, nil},
	{"DB.Move", "MOVE k 1", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Move(b("k"), d.Keyspace().DB(1)) }, []string{"k", "1:k"}},
	{"DB.Move", "MOVE k 1, k exists in 1", func(d *DB) { setStr(d, "k", "v"); setStr(d.Keyspace().DB(1), "k", "w") }, func(d *DB) { d.Move(b("k"), d.Keyspace().DB(1)) }, nil},
	{"DB.Move", "MOVE of a missing key", none, func(d *DB) { d.Move(b("k"), d.Keyspace().DB(1)) }, nil},
	{"DB.Copy", "COPY src dst", func(d *DB) { setStr(d, "src", "v") }, func(d *DB) { d.Copy(b("src"), d, b("dst"), false) }, []string{"dst"}},
	{"DB.Copy", "COPY src dst, dst exists", func(d *DB) { setStr(d, "src", "v"); setStr(d, "dst", "w") }, func(d *DB) { d.Copy(b("src"), d, b("dst"), false) }, nil},
	{"DB.Copy", "COPY src dst REPLACE", func(d *DB) { setStr(d, "src", "v"); setStr(d, "dst", "w") }, func(d *DB) { d.Copy(b("src"), d, b("dst"), true) }, []string{"dst"}},
	{"DB.Copy", "COPY of a missing key", none, func(d *DB) { d.Copy(b("src"), d, b("dst"), false) }, nil},

	// Expiry and eviction: the single removal path.
	{"DB.ExpireAllStale", "two stale keys", func(d *DB) { setStale(d, "a"); setStale(d, "b"); setTTL(d, "c"); makeStale(d) }, func(d *DB) { d.ExpireAllStale(d.Keyspace().Now()) }, []string{"a", "b"}},
	{"DB.ExpireAllStale", "nothing stale", func(d *DB) { setTTL(d, "c") }, func(d *DB) { d.ExpireAllStale(d.Keyspace().Now()) }, nil},
	{"DB.ActiveExpireStep", "one stale key", func(d *DB) { setStale(d, "a"); makeStale(d) }, func(d *DB) { d.ActiveExpireStep(d.Keyspace().Now(), 20) }, []string{"a"}},
	{"DB.ActiveExpireStep", "nothing stale", func(d *DB) { setTTL(d, "a") }, func(d *DB) { d.ActiveExpireStep(d.Keyspace().Now(), 20) }, nil},
	{"DB.Evict", "evict k", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Evict("k", false) }, []string{"k"}},
	{"DB.Evict", "volatile eviction of a key without TTL", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { d.Evict("k", true) }, nil},
	{"DB.Evict", "evict a missing key", none, func(d *DB) { d.Evict("k", false) }, nil},

	// Whole-db writes announce themselves once, not per key.
	{"DB.Flush", "FLUSHDB", func(d *DB) { setStr(d, "a", "v"); setStr(d, "b", "v") }, func(d *DB) { d.Flush() }, []string{"flushed:0"}},
	{"Keyspace.FlushAll", "FLUSHALL", func(d *DB) { setStr(d, "a", "v"); setStr(d.Keyspace().DB(1), "b", "v") }, func(d *DB) { d.Keyspace().FlushAll() }, []string{"flushed:-1"}},
	{"Keyspace.SwapDB", "SWAPDB 0 1", func(d *DB) { setStr(d, "a", "v") }, func(d *DB) { d.Keyspace().SwapDB(0, 1) }, []string{"swapped:0:1"}},
	{"Keyspace.SwapDB", "SWAPDB 0 0", func(d *DB) { setStr(d, "a", "v") }, func(d *DB) { d.Keyspace().SwapDB(0, 0) }, nil},

	// Hashes.
	{"DB.HashSet", "HSET k f v", none, func(d *DB) { hset(d, "k", "f", "v") }, []string{"k"}},
	{"DB.HashSet", "HSET k f v (same value)", func(d *DB) { hset(d, "k", "f", "v") }, func(d *DB) { hset(d, "k", "f", "v") }, []string{"k"}},
	{"DB.HashSet", "HSET on a string (WRONGTYPE)", func(d *DB) { setStr(d, "k", "v") }, func(d *DB) { hset(d, "k", "f", "v") }, nil},
	{"DB.HashSetNX", "HSETNX k g v", func(d *DB) { hset(d, "k", "f", "v") }, func(d *DB) { d.HashSetNX(b("k"), b("g"), b("v")) }, []string{"k"}},
	{"DB.HashSetNX", "HSETNX k f z (exists)", func(d *DB) { hset(d, "k", "f", "v") }, func(d *DB) { d.HashSetNX(b("k"), b("f"), b("z")) }, nil},
	{"DB.HashDel", "HDEL k f", func(d *DB) { hset(d, "k", "f", "v", "g", "w") }, func(d *DB) { d.HashDel(b("k"), bs("f")) }, []string{"k"}},
	{"DB.HashDel", "HDEL of the last field", func(d *DB) { hset(d, "k", "f", "v") }, func(d *DB) { d.HashDel(b("k"), bs("f")) }, []string{"k"}},
	{"DB.HashDel", "HDEL k nof", func(d *DB) { hset(d, "k", "f", "v") }, func(d *DB) { d.HashDel(b("k"), bs("nof")) }, nil},
	{"DB.HashDel", "HDEL of a missing key", none, func(d *DB) { d.HashDel(b("k"), bs("f")) }, nil},
	{"DB.HashIncrBy", "HINCRBY k f 0", func(d *DB) { hset(d, "k", "f", "1") }, func(d *DB) { d.HashIncrBy(b("k"), b("f"), 0) }, []string{"k"}},
	{"DB.HashIncrBy", "HINCRBY of a non-integer (error)", func(d *DB) { hset(d, "k", "f", "x") }, func(d *DB) { d.HashIncrBy(b("k"), b("f"), 1) }, nil},
	{"DB.HashIncrByFloat", "HINCRBYFLOAT k f 1", func(d *DB) { hset(d, "k", "f", "1") }, func(d *DB) { d.HashIncrByFloat(b("k"), b("f"), protocol.LongDouble{}) }, []string{"k"}},
	{"DB.HashIncrByFloat", "HINCRBYFLOAT of a non-number (error)", func(d *DB) { hset(d, "k", "f", "x") }, func(d *DB) { d.HashIncrByFloat(b("k"), b("f"), protocol.LongDouble{}) }, nil},

	// Lists.
	{"DB.ListPush", "RPUSH k a", none, func(d *DB) { rpush(d, "k", "a") }, []string{"k"}},
	{"DB.ListPush", "LPUSHX of a missing key", none, func(d *DB) { d.ListPush(b("k"), bs("a"), true, true) }, nil},
	{"DB.ListPop", "LPOP k", func(d *DB) { rpush(d, "k", "a", "b") }, func(d *DB) { d.ListPop(b("k"), true, 1, nil) }, []string{"k"}},
	{"DB.ListPop", "LPOP of the last element", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListPop(b("k"), true, 1, nil) }, []string{"k"}},
	{"DB.ListPop", "LPOP of a missing key", none, func(d *DB) { d.ListPop(b("k"), true, 1, nil) }, nil},
	{"DB.ListMove", "LMOVE s d (push signals d, then the pop s, as lmoveGenericCommand)", func(d *DB) { rpush(d, "s", "a", "b") }, func(d *DB) { d.ListMove(b("s"), b("d"), true, false) }, []string{"d", "s"}},
	{"DB.ListMove", "RPOPLPUSH k k", func(d *DB) { rpush(d, "k", "a", "b") }, func(d *DB) { d.ListMove(b("k"), b("k"), false, true) }, []string{"k", "k"}},
	{"DB.ListMove", "LMOVE of a missing source", none, func(d *DB) { d.ListMove(b("s"), b("d"), true, false) }, nil},
	{"DB.ListMove", "LMOVE onto a string (WRONGTYPE)", func(d *DB) { rpush(d, "s", "a"); setStr(d, "d", "v") }, func(d *DB) { d.ListMove(b("s"), b("d"), true, false) }, nil},
	{"DB.ListSet", "LSET k 0 a (same value)", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListSet(b("k"), 0, b("a")) }, []string{"k"}},
	{"DB.ListSet", "LSET out of range (error)", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListSet(b("k"), 5, b("a")) }, nil},
	{"DB.ListInsert", "LINSERT k BEFORE a x", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListInsert(b("k"), true, b("a"), b("x")) }, []string{"k"}},
	{"DB.ListInsert", "LINSERT k BEFORE zz x", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListInsert(b("k"), true, b("zz"), b("x")) }, nil},
	{"DB.ListRemove", "LREM k 0 a", func(d *DB) { rpush(d, "k", "a", "b") }, func(d *DB) { d.ListRemove(b("k"), 0, b("a")) }, []string{"k"}},
	{"DB.ListRemove", "LREM k 0 zz", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListRemove(b("k"), 0, b("zz")) }, nil},
	{"DB.ListTrim", "LTRIM k 0 -1", func(d *DB) { rpush(d, "k", "a") }, func(d *DB) { d.ListTrim(b("k"), 0, -1) }, []string{"k"}},
	{"DB.ListTrim", "LTRIM of a missing key", none, func(d *DB) { d.ListTrim(b("k"), 0, -1) }, nil},
	{"DB.ServeListPop", "BLPOP served", func(d *DB) { rpush(d, "k", "a", "b") }, func(d *DB) { d.ServeListPop("k", true) }, []string{"k"}},
	{"DB.ServeListPop", "BLPOP served, no list", none, func(d *DB) { d.ServeListPop("k", true) }, nil},
	{"DB.ServeListPopCount", "BLMPOP served", func(d *DB) { rpush(d, "k", "a", "b") }, func(d *DB) { d.ServeListPopCount("k", true, 2, nil) }, []string{"k"}},
	{"DB.ServeListPopCount", "BLMPOP served, no list", none, func(d *DB) { d.ServeListPopCount("k", true, 2, nil) }, nil},
	{"DB.ServeListMove", "BLMOVE served", func(d *DB) { rpush(d, "s", "a", "b") }, func(d *DB) { d.ServeListMove("s", b("d"), true, true) }, []string{"d", "s"}},
	{"DB.ServeListMove", "BLMOVE served, no list", none, func(d *DB) { d.ServeListMove("s", b("d"), true, true) }, nil},

	// Sets.
	{"DB.SetAdd", "SADD k a", none, func(d *DB) { sadd(d, "k", "a") }, []string{"k"}},
	{"DB.SetAdd", "SADD k a (member exists)", func(d *DB) { sadd(d, "k", "a") }, func(d *DB) { sadd(d, "k", "a") }, nil},
	{"DB.SetRem", "SREM k a", func(d *DB) { sadd(d, "k", "a", "b") }, func(d *DB) { d.SetRem(b("k"), bs("a")) }, []string{"k"}},
	{"DB.SetRem", "SREM k b (not a member)", func(d *DB) { sadd(d, "k", "a") }, func(d *DB) { d.SetRem(b("k"), bs("b")) }, nil},
	{"DB.SetMove", "SMOVE s d a", func(d *DB) { sadd(d, "s", "a", "b") }, func(d *DB) { d.SetMove(b("s"), b("d"), b("a")) }, []string{"s", "d"}},
	{"DB.SetMove", "SMOVE k k a", func(d *DB) { sadd(d, "k", "a") }, func(d *DB) { d.SetMove(b("k"), b("k"), b("a")) }, nil},
	{"DB.SetMove", "SMOVE s d zz (not a member)", func(d *DB) { sadd(d, "s", "a") }, func(d *DB) { d.SetMove(b("s"), b("d"), b("zz")) }, nil},
	{"DB.SetPopOne", "SPOP k", func(d *DB) { sadd(d, "k", "a") }, func(d *DB) { d.SetPopOne(b("k")) }, []string{"k"}},
	{"DB.SetPopOne", "SPOP of a missing key", none, func(d *DB) { d.SetPopOne(b("k")) }, nil},
	{"DB.SetPop", "SPOP k 2", func(d *DB) { sadd(d, "k", "a", "b", "c") }, func(d *DB) { d.SetPop(b("k"), 2) }, []string{"k"}},
	{"DB.SetPop", "SPOP k 0", func(d *DB) { sadd(d, "k", "a") }, func(d *DB) { d.SetPop(b("k"), 0) }, nil},
	{"DB.SetPop", "SPOP of a missing key", none, func(d *DB) { d.SetPop(b("k"), 2) }, nil},
	{"DB.StoreSet", "SUNIONSTORE d a", func(d *DB) { sadd(d, "a", "x") }, func(d *DB) { d.StoreSet(b("d"), d.SetUnion(readS(d, "a")), EvSUnionStore) }, []string{"d"}},
	{"DB.StoreSet", "SUNIONSTORE d n1 (empty, d exists)", func(d *DB) { setStr(d, "d", "v") }, func(d *DB) { d.StoreSet(b("d"), d.SetUnion(readS(d, "n1")), EvSUnionStore) }, []string{"d"}},
	{"DB.StoreSet", "SUNIONSTORE d n1 (empty, d missing)", none, func(d *DB) { d.StoreSet(b("d"), d.SetUnion(readS(d, "n1")), EvSUnionStore) }, nil},

	// Sorted sets.
	{"DB.ZAdd", "ZADD k 1 a", none, func(d *DB) { zadd(d, "k", 1, "a") }, []string{"k"}},
	{"DB.ZAdd", "ZADD k 2 a (score changes)", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { zadd(d, "k", 2, "a") }, []string{"k"}},
	{"DB.ZAdd", "ZADD k 1 a (same score)", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { zadd(d, "k", 1, "a") }, nil},
	{"DB.ZAdd", "ZINCRBY k 0 a", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZAdd(b("k"), []float64{0}, bs("a"), ZAddIncr) }, nil},
	{"DB.ZRem", "ZREM k a", func(d *DB) { zadd(d, "k", 1, "a"); zadd(d, "k", 2, "b") }, func(d *DB) { d.ZRem(b("k"), bs("a")) }, []string{"k"}},
	{"DB.ZRem", "ZREM k b (not a member)", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZRem(b("k"), bs("b")) }, nil},
	{"DB.ZRemRangeByRank", "ZREMRANGEBYRANK k 0 0", func(d *DB) { zadd(d, "k", 1, "a"); zadd(d, "k", 2, "b") }, func(d *DB) { d.ZRemRangeByRank(b("k"), 0, 0) }, []string{"k"}},
	{"DB.ZRemRangeByRank", "ZREMRANGEBYRANK k 5 6", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZRemRangeByRank(b("k"), 5, 6) }, nil},
	{"DB.ZRemRangeByScore", "ZREMRANGEBYSCORE k -inf +inf", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZRemRangeByScore(b("k"), allScores()) }, []string{"k"}},
	{"DB.ZRemRangeByScore", "ZREMRANGEBYSCORE k 5 6", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZRemRangeByScore(b("k"), &ScoreRange{Min: 5, Max: 6}) }, nil},
	{"DB.ZRemRangeByLex", "ZREMRANGEBYLEX k - +", func(d *DB) { zadd(d, "k", 0, "a") }, func(d *DB) { r, _ := ParseLexRange(b("-"), b("+")); d.ZRemRangeByLex(b("k"), &r) }, []string{"k"}},
	{"DB.ZRemRangeByLex", "ZREMRANGEBYLEX k [x [y", func(d *DB) { zadd(d, "k", 0, "a") }, func(d *DB) { r, _ := ParseLexRange(b("[x"), b("[y")); d.ZRemRangeByLex(b("k"), &r) }, nil},
	{"DB.ZPop", "ZPOPMIN k", func(d *DB) { zadd(d, "k", 1, "a"); zadd(d, "k", 2, "b") }, func(d *DB) { d.ZPop(bs("k"), false, 1, func([]byte, int) {}, func(string, float64) {}) }, []string{"k"}},
	{"DB.ZPop", "ZPOPMIN k 0", func(d *DB) { zadd(d, "k", 1, "a") }, func(d *DB) { d.ZPop(bs("k"), false, 0, func([]byte, int) {}, func(string, float64) {}) }, nil},
	{"DB.ZPop", "ZPOPMIN of a missing key", none, func(d *DB) { d.ZPop(bs("k"), false, 1, func([]byte, int) {}, func(string, float64) {}) }, nil},
	{"DB.StoreZSet", "ZUNIONSTORE d 1 a", func(d *DB) { zadd(d, "a", 1, "x") }, func(d *DB) { z, n := ZUnion(readZ(d, "a"), AggSum); d.StoreZSet(b("d"), z, n, EvZUnionStore) }, []string{"d"}},
	{"DB.StoreZSet", "ZUNIONSTORE d 1 nz (empty, d exists)", func(d *DB) { setStr(d, "d", "v") }, func(d *DB) { z, n := ZUnion(readZ(d, "nz"), AggSum); d.StoreZSet(b("d"), z, n, EvZUnionStore) }, []string{"d"}},
	{"DB.StoreZSet", "ZUNIONSTORE d 1 nz (empty, d missing)", none, func(d *DB) { z, n := ZUnion(readZ(d, "nz"), AggSum); d.StoreZSet(b("d"), z, n, EvZUnionStore) }, nil},
	{"DB.ZRangeStore", "ZRANGESTORE d a 0 -1", func(d *DB) { zadd(d, "a", 1, "x") }, func(d *DB) { d.ZRangeStore(b("d"), zseq(d, "a")) }, []string{"d"}},
	{"DB.ZRangeStore", "ZRANGESTORE d nz 0 -1 (empty, d exists)", func(d *DB) { setStr(d, "d", "v") }, func(d *DB) { d.ZRangeStore(b("d"), zseq(d, "nz")) }, []string{"d"}},
	{"DB.ZRangeStore", "ZRANGESTORE d nz 0 -1 (empty, d missing)", none, func(d *DB) { d.ZRangeStore(b("d"), zseq(d, "nz")) }, nil},
}

// readOnlyMethods are the exported methods that change no key. A lookup of
// a stale key still deletes it through the removal path (that signal is the
// expiry's, checked by the "stale read" loop below); beyond that these must
// not announce anything.
// unsignalledMutators change a key's value in ways Redis 7.0.15 never
// signals (t_stream.c: XSETID, the XGROUP subcommands and XACK call no
// signalModifiedKey); their rows all expect no announcement.
var unsignalledMutators = map[string]bool{
	"DB.LoadKey": true, // loading at start: nothing can watch yet (dbAddRDBLoad)
	"DB.XSetID":  true, "DB.XGroupSetID": true, "DB.XGroupCreateConsumer": true,
	"DB.XGroupDelConsumer": true, "DB.XGroupDestroy": true, "DB.XAck": true,
}

var readOnlyMethods = []string{
	// Keyspace: configuration, counters, maintenance of the tables.
	"Keyspace.LRUClock", "Keyspace.DatabasesCron", "Keyspace.SetObserver", "Keyspace.SetTime",
	"Keyspace.Now", "Keyspace.SetLFU", "Keyspace.Len", "Keyspace.DB", "Keyspace.LFU",
	"Keyspace.SetNoSharedIntegers", "Keyspace.NoSharedIntegers", "Keyspace.SetEncodingLimits",
	"Keyspace.EncodingLimits", "Keyspace.UsedMemory", "Keyspace.HoldShrink",
	// DB: reads and lookups.
	"DB.EvictableKeys", "DB.SampleForEviction", "DB.RandomKeyForEviction", "DB.HasEvictable",
	"DB.Exists", "DB.TypeOf", "DB.Deadline", "DB.DeadlineForWrite", "DB.RandomKey", "DB.Scan",
	"DB.Keys", "DB.Touch", "DB.Object", "DB.KeyIsExpired", "DB.LookupHash", "DB.ID", "DB.Keyspace",
	"DB.Watched", "DB.Size", "DB.Expires", "DB.AvgTTL", "DB.LookupList", "DB.ListExists",
	"DB.UsedMemory", "DB.KeyMemory", "DB.Walk", "DB.View", "DB.ReadyType", "DB.StoredType",
	"DB.LookupSet", "DB.ReadSets", "DB.SetInterSet", "DB.SetUnion", "DB.SetDiff", "DB.GetString",
	"DB.GetStringForWrite", "DB.ReadZSources", "DB.LookupZSet", "DB.PFCountUnion", "DB.SortPatternValue",
	"Keyspace.EnableSlotIndex", "DB.CountKeysInSlot", "DB.KeysInSlot", "DB.HasKeyQuiet", // cluster mode (slotindex.go)
	"Keyspace.SetExpiryPaused", "Keyspace.SetReplicaExpiry", "Keyspace.SetStaleVisible", "Keyspace.StreamNow", "Keyspace.AccessMeta", "Keyspace.TouchContext",
	// RDB: write-lookup existence (RESTORE's BUSYKEY), DUMP's read, the
	// RESIZEDB table sizing of an empty db.
	"DB.ExistsForWrite", "DB.LookupView", "DB.Reserve",
	// Streams: lookups, the group session a reader opens, and the values.
	"DB.LookupStream", "DB.LookupStreamForWrite", "DB.LookupStreamQuiet", "DB.OpenGroup", "DB.OpenGroupQuiet",
	"GroupSession.Changed", "GroupSession.Consumer",
	"Stream.EntriesAdded", "Stream.FirstID", "Stream.Get", "Stream.Group", "Stream.Groups", "Stream.Has",
	"Stream.Lag", "Stream.LastID", "Stream.LastValid", "Stream.Len", "Stream.MaxDeletedID", "Stream.Nodes",
	"Stream.Range", "Stream.ReadFrom", "Stream.RaxNodes", "StreamConsumer.Name", "StreamConsumer.Pending",
	"StreamGroup.Consumer", "StreamGroup.Consumers", "StreamGroup.Name", "StreamGroup.Pending",
	"StreamGroup.PendingEntry", "StreamGroup.PendingRange",
	"StreamID.Append", "StreamID.Cmp", "StreamID.Decr", "StreamID.Incr", "StreamID.IsZero", "StreamID.Less", "StreamID.String",
	// A group session's PEL writes (XREADGROUP, XCLAIM, XAUTOCLAIM): Redis
	// 7.0.15 never signals them (they count as changes and raise events;
	// db/streamwrite_test.go checks that no Modified is heard).
	"GroupSession.Claim", "GroupSession.Deliver", "GroupSession.Redeliver", "GroupSession.SetLastID",
	"GroupSession.Drop", "GroupSession.End",
	// Representation only, never the value, so nothing to signal (as Redis):
	// PFDEBUG TODENSE, and SORT converting a listpack sorted set.
	"DB.PFDebug", "DB.LookupSortSource",
	// Values handed out by lookups: read-only views.
	"Type.String", "Hash.Len", "Hash.IsListpack", "Hash.Get", "Hash.Each", "Hash.Random", "Hash.Scan",
	"List.Len", "List.At", "List.Index", "List.RangeBounds",
	"Set.Len", "Set.IsIntset", "Set.Contains", "Set.Each", "Set.Random", "Set.Scan",
	"ZNode.Member", "ZNode.Score", "ZNode.Next", "ZNode.Prev",
	"ZSet.FirstInRange", "ZSet.LastInRange", "ZSet.FirstInLexRange", "ZSet.LastInLexRange",
	"ZSet.Count", "ZSet.LexCount", "ZSet.Len", "ZSet.IsListpack", "ZSet.Score", "ZSet.Rank",
	"ZSet.ByRank", "ZSet.First", "ZSet.Last", "ZSet.Random", "ZSet.Each", "ZSet.Scan", "ZSet.AppendScore",
	"ScoreRange.Contains", "ScoreRange.AboveMin", "ScoreRange.BelowMax",
	"LexRange.AboveMin", "LexRange.BelowMax", "ZSource.Len",
}

func runMutatorCase(t *testing.T, tc mutatorCase) []string {
	t.Helper()
	ks := NewKeyspace(4)
	rec := &touchRecorder{}
	ks.SetObserver(rec)
	ks.SetTime(mutatorsNow)
	d := ks.DB(0)
	tc.setup(d)
	rec.got = nil
	tc.run(d)
	return rec.got
}

// tableOrder are the mutators that announce several keys in the order of
// the hash table (random seed): their rows compare sorted.
var tableOrder = map[string]bool{"DB.ExpireAllStale": true, "DB.ActiveExpireStep": true}

func TestMutatorsSignalOnce(t *testing.T) {
	for _, tc := range mutatorCases {
		got := runMutatorCase(t, tc)
		want := tc.want
		if tableOrder[tc.method] {
			got = slices.Sorted(slices.Values(got))
			want = slices.Sorted(slices.Values(want))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s (%s): announced %q, want %q", tc.method, tc.what, got, tc.want)
		}
	}
}

// TestReadsDoNotSignal runs the lookups that take a key on a live key (no
// announcement) and on a stale one (exactly one, the lazy expiry's).
func TestReadsDoNotSignal(t *testing.T) {
	reads := map[string]func(d *DB){
		"DB.Exists":            func(d *DB) { d.Exists(b("k")) },
		"DB.TypeOf":            func(d *DB) { d.TypeOf(b("k")) },
		"DB.Deadline":          func(d *DB) { d.Deadline(b("k")) },
		"DB.DeadlineForWrite":  func(d *DB) { d.DeadlineForWrite(b("k")) },
		"DB.Touch":             func(d *DB) { d.Touch(b("k")) },
		"DB.Object":            func(d *DB) { d.Object(b("k")) },
		"DB.GetString":         func(d *DB) { d.GetString(b("k")) },
		"DB.GetStringForWrite": func(d *DB) { d.GetStringForWrite(b("k")) },
		"DB.KeyMemory":         func(d *DB) { d.KeyMemory(b("k")) },
	}
	names := make([]string, 0, len(reads))
	for n := range reads {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		live := runMutatorCase(t, mutatorCase{n, "live", func(d *DB) { setTTL(d, "k") }, reads[n], nil})
		if len(live) != 0 {
			t.Errorf("%s of a live key announced %q", n, live)
		}
		stale := runMutatorCase(t, mutatorCase{n, "stale", func(d *DB) { setStale(d, "k"); makeStale(d) }, reads[n], nil})
		if len(stale) > 1 {
			t.Errorf("%s of a stale key announced %q, want at most one (the expiry)", n, stale)
		}
	}
}

// exportedMethods parses the package's non-test files and returns every
// exported method of an exported type, as "Type.Method".
func exportedMethods(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || !fn.Name.IsExported() {
					continue
				}
				typ := fn.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				if ix, ok := typ.(*ast.IndexListExpr); ok {
					typ = ix.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				out = append(out, id.Name+"."+fn.Name.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestEveryMutatorHasRows fails when an exported method is neither a
// mutator with rows nor listed as read-only, and when either list names a
// method that no longer exists.
func TestEveryMutatorHasRows(t *testing.T) {
	exported := map[string]bool{}
	for _, m := range exportedMethods(t) {
		exported[m] = true
	}
	if len(exported) < 50 {
		t.Fatalf("parsed only %d exported methods: is the test run from db/?", len(exported))
	}
	modifies := map[string]bool{}
	rows := map[string]bool{}
	for _, tc := range mutatorCases {
		rows[tc.method] = true
		if len(tc.want) > 0 {
			modifies[tc.method] = true
		}
	}
	readOnly := map[string]bool{}
	for _, m := range readOnlyMethods {
		readOnly[m] = true
		if rows[m] {
			t.Errorf("%s is in readOnlyMethods and has mutator rows", m)
		}
	}
	for m := range exported {
		if !rows[m] && !readOnly[m] {
			t.Errorf("exported method %s has no row in mutatorCases (and is not in readOnlyMethods): "+
				"add rows saying what it announces for a modification and for each no-op", m)
		}
	}
	for m := range rows {
		if !exported[m] {
			t.Errorf("mutatorCases names %s, which is not an exported method of package db", m)
		} else if !modifies[m] && !unsignalledMutators[m] {
			t.Errorf("%s has no row where it modifies a key", m)
		}
	}
	for m := range readOnly {
		if !exported[m] {
			t.Errorf("readOnlyMethods names %s, which is not an exported method of package db", m)
		}
	}
}
