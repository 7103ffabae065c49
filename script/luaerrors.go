package script

import (
	"regexp"
	"strings"
)

// gopher-lua words some runtime errors differently from Lua 5.1. These
// rewrites give Lua 5.1's wording (without the variable names Lua adds,
// such as "local 'x'", which gopher-lua's debug information cannot give).

var (
	reBadArg    = regexp.MustCompile(`bad argument #(\d+) to ([^' (]+) \(`)
	reArith     = regexp.MustCompile(`cannot perform (?:add|sub|mul|div|mod|pow|unm) operation between (\w+) and (\w+)`)
	reIndex     = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '.*'`)
	reCompare   = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
	luaRewrites = strings.NewReplacer(
		"attempt to call a non-function object", "attempt to call a nil value",
		"__len undefined", "attempt to get length of a nil value",
		"__unm undefined", "attempt to perform arithmetic on a nil value",
		"registry overflow", "stack overflow",
		"for statement init must be a number", "'for' initial value must be a number",
		"for statement limit must be a number", "'for' limit must be a number",
		"for statement step must be a number", "'for' step must be a number",
	)
)

// luaMessage rewrites a gopher-lua error message into Lua 5.1's words.
func luaMessage(s string) string {
	if !strings.Contains(s, "attempt") && !strings.Contains(s, "bad argument") && !strings.Contains(s, "cannot perform") &&
		!strings.Contains(s, "undefined") && !strings.Contains(s, "overflow") && !strings.Contains(s, "for statement") {
		return s
	}
	s = reBadArg.ReplaceAllString(s, "bad argument #$1 to '$2' (")
	s = reArith.ReplaceAllStringFunc(s, func(m string) string {
		g := reArith.FindStringSubmatch(m)
		bad := g[1]
		if g[1] == "number" || (g[1] == "string" && g[2] != "number" && g[2] != "string") {
			bad = g[2]
		}
		return "attempt to perform arithmetic on a " + bad + " value"
	})
	s = reIndex.ReplaceAllString(s, "attempt to index a $1 value")
	s = reCompare.ReplaceAllStringFunc(s, func(m string) string {
		g := reCompare.FindStringSubmatch(m)
		if g[1] == g[2] {
			return "attempt to compare two " + g[1] + " values"
		}
		return m
	})
	return luaRewrites.Replace(s)
}
