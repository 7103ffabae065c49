package db

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// dictBenchKeys is the dict size of the benchmarks.
const dictBenchKeys = 1 << 20

// dictBenchNode48 is a 48-byte node (key 16 + next 8 + value 16 + expiry 8),
// the size the memory benchmark reports for.
type dictBenchNode48 struct {
	key    string
	next   *dictBenchNode48
	value  any
	expire int64
}

func (n *dictBenchNode48) dictKey() string                { return n.key }
func (n *dictBenchNode48) dictNext() *dictBenchNode48     { return n.next }
func (n *dictBenchNode48) setDictNext(x *dictBenchNode48) { n.next = x }

// dictBenchSetup returns dictBenchKeys fresh nodes keyed "key:<i>", a dict
// holding them (rehash complete), and copies of their keys in separate
// memory, as a request's key would be, so that looking a key up does not
// warm the node's cache lines first.
func dictBenchSetup(b *testing.B) (*dict[dictBenchNode48, *dictBenchNode48], []*dictBenchNode48, []string) {
	b.Helper()
	nodes := make([]*dictBenchNode48, dictBenchKeys)
	keys := make([]string, dictBenchKeys)
	d := &dict[dictBenchNode48, *dictBenchNode48]{}
	for i := range nodes {
		nodes[i] = &dictBenchNode48{key: "key:" + strconv.Itoa(i)}
		keys[i] = strings.Clone(nodes[i].key)
		d.Insert(nodes[i])
	}
	for d.RehashFor(1 << 30) {
	}
	return d, nodes, keys
}

func BenchmarkDictFindHit(b *testing.B) {
	d, _, keys := dictBenchSetup(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d.Find(keys[i&(dictBenchKeys-1)]) == nil {
			b.Fatal("miss")
		}
	}
}

func BenchmarkDictFindMiss(b *testing.B) {
	d, _, _ := dictBenchSetup(b)
	missing := make([]string, dictBenchKeys)
	for i := range missing {
		missing[i] = "absent:" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d.Find(missing[i&(dictBenchKeys-1)]) != nil {
			b.Fatal("hit")
		}
	}
}

// BenchmarkGoMapFindHit is the baseline for BenchmarkDictFindHit: a Go map
// from key to node, same keys, same access order. It does not touch the node,
// which the dict must do to compare keys (and a caller does next anyway).
func BenchmarkGoMapFindHit(b *testing.B) {
	_, nodes, keys := dictBenchSetup(b)
	m := make(map[string]*dictBenchNode48, len(nodes))
	for _, n := range nodes {
		m[n.key] = n
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m[keys[i&(dictBenchKeys-1)]] == nil {
			b.Fatal("miss")
		}
	}
}

// BenchmarkDictInsert inserts into a dict that is cleared every
// dictBenchKeys inserts, so it includes growth and incremental rehash from
// empty to 1M keys.
func BenchmarkDictInsert(b *testing.B) {
	d, nodes, _ := dictBenchSetup(b)
	d.Clear()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i & (dictBenchKeys - 1)
		if k == 0 && i > 0 {
			b.StopTimer()
			d.Clear()
			b.StartTimer()
		}
		d.Insert(nodes[k])
	}
}

// BenchmarkDictRemove removes from a full 1M-key dict, refilled (timer
// stopped) whenever it empties.
func BenchmarkDictRemove(b *testing.B) {
	d, nodes, keys := dictBenchSetup(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i & (dictBenchKeys - 1)
		if k == 0 && i > 0 {
			b.StopTimer()
			for _, n := range nodes {
				d.Insert(n)
			}
			for d.RehashFor(1 << 30) {
			}
			b.StartTimer()
		}
		if d.Remove(keys[k]) == nil {
			b.Fatal("miss")
		}
	}
}

func BenchmarkDictRandom(b *testing.B) {
	d, _, _ := dictBenchSetup(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d.Random() == nil {
			b.Fatal("nil")
		}
	}
}

func BenchmarkDictSample16(b *testing.B) {
	d, _, _ := dictBenchSetup(b)
	buf := make([]*dictBenchNode48, 0, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = d.Sample(buf[:0], 16)
	}
}

// BenchmarkDictScan reports the cost of one Scan call (one bucket).
func BenchmarkDictScan(b *testing.B) {
	d, _, _ := dictBenchSetup(b)
	var cursor uint64
	seen := 0
	fn := func(*dictBenchNode48) { seen++ }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cursor = d.Scan(cursor, fn)
	}
}

// BenchmarkDictHeapPerNode measures the heap cost of 1,000,000 48-byte
// nodes: "node+key-B/node" is the nodes and their key strings, "dict-B/node"
// what the dict adds on top (its bucket array, 2^20 pointers here), both
// after a full GC. The dict's share ranges from 8 to 16 bytes per node over a
// doubling cycle (load factor 1 down to 0.5), plus the old table while a
// rehash is in progress.
func BenchmarkDictHeapPerNode(b *testing.B) {
	const count = 1_000_000
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var nodeBytes, dictBytes float64
	for i := 0; i < b.N; i++ {
		nodes := make([]*dictBenchNode48, count)
		base := heap()
		for j := range nodes {
			nodes[j] = &dictBenchNode48{key: "key:" + strconv.Itoa(j)}
		}
		withNodes := heap()
		d := &dict[dictBenchNode48, *dictBenchNode48]{}
		for _, n := range nodes {
			d.Insert(n)
		}
		for d.RehashFor(1 << 30) {
		}
		withDict := heap()
		nodeBytes = float64(withNodes-base) / count
		dictBytes = float64(withDict-withNodes) / count
		runtime.KeepAlive(nodes)
		runtime.KeepAlive(d)
	}
	b.ReportMetric(nodeBytes, "node+key-B/node")
	b.ReportMetric(dictBytes, "dict-B/node")
}
