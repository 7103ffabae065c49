package cmdmeta

import "github.com/miniwatchd/miniwatchd/protocol"

// getKeysFunc appends the key positions of args to dst, as one of Redis's
// getkeys_proc functions (src/db.c) does.
type getKeysFunc func(dst []int, args [][]byte) []int

// getKeysProcs are the commands that Redis 7.0 gives a getkeys_proc, by
// full name. Redis uses it when the key specs cannot answer: a spec is
// incomplete or of unknown type, has variable flags, or fails on the given
// arguments (for example a numkeys that is not an integer).
var getKeysProcs = map[string]getKeysFunc{
	"set":               firstArgGetKeys,
	"bitfield":          firstArgGetKeys,
	"sort":              sortGetKeys,
	"sort_ro":           firstArgGetKeys,
	"migrate":           migrateGetKeys,
	"eval":              numkeysGetKeys(0, 2, 3),
	"evalsha":           numkeysGetKeys(0, 2, 3),
	"eval_ro":           numkeysGetKeys(0, 2, 3),
	"evalsha_ro":        numkeysGetKeys(0, 2, 3),
	"fcall":             numkeysGetKeys(0, 2, 3),
	"fcall_ro":          numkeysGetKeys(0, 2, 3),
	"georadius":         georadiusGetKeys,
	"georadiusbymember": georadiusGetKeys,
	"xread":             xreadGetKeys,
	"xreadgroup":        xreadGetKeys,
	"lmpop":             numkeysGetKeys(0, 1, 2),
	"blmpop":            numkeysGetKeys(0, 2, 3),
	"zmpop":             numkeysGetKeys(0, 1, 2),
	"bzmpop":            numkeysGetKeys(0, 2, 3),
	"sintercard":        numkeysGetKeys(0, 1, 2),
	"zintercard":        numkeysGetKeys(0, 1, 2),
	"zunion":            numkeysGetKeys(0, 1, 2),
	"zinter":            numkeysGetKeys(0, 1, 2),
	"zdiff":             numkeysGetKeys(0, 1, 2),
	"zunionstore":       numkeysGetKeys(1, 2, 3),
	"zinterstore":       numkeysGetKeys(1, 2, 3),
	"zdiffstore":        numkeysGetKeys(1, 2, 3),
}

// KeyPositions returns the indexes in args of the arguments that are keys,
// in the order Redis's getKeysFromCommandWithSpecs (src/db.c) reports them,
// which is the order of COMMAND GETKEYS. args[0] is the command name and,
// for a subcommand, args[1] the subcommand name. It returns nil when there
// are no keys or the arguments are malformed in a way that hides them; it
// does not check the arity (COMMAND GETKEYS and the dispatcher do that
// first).
//
// Known gap: none for Redis's own commands; module commands do not exist
// here.
func (c *Command) KeyPositions(args [][]byte) []int {
	return c.AppendKeyPositions(nil, args)
}

// AppendKeyPositions is KeyPositions appending to dst, so that a caller
// can reuse a buffer.
func (c *Command) AppendKeyPositions(dst []int, args [][]byte) []int {
	base := len(dst)
	if c.hasKeySpec && !c.hasVarFlags {
		if out, ok := c.keysFromSpecs(dst, args, nil); ok {
			return out
		}
		dst = dst[:base]
	}
	if c.getKeys != nil {
		return c.getKeys(dst, args)
	}
	return dst
}

// HasKeys reports whether the command can have key arguments at all
// (Redis's doesCommandHaveKeys); COMMAND GETKEYS refuses commands without.
func (c *Command) HasKeys() bool { return c.getKeys != nil || c.hasKeySpec }

// keysFromSpecs is Redis's getKeysUsingKeySpecs with GET_KEYSPEC_DEFAULT:
// ok is false when a spec is invalid or incomplete for these arguments.
// When specOf is not nil, the index of the spec each key came from is
// appended to it.
func (c *Command) keysFromSpecs(dst []int, args [][]byte, specOf *[]int) ([]int, bool) {
	argc := len(args)
	for i := range c.KeySpecs {
		spec := &c.KeySpecs[i]
		if spec.flagMask&specNotKey != 0 {
			continue
		}
		first := 0
		switch spec.BeginSearch.Type {
		case "index":
			first = spec.BeginSearch.Index
		case "keyword":
			from := spec.BeginSearch.StartFrom
			start, end := from, argc-1
			if from <= 0 {
				start, end = argc+from, 0
			}
			for j := start; j != end; {
				if j >= argc || j < 1 {
					break
				}
				if equalFold(args[j], spec.BeginSearch.Keyword) {
					first = j + 1
					break
				}
				if start <= end {
					j++
				} else {
					j--
				}
			}
			if first == 0 { // keyword not found: no keys from this spec
				continue
			}
		default:
			return nil, false
		}

		var last, step int
		fk := &spec.FindKeys
		switch fk.Type {
		case "range":
			step = fk.KeyStep
			switch {
			case fk.LastKey >= 0:
				last = first + fk.LastKey
			case fk.Limit == 0:
				last = argc + fk.LastKey
			default:
				last = first + ((argc-first)/fk.Limit + fk.LastKey)
			}
		case "keynum":
			step = fk.KeyStep
			idx := first + fk.KeyNumIdx
			if fk.KeyNumIdx >= argc || idx >= argc || idx < 0 {
				return nil, false
			}
			numkeys, ok := protocol.ParseInt(args[idx])
			if !ok || numkeys < 0 {
				return nil, false
			}
			first += fk.FirstKey
			// Redis computes first + (int)numkeys - 1: the count is
			// truncated to 32 bits, so 4294967297 counts as 1.
			last = first + int(int32(numkeys)) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc || step <= 0 {
			return nil, false
		}
		for j := first; j <= last; j += step {
			dst = append(dst, j)
			if specOf != nil {
				*specOf = append(*specOf, i)
			}
		}
		if spec.flagMask&specIncomplete != 0 {
			return nil, false
		}
	}
	return dst, true
}

// numkeysGetKeys is Redis's genericGetKeys: args[countAt] (read with C's
// atoi) is the number of keys starting at args[firstAt]; the key at
// args[storeAt], if storeAt > 0, comes last.
func numkeysGetKeys(storeAt, countAt, firstAt int) getKeysFunc {
	return func(dst []int, args [][]byte) []int {
		if countAt >= len(args) {
			return dst
		}
		num := protocol.Atoi(args[countAt])
		if num < 1 || num > (len(args)-firstAt) {
			return dst
		}
		for i := 0; i < num; i++ {
			dst = append(dst, firstAt+i)
		}
		if storeAt > 0 {
			dst = append(dst, storeAt)
		}
		return dst
	}
}

// firstArgGetKeys is Redis's setGetKeys, bitfieldGetKeys and
// sortROGetKeys: the key is always argument 1.
func firstArgGetKeys(dst []int, args [][]byte) []int { return append(dst, 1) }

// sortGetKeys is Redis's sortGetKeys: the sorted key and the last STORE
// destination, skipping the arguments of LIMIT, GET and BY.
func sortGetKeys(dst []int, args [][]byte) []int {
	dst = append(dst, 1)
	store := -1
	for i := 2; i < len(args); i++ {
		switch {
		case equalFold(args[i], "limit"):
			i += 2
		case equalFold(args[i], "get"), equalFold(args[i], "by"):
			i++
		case equalFold(args[i], "store") && i+1 < len(args):
			store = i + 1
		}
	}
	if store > 0 {
		dst = append(dst, store)
	}
	return dst
}

// migrateGetKeys is Redis's migrateGetKeys: argument 3, or with an empty
// argument 3 the arguments after KEYS.
func migrateGetKeys(dst []int, args [][]byte) []int {
	first, num := 3, 1
	if len(args) > 6 {
	scan:
		for i := 6; i < len(args); i++ {
			switch {
			case equalFold(args[i], "keys"):
				if len(args[3]) > 0 {
					num = 0 // a syntax error that MIGRATE reports
				} else {
					first = i + 1
					num = len(args) - first
				}
				break scan
			case equalFold(args[i], "auth"):
				i++
			case equalFold(args[i], "auth2"):
				i += 2
			}
		}
	}
	if first >= len(args) {
		return dst
	}
	for i := 0; i < num; i++ {
		dst = append(dst, first+i)
	}
	return dst
}

// georadiusGetKeys is Redis's georadiusGetKeys: the key and the last
// STORE or STOREDIST destination.
func georadiusGetKeys(dst []int, args [][]byte) []int {
	stored := -1
	for i := 5; i < len(args); i++ {
		if (equalFold(args[i], "store") || equalFold(args[i], "storedist")) && i+1 < len(args) {
			stored = i + 1
			i++
		}
	}
	dst = append(dst, 1)
	if stored > 0 {
		dst = append(dst, stored)
	}
	return dst
}

// xreadGetKeys is Redis's xreadGetKeys: the first half of the arguments
// after STREAMS, once the options before it parse.
func xreadGetKeys(dst []int, args [][]byte) []int {
	streams := -1
scan:
	for i := 1; i < len(args); i++ {
		switch {
		case equalFold(args[i], "block"), equalFold(args[i], "count"):
			i++
		case equalFold(args[i], "group"):
			i += 2
		case equalFold(args[i], "noack"):
		case equalFold(args[i], "streams"):
			streams = i
			break scan
		default:
			break scan
		}
	}
	if streams == -1 {
		return dst
	}
	num := len(args) - streams - 1
	if num == 0 || num%2 != 0 {
		return dst
	}
	for i := streams + 1; i < len(args)-num/2; i++ {
		dst = append(dst, i)
	}
	return dst
}

// equalFold reports whether b equals the ASCII string s ignoring case
// (strcasecmp).
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
