package cmdmeta

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
)

// redisData is recorded by cmdmeta/gen from redis-server 7.0.15.
//
//go:embed redis-7.0.15.json
var redisData string

// additionsData is written by hand: metadata from newer Redis versions.
//
//go:embed redis-7.2-additions.json
var additionsData string

// table is the parsed command table, built once.
type table struct {
	all    []*Command          // top-level, sorted by name
	byName map[string]*Command // top-level, by lower-case name
	err    error
}

var (
	loadOnce sync.Once
	tab      table
	// flagBits maps command flag names to bits of Command.flagMask. It is
	// written only while loading.
	flagBits = map[string]uint64{}
)

func get() *table {
	loadOnce.Do(func() { tab = load(redisData, additionsData) })
	return &tab
}

// Load parses the embedded data if that has not happened yet and reports
// whether it is valid. The other functions load on first use too; a server
// calls Load at startup to fail early and to keep the parse off the first
// request.
func Load() error { return get().err }

// Lookup returns the top-level command called name (case-insensitive), or
// nil. It does not allocate.
func Lookup(name string) *Command {
	t := get()
	if c, ok := t.byName[name]; ok {
		return c
	}
	var buf [64]byte
	if lower, ok := lowerASCII(buf[:0], name); ok {
		return t.byName[string(lower)]
	}
	return nil
}

// LookupBytes is Lookup for a name held in a byte slice (such as args[0]);
// it does not allocate.
func LookupBytes(name []byte) *Command {
	var buf [64]byte
	if lower, ok := lowerASCII(buf[:0], name); ok {
		return get().byName[string(lower)]
	}
	return nil
}

// LookupFullName returns the command or subcommand with the given full
// name, "get" or "client|setinfo" (case-insensitive), or nil.
func LookupFullName(full string) *Command {
	container, sub, ok := strings.Cut(full, "|")
	c := Lookup(container)
	if !ok {
		return c
	}
	return c.Sub(sub)
}

// All returns every top-level command sorted by name. The slice is shared:
// do not modify it.
func All() []*Command { return get().all }

// entryNodes are the recorded trees of one top-level command, kept as
// their JSON text until a merge needs the trees (parsed).
type entryNodes struct {
	name               string
	infoJSON, docsJSON string
	info, docs         resp.Node
	parsed             bool
}

// parse decodes e's info and docs into trees of their own, once.
func (e *entryNodes) parse() error {
	if e.parsed {
		return nil
	}
	info, err := decodeInfo(resp.NewDecoder(e.infoJSON))
	if err != nil {
		return err
	}
	docs, err := decodeNode(resp.NewDecoder(e.docsJSON))
	if err != nil {
		return err
	}
	e.info, e.docs, e.parsed = info, docs, true
	return nil
}

// decodeNode decodes the one Node of d's text.
func decodeNode(d *resp.Decoder) (resp.Node, error) {
	n, err := d.Node()
	if err == nil {
		err = d.End()
	}
	return n, err
}

// decodeInfo decodes a COMMAND INFO element: a 10-element array whose
// first element is the name.
func decodeInfo(d *resp.Decoder) (resp.Node, error) {
	n, err := decodeNode(d)
	if err == nil && (n.Kind != resp.Array || len(n.Elems) != 10 || n.Elems[0].Kind != resp.BulkString) {
		err = fmt.Errorf("info is not a 10-element array")
	}
	return n, err
}

func load(data, additions string) table {
	entries, err := decodeCommands(data, "")
	if err != nil {
		return table{err: fmt.Errorf("cmdmeta: redis-7.0.15.json: %w", err)}
	}
	added, err := decodeCommands(additions, "container")
	if err != nil {
		return table{err: fmt.Errorf("cmdmeta: redis-7.2-additions.json: %w", err)}
	}
	addedNames := map[string]bool{}
	byName := make(map[string]*entryNodes, len(entries))
	for i := range entries {
		byName[entries[i].name] = &entries[i]
	}
	for _, a := range added {
		if err := a.parse(); err != nil {
			return table{err: fmt.Errorf("cmdmeta: addition to %q: %w", a.name, err)}
		}
		full := a.info.Elems[0].Str
		addedNames[full] = true
		if a.name == "" { // a new top-level command
			entries = append(entries, a)
			continue
		}
		parent := byName[a.name]
		if parent == nil {
			return table{err: fmt.Errorf("cmdmeta: addition %q: no container %q", full, a.name)}
		}
		err := parent.parse()
		if err == nil {
			err = mergeSub(parent, a)
		}
		if err != nil {
			return table{err: fmt.Errorf("cmdmeta: addition %q: %w", full, err)}
		}
	}
	t := table{byName: make(map[string]*Command, len(entries))}
	// The info of a command not merged with an addition is decoded into
	// scratch memory, reused from one command to the next: build keeps
	// no Node, and Command.Info decodes the text again when asked.
	scratch := resp.NewDecoder("")
	for i := range entries {
		e := &entries[i]
		var c *Command
		info := &e.info
		if !e.parsed {
			scratch.Recycle(e.infoJSON)
			n, err := decodeInfo(scratch)
			if err != nil {
				return table{err: fmt.Errorf("cmdmeta: command %q: %w", e.name, err)}
			}
			info = &n
		}
		c, err := build(info, nil, addedNames)
		if err == nil {
			c.infoJSON, c.docsJSON = e.infoJSON, e.docsJSON
			if e.parsed {
				c.setInfo(&e.info)
				err = c.setDocs(&e.docs)
			}
		}
		if err != nil {
			return table{err: fmt.Errorf("cmdmeta: command %q: %w", e.name, err)}
		}
		t.all = append(t.all, c)
		t.byName[c.Name] = c
	}
	sort.Slice(t.all, func(i, j int) bool { return t.all[i].Name < t.all[j].Name })
	return t
}

// decodeCommands reads {"commands": [{"name"|container: ..., "info": ...,
// "docs": ...}, ...]}; other top-level keys are ignored. nameKey is the
// key whose value becomes entryNodes.name ("" means "name").
func decodeCommands(data, nameKey string) ([]entryNodes, error) {
	if nameKey == "" {
		nameKey = "name"
	}
	out := make([]entryNodes, 0, len(data)/1000+1) // Redis 7.0.15's: 240 entries in 250 kB
	d := resp.NewDecoder(data)
	err := d.Object(func(key string) error {
		if key != "commands" {
			return d.Skip()
		}
		return d.Array(func() error {
			var e entryNodes
			err := d.Object(func(k string) error {
				var err error
				switch k {
				case nameKey:
					e.name, err = d.String()
				case "info":
					e.infoJSON, err = d.Raw()
				case "docs":
					e.docsJSON, err = d.Raw()
				default:
					err = d.Skip()
				}
				return err
			})
			if err != nil {
				return err
			}
			if !strings.HasPrefix(e.infoJSON, `["*"`) {
				return fmt.Errorf("entry %q: info is not a 10-element array", e.name)
			}
			if !strings.HasPrefix(e.docsJSON, `["%"`) {
				return fmt.Errorf("entry %q: docs is not a map", e.name)
			}
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, d.End()
}

// mergeSub inserts an added subcommand into its container's trees, in
// name order, as if Redis had it.
func mergeSub(parent *entryNodes, sub entryNodes) error {
	full := sub.info.Elems[0].Str
	subs := &parent.info.Elems[9]
	if subs.Kind != resp.Array {
		return fmt.Errorf("container has no subcommand array")
	}
	i := sort.Search(len(subs.Elems), func(i int) bool { return subs.Elems[i].Elems[0].Str >= full })
	if i < len(subs.Elems) && subs.Elems[i].Elems[0].Str == full {
		return fmt.Errorf("already present")
	}
	subs.Elems = append(subs.Elems[:i], append([]resp.Node{sub.info}, subs.Elems[i:]...)...)

	docs := parent.docs.Get("subcommands")
	if docs == nil || docs.Kind != resp.Map {
		return fmt.Errorf("container docs have no subcommands map")
	}
	j := 0
	for j < len(docs.Elems) && docs.Elems[j].Str < full {
		j += 2
	}
	pair := []resp.Node{{Kind: resp.BulkString, Str: full}, sub.docs}
	docs.Elems = append(docs.Elems[:j], append(pair, docs.Elems[j:]...)...)
	return nil
}

// build makes the Command for an info element; its docs come later
// (Command.docs).
func build(info *resp.Node, parent *Command, added map[string]bool) (*Command, error) {
	e := info.Elems
	if info.Kind != resp.Array || len(e) != 10 {
		return nil, fmt.Errorf("info is not a 10-element array")
	}
	for i, k := range [10]resp.Kind{resp.BulkString, resp.Integer, resp.Set, resp.Integer, resp.Integer, resp.Integer, resp.Set, resp.Set, resp.Set, 0} {
		if k != 0 && e[i].Kind != k {
			return nil, fmt.Errorf("info element %d is of kind %q, want %q", i+1, e[i].Kind, k)
		}
	}
	c := &Command{
		FullName:      e[0].Str,
		Arity:         int(e[1].Int),
		Flags:         e[2].Strings(),
		FirstKey:      int(e[3].Int),
		LastKey:       int(e[4].Int),
		Step:          int(e[5].Int),
		Tips:          e[7].Strings(),
		Parent:        parent,
		Added:         added[e[0].Str],
		getKeys:       getKeysProcs[e[0].Str],
		ACLCategories: make([]string, 0, len(e[6].Elems)),
	}
	c.Name = c.FullName
	if parent != nil {
		c.Name = strings.TrimPrefix(c.FullName, parent.FullName+"|")
	}
	for _, f := range c.Flags {
		bit, ok := flagBits[f]
		if !ok {
			if len(flagBits) == 64 {
				return nil, fmt.Errorf("more than 64 distinct command flags")
			}
			bit = 1 << len(flagBits)
			flagBits[f] = bit
		}
		c.flagMask |= bit
	}
	for _, a := range e[6].Elems {
		c.ACLCategories = append(c.ACLCategories, strings.TrimPrefix(a.Str, "@"))
	}
	for i := range e[8].Elems {
		ks, err := parseKeySpec(&e[8].Elems[i])
		if err != nil {
			return nil, fmt.Errorf("key spec %d: %w", i, err)
		}
		if ks.flagMask&specNotKey == 0 {
			c.hasKeySpec = true
		}
		if ks.flagMask&specVariableFlags != 0 {
			c.hasVarFlags = true
		}
		c.KeySpecs = append(c.KeySpecs, ks)
	}
	subs := &e[9]
	if len(subs.Elems) > 0 {
		c.subByName = make(map[string]*Command, len(subs.Elems))
		for i := range subs.Elems {
			si := &subs.Elems[i]
			if si.Kind != resp.Array || len(si.Elems) != 10 {
				return nil, fmt.Errorf("subcommand %d is not a 10-element array", i)
			}
			s, err := build(si, c, added)
			if err != nil {
				return nil, fmt.Errorf("subcommand %q: %w", si.Elems[0].Str, err)
			}
			c.Subcommands = append(c.Subcommands, s)
			c.subByName[s.Name] = s
		}
	}
	return c, nil
}

// setDocs gives c and its subcommands their docs from the tree of c's
// COMMAND DOCS value.
func (c *Command) setDocs(docs *resp.Node) error {
	if docs.Kind != resp.Map {
		return fmt.Errorf("docs is not a map")
	}
	c.d = &cmdDocs{
		tree:            docs,
		summary:         docString(docs, "summary"),
		since:           docString(docs, "since"),
		group:           docString(docs, "group"),
		complexity:      docString(docs, "complexity"),
		deprecatedSince: docString(docs, "deprecated_since"),
		replacedBy:      docString(docs, "replaced_by"),
		flags:           docs.Get("doc_flags").Strings(),
	}
	if len(c.Subcommands) == 0 {
		return nil
	}
	subDocs := docs.Get("subcommands")
	for _, s := range c.Subcommands {
		sd := subDocs.Get(s.FullName)
		if sd == nil {
			return fmt.Errorf("no docs for subcommand %q", s.FullName)
		}
		if err := s.setDocs(sd); err != nil {
			return fmt.Errorf("subcommand %q: %w", s.FullName, err)
		}
	}
	return nil
}

// setInfo points c and its subcommands at their COMMAND INFO elements in
// the tree of c's.
func (c *Command) setInfo(info *resp.Node) {
	c.info = info
	for i, s := range c.Subcommands {
		s.setInfo(&info.Elems[9].Elems[i])
	}
}

// Info returns the command's COMMAND INFO element (a 10-element array),
// exactly as Redis replies; the tree of a top-level command and its
// subcommands is decoded on first use. The data decoded once at Load, so
// a failure here is a broken build and panics.
func (c *Command) Info() *Node {
	top := c
	if c.Parent != nil {
		top = c.Parent
	}
	top.infoOnce.Do(func() {
		if top.info != nil { // set at load (a merged addition)
			return
		}
		n, err := decodeInfo(resp.NewDecoder(top.infoJSON))
		if err != nil {
			panic(fmt.Sprintf("cmdmeta: info of %q: %v", top.FullName, err))
		}
		top.setInfo(&n)
	})
	return c.info
}

// docs returns c's docs, decoding those of its top-level command on first
// use (the docs are most of the data and a server starts without them).
// The embedded data is checked by the tests (TestEveryCommandHasDocs): a
// failure here is a broken build and panics.
func (c *Command) docs() *cmdDocs {
	top := c
	if c.Parent != nil {
		top = c.Parent
	}
	top.docsOnce.Do(func() {
		if top.d != nil { // set at load (a merged addition)
			return
		}
		d := resp.NewDecoder(top.docsJSON)
		n, err := d.Node()
		if err == nil {
			err = d.End()
		}
		if err == nil {
			err = top.setDocs(&n)
		}
		if err != nil {
			panic(fmt.Sprintf("cmdmeta: docs of %q: %v", top.FullName, err))
		}
	})
	return c.d
}

func docString(docs *resp.Node, key string) string {
	if n := docs.Get(key); n != nil {
		return n.Str
	}
	return ""
}

func parseKeySpec(n *resp.Node) (KeySpec, error) {
	var ks KeySpec
	if n.Kind != resp.Map {
		return ks, fmt.Errorf("not a map")
	}
	if notes := n.Get("notes"); notes != nil {
		ks.Notes = notes.Str
	}
	ks.Flags = n.Get("flags").Strings()
	for _, f := range ks.Flags {
		switch f {
		case "not_key":
			ks.flagMask |= specNotKey
		case "incomplete":
			ks.flagMask |= specIncomplete
		case "variable_flags":
			ks.flagMask |= specVariableFlags
		}
	}
	bs, fk := n.Get("begin_search"), n.Get("find_keys")
	if bs == nil || fk == nil {
		return ks, fmt.Errorf("missing begin_search or find_keys")
	}
	ks.BeginSearch.Type = docString(bs, "type")
	spec := bs.Get("spec")
	switch ks.BeginSearch.Type {
	case "index":
		ks.BeginSearch.Index = specInt(spec, "index")
	case "keyword":
		ks.BeginSearch.Keyword = docString(spec, "keyword")
		ks.BeginSearch.StartFrom = specInt(spec, "startfrom")
	case "unknown":
	default:
		return ks, fmt.Errorf("unknown begin_search type %q", ks.BeginSearch.Type)
	}
	ks.FindKeys.Type = docString(fk, "type")
	spec = fk.Get("spec")
	switch ks.FindKeys.Type {
	case "range":
		ks.FindKeys.LastKey = specInt(spec, "lastkey")
		ks.FindKeys.KeyStep = specInt(spec, "keystep")
		ks.FindKeys.Limit = specInt(spec, "limit")
	case "keynum":
		ks.FindKeys.KeyNumIdx = specInt(spec, "keynumidx")
		ks.FindKeys.FirstKey = specInt(spec, "firstkey")
		ks.FindKeys.KeyStep = specInt(spec, "keystep")
	case "unknown":
	default:
		return ks, fmt.Errorf("unknown find_keys type %q", ks.FindKeys.Type)
	}
	return ks, nil
}

func specInt(spec *resp.Node, key string) int {
	if n := spec.Get(key); n != nil {
		return int(n.Int)
	}
	return 0
}
