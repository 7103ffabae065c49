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
	d := ks.DB(0)
	key := []byte("myzset")
	members := make([][]byte, 100000)
	scores := make([]float64, 100000)
	for i := range members {
		members[i] = []byte("element:" + strconv.Itoa(rand.IntN(100000)))
		scores[i] = float64(rand.IntN(100000))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(members)
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
