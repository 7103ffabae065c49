package db

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkZAddRandom mirrors redis-benchmark's ZADD: random scores and
// members from a space of 100,000 into one sorted set.
func BenchmarkZAddRandom(b *testing.B) {
	ks := NewKeyspace(1)
	benchZAdd(b, ks.DB(0), []byte("myzset"), 100000)
}

// BenchmarkZAddMoving is redis-benchmark's ZADD once its set is full:
// 100,000 members, each ZADD gives a random member a fresh random score,
// so nearly every call moves a node in the skiplist.
func BenchmarkZAddMoving(b *testing.B) {
	ks := NewKeyspace(1)
	d := ks.DB(0)
	key := []byte("myzset")
	for i := 0; i < 100000; i++ {
		d.ZAdd(key, []float64{float64(rand.IntN(100000))}, [][]byte{[]byte("element:" + strconv.Itoa(i))}, 0)
	}
	benchZAdd(b, d, key, 1<<20)
}

// benchZAdd times one ZADD per iteration at key, cycling through n
// pregenerated pairs of a random score below 100,000 and a random member
// "element:<number below 100,000>".
func benchZAdd(b *testing.B, d *DB, key []byte, n int) {
	members := make([][]byte, n)
	scores := make([]float64, n)
	for i := range members {
		members[i] = []byte("element:" + strconv.Itoa(rand.IntN(100000)))
		scores[i] = float64(rand.IntN(100000))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % n
		d.ZAdd(key, scores[j:j+1], members[j:j+1], 0)
	}
}

// BenchmarkHSetRandom mirrors redis-benchmark's HSET.
func BenchmarkHSetRandom(b *testing.B) {
	ks := NewKeyspace(1)
	d := ks.DB(0)
	args := make([][][]byte, 100000)
	for i := range args {
		args[i] = [][]byte{[]byte("element:" + strconv.Itoa(rand.IntN(100000))), []byte("xxx")}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.HashSet([]byte("myhash"), args[i%len(args)])
	}
}

// BenchmarkSAddRandom mirrors redis-benchmark's SADD.
func BenchmarkSAddRandom(b *testing.B) {
	ks := NewKeyspace(1)
	d := ks.DB(0)
	args := make([][][]byte, 100000)
	for i := range args {
		args[i] = [][]byte{[]byte("element:" + strconv.Itoa(rand.IntN(100000)))}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.SetAdd([]byte("myset"), args[i%len(args)])
	}
}
