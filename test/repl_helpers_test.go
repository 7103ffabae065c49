package test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// Helpers of the replication tests: a raw replica (SYNC or PSYNC on a bare
// connection, as Redis's own test helpers attach to check what a server
// propagates), and the mixed workload both replication tests run.

// rawReplica is a connection that asked a server for its replication
// stream; the bytes after the snapshot are collected in the background.
type rawReplica struct {
	nc      net.Conn
	br      *bufio.Reader
	header  string // +FULLRESYNC ... (PSYNC only)
	rdb     []byte
	mu      sync.Mutex
	stream  []byte
	done    chan struct{}
	readErr error
}

// attachRawReplica sends SYNC (psync false) or REPLCONF capa eof + PSYNC
// ? -1 and reads the snapshot (either form).
func attachRawReplica(t *testing.T, addr string, psync bool) *rawReplica {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := &rawReplica{nc: nc, br: bufio.NewReaderSize(nc, 1<<16), done: make(chan struct{})}
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	if psync {
		nc.Write(resptest.Command("REPLCONF", "capa", "eof", "capa", "psync2"))
		if l := r.line(t); l != "+OK" {
			t.Fatalf("REPLCONF: %q", l)
		}
		nc.Write(resptest.Command("PSYNC", "?", "-1"))
		r.header = r.line(t)
		if !strings.HasPrefix(r.header, "+FULLRESYNC ") {
			t.Fatalf("PSYNC: %q", r.header)
		}
	} else {
		nc.Write(resptest.Command("SYNC"))
	}
	head := r.line(t)
	switch {
	case strings.HasPrefix(head, "$EOF:"):
		mark := []byte(head[5:])
		var buf []byte
		for !bytes.HasSuffix(buf, mark) {
			b, err := r.br.ReadByte()
			if err != nil {
				t.Fatalf("reading the snapshot: %v", err)
			}
			buf = append(buf, b)
		}
		r.rdb = buf[:len(buf)-len(mark)]
	case strings.HasPrefix(head, "$"):
		n, _ := strconv.Atoi(head[1:])
		r.rdb = make([]byte, n)
		if _, err := io.ReadFull(r.br, r.rdb); err != nil {
			t.Fatalf("reading the snapshot: %v", err)
		}
	default:
		t.Fatalf("snapshot header %q", head)
	}
	if !bytes.HasPrefix(r.rdb, []byte("REDIS0010")) {
		t.Fatalf("snapshot does not start like an RDB v10: %q", r.rdb[:min(len(r.rdb), 16)])
	}
	nc.SetDeadline(time.Time{})
	if psync {
		// After a diskless snapshot Redis starts the stream on the first
		// ack it gets once the transfer is done: ack as replicas do.
		go func() {
			for {
				if _, err := nc.Write(resptest.Command("REPLCONF", "ACK", "0")); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	go r.collect()
	t.Cleanup(func() { nc.Close(); <-r.done })
	return r
}

// line reads a line, skipping the newlines a master sends while it waits.
func (r *rawReplica) line(t *testing.T) string {
	t.Helper()
	for {
		l, err := r.br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading from the master: %v", err)
		}
		if l = strings.TrimRight(l, "\r\n"); l != "" {
			return l
		}
	}
}

func (r *rawReplica) collect() {
	defer close(r.done)
	buf := make([]byte, 1<<16)
	for {
		n, err := r.br.Read(buf)
		r.mu.Lock()
		r.stream = append(r.stream, buf[:n]...)
		r.readErr = err
		r.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// waitFor returns the stream once it ends with suffix.
func (r *rawReplica) waitFor(t *testing.T, suffix []byte) []byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		s := append([]byte(nil), r.stream...)
		err := r.readErr
		r.mu.Unlock()
		if bytes.HasSuffix(s, suffix) {
			return s
		}
		if err != nil {
			t.Fatalf("stream ended: %v (%d bytes)", err, len(s))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the stream did not reach %q in time", suffix)
	return nil
}

var (
	pingInStream = []byte("*1\r\n$4\r\nPING\r\n")
	// Absolute times in milliseconds (PXAT, PEXPIREAT of relative
	// expiries) differ by the moment each server ran the command.
	msTimeInStream = regexp.MustCompile(`\$13\r\n1[0-9]{12}\r\n`)
)

// normalizeStream drops PINGs and masks millisecond times.
func normalizeStream(b []byte) []byte {
	b = bytes.ReplaceAll(b, pingInStream, nil)
	return msTimeInStream.ReplaceAllLiteral(b, []byte("$13\r\n<unix-millis>\r\n"))
}

// splitStream cuts a stream into its commands, for readable failures.
func splitStream(b []byte) []string {
	var out []string
	br := bufio.NewReader(bytes.NewReader(b))
	for {
		n, err := resptest.ReadFrame(br)
		if err != nil {
			return out
		}
		parts := []string{}
		for _, e := range n.Elems {
			parts = append(parts, strconv.Quote(e.Str))
		}
		out = append(out, strings.Join(parts, " "))
	}
}

// firstStreamDiff describes where two streams part.
func firstStreamDiff(a, b []byte) string {
	ca, cb := splitStream(a), splitStream(b)
	for i := 0; i < max(len(ca), len(cb)); i++ {
		var x, y string
		if i < len(ca) {
			x = ca[i]
		}
		if i < len(cb) {
			y = cb[i]
		}
		if x != y {
			lo := max(0, i-3)
			return fmt.Sprintf("command %d differs:\n redis: %s\n ours:  %s\n(context from %d: redis %q)", i, y, x, lo, ca[lo:min(i+1, len(ca))])
		}
	}
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("byte %d differs: redis %q, ours %q", i, b[lo:min(len(b), i+80)], a[lo:min(len(a), i+80)])
}

// replWorkload is a mixed write workload of every type, the same commands
// for every server it runs on: ops random hash/set/zset commands
// (typesGen, seeded with seed) between fixed commands on strings, lists,
// streams, bitmaps, HyperLogLogs, geo, transactions, scripts, functions,
// several databases, relative expiries and blocked pops served by a push.
type replWorkload struct {
	seed int64
	ops  int
	keys int // bulk keys of every type, written pipelined
}

// run sends the workload through a (and b for the blocked pops).
func (w replWorkload) run(t *testing.T, a, b *respConn) {
	t.Helper()
	do := func(args ...string) { mustDo(t, a, args...) }
	do("FUNCTION", "LOAD", "REPLACE", "#!lua name=repllib\nredis.register_function('setboth', function(keys, args) redis.call('SET', keys[1], args[1]); return redis.call('INCR', keys[2]) end)")
	do("SET", "s1str", "v")
	do("SET", "bin", "a\x00b\r\n\xff")
	do("SET", "ttl", "v", "EX", "100000")
	do("SET", "pttl", "v", "PX", "100000000", "GET")
	do("SETEX", "sx", "1000", "v")
	do("INCR", "n")
	do("INCRBY", "n", "41")
	do("INCRBYFLOAT", "f", "1.25")
	do("APPEND", "s1str", "more")
	do("SETRANGE", "s1str", "10", "zz")
	do("GETEX", "s1str", "EX", "5000")
	do("GETDEL", "bin")
	do("MSET", "m1", "1", "m2", "2")
	do("MSETNX", "m3", "3", "m1", "x")
	do("EXPIRE", "m1", "100000")
	do("PERSIST", "m1")
	do("EXPIREAT", "m2", "4102444800")
	do("COPY", "m2", "m2copy")
	do("RENAME", "m3", "m3r")
	do("RPUSH", "list", "a", "b", "", "1")
	do("LPUSH", "list", "z")
	do("LINSERT", "list", "BEFORE", "b", "ins")
	do("LSET", "list", "0", "zz")
	do("LREM", "list", "1", "a")
	do("LTRIM", "list", "0", "10")
	do("LMOVE", "list", "list2", "LEFT", "RIGHT")
	do("RPOPLPUSH", "list", "list2")
	do("LPOP", "list2")
	do("SETBIT", "bits", "100", "1")
	do("BITFIELD", "bits", "SET", "u8", "0", "200", "INCRBY", "u8", "0", "100")
	do("BITOP", "NOT", "bitsnot", "bits")
	do("PFADD", "hll", "a", "b", "c")
	do("PFMERGE", "hll2", "hll")
	do("GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	st := "st" + strconv.FormatInt(w.seed, 10)
	do("XADD", st, "1-1", "f", "v")
	do("XADD", st, "MAXLEN", "10", "2-1", "g", "w")
	do("XADD", st, "3-1", "h", "x")
	do("XGROUP", "CREATE", st, "grp", "0")
	do("XREADGROUP", "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", st, ">")
	do("XREADGROUP", "GROUP", "grp", "bob", "NOACK", "COUNT", "1", "STREAMS", st, ">")
	do("XACK", st, "grp", "1-1")
	do("XDEL", st, "2-1")
	do("XCLAIM", st, "grp", "carol", "0", "3-1")
	do("MULTI")
	do("SET", "tx1", "1")
	do("INCR", "tx2")
	do("HSET", "txh", "f", "v")
	do("EXEC")
	do("MULTI")
	do("GET", "tx1")
	do("EXEC")
	do("EVAL", "redis.call('SET', KEYS[1], ARGV[1]); redis.call('LPUSH', KEYS[2], ARGV[1]); return 1", "2", "ev1", "ev2", "x")
	do("EVAL", "return redis.call('GET', KEYS[1])", "1", "ev1")
	do("FCALL", "setboth", "2", "fk1", "fk2", "val")
	do("SELECT", "3")
	do("SET", "in3", "3")
	do("SADD", "set3", "a", "b")
	do("SWAPDB", "3", "4")
	do("SELECT", "4")
	do("DEL", "in3")
	do("SELECT", "0")
	// Relative expiries, one at a time so that the active expiry cycle
	// and a read can only log the same DEL at the same place.
	do("SET", "exp", "v", "PX", "30")
	sleepMillis(300)
	do("GET", "exp")
	do("HSET", "hexp", "f", "v")
	do("PEXPIRE", "hexp", "30")
	sleepMillis(300)
	do("EXISTS", "hexp")
	// A blocked pop served by a push, from another connection.
	if err := b.Send("BLPOP", "bq", "0"); err != nil {
		t.Fatal(err)
	}
	sleepMillis(50)
	do("RPUSH", "bq", "x", "y")
	if _, err := b.Read(replyTimeout); err != nil {
		t.Fatal(err)
	}
	w.bulk(t, a)
	g := &typesGen{rng: rand.New(rand.NewPCG(uint64(w.seed), 0))}
	for i := 0; i < w.ops; i++ {
		cmd, _, _ := g.next()
		do(cmd...)
	}
	do("ZADD", "zend", "1", "a")
	do("SELECT", "4")
	do("FLUSHDB")
	do("SELECT", "0")
	do("SET", "after-flush", "1")
}

// bulk writes w.keys keys of each type through a, pipelined, in databases
// 0 and 1.
func (w replWorkload) bulk(t *testing.T, a *respConn) {
	t.Helper()
	var buf []byte
	n := 0
	flush := func() {
		if err := a.SendRaw(buf); err != nil {
			t.Fatal(err)
		}
		for ; n > 0; n-- {
			if _, err := a.Read(replyTimeout); err != nil {
				t.Fatal(err)
			}
		}
		buf = buf[:0]
	}
	add := func(args ...string) {
		buf = resptest.AppendCommand(buf, args...)
		n++
		if n >= 500 {
			flush()
		}
	}
	tag := strconv.FormatInt(w.seed, 10)
	for i := 0; i < w.keys; i++ {
		k := tag + ":" + strconv.Itoa(i)
		if i == w.keys/2 {
			add("SELECT", "1")
		}
		add("SET", "str:"+k, strings.Repeat("v", i%100))
		add("INCRBY", "int:"+k, strconv.Itoa(i))
		add("RPUSH", "list:"+k, "a", k, strconv.Itoa(i))
		add("SADD", "set:"+k, "m"+strconv.Itoa(i%7), "m"+strconv.Itoa(i%11), strconv.Itoa(i))
		add("ZADD", "zset:"+k, strconv.Itoa(i), "a", "1.5", "b")
		add("HSET", "hash:"+k, "f", k, "g", strconv.Itoa(i))
		if i%10 == 0 {
			add("PEXPIRE", "hash:"+k, "100000000")
			add("PFADD", "hll:"+k, "a", "b", k)
			add("SETBIT", "bit:"+k, strconv.Itoa(i), "1")
		}
		if i%3 == 0 {
			add("DEL", "int:"+k)
		}
		if i%20 == 0 {
			// A stream of 1 to 250 entries (several nodes from 101),
			// some deleted, with two groups, PELs of two consumers,
			// acks and a claim.
			sk := "stream:" + k
			for j := 1; j <= 1+i%250; j++ {
				add("XADD", sk, strconv.Itoa(i+1)+"-"+strconv.Itoa(j), "f", strconv.Itoa(j), "k", k)
			}
			add("XDEL", sk, strconv.Itoa(i+1)+"-2", strconv.Itoa(i+1)+"-50")
			add("XGROUP", "CREATE", sk, "g1", "0")
			add("XGROUP", "CREATE", sk, "g2", "$", "ENTRIESREAD", "0")
			add("XREADGROUP", "GROUP", "g1", "c1", "COUNT", "30", "STREAMS", sk, ">")
			add("XREADGROUP", "GROUP", "g1", "c2", "COUNT", "5", "STREAMS", sk, ">")
			add("XACK", sk, "g1", strconv.Itoa(i+1)+"-1", strconv.Itoa(i+1)+"-7")
			add("XCLAIM", sk, "g1", "c3", "0", strconv.Itoa(i+1)+"-3", "JUSTID")
			add("XGROUP", "CREATECONSUMER", sk, "g2", "idle")
		}
	}
	add("SELECT", "0")
	flush()
}
