package cmdmeta

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
	"github.com/miniwatchd/miniwatchd/protocol"
)

func TestLoad(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	all := All()
	if len(all) != 240 {
		t.Errorf("All() has %d commands, want 240 (Redis 7.0.15's COMMAND COUNT)", len(all))
	}
	if !slices.IsSortedFunc(all, func(a, b *Command) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("All() is not sorted by name")
	}
	subs := 0
	for _, c := range all {
		subs += len(c.Subcommands)
		if c.Parent != nil || c.FullName != c.Name {
			t.Errorf("%s: top-level command with Parent %v, FullName %q", c.Name, c.Parent, c.FullName)
		}
		for _, s := range c.Subcommands {
			if s.Parent != c || s.FullName != c.Name+"|"+s.Name {
				t.Errorf("%s: bad subcommand naming %q / %q", c.Name, s.Name, s.FullName)
			}
		}
	}
	if want := 126 + 2; subs != want { // 7.0.15's subcommands plus the two additions
		t.Errorf("%d subcommands, want %d", subs, want)
	}
}

func TestLoadRejectsBadData(t *testing.T) {
	for _, tc := range []struct{ name, data, additions string }{
		{"not json", "{", `{"commands":[]}`},
		{"info not array", `{"commands":[{"name":"x","info":"$x","docs":["%"]}]}`, `{"commands":[]}`},
		{"docs not map", `{"commands":[{"name":"x","info":["*","$x",1,["~"],0,0,0,["~"],["~"],["~"],["~"]],"docs":["*"]}]}`, `{"commands":[]}`},
		{"bad key spec", `{"commands":[{"name":"x","info":["*","$x",1,["~"],0,0,0,["~"],["~"],["~",["%","$begin_search",["%","$type","$nope"]]],["~"]],"docs":["%"]}]}`, `{"commands":[]}`},
		{"addition without container", `{"commands":[]}`, `{"commands":[{"container":"client","info":["*","$client|x",2,["~"],0,0,0,["~"],["~"],["~"],["~"]],"docs":["%"]}]}`},
	} {
		if tab := load(tc.data, tc.additions); tab.err == nil {
			t.Errorf("%s: load succeeded", tc.name)
		}
	}
}

func TestLookupIsCaseInsensitive(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // FullName, "" for nil
	}{
		{"get", "get"}, {"GET", "get"}, {"gEt", "get"}, {"ZUNIONSTORE", "zunionstore"},
		{"client", "client"}, {"nosuch", ""}, {"", ""}, {"get ", ""},
		{strings.Repeat("g", 100), ""}, {"client|setinfo", ""},
	} {
		for _, c := range []*Command{Lookup(tc.name), LookupBytes([]byte(tc.name))} {
			got := ""
			if c != nil {
				got = c.FullName
			}
			if got != tc.want {
				t.Errorf("Lookup(%q) = %q, want %q", tc.name, got, tc.want)
			}
		}
	}
	for _, tc := range []struct{ full, want string }{
		{"CLIENT|SETINFO", "client|setinfo"}, {"object|Encoding", "object|encoding"},
		{"get", "get"}, {"get|x", ""}, {"client|nosuch", ""}, {"nosuch|x", ""},
	} {
		got := ""
		if c := LookupFullName(tc.full); c != nil {
			got = c.FullName
		}
		if got != tc.want {
			t.Errorf("LookupFullName(%q) = %q, want %q", tc.full, got, tc.want)
		}
	}
}

func TestSub(t *testing.T) {
	client := Lookup("client")
	for _, tc := range []struct {
		c          *Command
		name, want string
	}{
		{client, "setinfo", "client|setinfo"}, {client, "SETINFO", "client|setinfo"},
		{client, "No-Touch", "client|no-touch"}, {client, "list", "client|list"},
		{client, "nosuch", ""}, {Lookup("get"), "x", ""}, {nil, "x", ""},
		{Lookup("config"), "GET", "config|get"},
	} {
		for _, s := range []*Command{tc.c.Sub(tc.name), tc.c.SubBytes([]byte(tc.name))} {
			got := ""
			if s != nil {
				got = s.FullName
			}
			if got != tc.want {
				t.Errorf("Sub(%q) = %q, want %q", tc.name, got, tc.want)
			}
		}
	}
}

func TestCommandFields(t *testing.T) {
	for _, tc := range []struct {
		full              string
		arity             int
		flags             []string
		first, last, step int
		acl               []string
		group, since      string
		added             bool
	}{
		{"get", 2, []string{"readonly", "fast"}, 1, 1, 1, []string{"read", "string", "fast"}, "string", "1.0.0", false},
		{"set", -3, []string{"write", "denyoom"}, 1, 1, 1, []string{"write", "string", "slow"}, "string", "1.0.0", false},
		{"mset", -3, []string{"write", "denyoom"}, 1, -1, 2, []string{"write", "string", "slow"}, "string", "1.0.1", false},
		{"eval", -3, []string{"noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys"}, 0, 0, 0, []string{"slow", "scripting"}, "scripting", "2.6.0", false},
		{"watch", -2, []string{"noscript", "loading", "stale", "fast", "allow_busy"}, 1, -1, 1, []string{"fast", "transaction"}, "transactions", "2.2.0", false},
		{"object|encoding", 3, []string{"readonly"}, 2, 2, 1, []string{"keyspace", "read", "slow"}, "generic", "2.2.3", false},
		{"client|setinfo", 4, []string{"noscript", "loading", "stale"}, 0, 0, 0, []string{"slow", "connection"}, "connection", "7.2.0", true},
		{"client|no-touch", 3, []string{"noscript", "loading", "stale"}, 0, 0, 0, []string{"slow", "connection"}, "connection", "7.2.0", true},
		{"client", -2, nil, 0, 0, 0, []string{"slow"}, "connection", "2.4.0", false},
	} {
		c := LookupFullName(tc.full)
		if c == nil {
			t.Errorf("%s: not found", tc.full)
			continue
		}
		got := []any{c.Arity, c.Flags, c.FirstKey, c.LastKey, c.Step, c.ACLCategories, c.Group(), c.Since(), c.Added}
		want := []any{tc.arity, tc.flags, tc.first, tc.last, tc.step, tc.acl, tc.group, tc.since, tc.added}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", tc.full, got, want)
		}
	}
}

func TestOnlyAdditionsAreAdded(t *testing.T) {
	var added []string
	for _, c := range All() {
		for _, x := range append([]*Command{c}, c.Subcommands...) {
			if x.Added {
				added = append(added, x.FullName)
			}
		}
	}
	if want := []string{"client|no-touch", "client|setinfo"}; !slices.Equal(added, want) {
		t.Errorf("added = %v, want %v", added, want)
	}
}

func TestHasFlag(t *testing.T) {
	for _, tc := range []struct {
		full, flag string
		want       bool
	}{
		{"get", "readonly", true}, {"get", "write", false}, {"get", "fast", true},
		{"set", "write", true}, {"set", "denyoom", true}, {"set", "readonly", false},
		{"blpop", "blocking", true}, {"multi", "no_multi", false}, {"watch", "no_multi", false},
		{"subscribe", "pubsub", true}, {"auth", "no_auth", true}, {"eval", "movablekeys", true},
		{"get", "nosuchflag", false}, {"get", "READONLY", false}, {"client|setinfo", "noscript", true},
	} {
		if got := LookupFullName(tc.full).HasFlag(tc.flag); got != tc.want {
			t.Errorf("%s HasFlag(%q) = %v, want %v", tc.full, tc.flag, got, tc.want)
		}
	}
}

func TestKeySpecsParsed(t *testing.T) {
	for _, tc := range []struct {
		full string
		want []KeySpec
	}{
		{"zunionstore", []KeySpec{
			{Flags: []string{"OW", "update"}, BeginSearch: BeginSearch{Type: "index", Index: 1}, FindKeys: FindKeys{Type: "range", KeyStep: 1}},
			{Flags: []string{"RO", "access"}, BeginSearch: BeginSearch{Type: "index", Index: 2}, FindKeys: FindKeys{Type: "keynum", FirstKey: 1, KeyStep: 1}},
		}},
		{"xread", []KeySpec{
			{Flags: []string{"RO", "access"}, BeginSearch: BeginSearch{Type: "keyword", Keyword: "STREAMS", StartFrom: 1}, FindKeys: FindKeys{Type: "range", LastKey: -1, KeyStep: 1, Limit: 2}},
		}},
		{"object|encoding", []KeySpec{
			{Flags: []string{"RO"}, BeginSearch: BeginSearch{Type: "index", Index: 2}, FindKeys: FindKeys{Type: "range", KeyStep: 1}},
		}},
	} {
		got := LookupFullName(tc.full).KeySpecs
		for i := range got {
			got[i].flagMask = 0
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: key specs\n got %+v\nwant %+v", tc.full, got, tc.want)
		}
	}
	mig := Lookup("migrate").KeySpecs
	if len(mig) != 2 || mig[1].BeginSearch != (BeginSearch{Type: "keyword", Keyword: "KEYS", StartFrom: -2}) ||
		mig[1].flagMask&specIncomplete == 0 {
		t.Errorf("migrate key specs: %+v", mig)
	}
	if s := Lookup("sort").KeySpecs; len(s) != 3 || s[1].BeginSearch.Type != "unknown" || s[1].FindKeys.Type != "unknown" || s[1].Notes == "" {
		t.Errorf("sort key specs: %+v", s)
	}
}

// writeTwice renders fn in RESP2 and RESP3.
func writeTwice(fn func(w *protocol.Writer)) (resp2, resp3 []byte) {
	w2, w3 := protocol.Writer{Proto: 2}, protocol.Writer{Proto: 3}
	fn(&w2)
	fn(&w3)
	return w2.Buf, w3.Buf
}

func TestWriteInfoShapes(t *testing.T) {
	r2, r3 := writeTwice(Lookup("get").WriteInfo)
	want3 := "*10\r\n$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n~0\r\n"
	if string(r3) != want3 {
		t.Errorf("RESP3 GET info:\n got %q\nwant %q", r3, want3)
	}
	// RESP2 (recorded from redis-server 7.0.15): maps are flat arrays.
	want2 := "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n"
	if string(r2) != want2 {
		t.Errorf("RESP2 GET info:\n got %q\nwant %q", r2, want2)
	}
}

// subNames lists the names of the subcommands in a written COMMAND INFO
// element, and in a written docs value.
func subNames(t *testing.T, info, docs []byte) (fromInfo, fromDocs []string) {
	t.Helper()
	n, rest, err := resp.Parse(info)
	if err != nil || len(rest) != 0 {
		t.Fatalf("parse info: %v, %d bytes left", err, len(rest))
	}
	for _, s := range n.Elems[9].Elems {
		fromInfo = append(fromInfo, s.Elems[0].Str)
	}
	d, rest, err := resp.Parse(docs)
	if err != nil || len(rest) != 0 {
		t.Fatalf("parse docs: %v, %d bytes left", err, len(rest))
	}
	for i := 0; i+1 < len(d.Elems); i += 2 {
		if d.Elems[i].Str == "subcommands" {
			subs := d.Elems[i+1].Elems
			for j := 0; j < len(subs); j += 2 {
				fromDocs = append(fromDocs, subs[j].Str)
			}
		}
	}
	return fromInfo, fromDocs
}

func TestFilteredWriters(t *testing.T) {
	client := Lookup("client")
	for _, tc := range []struct {
		name string
		keep func(*Command) bool
		want []string
	}{
		{"some", func(c *Command) bool { return c.Name == "setinfo" || c.Name == "getname" }, []string{"client|getname", "client|setinfo"}},
		{"none", func(*Command) bool { return false }, nil},
		{"not added", func(c *Command) bool { return !c.Added && strings.HasPrefix(c.Name, "s") }, []string{"client|setname"}},
	} {
		for _, proto := range []int{2, 3} {
			wi, wd := protocol.Writer{Proto: proto}, protocol.Writer{Proto: proto}
			client.WriteInfoFiltered(&wi, tc.keep)
			client.WriteDocsFiltered(&wd, tc.keep)
			fromInfo, fromDocs := subNames(t, wi.Buf, wd.Buf)
			if !slices.Equal(fromInfo, tc.want) || !slices.Equal(fromDocs, tc.want) {
				t.Errorf("%s RESP%d: info lists %v, docs list %v, want %v", tc.name, proto, fromInfo, fromDocs, tc.want)
			}
		}
	}
	// Without a filter, and with one that keeps everything, the output is
	// the same and lists every subcommand.
	all := func(*Command) bool { return true }
	a2, a3 := writeTwice(client.WriteInfo)
	b2, b3 := writeTwice(func(w *protocol.Writer) { client.WriteInfoFiltered(w, all) })
	if string(a2) != string(b2) || string(a3) != string(b3) {
		t.Error("WriteInfoFiltered(keep all) differs from WriteInfo")
	}
	a2, a3 = writeTwice(client.WriteDocs)
	b2, b3 = writeTwice(func(w *protocol.Writer) { client.WriteDocsFiltered(w, all) })
	if string(a2) != string(b2) || string(a3) != string(b3) {
		t.Error("WriteDocsFiltered(keep all) differs from WriteDocs")
	}
}

func TestWriteDoesNotAllocate(t *testing.T) {
	c := Lookup("zunionstore")
	w := protocol.Writer{Proto: 3, Buf: make([]byte, 0, 64<<10)}
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		c.WriteInfo(&w)
		c.WriteDocs(&w)
	})
	if allocs != 0 {
		t.Errorf("WriteInfo+WriteDocs allocate %v times", allocs)
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if t := load(redisData, additionsData); t.err != nil {
			b.Fatal(t.err)
		}
	}
}

func BenchmarkLookupBytes(b *testing.B) {
	name := []byte("ZunionStore")
	for b.Loop() {
		if LookupBytes(name) == nil {
			b.Fatal("not found")
		}
	}
}

// Info and docs are decoded on first use, not by Load: every command's and
// subcommand's decode, the info element naming the command, and each has
// its group and summary (what a decode failure would panic on at run time
// is checked here).
func TestEveryCommandDecodesInfoAndDocs(t *testing.T) {
	var check func(c *Command)
	check = func(c *Command) {
		if in := c.Info(); in == nil || in.Kind != resp.Array || len(in.Elems) != 10 || in.Elems[0].Str != c.FullName || in.Elems[1].Int != int64(c.Arity) {
			t.Errorf("%s: info %v", c.FullName, in)
		}
		if d := c.Docs(); d == nil || d.Kind != resp.Map {
			t.Errorf("%s: docs %v", c.FullName, d)
		}
		if c.Group() == "" || c.Summary() == "" || c.Since() == "" {
			t.Errorf("%s: group %q, summary %q, since %q", c.FullName, c.Group(), c.Summary(), c.Since())
		}
		for _, s := range c.Subcommands {
			check(s)
		}
	}
	for _, c := range All() {
		check(c)
	}
	if got := Lookup("client").Sub("setinfo").Since(); got != "7.2.0" {
		t.Errorf("CLIENT SETINFO (an addition) since %q, want 7.2.0", got)
	}
	if tab := load(`{"commands":[{"name":"x","info":["*","$x",1,["~"],0,0,0,["~"],["~"],["~"],["~"]],"docs":["%",`+"\"$summary\""+`]}]}`, `{"commands":[]}`); tab.err != nil {
		t.Fatalf("load of docs decoded later: %v", tab.err)
	} else if func() (panicked bool) {
		defer func() { panicked = recover() != nil }()
		tab.all[0].Docs()
		return false
	}() == false {
		t.Error("broken docs (an odd map) decoded without a panic")
	}
}
