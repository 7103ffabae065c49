package cmdmeta

import (
	"sync"

	"github.com/miniwatchd/miniwatchd/cmdmeta/internal/resp"
)

// Node is a reply tree with its RESP3 types kept (see Command.Info).
type Node = resp.Node

// Command is the metadata of one command or subcommand.
type Command struct {
	// Name is the lower-case name: "get", or "setinfo" for CLIENT SETINFO.
	Name string
	// FullName is Name for a top-level command and "container|name" for a
	// subcommand, as COMMAND INFO spells it: "client|setinfo".
	FullName string
	// Arity is Redis's arity: positive means exactly that many arguments
	// (command name included; a subcommand counts both words), negative
	// means at least -Arity.
	Arity int
	// Flags are the command flags COMMAND INFO lists, in its order:
	// "write", "readonly", "denyoom", "fast", "movablekeys", ...
	Flags []string
	// FirstKey, LastKey and Step are COMMAND INFO's legacy key range.
	FirstKey, LastKey, Step int
	// ACLCategories are the ACL categories without the leading '@':
	// "read", "string", "fast".
	ACLCategories []string
	// Tips are the command tips ("nondeterministic_output", ...).
	Tips []string
	// KeySpecs are the parsed key specifications, in Redis's order; the
	// key_spec_index of COMMAND DOCS arguments indexes this slice.
	KeySpecs []KeySpec
	// Subcommands are the subcommands sorted by name (nil if none).
	Subcommands []*Command
	// Parent is the container of a subcommand, nil for a top-level command.
	Parent *Command

	// Added is true for metadata that Redis 7.0.15 does not have and that
	// was added by hand from a later Redis (Since tells which).
	Added bool

	// The COMMAND INFO element (Info) and COMMAND DOCS part (docs),
	// decoded on first use: a top-level command keeps their JSON text
	// until then, and its infoOnce and docsOnce guard info and d of it
	// and of its subcommands.
	infoJSON, docsJSON string
	infoOnce, docsOnce sync.Once
	info               *Node
	d                  *cmdDocs

	flagMask    uint64
	subByName   map[string]*Command
	hasKeySpec  bool // a key spec without not_key
	hasVarFlags bool // a key spec with variable_flags
	getKeys     getKeysFunc
}

// cmdDocs is a command's COMMAND DOCS value and the fields read from it.
type cmdDocs struct {
	tree                              *Node
	summary, since, group, complexity string
	deprecatedSince, replacedBy       string
	flags                             []string
}

// Docs returns the value of the command's COMMAND DOCS entry (a map),
// exactly as Redis replies.
func (c *Command) Docs() *Node { return c.docs().tree }

// Summary, Since, Group and Complexity are the COMMAND DOCS fields of
// those names ("" when absent).
func (c *Command) Summary() string    { return c.docs().summary }
func (c *Command) Since() string      { return c.docs().since }
func (c *Command) Group() string      { return c.docs().group }
func (c *Command) Complexity() string { return c.docs().complexity }

// DeprecatedSince and ReplacedBy are the COMMAND DOCS fields
// deprecated_since and replaced_by ("" when absent).
func (c *Command) DeprecatedSince() string { return c.docs().deprecatedSince }
func (c *Command) ReplacedBy() string      { return c.docs().replacedBy }

// DocFlags are the COMMAND DOCS doc_flags: "deprecated", "syscmd".
func (c *Command) DocFlags() []string { return c.docs().flags }

// KeySpec is one key specification.
type KeySpec struct {
	Notes       string
	Flags       []string // "RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key", "incomplete", "variable_flags"
	BeginSearch BeginSearch
	FindKeys    FindKeys

	flagMask uint32
}

// BeginSearch tells where the search for keys starts.
type BeginSearch struct {
	// Type is "index", "keyword" or "unknown".
	Type string
	// Index is the argument index of Type "index".
	Index int
	// Keyword and StartFrom describe Type "keyword": the first argument
	// equal to Keyword (case-insensitive), searched from StartFrom (from
	// the end when negative), precedes the keys.
	Keyword   string
	StartFrom int
}

// FindKeys tells which arguments from the begin-search position are keys.
type FindKeys struct {
	// Type is "range", "keynum" or "unknown".
	Type string
	// LastKey and Limit describe Type "range" (LastKey relative to the
	// begin-search position; negative counts from the end).
	LastKey, Limit int
	// KeyNumIdx and FirstKey describe Type "keynum": the argument at
	// KeyNumIdx (relative) holds the number of keys, the first of which
	// is at FirstKey (relative).
	KeyNumIdx, FirstKey int
	// KeyStep is the distance between keys, for both types.
	KeyStep int
}

// Key-spec flag bits used by key extraction.
const (
	specNotKey uint32 = 1 << iota
	specIncomplete
	specVariableFlags
)

// HasFlag reports whether the command has the command flag f ("write",
// "readonly", "denyoom", ...; lower case as COMMAND INFO spells them).
func (c *Command) HasFlag(f string) bool {
	bit, ok := flagBits[f]
	return ok && c.flagMask&bit != 0
}

// HasACLCategory reports whether the command is in ACL category cat
// (without '@').
func (c *Command) HasACLCategory(cat string) bool {
	for _, a := range c.ACLCategories {
		if a == cat {
			return true
		}
	}
	return false
}

// Sub returns the subcommand called name (case-insensitive), or nil.
func (c *Command) Sub(name string) *Command {
	if c == nil || c.subByName == nil {
		return nil
	}
	if s, ok := c.subByName[name]; ok {
		return s
	}
	var buf [64]byte
	if lower, ok := lowerASCII(buf[:0], name); ok {
		return c.subByName[string(lower)]
	}
	return nil
}

// SubBytes is Sub for a name held in a byte slice; it does not allocate.
func (c *Command) SubBytes(name []byte) *Command {
	if c == nil || c.subByName == nil {
		return nil
	}
	var buf [64]byte
	if lower, ok := lowerASCII(buf[:0], name); ok {
		return c.subByName[string(lower)]
	}
	return nil
}

// lowerASCII appends s lower-cased to dst; ok is false when s is too long
// to be a command name (so no allocation is ever needed).
func lowerASCII[S string | []byte](dst []byte, s S) ([]byte, bool) {
	if len(s) > cap(dst) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}
