package cmdmeta

// KeyRef is one key argument of a command call and how the command
// accesses it (Redis's keyReference), as COMMAND GETKEYSANDFLAGS reports.
type KeyRef struct {
	// Pos is the index of the key in the arguments.
	Pos int
	// Flags are the key-spec flags ("RO", "RW", "OW", "RM", "access",
	// "update", "insert", "delete", "not_key", "incomplete",
	// "variable_flags") in that order, which is the order of Redis's
	// addReplyFlagsForKeyArgs; empty when Redis's getkeys procedure sets
	// none.
	Flags []string
}

// KeyRefs returns the keys of args with their flags, found the way
// KeyPositions finds them (Redis's getKeysFromCommandWithSpecs): from the
// key specs when they answer, each key with its spec's flags; otherwise
// from the command's getkeys procedure, with the flags that procedure sets
// (only SET, BITFIELD, SORT, SORT_RO and MIGRATE set any in Redis 7.0).
func (c *Command) KeyRefs(args [][]byte) []KeyRef {
	if c.hasKeySpec && !c.hasVarFlags {
		var specOf []int
		if pos, ok := c.keysFromSpecs(nil, args, &specOf); ok {
			refs := make([]KeyRef, len(pos))
			for i, p := range pos {
				refs[i] = KeyRef{Pos: p, Flags: c.KeySpecs[specOf[i]].Flags}
			}
			return refs
		}
	}
	if c.getKeys == nil {
		return nil
	}
	pos := c.getKeys(nil, args)
	refs := make([]KeyRef, len(pos))
	flagsOf := procKeyFlags[c.FullName]
	for i, p := range pos {
		refs[i].Pos = p
		if flagsOf != nil {
			refs[i].Flags = flagsOf(args, p)
		}
	}
	return refs
}

// Key flag sets the getkeys procedures of src/db.c set.
var (
	keyFlagsROAccess       = []string{"RO", "access"}
	keyFlagsOWUpdate       = []string{"OW", "update"}
	keyFlagsRWAccessUpdate = []string{"RW", "access", "update"}
	keyFlagsRWAccessDelete = []string{"RW", "access", "delete"}
)

// procKeyFlags gives, per command, the flags its getkeys procedure sets on
// the key at args[pos]; commands absent here set none (genericGetKeys,
// georadiusGetKeys, xreadGetKeys leave them 0 because their key specs are
// complete).
var procKeyFlags = map[string]func(args [][]byte, pos int) []string{
	// setGetKeys: a GET argument (exactly three letters) makes the key read.
	"set": func(args [][]byte, _ int) []string {
		for _, a := range args[min(3, len(args)):] {
			if equalFold(a, "get") {
				return keyFlagsRWAccessUpdate
			}
		}
		return keyFlagsOWUpdate
	},
	"bitfield": func(args [][]byte, _ int) []string {
		if bitfieldReadOnly(args) {
			return keyFlagsROAccess
		}
		return keyFlagsRWAccessUpdate
	},
	// sortGetKeys: the sorted key is read, the STORE destination written.
	"sort": func(_ [][]byte, pos int) []string {
		if pos == 1 {
			return keyFlagsROAccess
		}
		return keyFlagsOWUpdate
	},
	"sort_ro": func([][]byte, int) []string { return keyFlagsROAccess },
	"migrate": func([][]byte, int) []string { return keyFlagsRWAccessDelete },
}

// bitfieldReadOnly is bitfieldGetKeys's scan: only GET and OVERFLOW
// subcommands with all their arguments; anything else (a SET, an INCRBY or
// a syntax error) counts as a write.
func bitfieldReadOnly(args [][]byte) bool {
	for i := 2; i < len(args); i++ {
		rem := len(args) - i - 1
		switch {
		case equalFold(args[i], "get") && rem >= 2:
			i += 2
		case (equalFold(args[i], "set") || equalFold(args[i], "incrby")) && rem >= 3:
			return false
		case equalFold(args[i], "overflow") && rem >= 1:
			i++
		default:
			return false
		}
	}
	return true
}
