package test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Client limits against redis-server, RESP2 and RESP3: maxclients,
// client-output-buffer-limit (hard and soft), client-query-buffer-limit
// and proto-max-bulk-len.

// forBothPairs runs fn on a fresh, tainted diffPair for RESP2 and RESP3.
func forBothPairs(t *testing.T, fn func(t *testing.T, p *diffPair)) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			p := newDiffPairProto(t, proto)
			p.taint()
			fn(t, p)
		})
	}
}

func TestDiffMaxClients(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		// Both servers now have exactly A connected: room for one more.
		a.Do("CONFIG", "SET", "maxclients", "2")
		a.Do("CONFIG", "GET", "maxclients")
		p.Conn("B").Do("PING")
		extra := func(srv *leasedServer) string {
			c := srv.dial(t)
			defer c.Close()
			b, closed := c.ReadAllUntilClose(2 * time.Second)
			return strconv.Quote(string(b)) + " closed=" + strconv.FormatBool(closed)
		}
		if want, got := extra(p.redis), extra(p.ours); want != got {
			t.Fatalf("third client: redis-server %s, miniwatchd %s", want, got)
		} else if !strings.Contains(want, "max number of clients reached") {
			t.Fatalf("redis-server let the third client in: %s", want)
		}
		a.Do("PING")
		a.Do("CONFIG", "SET", "maxclients", "10000")
		p.Conn("C").Do("PING")
	})
}

func TestDiffOutputBufferLimitHard(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		a.Do("SET", "big", strings.Repeat("x", 2<<20))
		a.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
		a.Do("CONFIG", "GET", "client-output-buffer-limit")
		a.Do("STRLEN", "big")
		b := p.Conn("B")
		b.Send("GET", "big")
		b.ExpectClosed(3 * time.Second)
		// A pipeline crossing the limit closes the client too: its
		// replies are dropped, as Redis drops them.
		c := p.Conn("C")
		var pipe []byte
		for i := 0; i < 3; i++ {
			pipe = resptest.AppendCommand(pipe, "GETRANGE", "big", "0", "524287")
		}
		c.SendRaw(pipe)
		c.ExpectClosed(3 * time.Second)
		a.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
		a.Do("STRLEN", "big")
	})
}

// TestDiffOutputBufferLimitSoft: a client over the soft limit stays while
// the soft seconds last and is closed after them by the cron's check,
// without reading or sending anything more. The reply is far larger than
// what the kernel's socket buffers can hold (here up to 32 MB received and
// 4 MB sent on loopback), so more than the soft limit stays pending.
func TestDiffOutputBufferLimitSoft(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		a.Do("SET", "big", strings.Repeat("y", 48<<20))
		a.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 0 2mb 3")
		b := p.Conn("B")
		b.Send("GET", "big")
		// Present during the soft seconds, gone a while after them.
		gone := func(c *respConn, within time.Duration) bool {
			deadline := time.Now().Add(within)
			for {
				list := mustDo(t, c, "CLIENT", "LIST").Text()
				if !strings.Contains(list, "cmd=get") {
					return true
				}
				if time.Now().After(deadline) {
					return false
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		time.Sleep(300 * time.Millisecond)
		if r, o := gone(a.redis, 0), gone(a.ours, 0); r || o {
			t.Fatalf("closed before the soft seconds: redis-server %v, miniwatchd %v", r, o)
		}
		if r, o := gone(a.redis, 15*time.Second), gone(a.ours, 15*time.Second); !r || !o {
			t.Fatalf("still connected after the soft seconds: redis-server closed %v, miniwatchd closed %v", r, o)
		}
		a.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0")
		a.Do("DEL", "big")
	})
}

func TestDiffQueryBufferLimit(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		a.Do("CONFIG", "SET", "client-query-buffer-limit", "1mb")
		a.Do("CONFIG", "GET", "client-query-buffer-limit")
		b := p.Conn("B")
		b.SendRaw([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n" + strings.Repeat("z", 1500000)))
		b.ExpectClosed(3 * time.Second)
		// Under the limit a large argument is fine.
		p.Conn("C").Do("SET", "k", strings.Repeat("z", 900000))
		a.Do("STRLEN", "k")
	})
}

func TestDiffProtoMaxBulkLen(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		old := p.Conn("OLD") // connected before the change
		old.Do("PING")
		a.Do("CONFIG", "SET", "proto-max-bulk-len", "1mb")
		a.Do("CONFIG", "GET", "proto-max-bulk-len")
		b := p.Conn("B")
		b.DoRaw(cmpExact, []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n"))
		b.ExpectClosed(3 * time.Second)
		old.DoRaw(cmpExact, []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n"))
		old.ExpectClosed(3 * time.Second)
		p.Conn("C").Do("SET", "k", strings.Repeat("z", 1<<20))
		a.Do("STRLEN", "k")
	})
}

// TestDiffTimeout: an idle client is closed after timeout seconds; a
// subscriber is not (Redis's clientsCronHandleTimeout).
func TestDiffTimeout(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		sub := p.Conn("SUB")
		sub.Do("SUBSCRIBE", "ch")
		idle := p.Conn("IDLE")
		idle.Do("PING")
		a.Do("CONFIG", "SET", "timeout", "1")
		idle.ExpectClosed(6 * time.Second)
		a.ExpectClosed(4 * time.Second) // idle as well by now
		sub.ExpectNoReply(500 * time.Millisecond)
		b := p.Conn("B")
		b.Do("CONFIG", "SET", "timeout", "0")
		b.Do("PUBLISH", "ch", "still here")
		sub.Read(cmpExact)
	})
}

// TestDiffClientEviction: with maxmemory-clients set, a client whose query
// buffer grows far past the limit is evicted, small clients and a client
// with CLIENT NO-EVICT stay, and INFO counts it (Redis 7.0 evictClients).
func TestDiffClientEviction(t *testing.T) {
	forBothPairs(t, func(t *testing.T, p *diffPair) {
		a := p.Conn("A")
		a.Do("CLIENT", "NO-EVICT", "on")
		a.Do("CONFIG", "SET", "maxmemory-clients", "4mb")
		a.Do("CONFIG", "GET", "maxmemory-clients")
		small := p.Conn("SMALL")
		small.Do("PING")
		big := p.Conn("BIG")
		// The servers may evict (and reset) the connection while the
		// payload is still being sent: write errors are expected.
		payload := []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000000\r\n" + strings.Repeat("z", 8<<20))
		done := make(chan struct{})
		go func() { big.redis.SendRaw(payload); close(done) }()
		big.ours.SendRaw(payload)
		<-done
		big.ExpectClosed(5 * time.Second)
		small.Do("PING")
		a.Do("PING")
		evicted := func(c *respConn) int { return infoStat(t, c, "evicted_clients") }
		if r, o := evicted(a.redis), evicted(a.ours); r != o || r != 1 {
			t.Fatalf("evicted_clients: redis-server %d, miniwatchd %d", r, o)
		}
		a.Do("CONFIG", "SET", "maxmemory-clients", "0")
	})
}
