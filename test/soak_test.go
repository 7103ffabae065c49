package test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
	"github.com/miniwatchd/miniwatchd/server"
)

// TestSoak runs an in-process server under a mixed load for a bounded time
// (MINIWATCHD_SOAK_TIME, a Go duration; 20s by default, 5s with -short;
// .ci/run sets 2m) and then checks that nothing was lost and nothing
// leaked:
//
//   - soakSessions goroutines at once, each a worker that owns the keys
//     under its prefix and opens connection after connection (a few to a
//     few dozen commands each), so thousands of connections come and go;
//   - every family (strings, counters, lists, hashes, sets, zsets,
//     streams, bitmaps, HyperLogLogs, geo), transactions with WATCH on the
//     worker's own key (EXEC must succeed) and on a shared counter (EXEC
//     may abort; every commit counts), scripts, PUBLISH to a subscriber
//     that stays for the whole run plus subscribers that come and go,
//     blocking pops on a shared queue and on the worker's own list;
//   - connections end by QUIT, by a close, by a close in the middle of a
//     command (the partial command must never run), in the middle of a
//     MULTI (the queued write must never run), while blocked in BLPOP, or
//     right after a write whose reply is never read (that key is "maybe");
//   - at the end every acknowledged write is checked against the worker's
//     model, the shared counter equals the commits, the shared queue holds
//     exactly what was pushed and not popped, the stable subscriber got
//     every acknowledged PUBLISH, DBSIZE adds up, INFO's counters cover
//     what the clients counted, connected_clients is back to 1 and
//     blocked_clients to 0, the goroutines of the server are gone after
//     Close, and RSS stays bounded (start and end are logged).
func TestSoak(t *testing.T) {
	dur := 20 * time.Second
	sessions := 300
	if testing.Short() {
		dur, sessions = 5*time.Second, 50
	}
	if v := os.Getenv("MINIWATCHD_SOAK_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("MINIWATCHD_SOAK_TIME=%q: %v", v, err)
		}
		dur = d
	}
	goroutinesBefore := runtime.NumGoroutine()
	rssStart := soakRSS()

	cfg := server.DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	serverClosed := false
	defer func() {
		if !serverClosed {
			s.Close()
		}
	}()
	st := &soakStats{addr: s.Addr().String()}

	// The stable subscriber: subscribed before any PUBLISH, for the whole run.
	sub, err := st.dial()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sub.Do("SUBSCRIBE", soakChannel); err != nil || len(n.Elems) != 3 {
		t.Fatalf("SUBSCRIBE: %v %q", err, n.Raw)
	}
	var received atomic.Int64
	subDone := make(chan struct{})
	go func() {
		defer close(subDone)
		for {
			n, err := resptest.ReadFrame(sub.R)
			if err != nil {
				return
			}
			if len(n.Elems) == 3 && n.Elems[0].Str == "message" {
				received.Add(1)
			}
		}
	}()

	deadline := time.Now().Add(dur)
	workers := make([]*soakWorker, sessions)
	var wg sync.WaitGroup
	for i := range workers {
		w := newSoakWorker(t, i, st)
		workers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(deadline)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	c, err := st.dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Every acknowledged PUBLISH reached the stable subscriber.
	for wait := time.Now().Add(10 * time.Second); received.Load() < st.published.Load() && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	if got, want := received.Load(), st.published.Load(); got != want {
		t.Errorf("stable subscriber received %d messages, %d PUBLISH acknowledged", got, want)
	}
	sub.Close()
	<-subDone

	// Every worker's acknowledged writes.
	keys := 0
	for _, w := range workers {
		keys += w.verify(c)
	}
	// The shared counter counts the commits, the shared queue holds what
	// was pushed and not popped.
	if got := soakDo(t, c, "GET", soakCounter).Text(); st.commits.Load() > 0 && got != strconv.FormatInt(st.commits.Load(), 10) {
		t.Errorf("%s = %q, %d EXEC committed", soakCounter, got, st.commits.Load())
	}
	if st.commits.Load() > 0 {
		keys++
	}
	pushed, popped := map[string]bool{}, map[string]bool{}
	for _, w := range workers {
		for _, v := range w.pushed {
			pushed[v] = true
		}
		for _, v := range w.popped {
			if popped[v] {
				t.Errorf("%s: %q popped twice", soakQueue, v)
			}
			popped[v] = true
		}
	}
	left := soakDo(t, c, "LRANGE", soakQueue, "0", "-1")
	if len(left.Elems) > 0 {
		keys++
	}
	for _, e := range left.Elems {
		if popped[e.Str] {
			t.Errorf("%s: %q popped and still there", soakQueue, e.Str)
		}
		popped[e.Str] = true
	}
	for v := range pushed {
		if !popped[v] {
			t.Errorf("%s: %q pushed (acknowledged), neither popped nor left", soakQueue, v)
		}
	}
	for v := range popped {
		if !pushed[v] {
			t.Errorf("%s: %q popped or left, never pushed", soakQueue, v)
		}
	}
	maybe := len(soakDo(t, c, "KEYS", "*:maybe:*").Elems)
	if got := soakDo(t, c, "DBSIZE").Int; got != int64(keys+maybe) {
		t.Errorf("DBSIZE %d, want %d model keys + %d keys whose write was not acknowledged", got, keys, maybe)
	}

	// INFO adds up once the server has noticed every close.
	var info map[string]string
	for wait := time.Now().Add(10 * time.Second); ; {
		info = soakInfo(t, c)
		if info["connected_clients"] == "1" && info["blocked_clients"] == "0" && info["pubsub_channels"] == "0" || time.Now().After(wait) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for field, want := range map[string]string{"connected_clients": "1", "blocked_clients": "0", "pubsub_channels": "0"} {
		if info[field] != want {
			t.Errorf("INFO %s = %q at the end, want %s", field, info[field], want)
		}
	}
	if n := soakInt(info["total_commands_processed"]); n < st.acked.Load() {
		t.Errorf("total_commands_processed %d < %d commands acknowledged", n, st.acked.Load())
	}
	if n := soakInt(info["total_connections_received"]); n != st.dials.Load() {
		t.Errorf("total_connections_received %d, %d connections made", n, st.dials.Load())
	}
	c.Close()

	usedMemory := info["used_memory_human"]
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	serverClosed = true
	goroutinesAfter := runtime.NumGoroutine()
	for wait := time.Now().Add(10 * time.Second); goroutinesAfter > goroutinesBefore && time.Now().Before(wait); {
		time.Sleep(20 * time.Millisecond)
		goroutinesAfter = runtime.NumGoroutine()
	}
	if goroutinesAfter > goroutinesBefore {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the server, %d after Close:\n%s", goroutinesBefore, goroutinesAfter, buf[:runtime.Stack(buf, true)])
	}
	rssEnd := soakRSS()
	t.Logf("soak %v, %d sessions at once: %d connections (%d ended mid-command, %d in MULTI, %d while blocked, %d with a reply unread), "+
		"%d commands acknowledged, %d EXEC on the shared counter committed (%d aborted), %d PUBLISH, %d queue items pushed, "+
		"%d keys checked, used_memory %s, RSS %d MB at start, %d MB at end",
		dur, sessions, st.dials.Load(), st.midCommand.Load(), st.midMulti.Load(), st.midBlock.Load(), st.unread.Load(),
		st.acked.Load(), st.commits.Load(), st.aborts.Load(), st.published.Load(), len(pushed),
		keys, usedMemory, rssStart>>20, rssEnd>>20)
	if limit := rssStart + 1<<30; rssEnd > limit {
		t.Errorf("RSS grew from %d MB to %d MB", rssStart>>20, rssEnd>>20)
	}
}

const (
	soakChannel = "soak:ch"
	soakCounter = "soak:ctr"
	soakQueue   = "soak:q"
	soakScript  = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
)

// soakStats are the counters every worker adds to.
type soakStats struct {
	addr                                   string
	dials, acked, published                atomic.Int64
	commits, aborts                        atomic.Int64
	midCommand, midMulti, midBlock, unread atomic.Int64
}

func (st *soakStats) dial() (*resptest.Conn, error) {
	c, err := resptest.Dial(st.addr)
	if err == nil {
		st.dials.Add(1)
	}
	return c, err
}

// soakWorker owns the keys under its prefix and keeps their model: what
// every acknowledged write left there.
type soakWorker struct {
	t      *testing.T
	id     int
	st     *soakStats
	rng    *rand.Rand
	prefix string
	seq    int

	strs   map[string]string // string keys
	ints   map[string]int64  // counters (INCRBY, scripts, HINCRBY fields are in hash)
	list   []string          // prefix+"l"
	hash   map[string]string // prefix+"h"
	set    map[string]bool   // prefix+"set"
	zset   map[string]int64  // prefix+"z", integer scores
	stream []string          // prefix+"x", IDs in order
	bits   map[int]bool      // prefix+"b"
	hll    map[string]bool   // prefix+"hll"
	geo    map[string]bool   // prefix+"g"
	pushed []string          // items LPUSHed to the shared queue
	popped []string          // items BRPOP took from it
}

func newSoakWorker(t *testing.T, id int, st *soakStats) *soakWorker {
	return &soakWorker{t: t, id: id, st: st, rng: rand.New(rand.NewPCG(uint64(id), 21)), prefix: fmt.Sprintf("w%d:", id),
		strs: map[string]string{}, ints: map[string]int64{}, hash: map[string]string{}, set: map[string]bool{},
		zset: map[string]int64{}, bits: map[int]bool{}, hll: map[string]bool{}, geo: map[string]bool{}}
}

// run opens connection after connection until the deadline.
func (w *soakWorker) run(deadline time.Time) {
	for time.Now().Before(deadline) && !w.t.Failed() {
		c, err := w.st.dial()
		if err != nil {
			w.t.Errorf("worker %d: dial: %v", w.id, err)
			return
		}
		n := 3 + w.rng.IntN(40)
		ok := true
		for i := 0; i < n && ok && time.Now().Before(deadline); i++ {
			ok = w.step(c)
		}
		if ok {
			w.hangUp(c)
		}
		c.Close()
	}
}

// do sends one command and returns its reply, counting it as acknowledged;
// a transport error fails the test.
func (w *soakWorker) do(c *resptest.Conn, args ...string) (resptest.Node, bool) {
	n, err := c.Do(args...)
	if err != nil {
		w.t.Errorf("worker %d: %q: %v", w.id, args, err)
		return n, false
	}
	w.st.acked.Add(1)
	return n, true
}

// expect sends a command and checks its reply's text.
func (w *soakWorker) expect(c *resptest.Conn, want string, args ...string) bool {
	n, ok := w.do(c, args...)
	if ok && (n.IsError() || n.Text() != want) {
		w.t.Errorf("worker %d: %q replied %q, want %q", w.id, args, n.Raw, want)
		return false
	}
	return ok
}

func (w *soakWorker) name() string {
	w.seq++
	return strconv.Itoa(w.seq)
}

// step runs one operation of a random family and updates the model.
func (w *soakWorker) step(c *resptest.Conn) bool {
	p := w.prefix
	r := w.rng
	switch r.IntN(18) {
	case 0: // strings
		k := p + "s" + strconv.Itoa(r.IntN(5))
		v := "v" + w.name()
		if r.IntN(3) == 0 {
			want := w.strs[k] + v
			if !w.expect(c, strconv.Itoa(len(want)), "APPEND", k, v) {
				return false
			}
			w.strs[k] = want
			return true
		}
		if !w.expect(c, "OK", "SET", k, v) {
			return false
		}
		w.strs[k] = v
	case 1: // counters
		k := p + "n" + strconv.Itoa(r.IntN(3))
		d := int64(r.IntN(100) - 50)
		if !w.expect(c, strconv.FormatInt(w.ints[k]+d, 10), "INCRBY", k, strconv.FormatInt(d, 10)) {
			return false
		}
		w.ints[k] += d
	case 2: // lists
		if len(w.list) > 0 && r.IntN(2) == 0 {
			head := w.list[0]
			cmd := []string{"LPOP", p + "l"}
			if r.IntN(2) == 0 {
				n, ok := w.do(c, "BLPOP", p+"l", "1")
				if !ok {
					return false
				}
				if len(n.Elems) != 2 || n.Elems[1].Str != head {
					w.t.Errorf("worker %d: BLPOP %sl = %q, want %q", w.id, p, n.Raw, head)
					return false
				}
				w.list = w.list[1:]
				return true
			}
			if !w.expect(c, head, cmd...) {
				return false
			}
			w.list = w.list[1:]
			return true
		}
		v := "e" + w.name()
		if !w.expect(c, strconv.Itoa(len(w.list)+1), "RPUSH", p+"l", v) {
			return false
		}
		w.list = append(w.list, v)
	case 3: // hashes
		f := "f" + strconv.Itoa(r.IntN(8))
		if _, had := w.hash[f]; had && r.IntN(3) == 0 {
			if !w.expect(c, "1", "HDEL", p+"h", f) {
				return false
			}
			delete(w.hash, f)
			return true
		}
		_, had := w.hash[f]
		v := "hv" + w.name()
		want := "1"
		if had {
			want = "0"
		}
		if !w.expect(c, want, "HSET", p+"h", f, v) {
			return false
		}
		w.hash[f] = v
	case 4: // sets
		m := "m" + strconv.Itoa(r.IntN(20))
		if w.set[m] && r.IntN(2) == 0 {
			if !w.expect(c, "1", "SREM", p+"set", m) {
				return false
			}
			delete(w.set, m)
			return true
		}
		want := "1"
		if w.set[m] {
			want = "0"
		}
		if !w.expect(c, want, "SADD", p+"set", m) {
			return false
		}
		w.set[m] = true
	case 5: // sorted sets
		m := "z" + strconv.Itoa(r.IntN(10))
		d := int64(r.IntN(21) - 10)
		if !w.expect(c, strconv.FormatInt(w.zset[m]+d, 10), "ZINCRBY", p+"z", strconv.FormatInt(d, 10), m) {
			return false
		}
		w.zset[m] += d
	case 6: // streams
		n, ok := w.do(c, "XADD", p+"x", "*", "f", w.name())
		if !ok {
			return false
		}
		if n.Kind != '$' {
			w.t.Errorf("worker %d: XADD replied %q", w.id, n.Raw)
			return false
		}
		w.stream = append(w.stream, n.Str)
	case 7: // bitmaps
		off := r.IntN(200)
		v := r.IntN(2)
		old := "0"
		if w.bits[off] {
			old = "1"
		}
		if !w.expect(c, old, "SETBIT", p+"b", strconv.Itoa(off), strconv.Itoa(v)) {
			return false
		}
		w.bits[off] = v == 1
	case 8: // HyperLogLog
		e := "h" + strconv.Itoa(r.IntN(300))
		if _, ok := w.do(c, "PFADD", p+"hll", e); !ok {
			return false
		}
		w.hll[e] = true
	case 9: // geo
		m := "g" + strconv.Itoa(r.IntN(30))
		want := "1"
		if w.geo[m] {
			want = "0"
		}
		lon := strconv.FormatFloat(-179+r.Float64()*358, 'f', 5, 64)
		lat := strconv.FormatFloat(-80+r.Float64()*160, 'f', 5, 64)
		if !w.expect(c, want, "GEOADD", p+"g", lon, lat, m) {
			return false
		}
		w.geo[m] = true
	case 10: // WATCH on an own key: nobody else writes it, EXEC commits
		k := p + "s0"
		v := "t" + w.name()
		if !w.expect(c, "OK", "WATCH", k) {
			return false
		}
		if _, ok := w.do(c, "GET", k); !ok {
			return false
		}
		if !w.expect(c, "OK", "MULTI") || !w.expect(c, "QUEUED", "SET", k, v) || !w.expect(c, "QUEUED", "INCRBY", p+"n0", "1") {
			return false
		}
		n, ok := w.do(c, "EXEC")
		if !ok {
			return false
		}
		if len(n.Elems) != 2 || n.Elems[0].Str != "OK" || n.Elems[1].Int != w.ints[p+"n0"]+1 {
			w.t.Errorf("worker %d: EXEC of an unshared WATCH replied %q", w.id, n.Raw)
			return false
		}
		w.strs[k] = v
		w.ints[p+"n0"]++
	case 11: // WATCH on the shared counter: EXEC may abort
		if !w.expect(c, "OK", "WATCH", soakCounter) {
			return false
		}
		n, ok := w.do(c, "GET", soakCounter)
		if !ok {
			return false
		}
		v, _ := strconv.ParseInt(n.Str, 10, 64)
		if !w.expect(c, "OK", "MULTI") || !w.expect(c, "QUEUED", "SET", soakCounter, strconv.FormatInt(v+1, 10)) {
			return false
		}
		n, ok = w.do(c, "EXEC")
		switch {
		case !ok:
			return false
		case n.Null:
			w.st.aborts.Add(1)
		case len(n.Elems) == 1 && n.Elems[0].Str == "OK":
			w.st.commits.Add(1)
		default:
			w.t.Errorf("worker %d: EXEC replied %q", w.id, n.Raw)
			return false
		}
	case 12: // scripts
		k := p + "n1"
		d := int64(r.IntN(10))
		if !w.expect(c, strconv.FormatInt(w.ints[k]+d, 10), "EVAL", soakScript, "1", k, strconv.FormatInt(d, 10)) {
			return false
		}
		w.ints[k] += d
	case 13: // PUBLISH: the stable subscriber is always there
		n, ok := w.do(c, "PUBLISH", soakChannel, "m"+w.name())
		if !ok {
			return false
		}
		if n.Kind != ':' || n.Int < 1 {
			w.t.Errorf("worker %d: PUBLISH replied %q with the stable subscriber subscribed", w.id, n.Raw)
			return false
		}
		w.st.published.Add(1)
	case 14: // a subscriber that comes and goes: this connection ends here
		if _, ok := w.do(c, "SUBSCRIBE", soakChannel, p+"own"); !ok {
			return false
		}
		if _, err := c.Read(resptest.ReplyTimeout); err != nil { // the second confirmation
			w.t.Errorf("worker %d: SUBSCRIBE: %v", w.id, err)
		}
		return false
	case 15: // the shared queue
		if r.IntN(2) == 0 {
			v := fmt.Sprintf("q%d-%s", w.id, w.name())
			if _, ok := w.do(c, "LPUSH", soakQueue, v); !ok {
				return false
			}
			w.pushed = append(w.pushed, v)
			return true
		}
		n, ok := w.do(c, "BRPOP", soakQueue, "0.05")
		if !ok {
			return false
		}
		if len(n.Elems) == 2 {
			w.popped = append(w.popped, n.Elems[1].Str)
		} else if !n.Null {
			w.t.Errorf("worker %d: BRPOP replied %q", w.id, n.Raw)
			return false
		}
	default: // reads of the worker's own keys
		k := p + "s" + strconv.Itoa(r.IntN(5))
		want, ok := w.strs[k]
		n, ok2 := w.do(c, "GET", k)
		if !ok2 {
			return false
		}
		if ok && n.Str != want || !ok && !n.Null {
			w.t.Errorf("worker %d: GET %s = %q, model %q (%v)", w.id, k, n.Raw, want, ok)
			return false
		}
	}
	return true
}

// hangUp ends a connection in one of the ways clients end them.
func (w *soakWorker) hangUp(c *resptest.Conn) {
	p := w.prefix
	switch w.rng.IntN(8) {
	case 0: // in the middle of a command: it must never run
		cmd := resptest.Command("SET", p+"partial", "never")
		c.SendRaw(cmd[:1+w.rng.IntN(len(cmd)-1)])
		w.st.midCommand.Add(1)
	case 1: // inside MULTI: the queued write must never run
		if w.expect(c, "OK", "MULTI") && w.expect(c, "QUEUED", "SET", p+"multi", "never") {
			w.st.midMulti.Add(1)
		}
	case 2: // blocked on a list nobody pushes to
		c.Send("BLPOP", p+"never", "10")
		time.Sleep(time.Millisecond)
		w.st.midBlock.Add(1)
	case 3: // a write whose reply is never read: its key is a "maybe"
		c.Send("SET", p+"maybe:"+w.name(), "x")
		w.st.unread.Add(1)
	case 4:
		w.expect(c, "OK", "QUIT")
	}
}

// verify checks the worker's keys against its model and returns how many
// keys it has.
func (w *soakWorker) verify(c *resptest.Conn) int {
	t, p := w.t, w.prefix
	keys := 0
	check := func(what string, got, want any) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("worker %d: %s = %v, model %v", w.id, what, got, want)
		}
	}
	for k, v := range w.strs {
		check("GET "+k, soakDo(t, c, "GET", k).Str, v)
		keys++
	}
	for k, v := range w.ints {
		check("GET "+k, soakDo(t, c, "GET", k).Str, v)
		keys++
	}
	var got []string
	for _, e := range soakDo(t, c, "LRANGE", p+"l", "0", "-1").Elems {
		got = append(got, e.Str)
	}
	check("LRANGE "+p+"l", got, w.list)
	if len(w.list) > 0 {
		keys++
	}
	h := map[string]string{}
	el := soakDo(t, c, "HGETALL", p+"h").Elems
	for i := 0; i+1 < len(el); i += 2 {
		h[el[i].Str] = el[i+1].Str
	}
	check("HGETALL "+p+"h", h, w.hash)
	if len(w.hash) > 0 {
		keys++
	}
	var members, want []string
	for _, e := range soakDo(t, c, "SMEMBERS", p+"set").Elems {
		members = append(members, e.Str)
	}
	for m := range w.set {
		want = append(want, m)
	}
	slices.Sort(members)
	slices.Sort(want)
	check("SMEMBERS "+p+"set", members, want)
	if len(w.set) > 0 {
		keys++
	}
	z := map[string]string{}
	el = soakDo(t, c, "ZRANGE", p+"z", "0", "-1", "WITHSCORES").Elems
	for i := 0; i+1 < len(el); i += 2 {
		z[el[i].Str] = el[i+1].Str
	}
	wz := map[string]string{}
	for m, s := range w.zset {
		wz[m] = strconv.FormatInt(s, 10)
	}
	check("ZRANGE "+p+"z", z, wz)
	if len(w.zset) > 0 {
		keys++
	}
	var ids []string
	for _, e := range soakDo(t, c, "XRANGE", p+"x", "-", "+").Elems {
		if len(e.Elems) > 0 {
			ids = append(ids, e.Elems[0].Str)
		}
	}
	check("XRANGE "+p+"x", ids, w.stream)
	if len(w.stream) > 0 {
		keys++
	}
	ones, last := 0, -1
	for off, v := range w.bits {
		if v {
			ones++
			last = max(last, off)
		}
	}
	if len(w.bits) > 0 {
		check("BITCOUNT "+p+"b", soakDo(t, c, "BITCOUNT", p+"b").Int, ones)
		for off, v := range w.bits {
			b := int64(0)
			if v {
				b = 1
			}
			check(fmt.Sprintf("GETBIT %sb %d", p, off), soakDo(t, c, "GETBIT", p+"b", strconv.Itoa(off)).Int, b)
		}
		keys++
	}
	if len(w.hll) > 0 {
		n := soakDo(t, c, "PFCOUNT", p+"hll").Int
		if d := n - int64(len(w.hll)); d < -int64(len(w.hll))/20-2 || d > int64(len(w.hll))/20+2 {
			t.Errorf("worker %d: PFCOUNT %shll = %d, %d distinct elements added", w.id, p, n, len(w.hll))
		}
		keys++
	}
	if len(w.geo) > 0 {
		check("ZCARD "+p+"g", soakDo(t, c, "ZCARD", p+"g").Int, len(w.geo))
		for m := range w.geo {
			if pos := soakDo(t, c, "GEOPOS", p+"g", m); len(pos.Elems) != 1 || len(pos.Elems[0].Elems) != 2 {
				t.Errorf("worker %d: GEOPOS %sg %s = %q", w.id, p, m, pos.Raw)
			}
		}
		keys++
	}
	for _, k := range []string{p + "partial", p + "multi", p + "never"} {
		check("EXISTS "+k, soakDo(t, c, "EXISTS", k).Int, 0)
	}
	return keys
}

func soakDo(t *testing.T, c *resptest.Conn, args ...string) resptest.Node {
	t.Helper()
	n, err := c.Do(args...)
	if err != nil || n.IsError() {
		t.Fatalf("%q: %v %q", args, err, n.Raw)
	}
	return n
}

func soakInfo(t *testing.T, c *resptest.Conn) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(soakDo(t, c, "INFO").Str))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok {
			out[k] = v
		}
	}
	return out
}

func soakInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// soakRSS is the process's resident set size (VmRSS), 0 where /proc has none.
func soakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
