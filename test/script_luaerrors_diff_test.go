package test

import (
	"fmt"
	"strings"
	"testing"
)

// Differential tests of Lua 5.1's runtime error texts (the faulty
// variable's kind, name and type, the user_script:LINE / user_function:LINE
// prefix and the " script: <name>, on @<source>:LINE." suffix) through
// every way a script runs: EVAL, EVALSHA, FCALL and the top level
// of FUNCTION LOAD, in RESP2 and RESP3, over multi-line bodies so that line
// numbers count. (One-line EVAL cases are in testdata/scriptdiff/luaerrors.txt.)

// luaErrorBodies are function bodies that raise at their third line.
var luaErrorBodies = []string{
	"local x\nlocal y = 1\nx()",
	"local t = {}\n\nt.f()",
	"local t = {}\n\nt:m()",
	"local s = 'x'\n\ns:nosuch()",
	"local n = 5\n\nn()",
	"\n\nredis.register_function('a', function() end)",
	"\n\nredis.nosuch()",
	"\n\nreturn KEYS()",
	"local x = 1\n\nreturn x.y",
	"local t = {}\n\nreturn t.a.b",
	"local t = {}\n\nt.a.b = 1",
	"local x\n\nreturn x + 1",
	"local t = {}\n\nreturn 2 * t.n",
	"local s = 'abc'\n\nreturn s + 1",
	"\n\nreturn -{}",
	"local t = {}\n\nreturn 'a' .. t.z",
	"local x = {}\n\nreturn x .. 'a'",
	"local a, b = 'x', nil\n\nreturn a .. b .. 'c'",
	"local t = {}\n\nreturn #t.x",
	"local n = 5\n\nreturn #n",
	"local a = {}\n\nreturn a < 1",
	"\n\nreturn nil < nil",
	"\n\nreturn {} <= {}",
	"local ok, e = pcall(function()\nlocal x = 1\nreturn x.y end)\nreturn e",
	"local ok, e = xpcall(function()\n\nlocal t; t() end, function(m) return 'h: ' .. m end)\nreturn e",
	"local co = coroutine.create(function()\n\nlocal u = {}; return u.v.w end)\nreturn {coroutine.resume(co)}",
	"local co = coroutine.wrap(function()\n\nlocal q; return #q end)\nreturn co()",
	"local t = {}\nlocal function f()\nreturn t.missing() end\nreturn f()",
	"local up = 'str'\nlocal function f()\nreturn up + 1 end\nreturn f()",
	"\n\nerror('plain')",
	"\n\nreturn redis.call('incr', 'notanumber_dummy', 'x')",
}

func TestScriptDiffLuaErrors(t *testing.T) {
	p := sdNewPair(t)
	cases := 0
	for _, proto := range []int{2, 3} {
		c := p.conn(proto)
		c.do("FUNCTION", "FLUSH")
		c.do("SCRIPT", "FLUSH")
		c.do("SET", "notanumber_dummy", "x")
		var lib strings.Builder
		lib.WriteString("#!lua name=errlib\n")
		for i, body := range luaErrorBodies {
			// EVAL, SCRIPT LOAD + EVALSHA, then the same body as a function.
			c.check(sdExact, "EVAL", body, "0")
			r, o := c.do("SCRIPT", "LOAD", body)
			if sdSame(r, o, sdExact) && len(r) > 0 && r[0] == '$' {
				sha := strings.Split(string(r), "\r\n")[1]
				c.check(sdExact, "EVALSHA", sha, "0")
			} else {
				t.Errorf("SCRIPT LOAD %q: %s / %s", body, sdShow(r), sdShow(o))
			}
			fmt.Fprintf(&lib, "redis.register_function('f%d', function(keys, args)\n%s\nend)\n", i, body)
			cases += 2
		}
		c.check(sdExact, "FUNCTION", "LOAD", lib.String())
		for i := range luaErrorBodies {
			c.check(sdExact, "FCALL", fmt.Sprintf("f%d", i), "0")
			cases++
		}
		// Errors at load time: the library's top level raising.
		for _, body := range luaErrorBodies {
			c.check(sdExact, "FUNCTION", "LOAD", "#!lua name=loaderr\n"+body)
			cases++
		}
	}
	t.Logf("%d error cases compared (EVAL, EVALSHA, FCALL, FUNCTION LOAD), RESP2 and RESP3", cases)
}
