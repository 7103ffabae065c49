package db

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func encOf(t *testing.T, d *DB, key string) string {
	t.Helper()
	info, ok := d.Object([]byte(key))
	if !ok {
		return "missing"
	}
	return info.Encoding
}

// TestTypeWritesSignal checks, for each write of the three families, the
// keyspace events it raises (in Redis's order) and whether it touches a
// watcher of the key: no-op writes must do neither.
func TestTypeWritesSignal(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(d *DB)
		op     func(d *DB) error
		events []string
		touch  bool
	}{
		{"HSET new", nil, func(d *DB) error { _, err := d.HashSet([]byte("k"), bs("f", "v")); return err }, []string{"new:k", "hset:k"}, true},
		{"HSET same value", func(d *DB) { d.HashSet([]byte("k"), bs("f", "v")) },
			func(d *DB) error { _, err := d.HashSet([]byte("k"), bs("f", "v")); return err }, []string{"hset:k"}, true},
		{"HSETNX existing field", func(d *DB) { d.HashSet([]byte("k"), bs("f", "v")) },
			func(d *DB) error { _, err := d.HashSetNX([]byte("k"), []byte("f"), []byte("z")); return err }, nil, false},
		{"HDEL missing field", func(d *DB) { d.HashSet([]byte("k"), bs("f", "v")) },
			func(d *DB) error { _, err := d.HashDel([]byte("k"), bs("nope")); return err }, nil, false},
		{"HDEL last field", func(d *DB) { d.HashSet([]byte("k"), bs("f", "v")) },
			func(d *DB) error { _, err := d.HashDel([]byte("k"), bs("f")); return err }, []string{"hdel:k", "del:k"}, true},
		{"HINCRBY 0", func(d *DB) { d.HashSet([]byte("k"), bs("f", "1")) },
			func(d *DB) error { _, err := d.HashIncrBy([]byte("k"), []byte("f"), 0); return err }, []string{"hincrby:k"}, true},
		{"HINCRBY not an integer", func(d *DB) { d.HashSet([]byte("k"), bs("f", "x")) },
			func(d *DB) error {
				if _, err := d.HashIncrBy([]byte("k"), []byte("f"), 1); err != ErrHashValueNotInt {
					return err
				}
				return nil
			}, nil, false},
		{"HINCRBYFLOAT new key", nil,
			func(d *DB) error {
				_, err := d.HashIncrByFloat([]byte("k"), []byte("f"), protocol.LongDoubleFromFloat64(1.5))
				return err
			}, []string{"new:k", "hincrbyfloat:k"}, true},
		{"SADD existing", func(d *DB) { d.SetAdd([]byte("k"), bs("a")) },
			func(d *DB) error { _, err := d.SetAdd([]byte("k"), bs("a")); return err }, nil, false},
		{"SREM last", func(d *DB) { d.SetAdd([]byte("k"), bs("a")) },
			func(d *DB) error { _, err := d.SetRem([]byte("k"), bs("a", "b")); return err }, []string{"srem:k", "del:k"}, true},
		{"SMOVE onto itself", func(d *DB) { d.SetAdd([]byte("k"), bs("a")) },
			func(d *DB) error { _, err := d.SetMove([]byte("k"), []byte("k"), []byte("a")); return err }, nil, false},
		{"SMOVE last member", func(d *DB) { d.SetAdd([]byte("k"), bs("a")) },
			func(d *DB) error { _, err := d.SetMove([]byte("k"), []byte("d"), []byte("a")); return err },
			[]string{"srem:k", "del:k", "new:d", "sadd:d"}, true},
		{"SPOP count 0", func(d *DB) { d.SetAdd([]byte("k"), bs("a")) },
			func(d *DB) error { _, _, err := d.SetPop([]byte("k"), 0); return err }, nil, false},
		{"SPOP all", func(d *DB) { d.SetAdd([]byte("k"), bs("a", "b")) },
			func(d *DB) error { _, _, err := d.SetPop([]byte("k"), 5); return err }, []string{"spop:k", "del:k"}, true},
		{"SINTERSTORE empty onto missing", nil,
			func(d *DB) error { d.StoreSet([]byte("k"), nil, EvSInterStore); return nil }, nil, false},
		{"SUNIONSTORE empty onto a string", func(d *DB) { d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet) },
			func(d *DB) error { d.StoreSet([]byte("k"), d.SetUnion([]*Set{nil}), EvSUnionStore); return nil }, []string{"del:k"}, true},
		{"SUNIONSTORE over a string", func(d *DB) {
			d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet)
			d.SetAdd([]byte("s"), bs("1"))
		}, func(d *DB) error {
			sets, _ := d.ReadSets(bs("s"))
			d.StoreSet([]byte("k"), d.SetUnion(sets), EvSUnionStore)
			return nil
		}, []string{"sunionstore:k"}, true},
		{"ZADD same score", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error { _, err := d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0); return err }, nil, false},
		{"ZADD XX missing member", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error { _, err := d.ZAdd([]byte("k"), []float64{1}, bs("b"), ZAddXX); return err }, nil, false},
		{"ZADD XX missing key", nil,
			func(d *DB) error { _, err := d.ZAdd([]byte("k"), []float64{1}, bs("b"), ZAddXX); return err }, nil, false},
		{"ZINCRBY 0", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error { _, err := d.ZAdd([]byte("k"), []float64{0}, bs("a"), ZAddIncr); return err }, nil, false},
		{"ZINCRBY NaN", func(d *DB) { d.ZAdd([]byte("k"), []float64{math.Inf(1)}, bs("a"), 0) },
			func(d *DB) error {
				_, err := d.ZAdd([]byte("k"), []float64{math.Inf(-1)}, bs("a"), ZAddIncr)
				if err != ErrZScoreNaN {
					return err
				}
				return nil
			}, nil, false},
		{"ZADD new score", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error { _, err := d.ZAdd([]byte("k"), []float64{2}, bs("a"), 0); return err }, []string{"zadd:k"}, true},
		{"ZREMRANGEBYSCORE nothing", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error {
				r, _ := ParseScoreRange([]byte("5"), []byte("6"))
				_, err := d.ZRemRangeByScore([]byte("k"), &r)
				return err
			}, nil, false},
		{"ZPOPMAX last", func(d *DB) { d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0) },
			func(d *DB) error {
				_, err := d.ZPop(bs("k"), true, 3, func([]byte, int) {}, func(string, float64) {})
				return err
			}, []string{"zpopmax:k", "del:k"}, true},
		{"ZRANGESTORE empty over missing", nil,
			func(d *DB) error { d.ZRangeStore([]byte("k"), func(func(*ZNode) bool) {}); return nil }, nil, false},
		{"wrong type", func(d *DB) { d.SetString([]byte("k"), []byte("v"), TTLClear, 0, EvSet) },
			func(d *DB) error {
				if _, err := d.ZAdd([]byte("k"), []float64{1}, bs("a"), 0); err != protocol.ErrWrongType {
					return err
				}
				return nil
			}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ks, rec := newTestKS(t)
			d := ks.DB(0)
			if tc.setup != nil {
				tc.setup(d)
			}
			var c watch.Client
			watchKey(d, &c, "k")
			rec.events, rec.modified = nil, nil
			if err := tc.op(d); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.events, tc.events) {
				t.Errorf("events %q, want %q", rec.events, tc.events)
			}
			if c.Dirty() != tc.touch {
				t.Errorf("watcher dirty = %v, want %v", c.Dirty(), tc.touch)
			}
		})
	}
}

func TestHashEncoding(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	long := strings.Repeat("x", 65)
	d.HashSet([]byte("small"), bs("f", strings.Repeat("x", 64)))
	d.HashSet([]byte("longval"), bs("f", long))
	d.HashSet([]byte("longfield"), bs(long, "v"))
	d.HashIncrBy([]byte("incr"), []byte("f"), 1)
	for key, want := range map[string]string{"small": "listpack", "longval": "hashtable", "longfield": "hashtable", "incr": "listpack"} {
		if got := encOf(t, d, key); got != want {
			t.Errorf("%s: encoding %s, want %s", key, got, want)
		}
	}
	lim := DefaultEncodingLimits()
	lim.HashMaxListpackEntries = 3
	ks.SetEncodingLimits(lim)
	d.HashSet([]byte("grow"), bs("a", "1", "b", "2", "c", "3"))
	if got := encOf(t, d, "grow"); got != "listpack" {
		t.Fatalf("3 fields: %s", got)
	}
	d.HashSetNX([]byte("grow"), []byte("d"), []byte("4"))
	if got := encOf(t, d, "grow"); got != "hashtable" {
		t.Fatalf("4 fields over a limit of 3: %s", got)
	}
	d.HashDel([]byte("grow"), bs("a", "b", "c"))
	if got := encOf(t, d, "grow"); got != "hashtable" {
		t.Fatalf("a hash must not convert back: %s", got)
	}
	h, _ := d.LookupHash([]byte("grow"))
	if v, ok := h.Get([]byte("d")); !ok || v != "4" || h.Len() != 1 {
		t.Fatalf("after conversion: %q %v len %d", v, ok, h.Len())
	}
}

func TestHashListpackOrderAndDup(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.HashSet([]byte("h"), bs("c", "1", "a", "2", "b", "3"))
	d.HashSet([]byte("h"), bs("a", "new"))
	d.HashDel([]byte("h"), bs("c"))
	d.HashSet([]byte("h"), bs("c", "4"))
	h, _ := d.LookupHash([]byte("h"))
	var got []string
	h.Each(func(f, v string) bool {
		got = append(got, f+"="+v)
		return true
	})
	if want := []string{"a=new", "b=3", "c=4"}; !slices.Equal(got, want) {
		t.Fatalf("listpack order %q, want %q", got, want)
	}
	cp := h.dup().(*Hash)
	cp.set([]byte("a"), []byte("changed"), &ks.limits)
	if v, _ := h.Get([]byte("a")); v != "new" {
		t.Fatal("dup shares storage with the original")
	}
}

func TestSetEncoding(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.SetAdd([]byte("ints"), bs("3", "1", "-2"))
	d.SetAdd([]byte("str"), bs("a", "1"))
	d.SetAdd([]byte("mixed"), bs("1", "a"))
	d.SetAdd([]byte("noncanon"), bs("01"))
	for key, want := range map[string]string{"ints": "intset", "str": "hashtable", "mixed": "hashtable", "noncanon": "hashtable"} {
		if got := encOf(t, d, key); got != want {
			t.Errorf("%s: encoding %s, want %s", key, got, want)
		}
	}
	s, _ := d.LookupSet([]byte("ints"))
	var got []string
	s.Each(func(m []byte) bool {
		got = append(got, string(m))
		return true
	})
	if want := []string{"-2", "1", "3"}; !slices.Equal(got, want) {
		t.Fatalf("intset order %q, want %q", got, want)
	}
	lim := DefaultEncodingLimits()
	lim.SetMaxIntsetEntries = 2
	ks.SetEncodingLimits(lim)
	d.SetAdd([]byte("two"), bs("1", "2"))
	if encOf(t, d, "two") != "intset" {
		t.Fatal("two ints under a limit of 2 must stay an intset")
	}
	d.SetAdd([]byte("two"), bs("3"))
	if encOf(t, d, "two") != "hashtable" {
		t.Fatal("three ints over a limit of 2 must convert")
	}
	s, _ = d.LookupSet([]byte("two"))
	if !s.Contains([]byte("3")) || s.Contains([]byte("03")) || s.Len() != 3 {
		t.Fatal("members lost in the conversion")
	}
}

func TestSetDiffAlgorithmShowsInEncoding(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	add := func(key string, lo, hi int) {
		var ms [][]byte
		for i := lo; i <= hi; i++ {
			ms = append(ms, []byte(strconv.Itoa(i)))
		}
		d.SetAdd([]byte(key), ms)
	}
	add("big", 1, 600)
	add("x", 1, 250)
	add("y", 251, 500)
	add("z", 501, 550)
	sets, _ := d.ReadSets(bs("big", "x", "y", "z"))
	if r := d.SetDiff(sets); r.Len() != 50 || r.IsIntset() {
		t.Fatalf("algorithm 2 result: len %d, intset %v (Redis: 50, hashtable)", r.Len(), r.IsIntset())
	}
	sets, _ = d.ReadSets(bs("big", "x"))
	if r := d.SetDiff(sets); r.Len() != 350 || !r.IsIntset() {
		t.Fatalf("algorithm 1 result: len %d, intset %v (Redis: 350, intset)", r.Len(), r.IsIntset())
	}
}

func TestZSetEncodingAndNegativeZero(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	negZero := math.Copysign(0, -1)
	d.ZAdd([]byte("lp"), []float64{negZero}, bs("a"), 0)
	z, _ := d.LookupZSet([]byte("lp"))
	if s, _ := z.Score([]byte("a")); math.Signbit(s) || !z.IsListpack() {
		t.Fatal("a listpack stores -0 as 0")
	}
	lim := DefaultEncodingLimits()
	lim.ZSetMaxListpackEntries = 0
	ks.SetEncodingLimits(lim)
	res, _ := d.ZAdd([]byte("sk"), []float64{negZero}, bs("a"), ZAddIncr)
	z, _ = d.LookupZSet([]byte("sk"))
	if s, _ := z.Score([]byte("a")); !math.Signbit(s) || z.IsListpack() || !math.Signbit(res.Score) {
		t.Fatal("a skiplist keeps -0")
	}
	lim = DefaultEncodingLimits()
	lim.ZSetMaxListpackEntries = 2
	lim.ZSetMaxListpackValue = 3
	ks.SetEncodingLimits(lim)
	d.ZAdd([]byte("g"), []float64{1, 2}, bs("a", "b"), 0)
	if encOf(t, d, "g") != "listpack" {
		t.Fatal("2 members under a limit of 2")
	}
	d.ZAdd([]byte("g"), []float64{3}, bs("a"), 0)
	if encOf(t, d, "g") != "listpack" {
		t.Fatal("a score update does not convert")
	}
	d.ZAdd([]byte("g"), []float64{3}, bs("c"), 0)
	if encOf(t, d, "g") != "skiplist" {
		t.Fatal("3 members over a limit of 2")
	}
	d.ZAdd([]byte("long"), []float64{1}, bs("abcd"), 0)
	if encOf(t, d, "long") != "skiplist" {
		t.Fatal("a first member over the value limit creates a skiplist")
	}
	srcs, _ := d.ReadZSources(bs("g"))
	u, maxLen := ZUnion(srcs, AggSum)
	d.StoreZSet([]byte("u"), u, maxLen, EvZUnionStore)
	if encOf(t, d, "u") != "skiplist" {
		t.Fatal("a 3-member result over a limit of 2 stays a skiplist")
	}
	d.ZRem([]byte("g"), bs("a"))
	srcs, _ = d.ReadZSources(bs("g"))
	u, maxLen = ZUnion(srcs, AggSum)
	d.StoreZSet([]byte("u"), u, maxLen, EvZUnionStore)
	if encOf(t, d, "u") != "listpack" {
		t.Fatal("a small result converts to listpack")
	}
}

func TestZSetDupIsIndependent(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	d.ZAdd([]byte("z"), []float64{1, 2, 3}, bs("a", "b", "c"), 0)
	z, _ := d.LookupZSet([]byte("z"))
	cp := z.dup().(*ZSet)
	cp.add(10, []byte("a"), 0, &ks.limits)
	cp.remove([]byte("b"))
	checkZSet(t, z, []zsetEntry{{"a", 1}, {"b", 2}, {"c", 3}})
	checkZSet(t, cp, []zsetEntry{{"c", 3}, {"a", 10}})
	if cp.IsListpack() != z.IsListpack() {
		t.Fatal("dup changed the encoding")
	}
}

func TestZAddFlags(t *testing.T) {
	lim := DefaultEncodingLimits()
	tests := []struct {
		flags ZAddFlags
		score float64
		res   zaddResult
		want  float64 // score of "a" afterwards (it starts at 5)
	}{
		{0, 5, zaddUnchanged, 5},
		{0, 6, zaddUpdated, 6},
		{ZAddNX, 6, zaddNop, 5},
		{ZAddXX, 6, zaddUpdated, 6},
		{ZAddGT, 4, zaddNop, 5},
		{ZAddGT, 6, zaddUpdated, 6},
		{ZAddLT, 6, zaddNop, 5},
		{ZAddLT, 4, zaddUpdated, 4},
		{ZAddIncr, 0, zaddUnchanged, 5},
		{ZAddIncr, 2, zaddUpdated, 7},
		{ZAddIncr | ZAddGT, -1, zaddNop, 5},
		{ZAddIncr | ZAddLT, -1, zaddUpdated, 4},
	}
	for _, tc := range tests {
		z := newZSet(true)
		z.add(5, []byte("a"), 0, &lim)
		res, _, ok := z.add(tc.score, []byte("a"), tc.flags, &lim)
		s, _ := z.Score([]byte("a"))
		if !ok || res != tc.res || s != tc.want {
			t.Errorf("flags %b score %v: result %v score %v, want %v %v", tc.flags, tc.score, res, s, tc.res, tc.want)
		}
	}
}

// TestTypesMemoryAccounting checks the incremental estimate of hashes,
// sets and sorted sets: after random writes the running total equals the
// sum of what each key reports now, and deleting everything (or replacing
// it with strings) brings it back to zero.
func TestTypesMemoryAccounting(t *testing.T) {
	ks, _ := newTestKS(t)
	d := ks.DB(0)
	lim := DefaultEncodingLimits()
	lim.HashMaxListpackEntries, lim.SetMaxIntsetEntries, lim.ZSetMaxListpackEntries = 4, 4, 4
	ks.SetEncodingLimits(lim)
	keys := []string{"a", "b", "c", "d"}
	for i := 0; i < 3000; i++ {
		k := []byte(keys[i%len(keys)] + strconv.Itoa(i%5))
		m := []byte(strconv.Itoa(i % 13))
		if i%4 == 0 {
			m = append(m, "-member"...)
		}
		switch i % 11 {
		case 0:
			d.HashSet([]byte("h"+string(k)), bs(string(m), strconv.Itoa(i)))
		case 1:
			d.HashDel([]byte("h"+string(k)), bs(string(m)))
		case 2:
			d.SetAdd([]byte("s"+string(k)), [][]byte{m})
		case 3:
			d.SetRem([]byte("s"+string(k)), [][]byte{m})
		case 4:
			d.ZAdd([]byte("z"+string(k)), []float64{float64(i % 7)}, [][]byte{m}, 0)
		case 5:
			d.ZRem([]byte("z"+string(k)), [][]byte{m})
		case 6:
			d.SetPop([]byte("s"+string(k)), int64(i%4))
		case 7:
			sets, _ := d.ReadSets(bs("sa0", "sb1"))
			d.StoreSet([]byte("s"+string(k)), d.SetUnion(sets), EvSUnionStore)
		case 8:
			srcs, _ := d.ReadZSources(bs("za0", "sb1"))
			z, n := ZUnion(srcs, AggSum)
			d.StoreZSet([]byte("z"+string(k)), z, n, EvZUnionStore)
		case 9:
			r, _ := ParseScoreRange([]byte("1"), []byte("2"))
			d.ZRemRangeByScore([]byte("z"+string(k)), &r)
		case 10:
			d.ZPop(bs("z"+string(k)), i%2 == 0, 2, func([]byte, int) {}, func(string, float64) {})
		}
		if i%500 == 499 {
			var sum int64
			d.Keys([]byte("*"), func(key string) {
				n, _ := d.KeyMemory([]byte(key))
				sum += n
			})
			if sum != d.UsedMemory() {
				t.Fatalf("op %d: running total %d, sum of keys %d", i, d.UsedMemory(), sum)
			}
		}
	}
	if d.UsedMemory() <= 0 {
		t.Fatal("no memory accounted")
	}
	d.Keys([]byte("s*"), func(key string) { d.SetString([]byte(key), []byte("v"), TTLClear, 0, EvSet) })
	var all []string
	d.Keys([]byte("*"), func(key string) { all = append(all, key) })
	for _, k := range all {
		d.Delete([]byte(k))
	}
	if got := d.UsedMemory(); got != 0 {
		t.Fatalf("used memory %d after deleting every key, want 0", got)
	}
}
