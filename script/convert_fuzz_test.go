package script

import (
	"bufio"
	"bytes"
	"math"
	"testing"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
	"github.com/miniwatchd/miniwatchd/protocol"
	lua "github.com/yuin/gopher-lua"
)

// convertSeeds are RESP2 and RESP3 replies of every type redis.call can
// receive, some nested, some malformed.
var convertSeeds = []string{
	":1\r\n", ":-9223372036854775808\r\n", ":9007199254740993\r\n",
	"$3\r\nabc\r\n", "$0\r\n\r\n", "$-1\r\n", "$5\r\nab\r\n",
	"+OK\r\n", "-ERR bad\r\n", "-WRONGTYPE x\r\n", "-\r\n",
	"*0\r\n", "*-1\r\n", "*2\r\n:1\r\n$1\r\na\r\n", "*3\r\n$-1\r\n:2\r\n*1\r\n+x\r\n",
	"%1\r\n$1\r\nf\r\n$1\r\nv\r\n", "%2\r\n:1\r\n:2\r\n_\r\n:3\r\n",
	"~2\r\n$1\r\na\r\n$1\r\nb\r\n", "_\r\n", "#t\r\n", "#f\r\n",
	",3.5\r\n", ",inf\r\n", ",-inf\r\n", ",nan\r\n", ",1e400\r\n",
	"(12345678901234567890\r\n", "=7\r\ntxt:abc\r\n", "=3\r\nabc\r\n",
	"|1\r\n+a\r\n+b\r\n:5\r\n", ">2\r\n$1\r\na\r\n:1\r\n",
	"*999999999999\r\n", "%99999999999\r\n", "~4294967297\r\n", "*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
	"-ERR a\r\nb\r\n", "$2\r\n\r\n\r\n", "!3\r\nabc\r\n",
	"$9223372036854775807\r\nab\r\n", "=9223372036854775806\r\ntxt:ab\r\n", "*-9223372036854775808\r\n",
}

// FuzzReplyConversion converts arbitrary bytes as a command reply into the
// Lua value redis.call returns (parseReply), and that value back into a
// script's reply (writeReply), in every protocol combination. It checks
// that nothing panics or allocates beyond the input's size, that the reply
// written is exactly one well-formed RESP frame, and that the conversion
// settles: from the second round trip on (a nil bulk becomes false, which
// RESP2 writes as :0 under redis.setresp(3)) RESP -> Lua -> RESP gives the
// same bytes.
func FuzzReplyConversion(f *testing.F) {
	for _, s := range convertSeeds {
		f.Add([]byte(s), uint8(0))
	}
	e := NewEngine()
	vm := e.get()
	f.Fuzz(func(t *testing.T, b []byte, mode uint8) {
		L := vm.L
		defer L.SetTop(0)
		wproto, sproto := 2+int(mode&1), 2+int(mode>>1&1)
		v, _ := parseReply(L, b)
		first := writeConverted(vm, v, wproto, sproto)
		checkOneFrame(t, first, b)
		rounds := [][]byte{first}
		for len(rounds) < 3 {
			prev := rounds[len(rounds)-1]
			v, rest := parseReply(L, prev)
			if len(rest) != 0 {
				t.Fatalf("%q: the reply written, %q, parses with %q left", b, prev, rest)
			}
			rounds = append(rounds, writeConverted(vm, v, wproto, sproto))
		}
		if !bytes.Equal(rounds[1], rounds[2]) {
			t.Fatalf("%q: not a fixed point:\n %q\n %q\n %q", b, rounds[0], rounds[1], rounds[2])
		}
	})
}

// FuzzLuaValueReply builds a Lua value from arbitrary bytes (strings,
// numbers including NaN and infinities, booleans, nil, tables with the
// err / ok / double / big_number / verbatim_string / map / set fields of
// script_lua.c, arrays with holes, nesting), writes it as a script's
// reply, and checks the reply is exactly one well-formed RESP frame.
func FuzzLuaValueReply(f *testing.F) {
	f.Add([]byte("s\x03abc"), uint8(0))
	f.Add([]byte("a\x03n\x01t\x00s\x01x"), uint8(3))
	f.Add([]byte("eE\r\nrr\n"), uint8(1))
	f.Add([]byte("m\x02s\x01ks\x01vn\xff"), uint8(2))
	f.Add([]byte("d\x80v\x01abcdefg"), uint8(1))
	e := NewEngine()
	vm := e.get()
	f.Fuzz(func(t *testing.T, b []byte, mode uint8) {
		L := vm.L
		defer L.SetTop(0)
		g := valueGen{L: L, b: b}
		v := g.value(0)
		out := writeConverted(vm, v, 2+int(mode&1), 2+int(mode>>1&1))
		checkOneFrame(t, out, b)
	})
}

// writeConverted writes v as a script's reply.
func writeConverted(vm *VM, v lua.LValue, wproto, sproto int) []byte {
	w := protocol.Writer{Proto: wproto}
	vm.writeReply(&w, v, 1, sproto)
	return w.Buf
}

// checkOneFrame fails unless out is exactly one RESP frame.
func checkOneFrame(t *testing.T, out, in []byte) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(out))
	if _, err := resptest.ReadFrame(r); err != nil {
		t.Fatalf("%q: reply %q is not a RESP frame: %v", in, out, err)
	}
	if r.Buffered() != 0 {
		t.Fatalf("%q: reply %q has bytes after its frame", in, out)
	}
}

// valueGen decodes fuzz bytes into a Lua value.
type valueGen struct {
	L *lua.LState
	b []byte
}

func (g *valueGen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *valueGen) str() lua.LString {
	n := int(g.byte())
	if n > len(g.b) {
		n = len(g.b)
	}
	s := string(g.b[:n])
	g.b = g.b[n:]
	return lua.LString(s)
}

var specialNumbers = []float64{0, -1, 1.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -9.3e18, 9.3e18, 4503599627370497}

func (g *valueGen) value(depth int) lua.LValue {
	if depth > 40 {
		return lua.LNil
	}
	switch g.byte() {
	case 's':
		return g.str()
	case 'n':
		return lua.LNumber(specialNumbers[int(g.byte())%len(specialNumbers)])
	case 'i':
		return lua.LNumber(float64(int8(g.byte())))
	case 't':
		return lua.LTrue
	case 'f':
		return lua.LFalse
	case 'u':
		return g.L.NewUserData()
	case 'e':
		return g.special(0, depth)
	case 'o':
		return g.special(1, depth)
	case 'd':
		return g.special(2, depth)
	case 'b':
		return g.special(3, depth)
	case 'v':
		return g.special(4, depth)
	case 'm':
		return g.special(5, depth)
	case 'S':
		return g.special(6, depth)
	case 'a':
		t := g.L.NewTable()
		n := int(g.byte() % 16)
		for i := 1; i <= n; i++ {
			if x := g.value(depth + 1); x != lua.LNil {
				t.RawSetInt(i, x)
			}
		}
		return t
	}
	return lua.LNil
}

// special builds one of the reply tables script_lua.c recognises.
func (g *valueGen) special(kind, depth int) lua.LValue {
	t := g.L.NewTable()
	switch kind {
	case 0:
		t.RawSetString("err", g.str())
	case 1:
		t.RawSetString("ok", g.str())
	case 2:
		t.RawSetString("double", lua.LNumber(specialNumbers[int(g.byte())%len(specialNumbers)]))
	case 3:
		t.RawSetString("big_number", g.str())
	case 4:
		vt := g.L.NewTable()
		vt.RawSetString("format", g.str())
		vt.RawSetString("string", g.str())
		t.RawSetString("verbatim_string", vt)
	case 5:
		m := g.L.NewTable()
		n := int(g.byte() % 8)
		for i := 0; i < n; i++ {
			k, v := g.value(depth+1), g.value(depth+1)
			if kn, ok := k.(lua.LNumber); ok && math.IsNaN(float64(kn)) {
				continue // not a valid table key
			}
			if k != lua.LNil && v != lua.LNil {
				m.RawSet(k, v)
			}
		}
		t.RawSetString("map", m)
	case 6:
		s := g.L.NewTable()
		n := int(g.byte() % 8)
		for i := 0; i < n; i++ {
			k := g.value(depth + 1)
			if kn, ok := k.(lua.LNumber); ok && math.IsNaN(float64(kn)) {
				continue
			}
			if k != lua.LNil {
				s.RawSet(k, lua.LTrue)
			}
		}
		t.RawSetString("set", s)
	}
	return t
}
