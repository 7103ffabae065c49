package watch

import (
	"strconv"
	"testing"
)

// Hot-path benchmarks of the WATCH bookkeeping: what one WATCH, one write
// (touch) and one end of transaction (unwatch) cost. See also
// BenchmarkWatchTouch in watch_test.go (watch, touch, reset in one op).

// BenchmarkTouchUnwatchedKey is the cost every write pays when nobody
// watches anything in its db.
func BenchmarkTouchUnwatchedKey(b *testing.B) {
	var k Keys
	b.ReportAllocs()
	for b.Loop() {
		k.Touch("key:000000012345", true)
	}
}

// BenchmarkTouchOtherKeyWatched is a write to a key nobody watches while
// other keys of the db are watched (a map lookup that misses).
func BenchmarkTouchOtherKeyWatched(b *testing.B) {
	var k Keys
	clients := make([]Client, 100)
	for i := range clients {
		clients[i].Watch(&k, 0, "watched:"+strconv.Itoa(i), false)
	}
	b.ReportAllocs()
	for b.Loop() {
		k.Touch("key:000000012345", true)
	}
}

// BenchmarkWatchUnwatch is WATCH k followed by UNWATCH (or EXEC): the
// per-transaction bookkeeping of the contention loop.
func BenchmarkWatchUnwatch(b *testing.B) {
	var k Keys
	var c Client
	b.ReportAllocs()
	for b.Loop() {
		c.Watch(&k, 0, "hot", false)
		c.Reset()
	}
}

// BenchmarkWatchUnwatch4Keys watches four keys per transaction.
func BenchmarkWatchUnwatch4Keys(b *testing.B) {
	var k Keys
	var c Client
	keys := []string{"a", "b", "c", "d"}
	b.ReportAllocs()
	for b.Loop() {
		for _, key := range keys {
			c.Watch(&k, 0, key, false)
		}
		c.Reset()
	}
}

// benchContentionRound measures one round of contention on a hot key: n
// clients WATCH it, then one write touches it, marking all n dirty and
// dropping their records. ns/op covers the n WATCHes and the touch; the
// touch's own share is the difference with n WATCH+UNWATCH pairs.
func benchContentionRound(b *testing.B, n int) {
	var k Keys
	clients := make([]Client, n)
	b.ReportAllocs()
	for b.Loop() {
		for i := range clients {
			clients[i].Reset()
			clients[i].Watch(&k, 0, "hot", false)
		}
		k.Touch("hot", true)
	}
	for i := range clients {
		if !clients[i].Dirty() || clients[i].Count() != 0 {
			b.Fatal("a watcher was not touched")
		}
	}
}

func BenchmarkContentionRound1(b *testing.B)   { benchContentionRound(b, 1) }
func BenchmarkContentionRound8(b *testing.B)   { benchContentionRound(b, 8) }
func BenchmarkContentionRound128(b *testing.B) { benchContentionRound(b, 128) }

type benchBreaker struct{}

func (benchBreaker) WatchBreaker() (int64, string, string) { return 7, "writer", "127.0.0.1:1" }

// benchContentionRoundExplained is benchContentionRound with the server's
// touch context attached (issue 23): every dirtied watcher records its
// explanation and the gauges move. Compare with the plain rounds for the
// cost of explaining; BenchmarkTouchUnwatchedKeyWithContext shows the
// cost a write that dirties nobody pays (none: the context is not read).
func benchContentionRoundExplained(b *testing.B, n int) {
	var now int64 = 1
	var ctx Context
	ctx.SetClock(&now)
	ctx.Cause, ctx.By, ctx.Cmd = CauseWrite, benchBreaker{}, "set"
	var k Keys
	k.SetContext(&ctx)
	clients := make([]Client, n)
	b.ReportAllocs()
	for b.Loop() {
		for i := range clients {
			clients[i].Reset()
			clients[i].Watch(&k, 0, "hot", false)
		}
		k.Touch("hot", true)
	}
	if clients[0].Why().Cause != CauseWrite {
		b.Fatal("not explained")
	}
}

func BenchmarkContentionRoundExplained1(b *testing.B)   { benchContentionRoundExplained(b, 1) }
func BenchmarkContentionRoundExplained128(b *testing.B) { benchContentionRoundExplained(b, 128) }

func BenchmarkTouchUnwatchedKeyWithContext(b *testing.B) {
	var ctx Context
	var k Keys
	k.SetContext(&ctx)
	b.ReportAllocs()
	for b.Loop() {
		k.Touch("key:000000012345", true)
	}
}

// BenchmarkContentionRound10000 is the WSCALE touch row (bench/targets.sh):
// 10,000 watchers of one key and the write that dirties them all.
func BenchmarkContentionRound10000(b *testing.B) { benchContentionRound(b, 10000) }

// BenchmarkWatchDistinct1000 is one client of the WSCALE memory and
// disconnect rows: WATCH of 1,000 keys nobody else watches, then the drop
// of all of them (a disconnect, UNWATCH or EXEC). Other clients' 10,000
// records stay in the db, as on a busy server.
func BenchmarkWatchDistinct1000(b *testing.B) {
	var k Keys
	others := make([]Client, 10)
	for i := range others {
		for j := 0; j < 1000; j++ {
			others[i].Watch(&k, 0, "other:"+strconv.Itoa(i)+":"+strconv.Itoa(j), false)
		}
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "watchscale:1:" + strconv.Itoa(i)
	}
	var c Client
	b.ReportAllocs()
	for b.Loop() {
		for _, key := range keys {
			c.Watch(&k, 0, key, false)
		}
		c.UnwatchAll()
	}
}

// BenchmarkUnwatchMillion is the WSCALE disconnect row without the
// network: 1,000 clients watching 1,000 distinct keys each drop all their
// records, one client after the other. ns/op is per record.
func BenchmarkUnwatchMillion(b *testing.B) {
	const clients, keys = 1000, 1000
	var k Keys
	cs := make([]Client, clients)
	names := make([]string, 0, clients*keys)
	for i := 0; i < clients; i++ {
		for j := 0; j < keys; j++ {
			names = append(names, "watchscale:"+strconv.Itoa(i)+":"+strconv.Itoa(j))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += clients * keys {
		b.StopTimer()
		for i := range cs {
			for j := 0; j < keys; j++ {
				cs[i].Watch(&k, 0, names[i*keys+j], false)
			}
		}
		b.StartTimer()
		for i := range cs {
			cs[i].UnwatchAll()
		}
	}
}

// BenchmarkTouch10000 times the touch alone: one write of a key 10,000
// clients watch (the WATCHes are outside the timer). It allocates nothing.
func BenchmarkTouch10000(b *testing.B) {
	var k Keys
	clients := make([]Client, 10000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range clients {
			clients[j].Reset()
			clients[j].Watch(&k, 0, "hot", false)
		}
		b.StartTimer()
		k.Touch("hot", true)
	}
	if !clients[0].Dirty() || k.Len() != 0 {
		b.Fatal("the watchers were not touched")
	}
}
