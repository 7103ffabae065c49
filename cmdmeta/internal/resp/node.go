// Package resp holds the typed reply trees of package cmdmeta: a Node type
// that keeps every RESP3 type distinct, a reader that parses RESP2/RESP3
// replies into Nodes, a writer that replays a Node through protocol.Writer,
// and the compact JSON form that cmdmeta's data files use.
//
// It is internal so that the generator (cmdmeta/gen) can share it without
// importing cmdmeta, whose embedded data file the generator writes.
package resp

// Kind is the RESP3 type byte of a Node.
type Kind byte

// The RESP3 types a Node can hold.
const (
	SimpleString Kind = '+'
	BulkString   Kind = '$'
	Integer      Kind = ':'
	Array        Kind = '*'
	Map          Kind = '%'
	Set          Kind = '~'
	Push         Kind = '>'
	Null         Kind = '_'
	Boolean      Kind = '#'
	Double       Kind = ','
	BigNumber    Kind = '('
	Verbatim     Kind = '='
	Error        Kind = '-'
)

// IsAggregate reports whether k holds child elements.
func (k Kind) IsAggregate() bool {
	return k == Array || k == Map || k == Set || k == Push
}

// Node is one reply element with its RESP3 type preserved.
//
// Str holds the text of string-like kinds (simple, bulk, error, double,
// big number; verbatim strings keep their "txt:" prefix), Int the value of
// an Integer and Bool of a Boolean. Elems holds the children of an
// aggregate; a Map stores them flat as key, value, key, value.
type Node struct {
	Kind  Kind
	Bool  bool
	Int   int64
	Str   string
	Elems []Node
}

// Get returns the value stored under the bulk or simple string key in a Map
// node, or nil when n is not a map or has no such key.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Map {
		return nil
	}
	for i := 0; i+1 < len(n.Elems); i += 2 {
		k := &n.Elems[i]
		if (k.Kind == BulkString || k.Kind == SimpleString) && k.Str == key {
			return &n.Elems[i+1]
		}
	}
	return nil
}

// Strings returns the Str of each child of an aggregate (nil otherwise).
func (n *Node) Strings() []string {
	if n == nil || !n.Kind.IsAggregate() || len(n.Elems) == 0 {
		return nil
	}
	out := make([]string, len(n.Elems))
	for i := range n.Elems {
		out[i] = n.Elems[i].Str
	}
	return out
}

// Equal reports whether a and b are the same tree, types included.
func Equal(a, b *Node) bool {
	if a.Kind != b.Kind || a.Bool != b.Bool || a.Int != b.Int || a.Str != b.Str || len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Elems {
		if !Equal(&a.Elems[i], &b.Elems[i]) {
			return false
		}
	}
	return true
}
