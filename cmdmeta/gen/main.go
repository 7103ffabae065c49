// Command gen records Redis's command metadata as cmdmeta's data file.
//
// Run it from the module root against a running redis-server 7.0.15:
//
//	go run ./cmdmeta/gen -addr 127.0.0.1:6379
//
// It says HELLO 3, reads COMMAND and COMMAND DOCS with every RESP3 type
// kept, and writes cmdmeta/redis-7.0.15.json: one entry per top-level
// command holding its COMMAND INFO element and the value of its COMMAND
// DOCS entry, subcommands nested as Redis nests them.
//
// Redis lists commands and subcommands in the order of its hash tables,
// which depends on a per-process random seed; the file sorts both by name
// so that it is the same on every run.
//
// It also checks that RESP2 replies are the RESP3 trees degraded the
// standard way: it sends COMMAND, COMMAND DOCS and, for every command and
// subcommand, COMMAND INFO and COMMAND DOCS on a RESP2 and a RESP3
// connection, checks that each raw reply round-trips through the reader and
// protocol.Writer, and compares the raw RESP2 bytes with the RESP3 tree
// written by protocol.Writer in RESP2 mode, both put in name order first
// (the hash-table order can change between two calls while Redis rehashes
// a table, so it cannot be compared). Differences are printed and recorded
// under "resp2_check" in the file, and make the generator exit non-zero,
// because cmdmeta's writers assume there are none. Against 7.0.15 there
// are none.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
	"github.com/miniwatchd/miniwatchd/protocol"
)

const wantVersion = "7.0.15"

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "address of a running redis-server "+wantVersion)
	out := flag.String("out", "cmdmeta/redis-"+wantVersion+".json", "output file")
	anyVersion := flag.Bool("any-version", false, "accept a server that is not "+wantVersion)
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("cmdmeta/gen: ")

	c3, err := dial(*addr)
	if err != nil {
		log.Fatal(err)
	}
	hello := c3.do("HELLO", "3")
	version := hello.Get("version")
	if version == nil {
		log.Fatalf("HELLO 3 failed: %+v", hello)
	}
	if version.Str != wantVersion && !*anyVersion {
		log.Fatalf("server is redis %s, want %s (or pass -any-version)", version.Str, wantVersion)
	}
	c2, err := dial(*addr)
	if err != nil {
		log.Fatal(err)
	}
	all, docs, check := compareProtocols(c2, c3)
	for _, d := range check.differences {
		log.Printf("RESP2 difference: %s", d)
	}
	if all.Kind != resp.Array || docs.Kind != resp.Map {
		log.Fatalf("unexpected COMMAND / COMMAND DOCS reply kinds %q / %q", all.Kind, docs.Kind)
	}
	entries, err := collect(&all, &docs)
	if err != nil {
		log.Fatal(err)
	}

	data, err := encodeFile(version.Str, entries, check)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d commands, %d bytes; compared %d reply pairs, %d differences",
		*out, len(entries), len(data), check.compared, len(check.differences))
	if len(check.differences) > 0 {
		os.Exit(1)
	}
}

// entry is one top-level command: its COMMAND INFO element and the value
// of its COMMAND DOCS entry.
type entry struct {
	name       string
	info, docs resp.Node
}

// collect pairs each COMMAND element with its docs and sorts everything.
func collect(all, docs *resp.Node) ([]*entry, error) {
	byName := map[string]*resp.Node{}
	for i := 0; i+1 < len(docs.Elems); i += 2 {
		byName[docs.Elems[i].Str] = &docs.Elems[i+1]
	}
	var entries []*entry
	for i := range all.Elems {
		info := all.Elems[i]
		if info.Kind != resp.Array || len(info.Elems) != 10 {
			return nil, fmt.Errorf("COMMAND element %d is not a 10-element array", i)
		}
		name := info.Elems[0].Str
		d := byName[name]
		if d == nil {
			return nil, fmt.Errorf("no COMMAND DOCS entry for %q", name)
		}
		e := &entry{name: name, info: info, docs: *d}
		sortInfo(&e.info)
		sortDocs(&e.docs)
		entries = append(entries, e)
	}
	if len(entries) != len(byName) {
		return nil, fmt.Errorf("COMMAND has %d entries, COMMAND DOCS %d", len(entries), len(byName))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries, nil
}

// sortInfo orders the subcommand list (element 10) of a COMMAND INFO
// element by name, recursively.
func sortInfo(info *resp.Node) {
	if info.Kind != resp.Array || len(info.Elems) != 10 {
		return
	}
	subs := info.Elems[9].Elems
	for i := range subs {
		sortInfo(&subs[i])
	}
	sort.SliceStable(subs, func(i, j int) bool { return subs[i].Elems[0].Str < subs[j].Elems[0].Str })
}

// sortDocs orders the "subcommands" pairs of a docs value by name,
// recursively. It accepts RESP3 maps and their RESP2 flat arrays.
func sortDocs(d *resp.Node) {
	subs := pairGet(d, "subcommands")
	if subs == nil {
		return
	}
	for i := 1; i < len(subs.Elems); i += 2 {
		sortDocs(&subs.Elems[i])
	}
	sortPairs(subs)
}

// pairGet returns the value under key in a map or in a RESP2 flat
// key/value array.
func pairGet(n *resp.Node, key string) *resp.Node {
	if n.Kind != resp.Map && n.Kind != resp.Array {
		return nil
	}
	for i := 0; i+1 < len(n.Elems); i += 2 {
		if n.Elems[i].Kind == resp.BulkString && n.Elems[i].Str == key {
			return &n.Elems[i+1]
		}
	}
	return nil
}

// sortPairs orders the key/value pairs of a map (or flat array) by key.
func sortPairs(n *resp.Node) {
	type pair struct{ k, v resp.Node }
	pairs := make([]pair, len(n.Elems)/2)
	for i := range pairs {
		pairs[i] = pair{n.Elems[2*i], n.Elems[2*i+1]}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k.Str < pairs[j].k.Str })
	for i, p := range pairs {
		n.Elems[2*i], n.Elems[2*i+1] = p.k, p.v
	}
}

// canonical puts a COMMAND [INFO] or COMMAND DOCS reply in name order at
// every level; docs says which of the two it is.
func canonical(n *resp.Node, docs bool) {
	if docs {
		for i := 1; i < len(n.Elems); i += 2 {
			sortDocs(&n.Elems[i])
		}
		sortPairs(n)
		return
	}
	for i := range n.Elems {
		sortInfo(&n.Elems[i])
	}
	sort.SliceStable(n.Elems, func(i, j int) bool {
		a, b := &n.Elems[i], &n.Elems[j]
		return len(a.Elems) > 0 && len(b.Elems) > 0 && a.Elems[0].Str < b.Elems[0].Str
	})
}

// protoCheck is the outcome of comparing RESP2 and RESP3 replies.
type protoCheck struct {
	compared    int
	differences []string
}

// compareProtocols sends COMMAND, COMMAND DOCS and, for every command and
// subcommand, COMMAND INFO and COMMAND DOCS on both connections. For each
// reply it checks that the raw bytes round-trip through Reader and Writer
// in their own protocol, and that the RESP2 reply equals the RESP3 tree
// degraded, after both are put in name order (Redis's hash-table order of
// subcommands can change between two calls while a dict is rehashing).
// It returns the RESP3 COMMAND and COMMAND DOCS trees, in name order.
func compareProtocols(c2, c3 *conn) (all, docs resp.Node, check protoCheck) {
	do := func(args ...string) (n2, n3 resp.Node) {
		for _, c := range []*conn{c2, c3} {
			c.send(args...)
			if err := c.w.Flush(); err != nil {
				log.Fatal(err)
			}
		}
		n2, n3 = checkPair(c2, c3, strings.Join(args, " "), len(args) > 1 && args[1] == "DOCS", &check)
		return n2, n3
	}
	do("COMMAND", "INFO") // all commands, like COMMAND
	_, docs = do("COMMAND", "DOCS")
	_, all = do("COMMAND")
	if all.Kind != resp.Array {
		log.Fatalf("COMMAND: unexpected reply kind %q", all.Kind)
	}
	var names []string
	var addNames func(info *resp.Node)
	addNames = func(info *resp.Node) {
		names = append(names, info.Elems[0].Str)
		for i := range info.Elems[9].Elems {
			addNames(&info.Elems[9].Elems[i])
		}
	}
	for i := range all.Elems {
		addNames(&all.Elems[i])
	}
	// Pipeline the per-command requests on both connections, then read.
	var reqs [][]string
	for _, n := range names {
		reqs = append(reqs, []string{"COMMAND", "INFO", n}, []string{"COMMAND", "DOCS", n})
	}
	for _, c := range []*conn{c2, c3} {
		for _, r := range reqs {
			c.send(r...)
		}
		if err := c.w.Flush(); err != nil {
			log.Fatal(err)
		}
	}
	for _, r := range reqs {
		checkPair(c2, c3, strings.Join(r, " "), r[1] == "DOCS", &check)
	}
	return all, docs, check
}

// checkPair reads one reply from each connection and compares them.
func checkPair(c2, c3 *conn, what string, docs bool, check *protoCheck) (n2, n3 resp.Node) {
	n2, raw2 := c2.read()
	raw2 = bytes.Clone(raw2)
	n3, raw3 := c3.read()
	check.compared++
	differ := func(format string, args ...any) {
		check.differences = append(check.differences, what+": "+fmt.Sprintf(format, args...))
	}
	if got := replay(&n3, 3); !bytes.Equal(got, raw3) {
		differ("RESP3 reply does not round-trip: %s", firstDiff(got, raw3))
	}
	if got := replay(&n2, 2); !bytes.Equal(got, raw2) {
		differ("RESP2 reply does not round-trip: %s", firstDiff(got, raw2))
	}
	canonical(&n2, docs)
	canonical(&n3, docs)
	if got, want := replay(&n3, 2), replay(&n2, 2); !bytes.Equal(got, want) {
		differ("RESP2 reply is not the degraded RESP3 tree: %s", firstDiff(got, want))
	}
	return n2, n3
}

func replay(n *resp.Node, proto int) []byte {
	w := protocol.Writer{Proto: proto}
	resp.Write(&w, n)
	return w.Buf
}

// firstDiff describes where two byte strings start to differ.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	clip := func(b []byte) []byte {
		lo := max(0, i-40)
		return b[lo:min(len(b), i+40)]
	}
	return fmt.Sprintf("at byte %d: degraded %q, server %q", i, clip(got), clip(want))
}

func encodeFile(version string, entries []*entry, check protoCheck) ([]byte, error) {
	var b []byte
	var err error
	b = append(b, "{\n\"redis_version\": "...)
	if b, err = resp.AppendJSONString(b, version); err != nil {
		return nil, err
	}
	b = append(b, ",\n\"generator\": \"go run ./cmdmeta/gen (COMMAND and COMMAND DOCS after HELLO 3; commands and subcommands sorted by name)\",\n"...)
	b = append(b, "\"encoding\": \"\\\"+s\\\" simple, \\\"$s\\\" bulk, integer, null, true/false, [\\\"*\\\",...] array, [\\\"%\\\",k,v,...] map, [\\\"~\\\",...] set\",\n"...)
	b = append(b, "\"resp2_check\": {\"method\": \"COMMAND, COMMAND INFO, COMMAND DOCS, and COMMAND INFO/DOCS of every command and subcommand, sent on a RESP2 and a RESP3 connection; raw RESP2 bytes compared with the RESP3 tree written by protocol.Writer in RESP2 mode, after putting commands and subcommands in name order on both sides (Redis's hash-table order can change between two calls while a table rehashes)\", "...)
	b = fmt.Appendf(b, "\"replies_compared\": %d, \"differences\": [", check.compared)
	for i, d := range check.differences {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		if b, err = resp.AppendJSONString(b, d); err != nil {
			return nil, err
		}
	}
	b = append(b, "]},\n\"commands\": [\n"...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "{\"name\": "...)
		if b, err = resp.AppendJSONString(b, e.name); err != nil {
			return nil, err
		}
		b = append(b, ",\n \"info\": "...)
		if b, err = resp.AppendJSON(b, &e.info); err != nil {
			return nil, err
		}
		b = append(b, ",\n \"docs\": "...)
		if b, err = resp.AppendJSON(b, &e.docs); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	b = append(b, "\n]\n}\n"...)
	return b, nil
}

// conn is a minimal client connection.
type conn struct {
	nc net.Conn
	w  *bufio.Writer
	r  *resp.Reader
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, w: bufio.NewWriter(nc), r: resp.NewReader(nc)}, nil
}

// send queues one command, one argument per string.
func (c *conn) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

func (c *conn) read() (resp.Node, []byte) {
	c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, raw, err := c.r.Read()
	if err != nil {
		log.Fatal(err)
	}
	if n.Kind == resp.Error {
		log.Fatalf("server error: %s", n.Str)
	}
	return n, raw
}

// do sends a command whose arguments are the space-separated words of
// words, and reads its reply.
func (c *conn) do(words ...string) resp.Node {
	var args []string
	for _, w := range words {
		args = append(args, strings.Fields(w)...)
	}
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		log.Fatal(err)
	}
	n, _ := c.read()
	return n
}
