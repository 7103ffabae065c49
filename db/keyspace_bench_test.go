package db

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
	"github.com/miniwatchd/miniwatchd/watch"
)

// Hot-path benchmarks of the keyspace's string API, the calls GET, SET and
// INCR make (without the server around them). Keys look like
// redis-benchmark's ("key:" and 12 digits); the keyspace holds
// benchKeys keys, as with redis-benchmark -r 100000. Keys are looked up
// from separate byte slices, as a request's arguments would be.

const benchKeys = 100_000

type nopObserver struct{}

func (nopObserver) Modified(*DB, string)      {}
func (nopObserver) Notify(*DB, Event, string) {}
func (nopObserver) Ready(*DB, string, Type)   {}
func (nopObserver) Flushed(int)               {}
func (nopObserver) Swapped(int, int)          {}

// benchKeyNames returns n request-like keys with the given prefix.
func benchKeyNames(prefix string, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "%s%012d", prefix, i)
	}
	return keys
}

// benchDB returns a db holding benchKeys string keys "key:..." = "xxx", with
// an observer installed (as in the server) and the clock set.
func benchDB(b *testing.B) (*DB, [][]byte) {
	b.Helper()
	ks := NewKeyspace(16)
	ks.SetObserver(nopObserver{})
	ks.SetTime(1_000_000)
	d := ks.DB(0)
	keys := benchKeyNames("key:", benchKeys)
	for _, k := range keys {
		d.SetString(k, []byte("xxx"), TTLClear, 0, EvSet)
	}
	return d, keys
}

var benchVal = []byte("xxx")

// benchShuffled returns keys in a random order: visiting them in that order
// touches entries all over the heap, as redis-benchmark -r does, instead of
// in allocation order.
func benchShuffled(keys [][]byte) [][]byte {
	out := append([][]byte(nil), keys...)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// benchKeyOrders runs op on every key of a benchDB in turn, as sub-benchmarks
// "sequential" (allocation order) and "random" (benchShuffled).
func benchKeyOrders(b *testing.B, op func(b *testing.B, d *DB, key []byte)) {
	for _, order := range []string{"sequential", "random"} {
		b.Run(order, func(b *testing.B) {
			d, keys := benchDB(b)
			if order == "random" {
				keys = benchShuffled(keys)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				op(b, d, keys[i%benchKeys])
				i++
			}
		})
	}
}

func BenchmarkGetStringHit(b *testing.B) {
	benchKeyOrders(b, func(b *testing.B, d *DB, key []byte) {
		if v, err := d.GetString(key); v == nil || err != nil {
			b.Fatal("miss")
		}
	})
}

func BenchmarkGetStringMiss(b *testing.B) {
	d, _ := benchDB(b)
	missing := benchKeyNames("absent:", benchKeys)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if v, _ := d.GetString(missing[i%benchKeys]); v != nil {
			b.Fatal("hit")
		}
		i++
	}
}

// BenchmarkSetStringOverwrite is SET of an existing key (the steady state of
// redis-benchmark -t set).
func BenchmarkSetStringOverwrite(b *testing.B) {
	benchKeyOrders(b, func(b *testing.B, d *DB, key []byte) {
		d.SetString(key, benchVal, TTLClear, 0, EvSet)
	})
}

// BenchmarkSetStringInsert is SET of new keys into a growing keyspace
// (incremental rehashing included).
func BenchmarkSetStringInsert(b *testing.B) {
	d, _ := benchDB(b)
	fresh := benchKeyNames("new:", b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.SetString(fresh[i], benchVal, TTLClear, 0, EvSet)
	}
}

// BenchmarkDeleteInsert deletes a key and creates it again.
func BenchmarkDeleteInsert(b *testing.B) {
	d, keys := benchDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := keys[i%benchKeys]
		if !d.Delete(k) {
			b.Fatal("missing")
		}
		d.SetString(k, benchVal, TTLClear, 0, EvSet)
		i++
	}
}

// BenchmarkIncr is the db side of INCR: read for write, parse, store.
func BenchmarkIncr(b *testing.B) {
	d, _ := benchDB(b)
	counters := benchKeyNames("counter:", 1000)
	var buf [24]byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := counters[i%len(counters)]
		cur, _, err := d.GetStringForWrite(k)
		if err != nil {
			b.Fatal(err)
		}
		var v int64
		if cur != nil {
			v, _ = protocol.ParseInt(cur)
		}
		d.SetString(k, protocol.AppendInt(buf[:0], v+1), TTLKeep, 0, EvIncrBy)
		i++
	}
}

// BenchmarkWatchThenSet is WATCH k by one client followed by a SET of k:
// the touch marks the client dirty and drops its record. Compare with
// BenchmarkSetStringOverwrite plus watch's BenchmarkWatchUnwatch.
func BenchmarkWatchThenSet(b *testing.B) {
	d, keys := benchDB(b)
	var c watch.Client
	key := string(keys[0])
	b.ReportAllocs()
	for b.Loop() {
		c.Reset()
		c.Watch(d.Watched(), d.ID(), key, false)
		d.SetString(keys[0], benchVal, TTLClear, 0, EvSet)
		if !c.Dirty() {
			b.Fatal("the watcher was not touched")
		}
	}
}

// BenchmarkSetStringWithTTL is SET key value EX: a deadline on every write.
func BenchmarkSetStringWithTTL(b *testing.B) {
	d, keys := benchDB(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.SetString(keys[i%benchKeys], benchVal, TTLSet, 2_000_000+int64(i), EvSet)
		i++
	}
}
