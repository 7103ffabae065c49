package cmdmeta

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// keyCases are argument vectors (each with a valid arity) and the key
// positions Redis 7.0.15's COMMAND GETKEYS reports for them, in its order.
// TestKeyPositionsMatchRedis checks every expectation against the server.
var keyCases = []struct {
	args []string
	want []int
}{
	{split("get k"), []int{1}},
	{split("set k v"), []int{1}},
	{split("set k v get"), []int{1}},
	{split("set k v EX 10 NX"), []int{1}},
	{split("mset a 1 b 2 c 3"), []int{1, 3, 5}},
	{split("msetnx a 1 b 2"), []int{1, 3}},
	{split("mget a b c"), []int{1, 2, 3}},
	{split("del a b c"), []int{1, 2, 3}},
	{split("rename a b"), []int{1, 2}},
	{split("lmove a b left right"), []int{1, 2}},
	{split("blmove a b left right 0"), []int{1, 2}},
	{split("blpop a b 0"), []int{1, 2}},
	{split("bitop and d a b"), []int{2, 3, 4}},
	{split("pfmerge d a b"), []int{1, 2, 3}},
	{split("watch a b"), []int{1, 2}},
	{split("zunionstore d 2 a b"), []int{1, 3, 4}},
	{split("zunionstore d 2 a b weights 1 2 aggregate max"), []int{1, 3, 4}},
	{split("ZUNIONSTORE d 2abc a b"), []int{3, 4, 1}}, // numkeys not an integer: Redis's fallback uses atoi
	{split("zunionstore d 0 a"), nil},
	{split("zunionstore d 3 a b"), nil},
	{split("zinterstore d 3 a b c"), []int{1, 3, 4, 5}},
	{split("zdiffstore d 1 a"), []int{1, 3}},
	{split("zunion 2 a b withscores"), []int{2, 3}},
	{split("zinter 1 a"), []int{2}},
	{split("zdiff 2 a b"), []int{2, 3}},
	{split("zintercard 2 a b limit 1"), []int{2, 3}},
	{split("sintercard 1 a"), []int{2}},
	{split("sintercard +1 a"), []int{2}},
	{split("eval s 0"), nil},
	{split("eval s 2 a b x y"), []int{3, 4}},
	{split("EVAL s 1x a"), []int{3}},
	{split("eval s 4294967297 a"), []int{3}}, // Redis truncates numkeys to 32 bits
	{split("eval s -1 a"), nil},
	{split("eval s 2 a"), nil},
	{split("eval s 01 a"), []int{3}},
	{split("evalsha sha 1 a"), []int{3}},
	{split("eval_ro s 1 a b"), []int{3}},
	{split("fcall f 2 a b c"), []int{3, 4}},
	{split("fcall_ro f 1 a"), []int{3}},
	{split("fcall f 0"), nil},
	{split("sort k"), []int{1}},
	{split("sort k store d"), []int{1, 3}},
	{split("sort k by p get g store d limit 0 1"), []int{1, 7}},
	{split("sort k limit 0 1 store d alpha"), []int{1, 6}},
	{split("sort k store a store b"), []int{1, 5}},
	{split("sort k get store store d"), []int{1, 5}},
	{split("sort k store"), []int{1}},
	{split("sort_ro k by x get y"), []int{1}},
	{split("migrate h 6379 k 0 5000"), []int{3}},
	{[]string{"migrate", "h", "6379", "", "0", "5000", "keys", "a", "b", "c"}, []int{7, 8, 9}},
	{[]string{"migrate", "h", "6379", "", "0", "5000", "copy", "replace", "auth", "pw", "keys", "a", "b"}, []int{11, 12}},
	{[]string{"migrate", "h", "6379", "", "0", "5000", "auth2", "keys", "p", "keys", "a"}, []int{10}},
	{split("migrate h 6379 k 0 5000 keys a"), nil},
	{split("migrate h 6379 k 0 5000 copy"), []int{3}},
	{split("georadius k 0 0 1 km"), []int{1}},
	{split("georadius k 0 0 1 km store d"), []int{1, 7}},
	{split("georadius k 0 0 1 km storedist d"), []int{1, 7}},
	{split("georadius k 0 0 1 km store d storedist e"), []int{1, 7, 9}},
	{split("georadius k 0 0 1 km withdist store"), []int{1}},
	{split("georadiusbymember k m 1 km store d"), []int{1, 6}},
	{split("georadius_ro k 0 0 1 km"), []int{1}},
	{split("geosearchstore d s frommember m byradius 1 km"), []int{1, 2}},
	{split("xread streams a b 0 0"), []int{2, 3}},
	{split("xread count 1 block 0 streams a b c 0 0 0"), []int{6, 7, 8}},
	{split("xread streams a 0 x"), []int{2}},
	{split("xread count 1 a b c"), nil},
	{split("xreadgroup group g c streams a 0"), []int{5}},
	{split("xreadgroup group g c count 1 noack streams a b > >"), []int{8, 9}},
	{split("lmpop 2 a b left"), []int{2, 3}},
	{split("blmpop 0 2 a b left count 1"), []int{3, 4}},
	{split("zmpop 1 a min"), []int{2}},
	{split("bzmpop 0 1 a max"), []int{3}},
	{split("bitfield k get u8 0"), []int{1}},
	{split("bitfield_ro k get u8 0"), []int{1}},
	{split("object encoding k"), []int{2}},
	{split("OBJECT FREQ k"), []int{2}},
	{split("xinfo stream k full"), []int{2}},
	{split("xgroup create k g $"), []int{2}},
	{split("memory usage k samples 5"), []int{2}},
	{split("getex k persist"), []int{1}},
	{split("copy a b replace"), []int{1, 2}},
	{split("lcs a b"), []int{1, 2}},
	{split("smove a b m"), []int{1, 2}},
	{split("restore k 0 x"), []int{1}},
	{split("zrangestore d s 0 -1"), []int{1, 2}},
	{split("spublish ch m"), nil},
	{split("client setname x"), nil},
	{split("publish ch m"), nil},
}

func split(s string) []string { return strings.Fields(s) }

var errNoKeys = errors.New("the command has no key arguments")

// keyPositionsOf looks the command (and subcommand) of args up and returns
// its key positions, or errNoKeys like COMMAND GETKEYS.
func keyPositionsOf(args []string) ([]int, error) {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	c := LookupBytes(b[0])
	if c == nil {
		return nil, errors.New("no such command")
	}
	if len(c.Subcommands) > 0 && len(b) > 1 {
		if c = c.SubBytes(b[1]); c == nil {
			return nil, errors.New("no such subcommand")
		}
	}
	if !c.HasKeys() {
		return nil, errNoKeys
	}
	return c.KeyPositions(b), nil
}

func TestKeyPositions(t *testing.T) {
	for _, tc := range keyCases {
		got, err := keyPositionsOf(tc.args)
		if err != nil && err != errNoKeys {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: KeyPositions = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestHasKeys(t *testing.T) {
	for _, tc := range []struct {
		full string
		want bool
	}{
		{"get", true}, {"eval", true}, {"sort", true}, {"publish", false}, {"spublish", false},
		{"ping", false}, {"object|encoding", true}, {"client|setinfo", false}, {"migrate", true},
	} {
		if got := LookupFullName(tc.full).HasKeys(); got != tc.want {
			t.Errorf("%s: HasKeys = %v, want %v", tc.full, got, tc.want)
		}
	}
}

func TestAppendKeyPositionsReusesBuffer(t *testing.T) {
	c := Lookup("mset")
	args := [][]byte{[]byte("mset"), []byte("a"), []byte("1"), []byte("b"), []byte("2")}
	buf := make([]int, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		buf = c.AppendKeyPositions(buf[:0], args)
	})
	if allocs != 0 || !slices.Equal(buf, []int{1, 3}) {
		t.Errorf("AppendKeyPositions: %v with %v allocations", buf, allocs)
	}
	// A failing spec must not leave partial results behind the prefix.
	out := Lookup("zunionstore").AppendKeyPositions([]int{99}, [][]byte{[]byte("zunionstore"), []byte("d"), []byte("2x"), []byte("a"), []byte("b")})
	if !slices.Equal(out, []int{99, 3, 4, 1}) {
		t.Errorf("AppendKeyPositions with prefix = %v", out)
	}
}

func TestKeyPositionsBadInput(t *testing.T) {
	// Commands called with fewer arguments than their arity must not panic.
	for _, c := range All() {
		for _, x := range append([]*Command{c}, c.Subcommands...) {
			for n := 0; n < 4; n++ {
				args := make([][]byte, n)
				for i := range args {
					args[i] = []byte("x")
				}
				_ = x.KeyPositions(args)
			}
		}
	}
}
