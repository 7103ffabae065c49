package script

import (
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// fakeHost answers redis.call from a table of canned replies and records
// the arguments it was called with.
type fakeHost struct {
	replies   map[string]string // command name -> RESP reply
	refusals  map[string]string // command name -> refusal
	calls     [][]string
	protos    []int
	interrupt func() string
	logs      []string
}

func (h *fakeHost) Call(args [][]byte, proto int) ([]byte, string) {
	var a []string
	for _, x := range args {
		a = append(a, string(x))
	}
	h.calls = append(h.calls, a)
	h.protos = append(h.protos, proto)
	if r, ok := h.refusals[a[0]]; ok {
		return nil, r
	}
	if r, ok := h.replies[a[0]]; ok {
		return []byte(r), ""
	}
	return []byte("+OK\r\n"), ""
}

func (h *fakeHost) ACLCheckCmd(args [][]byte) (bool, bool) { return string(args[0]) != "nosuch", true }

func (h *fakeHost) Interrupt() string {
	if h.interrupt != nil {
		return h.interrupt()
	}
	return ""
}

func (h *fakeHost) Log(level int, msg string) { h.logs = append(h.logs, itoa(level)+" "+msg) }

// runScript loads and runs src, writing the reply in proto.
func runScript(t *testing.T, e *Engine, h Host, proto int, src string, keys ...string) (string, Result) {
	t.Helper()
	s, msg := e.Load([]byte(src))
	if s == nil {
		return "-" + msg + "\r\n", Result{Err: true}
	}
	w := protocol.Writer{Proto: proto}
	var k [][]byte
	for _, x := range keys {
		k = append(k, []byte(x))
	}
	res := e.Run(s, &Run{Host: h, Name: s.SHA, Keys: k}, &w)
	return string(w.Buf), res
}

func TestScriptReplies(t *testing.T) {
	h := &fakeHost{replies: map[string]string{
		"get":     "$-1\r\n",
		"incr":    ":7\r\n",
		"big":     ":9223372036854775807\r\n",
		"hgetall": "*2\r\n$1\r\nf\r\n$1\r\nv\r\n",
		"map":     "%1\r\n$1\r\nf\r\n$1\r\nv\r\n",
		"set3":    "~2\r\n$1\r\na\r\n$1\r\nb\r\n",
		"double":  ",3.5\r\n",
		"bool":    "#t\r\n",
		"null":    "_\r\n",
		"bignum":  "(12345678901234567890\r\n",
		"verb":    "=7\r\ntxt:abc\r\n",
		"attr":    "|1\r\n+a\r\n+b\r\n:5\r\n",
		"status":  "+PONG\r\n",
		"err":     "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
		"nested":  "*2\r\n*1\r\n:1\r\n*-1\r\n",
	}}
	e := NewEngine()
	for _, tc := range []struct {
		proto int
		src   string
		want  string
	}{
		{2, "return 3.99", ":3\r\n"},
		{2, "return -3.99", ":-3\r\n"},
		{2, "return 1e20", ":-9223372036854775808\r\n"},
		{2, "return {1,2,nil,4}", "*2\r\n:1\r\n:2\r\n"},
		{2, "return {1,2,true,false,'x'}", "*5\r\n:1\r\n:2\r\n:1\r\n$-1\r\n$1\r\nx\r\n"},
		{3, "return {1,2,true,false,'x'}", "*5\r\n:1\r\n:2\r\n:1\r\n_\r\n$1\r\nx\r\n"},
		{3, "redis.setresp(3) return {true,false}", "*2\r\n#t\r\n#f\r\n"},
		{2, "redis.setresp(3) return {true,false}", "*2\r\n:1\r\n:0\r\n"},
		{2, "return {a=1,b=2}", "*0\r\n"},
		{2, "return {ok='FINE', err='BAD'}", "-BAD\r\n"},
		{2, "return {err=1}", "*0\r\n"},
		{2, "return {ok='a\\r\\nb'}", "+a  b\r\n"},
		{2, "return {err='x\\r\\ny\\r\\n'}", "-x  y\r\n"},
		{2, "return {double=3.5}", "$3\r\n3.5\r\n"},
		{3, "return {double=3.5}", ",3.5\r\n"},
		{3, "return {big_number='1\\r2'}", "(1 2\r\n"},
		{3, "return {verbatim_string={format='txt',string='hi'}}", "=6\r\ntxt:hi\r\n"},
		{2, "return {verbatim_string={format='txt',string='hi'}}", "$2\r\nhi\r\n"},
		{3, "return {map={a=1}}", "%1\r\n$1\r\na\r\n:1\r\n"},
		{2, "return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n"},
		{3, "return {set={a=true}}", "~1\r\n$1\r\na\r\n"},
		{2, "return nil", "$-1\r\n"},
		{3, "return nil", "_\r\n"},
		{2, "return print == nil", "-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: 7108703141b6cfb77bf378c6364bac463a19c03a, on @user_script:1.\r\n"},
		{2, "return redis.call('get','k')", "$-1\r\n"},
		{2, "return type(redis.call('get','k'))", "$7\r\nboolean\r\n"},
		{2, "return redis.call('incr','k')", ":7\r\n"},
		{2, "return redis.call('big')", ":-9223372036854775808\r\n"},
		{2, "return redis.call('hgetall','h')", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{2, "return redis.call('map').map.f", "$1\r\nv\r\n"},
		{3, "return redis.call('map')", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{2, "local s = redis.call('set3').set return {s.a, s.b}", "*2\r\n:1\r\n:1\r\n"},
		{2, "return tostring(redis.call('double').double)", "$3\r\n3.5\r\n"},
		{2, "return redis.call('bool')", ":1\r\n"},
		{2, "return type(redis.call('null'))", "$3\r\nnil\r\n"},
		{2, "return redis.call('bignum').big_number", "$20\r\n12345678901234567890\r\n"},
		{2, "local v = redis.call('verb').verbatim_string return {v.format, v.string}", "*2\r\n$3\r\ntxt\r\n$3\r\nabc\r\n"},
		{2, "return redis.call('attr')", ":5\r\n"},
		{2, "return redis.call('status')", "+PONG\r\n"},
		{2, "return redis.call('status').ok", "$4\r\nPONG\r\n"},
		{2, "return redis.pcall('err')", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{2, "return redis.call('nested')", "*2\r\n*1\r\n:1\r\n$-1\r\n"},
		{2, "local t = {} t[1] = t return t", strings.Repeat("*1\r\n", 7995) + "-ERR reached lua stack limit\r\n"},
	} {
		got, _ := runScript(t, e, h, tc.proto, tc.src)
		if got != tc.want {
			g, w := got, tc.want
			if len(g) > 200 {
				g, w = g[len(g)-200:], w[max(0, len(w)-200):]
			}
			t.Errorf("RESP%d %q:\n got  %q\n want %q", tc.proto, tc.src, g, w)
		}
	}
}

func TestScriptErrors(t *testing.T) {
	h := &fakeHost{
		replies:  map[string]string{"incr": "-ERR value is not an integer or out of range\r\n"},
		refusals: map[string]string{"nosuch": "Unknown Redis command called from script", "oom": "-OOM command not allowed when used memory > 'maxmemory'."},
	}
	e := NewEngine()
	// %s stands for the script's SHA-1 and %l for " script: <sha>, on @user_script:1."
	for _, tc := range []struct {
		src      string
		want     string
		countErr bool
	}{
		{"error('boom')", "-ERR user_script:1: boom%l\r\n", true},
		{"error('boom', 0)", "-ERR boom%l\r\n", true},
		{"error(42)", "-ERR user_script:1: 42%l\r\n", true},
		{"error(nil)", "-ERR nil%l\r\n", true},
		{"error({err='CUSTOM table error'})", "-CUSTOM table error%l\r\n", true},
		{"error({})", "-ERR Error running script %s, the error object has no 'err' field\r\n", true},
		{"error(redis)", "-ERR Error running script %s, error in error handling\r\n", true},
		{"return redis.call('nosuch')", "-ERR Unknown Redis command called from script%l\r\n", false},
		{"return redis.pcall('nosuch')", "-ERR Unknown Redis command called from script\r\n", false},
		{"return redis.call('oom','k')", "-OOM command not allowed when used memory > 'maxmemory'.%l\r\n", false},
		{"\n\nreturn redis.call('incr','s')", "-ERR value is not an integer or out of range script: %s, on @user_script:3.\r\n", false},
		{"return redis.call()", "-ERR Please specify at least one argument for this redis lib call%l\r\n", true},
		{"return redis.call('set','k',{})", "-ERR Lua redis lib command arguments must be strings or integers%l\r\n", true},
		{"x = 1", "-ERR user_script:1: Attempt to modify a readonly table%l\r\n", true},
		{"rawset(_G, 'x', 1)", "-ERR Attempt to modify a readonly table%l\r\n", true},
		{"return loadstring(\"error('x')\")()", "-ERR [string \"error('x')\"]:1: x script: %s, on error('x'):1.\r\n", true},
	} {
		sha := SHA1Hex([]byte(tc.src))
		want := strings.ReplaceAll(tc.want, "%l", " script: "+sha+", on @user_script:1.")
		want = strings.ReplaceAll(want, "%s", sha)
		got, res := runScript(t, e, h, 2, tc.src)
		if got != want {
			t.Errorf("%q:\n got  %q\n want %q", tc.src, got, want)
		}
		if !res.Err || res.CountErr != tc.countErr {
			t.Errorf("%q: result %+v, want Err and CountErr=%v", tc.src, res, tc.countErr)
		}
	}
	if got, _ := runScript(t, e, h, 2, "return +"); got != "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'\r\n" {
		t.Errorf("compile error: %q", got)
	}
}

func TestScriptCallArguments(t *testing.T) {
	h := &fakeHost{}
	e := NewEngine()
	runScript(t, e, h, 2, "redis.call('set', KEYS[1], 3.5, 0.1, 1e20, 100, -0.0, 'x\\0y')", "key")
	want := []string{"set", "key", "3.5", "0.10000000000000001", "1e+20", "100", "-0", "x\x00y"}
	if len(h.calls) != 1 || strings.Join(h.calls[0], "|") != strings.Join(want, "|") {
		t.Errorf("redis.call arguments %q, want %q", h.calls, want)
	}
	h.calls, h.protos = nil, nil
	runScript(t, e, h, 2, "redis.call('ping') redis.setresp(3) redis.call('ping') return 1")
	if len(h.protos) != 2 || h.protos[0] != 2 || h.protos[1] != 3 {
		t.Errorf("protocols of the calls: %v", h.protos)
	}
	h.calls, h.protos = nil, nil
	runScript(t, e, h, 2, "redis.call('ping') return 1")
	if len(h.protos) != 1 || h.protos[0] != 2 {
		t.Errorf("setresp leaked into the next script: %v", h.protos)
	}
}

// TestEngineReusesVM: scripts run in one pooled VM; no VM is built per call.
func TestEngineReusesVM(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	runScript(t, e, h, 2, "return 1")
	if len(e.pool) != 1 {
		t.Fatalf("pool holds %d VMs", len(e.pool))
	}
	vm := e.pool[0]
	for i := 0; i < 100; i++ {
		if got, _ := runScript(t, e, h, 2, "return redis.call('ping')"); got != "+OK\r\n" {
			t.Fatal(got)
		}
	}
	if len(e.pool) != 1 || e.pool[0] != vm {
		t.Errorf("the VM was not reused")
	}
	// Nothing a script does survives into the next call.
	runScript(t, e, h, 2, "pcall(rawset, _G, 'leak', 1) KEYS[1] = 'changed' setmetatable(KEYS, {__index = function() return 'meta' end})", "k")
	if got, _ := runScript(t, e, h, 2, "return {rawget(_G, 'leak') or 'none', KEYS[1] or 'nil', KEYS[2] or 'nil'}", "k"); got != "*3\r\n$4\r\nnone\r\n$1\r\nk\r\n$3\r\nnil\r\n" {
		t.Errorf("state leaked between scripts: %q", got)
	}
}

func TestEngineFlush(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	runScript(t, e, h, 2, "math.randomseed(7) return 1")
	first, _ := runScript(t, e, h, 2, "return tostring(math.random())")
	s, _ := e.Load([]byte("return 1"))
	if e.Lookup([]byte(strings.ToUpper(s.SHA))) != s {
		t.Fatal("Lookup ignores case")
	}
	e.Flush()
	if e.Len() != 0 || e.Lookup([]byte(s.SHA)) != nil || len(e.pool) != 0 {
		t.Fatal("Flush left scripts or VMs behind")
	}
	// The random generator is the process's: it carries on after a flush.
	second, _ := runScript(t, e, h, 2, "return tostring(math.random())")
	if first == second {
		t.Errorf("math.random restarted after SCRIPT FLUSH: %q", second)
	}
	if e.Lookup([]byte("short")) != nil {
		t.Error("a sha that is not 40 bytes matched")
	}
}

// TestEngineKill: a kill from Interrupt stops endless loops, in pcall and
// in coroutines too, and the VM is usable afterwards.
func TestEngineKill(t *testing.T) {
	e := NewEngine()
	for _, src := range []string{
		"while true do end",
		"while true do pcall(function() while true do end end) end",
		"local co = coroutine.wrap(function() while true do end end) co()",
		"local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end",
		"local f = loadstring('while true do end') f()",
		"local t = setmetatable({}, {__index = function() while true do end end}) return t.x",
		"table.sort({3,2,1,4,5,6}, function(a, b) while true do end end)",
	} {
		n := 0
		h := &fakeHost{interrupt: func() string {
			n++
			if n >= 3 {
				return "Script killed by user with SCRIPT KILL..."
			}
			return ""
		}}
		got, res := runScript(t, e, h, 2, src)
		if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL... script: ") || !res.Err {
			t.Errorf("%q: %q", src, got)
		}
		if got, _ := runScript(t, e, &fakeHost{}, 2, "return 42"); got != ":42\r\n" {
			t.Errorf("after killing %q: %q", src, got)
		}
	}
}

func TestRedisLog(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	runScript(t, e, h, 2, "redis.log(redis.LOG_WARNING, 'a', 1.5, {}, 'b') redis.log(redis.LOG_DEBUG, 'x')")
	if strings.Join(h.logs, "|") != "3 a 1.5 b|0 x" {
		t.Errorf("logs: %q", h.logs)
	}
}

func TestLibrary(t *testing.T) {
	e := NewEngine()
	l := NewLibrary(e)
	h := &fakeHost{}
	const code = "#!lua name=mylib\n" +
		"redis.register_function('f', function(keys, args) return {keys[1], args[1]} end)\n" +
		"redis.register_function{function_name='g', callback=function() error('boom') end, flags={'no-writes', 'ALLOW-OOM'}, description='desc'}"
	if name, err := l.Load([]byte(code), false); name != "mylib" || err != "" {
		t.Fatalf("Load: %q %q", name, err)
	}
	for _, tc := range []struct {
		code    string
		replace bool
		err     string
	}{
		{code, false, "Library 'mylib' already exists"},
		{"#!lua name=other\nredis.register_function('f', function() end)", false, "Function f already exists"},
		{"#!lua name=x\nreturn 1", false, "No functions registered"},
		{"#!lua name=x\nstring.len('x')", false, "Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'string'"},
		{"#!lua name=x\nwhile true do end", false, "Error registering functions: ERR FUNCTION LOAD timeout"},
		{"#!lua name=x\nreturn +", false, "Error compiling function: user_function:2: unexpected symbol near '+'"},
		{"#!lua name=mylib\nredis.register_function('f2', function() return 2 end)", true, ""},
	} {
		if _, err := l.Load([]byte(tc.code), tc.replace); err != tc.err {
			t.Errorf("Load(%q): %q, want %q", tc.code, err, tc.err)
		}
	}
	if l.Function([]byte("f")) != nil || l.Function([]byte("f2")) == nil || l.NumFunctions() != 1 {
		t.Fatalf("REPLACE did not swap the library's functions")
	}
	w := protocol.Writer{Proto: 2}
	f2 := l.Function([]byte("f2"))
	l.Call(f2, &Run{Host: h, Name: f2.Name}, &w)
	if string(w.Buf) != ":2\r\n" {
		t.Errorf("FCALL f2: %q", w.Buf)
	}
	snap := l.Snapshot()
	l.Flush()
	if l.NumFunctions() != 0 || len(l.Libs()) != 0 {
		t.Fatal("Flush left libraries")
	}
	if err := l.Restore(snap, "APPEND"); err != "" || l.Function([]byte("f2")) == nil {
		t.Fatalf("Restore: %q", err)
	}
	if err := l.Restore(snap, "APPEND"); err != "Library mylib already exists" {
		t.Errorf("Restore APPEND twice: %q", err)
	}
	if err := l.Restore(snap, "REPLACE"); err != "" {
		t.Errorf("Restore REPLACE: %q", err)
	}
	if !l.Delete([]byte("mylib")) || l.Delete([]byte("mylib")) {
		t.Error("Delete")
	}
}

// TestEngineKeysTableReuse: whatever a script did to KEYS, the next script
// sees a fresh array of its own keys.
func TestEngineKeysTableReuse(t *testing.T) {
	e := NewEngine()
	h := &fakeHost{}
	const show = "local n = 0 for k, v in pairs(KEYS) do n = n + 1 end return {n, #KEYS, KEYS[1] or 'nil', KEYS[2] or 'nil', KEYS[3] or 'nil', tostring(rawget(KEYS, 'x')), tostring(getmetatable(KEYS))}"
	for _, tc := range []struct {
		mutate string
		keys   []string // of the mutating script
		show   int      // how many of them the next script gets
		want   string
	}{
		{"return 1", []string{"a", "b"}, 2, "*7\r\n:2\r\n:2\r\n$1\r\na\r\n$1\r\nb\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS.x = 1", []string{"a"}, 1, "*7\r\n:1\r\n:1\r\n$1\r\na\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS[10] = 1", []string{"a"}, 1, "*7\r\n:1\r\n:1\r\n$1\r\na\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS[3] = 'c'", []string{"a", "b"}, 2, "*7\r\n:2\r\n:2\r\n$1\r\na\r\n$1\r\nb\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS[1] = nil", []string{"a", "b"}, 2, "*7\r\n:2\r\n:2\r\n$1\r\na\r\n$1\r\nb\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS[2] = 'z'", []string{"a", "b", "c"}, 1, "*7\r\n:1\r\n:1\r\n$1\r\na\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
		{"KEYS[true] = 1 KEYS[1.5] = 2", []string{}, 0, "*7\r\n:0\r\n:0\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n"},
	} {
		runScript(t, e, h, 2, tc.mutate, tc.keys...)
		if got, _ := runScript(t, e, h, 2, show, tc.keys[:tc.show]...); got != tc.want {
			t.Errorf("after %q: got %q, want %q", tc.mutate, got, tc.want)
		}
	}
}
