package server

import (
	"io"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/cmdmeta"
	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// FuzzDispatch runs random argument vectors over the whole command table
// through the real dispatch: a fresh in-process server per input (so a
// finding replays from its input alone), preloaded with one key of every
// type, and a client over DialPipe that sends the input's commands one
// after another. It checks that the server never panics, that every
// command gets a complete reply within fuzzReplyTimeout (blocking commands
// and scripts excepted, see fuzzReplyOptional), and that after the vector
// another client still gets PONG.
//
// An input is decoded by fuzzDecoder: a mode byte (plain, inside
// MULTI/EXEC, through redis.pcall in EVAL, or after HELLO 3), then up to
// four commands, each a table index, an argument count drawn around the
// command's arity and arguments drawn from the preloaded key names, the
// command's own tokens (COMMAND DOCS), interesting numbers, script bodies
// and raw bytes from the input.
func FuzzDispatch(f *testing.F) {
	cmds := fuzzCommands()
	for i, c := range cmds {
		// One seed per command: its arity's worth of arguments from each
		// pool in turn.
		seed := []byte{byte(i % 4), byte(i >> 8), byte(i), 0}
		for k := 0; k < max(c.arity, -c.arity, 2); k++ {
			seed = append(seed, byte(k+i), byte(k*37+i))
		}
		f.Add(seed)
	}
	for _, r := range fuzzRegressions {
		f.Add(encodeFuzzInput(cmds, r.mode, r.vecs...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runDispatchInput(t, cmds, data)
	})
}

// fuzzRegressions are the vectors of the fuzzer's findings, kept as seeds
// (encoded by encodeFuzzInput, so they survive changes of the table).
var fuzzRegressions = []struct {
	mode byte
	vecs [][]string
}{
	{0, [][]string{{"dump", "stream"}}},       // nil value from db.ValueOf crashed the server
	{0, [][]string{{"monitor"}, {"monitor"}}}, // the second MONITOR has no reply, as in Redis
	{0, [][]string{{"client", "reply", "off"}, {"sort_ro", "10", "ALPHA", "str"}}},
}

// encodeFuzzInput is fuzzDecoder's inverse for seeds: each vector's
// command row by name, its arity taken as the argument count when it
// fits (a shape byte of 240+ otherwise), and each argument as a pool
// entry when it is one, raw bytes when not.
func encodeFuzzInput(cmds []fuzzCommand, mode byte, vecs ...[]string) []byte {
	out := []byte{mode}
	for _, v := range vecs {
		row := -1
		for i, c := range cmds {
			if len(c.words) <= len(v) && strings.EqualFold(strings.Join(c.words, " "), strings.Join(v[:len(c.words)], " ")) &&
				(row < 0 || len(c.words) > len(cmds[row].words)) {
				row = i
			}
		}
		if row < 0 {
			panic("encodeFuzzInput: no command " + v[0])
		}
		c := cmds[row]
		shape := byte(0)
		switch {
		case c.arity < 0 && len(v) >= -c.arity && len(v) < -c.arity+8:
			shape = byte(len(v) + c.arity)
		case c.arity != len(v):
			shape = byte(240 + len(v)) // 240 + n is n arguments (n < 8)
		}
		out = append(out, byte(row>>8), byte(row), shape)
		for _, a := range v[len(c.words):] {
			out = append(out, encodeFuzzArg(c, a)...)
		}
	}
	return out
}

func encodeFuzzArg(c fuzzCommand, a string) []byte {
	if i := slices.Index(fuzzKeys, a); i >= 0 {
		return []byte{0, byte(i)}
	}
	if i := slices.Index(c.tokens, a); i >= 0 && i < 256 {
		return []byte{2, byte(i)}
	}
	if i := slices.Index(fuzzNumbers, a); i >= 0 {
		return []byte{4, byte(i)}
	}
	if i := slices.Index(fuzzStrings, a); i >= 0 {
		return []byte{6, byte(i)}
	}
	if len(a) >= 24 {
		panic("encodeFuzzArg: raw argument too long: " + a)
	}
	return append([]byte{7, byte(len(a))}, a...)
}

// fuzzReplyTimeout bounds the wait for one reply. Nothing the fuzzer can
// build legitimately takes this long except what fuzzReplyOptional lists.
const fuzzReplyTimeout = 5 * time.Second

// fuzzCommand is one row the fuzzer picks from: a top-level command or a
// subcommand (container rows themselves are included too, to reach the
// "unknown subcommand" paths).
type fuzzCommand struct {
	words  []string // "get", or "client", "list"
	arity  int
	tokens []string // keyword tokens of its COMMAND DOCS arguments
}

var (
	fuzzCommandsOnce sync.Once
	fuzzCommandList  []fuzzCommand
)

// fuzzExcluded lists the commands and subcommands the fuzzer never sends,
// each for a reason that is Redis's behaviour too, not a weakness to hide:
//
//   - shutdown: stops the server, which is what it is for.
//   - debug sleep: sleeps holding the engine lock for as long as asked, as
//     Redis's single thread does (a deliberate hang).
//   - client pause: stops every other client for as long as asked, the PING
//     check included (a deliberate hang of the others).
//   - replicaof, slaveof, migrate: connect to the host and port given; the
//     fuzzer must not reach out of the process to random addresses.
//   - failover: needs a replica and then pauses writes.
//   - sync, psync: turn the connection into a replication link that streams
//     forever instead of replying.
//   - pfselftest: has no argument to vary, and its fixed self-check runs
//     for seconds (2s in redis-server 7.0.15 on a loaded machine, far more
//     under the fuzzer's instrumentation), which the fuzz engine takes for
//     a hung worker.
//   - monitor: kept (the connection streams, its first reply is +OK).
//   - subscribe and friends: kept (their replies are push frames).
//   - flushall, flushdb, keys, debug populate: kept; the data is bounded
//     (a small preload, DEBUG POPULATE of at most 100000 keys, see
//     fuzzSkipVector), so they stay fast.
//   - blocking commands, WAIT and scripts: kept, with a short wait for
//     their reply (fuzzReplyOptional); a script still running then is
//     stopped with SCRIPT KILL / FUNCTION KILL as an operator would.
//   - client reply off/skip: kept; later replies are not waited for.
var fuzzExcluded = map[string]string{
	"shutdown":     "stops the server",
	"debug|sleep":  "sleeps holding the engine lock as Redis does",
	"client|pause": "pauses every client, the PING check included",
	"replicaof":    "connects to a random address",
	"slaveof":      "connects to a random address",
	"migrate":      "connects to a random address",
	"failover":     "needs replicas, pauses writes",
	"sync":         "streams a replication link instead of replying",
	"psync":        "streams a replication link instead of replying",
	"pfselftest":   "takes no argument; seconds of CPU per call, which the fuzz engine reports as a hang",
}

// fuzzExcludedConfig are the CONFIG SET parameters the fuzzer must not
// change: paths (they would write files outside the test's directory, and
// dir changes the process's working directory) and listeners (binding
// random ports, never 6379).
var fuzzExcludedConfig = []string{"dir", "logfile", "dbfilename", "appendfilename", "appenddirname",
	"aclfile", "pidfile", "unixsocket", "port", "tls-port", "bind", "cluster-config-file"}

func fuzzCommands() []fuzzCommand {
	fuzzCommandsOnce.Do(func() {
		s, err := New(DefaultConfig())
		if err != nil {
			panic(err)
		}
		for _, c := range s.table.all() {
			if _, ok := fuzzExcluded[c.name]; ok {
				continue
			}
			fc := fuzzCommand{words: strings.Split(c.name, "|"), arity: c.arity}
			if c.meta != nil && c.meta.Docs() != nil {
				seen := map[string]bool{}
				collectTokens(c.meta.Docs(), seen)
				for tok := range seen {
					fc.tokens = append(fc.tokens, tok)
				}
				sort.Strings(fc.tokens)
			}
			fuzzCommandList = append(fuzzCommandList, fc)
		}
	})
	return fuzzCommandList
}

// collectTokens gathers the "token" values of a COMMAND DOCS entry's
// arguments, not descending into its subcommands (rows of their own).
func collectTokens(n *cmdmeta.Node, into map[string]bool) {
	switch {
	case n.Kind == '%':
		for i := 0; i+1 < len(n.Elems); i += 2 {
			k := n.Elems[i].Str
			switch k {
			case "token":
				into[n.Elems[i+1].Str] = true
			case "subcommands":
				continue
			}
			collectTokens(&n.Elems[i+1], into)
		}
	case len(n.Elems) > 0:
		for i := range n.Elems {
			collectTokens(&n.Elems[i], into)
		}
	}
}

// fuzzKeys are the key names arguments draw from; fuzzPreload gives most
// of them a value of one type each.
var fuzzKeys = []string{"str", "int", "list", "hash", "set", "iset", "zset", "stream", "hll", "geo", "bits", "nokey", "{t}a", "{t}b"}

// fuzzPreload creates one key of every type (and a consumer group), so
// that the fuzzer's vectors reach the type-specific paths and WRONGTYPE.
var fuzzPreload = [][]string{
	{"SET", "str", "hello world"},
	{"SET", "int", "42"},
	{"RPUSH", "list", "a", "b", "c", "1", "2"},
	{"HSET", "hash", "f", "v", "n", "7", "x", "1.5"},
	{"SADD", "set", "a", "b", "c"},
	{"SADD", "iset", "1", "2", "3"},
	{"ZADD", "zset", "1", "a", "2", "b", "2.5", "c", "-inf", "m"},
	{"XADD", "stream", "1-1", "f", "v"},
	{"XADD", "stream", "2-1", "g", "w"},
	{"XGROUP", "CREATE", "stream", "grp", "0"},
	{"XREADGROUP", "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", "stream", ">"},
	{"PFADD", "hll", "a", "b", "c"},
	{"GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
	{"SETBIT", "bits", "7", "1"},
	{"SET", "{t}a", "x"},
	{"LPUSH", "{t}b", "y"},
}

// fuzzNumbers are the numbers arguments draw from: edges of every parser
// (string2ll, string2ull, string2d, string2ld, stream IDs, scores,
// offsets), kept below the sizes whose allocation is legitimate but slow
// (a 4GB SETBIT offset allocates 512MB in Redis as here).
var fuzzNumbers = []string{"0", "1", "-1", "2", "3", "5", "10", "100", "-100", "1000", "65536", "100000",
	"1.5", "-0.5", "0.0", "-0", "inf", "-inf", "+inf", "nan", "1e308", "1e-320", "0x10",
	"9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
	"18446744073709551616", "4294967296", "2147483648", "-2147483649", "536870912", "01", "+1", " 1",
	"1-1", "0-0", "0-1", "1-0", "*", "$", ">", "-", "+", "(1", "[a", "(a", "[", "(", "1-*",
	"18446744073709551615-18446744073709551615", "0.1", "1e10", "-1e10", "100ms"}

// fuzzStrings are other argument values: scripts, function libraries,
// patterns, and odd bytes.
var fuzzStrings = []string{"", "a", "b", "f", "v", "x", "g", "grp", "alice", "Palermo", "m", "km", "*a*",
	"h?llo", "[a-z]*", "\x00", "\xff\xfe", strings.Repeat("a", 100),
	"return 1", "return redis.call('get',KEYS[1])", "return {1,2,{3,'x'},redis.status_reply('OK')}",
	"return redis.pcall('incr',KEYS[1])", "redis.call('set',KEYS[1],ARGV[1]) return ARGV[1]",
	"#!lua flags=no-writes\nreturn redis.call('get',KEYS[1])", "return redis.error_reply('E x')",
	"return cjson.encode({1,2})", "return cmsgpack.unpack(ARGV[1])", "return 1.5", "return {err='x'}",
	"#!lua name=lib\nredis.register_function('f', function(keys, args) return #keys end)",
	"#!lua name=lib2\nredis.register_function{function_name='g', callback=function() return 1 end, flags={'no-writes'}}",
	"e1ad2d8c0a5c7f1e2b5c0d3a7b3e4f5a6b7c8d9e", "maxmemory", "hz", "save", "appendonly", "yes", "no",
	"notify-keyspace-events", "KEA", "maxmemory-policy", "allkeys-lru", "hash-max-listpack-entries",
	"list-max-listpack-size", "zset-max-listpack-entries", "set-max-intset-entries", "timeout",
	"maxclients", "busy-reply-threshold", "__keyspace@0__:*", "ch", "default", "on", ">pw", "~*", "+@all"}

// fuzzDecoder reads an input's bytes as choices; past the end it reads zeros.
type fuzzDecoder struct {
	data []byte
	pos  int
}

func (d *fuzzDecoder) byte() byte {
	if d.pos >= len(d.data) {
		d.pos++
		return 0
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

func (d *fuzzDecoder) more() bool { return d.pos < len(d.data) }

func (d *fuzzDecoder) bytes(n int) []byte {
	end := min(d.pos+n, len(d.data))
	b := d.data[min(d.pos, end):end]
	d.pos += n
	return b
}

// vector builds one command's argument vector from the decoder.
func (d *fuzzDecoder) vector(cmds []fuzzCommand) []string {
	i := (int(d.byte())<<8 | int(d.byte())) % len(cmds)
	c := cmds[i]
	args := append([]string(nil), c.words...)
	n := c.arity
	shape := d.byte()
	switch {
	case n < 0:
		n = -n + int(shape%8)
	case shape >= 240: // a wrong arity now and then
		n = int(shape % 8)
	}
	for len(args) < n && len(args) < 24 {
		args = append(args, d.arg(c))
	}
	if len(args) > n && n > 0 {
		args = args[:n]
	}
	return args
}

func (d *fuzzDecoder) arg(c fuzzCommand) string {
	k := d.byte()
	v := d.byte()
	switch k % 8 {
	case 0, 1:
		return fuzzKeys[int(v)%len(fuzzKeys)]
	case 2, 3:
		if len(c.tokens) > 0 {
			return c.tokens[int(v)%len(c.tokens)]
		}
		return fuzzKeys[int(v)%len(fuzzKeys)]
	case 4, 5:
		return fuzzNumbers[int(v)%len(fuzzNumbers)]
	case 6:
		return fuzzStrings[int(v)%len(fuzzStrings)]
	default:
		return string(d.bytes(int(v % 24)))
	}
}

// fuzzSkipVector reports why a vector is not sent although its command is
// in the table: a CONFIG SET of a path or listener, and DEBUG POPULATE of
// more keys than fuzzNumbers offers (it does what it is told, linearly).
func fuzzSkipVector(args []string) bool {
	if len(args) >= 3 && strings.EqualFold(args[0], "config") && strings.EqualFold(args[1], "set") {
		for i := 2; i < len(args); i += 2 {
			for _, p := range fuzzExcludedConfig {
				if strings.EqualFold(args[i], p) {
					return true
				}
			}
		}
	}
	if len(args) >= 3 && strings.EqualFold(args[0], "debug") && strings.EqualFold(args[1], "populate") {
		n, err := strconv.ParseInt(args[2], 10, 64)
		return err == nil && n > 100000
	}
	return false
}

// fuzzReplyOptional reports whether a command may legitimately send no
// reply within fuzzReplyTimeout: blocking commands wait for data or their
// timeout (0 = for ever), WAIT waits for replicas, and a script may loop
// until SCRIPT KILL or FUNCTION KILL (which the harness sends then).
func fuzzReplyOptional(cmds map[string]*command, args []string) bool {
	name := strings.ToLower(args[0])
	switch name {
	case "wait", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "xread", "xreadgroup":
		return true
	}
	c := cmds[name]
	return c != nil && c.has(flagBlocking)
}

// notScript reports whether v is not a script (EVAL, FCALL ...): other
// commands do not block inside MULTI.
func notScript(cmds map[string]*command, v []string) bool {
	switch strings.ToLower(v[0]) {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return false
	}
	return true
}

// runDispatchInput is one fuzz input: a fresh server, the preload, the
// vectors, the checks.
func runDispatchInput(t *testing.T, cmds []fuzzCommand, data []byte) {
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	ctl := fuzzDial(t, s)
	defer ctl.Close()
	var pre []byte
	for _, v := range fuzzPreload {
		pre = resptest.AppendCommand(pre, v...)
	}
	if err := ctl.SendRaw(pre); err != nil {
		t.Fatal(err)
	}
	for range fuzzPreload {
		if n, err := ctl.Read(fuzzReplyTimeout); err != nil || n.IsError() {
			t.Fatalf("preload: %v %q", err, n.Raw)
		}
	}

	d := &fuzzDecoder{data: data}
	mode := d.byte() % 4
	var vecs [][]string
	for len(vecs) < 4 && (len(vecs) == 0 || d.more()) {
		if v := d.vector(cmds); !fuzzSkipVector(v) {
			vecs = append(vecs, v)
		}
	}
	var send [][]string
	switch mode {
	case 1: // inside MULTI/EXEC
		send = append(append([][]string{{"MULTI"}}, vecs...), []string{"EXEC"})
	case 2: // through the script bridge
		for _, v := range vecs {
			send = append(send, append([]string{"EVAL", "return redis.pcall(unpack(ARGV))", "0"}, v...))
		}
	case 3: // RESP3
		send = append([][]string{{"HELLO", "3"}}, vecs...)
	default:
		send = vecs
	}

	c := fuzzDial(t, s)
	defer c.Close()
	// quiet: after CLIENT REPLY OFF or SKIP replies are not sent, and after
	// MONITOR a repeated MONITOR gets none (redis-server 7.0.15 ignores it)
	// while the monitor's feed makes reply counting meaningless.
	quiet := false
	for _, args := range send {
		if len(args) >= 2 && strings.EqualFold(args[0], "client") && strings.EqualFold(args[1], "reply") {
			quiet = true
		}
		if err := c.Send(args...); err != nil {
			break // the server closed the connection (CLIENT KILL, QUIT ...)
		}
		optional := fuzzReplyOptional(s.table.cmds, args)
		switch {
		case mode == 2:
			optional = fuzzReplyOptional(s.table.cmds, args[3:])
		case mode == 1 && strings.EqualFold(args[0], "exec"):
			optional = false
			for _, v := range vecs {
				optional = optional || fuzzReplyOptional(s.table.cmds, v) && !notScript(s.table.cmds, v)
			}
		}
		wait := fuzzReplyTimeout
		switch {
		case quiet:
			wait = 100 * time.Millisecond
		case optional: // a hang cannot be told from blocking: do not wait long
			wait = 300 * time.Millisecond
		}
		_, err := c.Read(wait)
		if strings.EqualFold(args[0], "monitor") {
			quiet = true
		}
		if err == nil || quiet && resptest.IsTimeout(err) {
			continue
		}
		if resptest.IsTimeout(err) {
			if !optional {
				t.Fatalf("no reply to %q within %v (vector %q)", args, fuzzReplyTimeout, send)
			}
			// Stop a looping script as an operator would, then give up on
			// this connection (a blocked client is left blocked).
			fuzzPing(t, s, ctl, send, "SCRIPT", "KILL")
			fuzzPing(t, s, ctl, send, "FUNCTION", "KILL")
			break
		}
		break // EOF: the connection was closed by the command (QUIT, CLIENT KILL)
	}
	// Another client is still served.
	fuzzPing(t, s, ctl, send, "PING")
	c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	closed = true
}

// fuzzPing sends args on ctl (PING, or a KILL whose error is expected when
// nothing runs) and fails unless a reply comes in time. A control client
// the vector killed (CLIENT KILL, timeout, maxclients) is replaced by a new
// connection first.
func fuzzPing(t *testing.T, s *Server, ctl *resptest.Conn, vec [][]string, args ...string) {
	for attempt := 0; attempt < 2; attempt++ {
		if err := ctl.Send(args...); err == nil {
			n, err := ctl.Read(fuzzReplyTimeout)
			if err == nil {
				// Any reply is service: PONG, or an error the vector made
				// legitimate (NOAUTH after CONFIG SET requirepass, BUSY,
				// max number of clients reached).
				if args[0] == "PING" && n.Str != "PONG" && !n.IsError() {
					t.Fatalf("PING after %q: %q", vec, n.Raw)
				}
				return
			}
			if resptest.IsTimeout(err) {
				t.Fatalf("%v after %q: no reply within %v", args, vec, fuzzReplyTimeout)
			}
		}
		*ctl = *fuzzDial(t, s)
	}
	t.Fatalf("%v after %q: the control client is closed twice", args, vec)
}

func fuzzDial(t *testing.T, s *Server) *resptest.Conn {
	nc, err := s.DialPipe()
	if err != nil {
		t.Fatal(err)
	}
	return resptest.NewConn(nc)
}

// TestEncodeFuzzInput: the regression seeds decode to their vectors.
func TestEncodeFuzzInput(t *testing.T) {
	cmds := fuzzCommands()
	for _, r := range fuzzRegressions {
		d := &fuzzDecoder{data: encodeFuzzInput(cmds, r.mode, r.vecs...)}
		if mode := d.byte() % 4; mode != r.mode {
			t.Errorf("%q: mode %d, want %d", r.vecs, mode, r.mode)
		}
		for _, want := range r.vecs {
			if got := d.vector(cmds); !slices.Equal(got, want) {
				t.Errorf("decoded %q, want %q", got, want)
			}
		}
		if d.more() {
			t.Errorf("%q: bytes left over", r.vecs)
		}
	}
}
