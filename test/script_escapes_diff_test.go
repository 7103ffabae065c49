package test

import (
	"testing"
)

// The sandbox escape attempts of testdata/scriptdiff/escapes.txt (run as
// EVAL scripts by TestScriptDiffFiles) once more as a function's body
// (FUNCTION LOAD then FCALL) and as a library's top level (FUNCTION LOAD),
// against redis-server in RESP2 and RESP3: functions live in a Lua state of
// their own, with the load-time API while the library loads.
func TestScriptDiffEscapesFunctions(t *testing.T) {
	p := sdNewPair(t)
	cases := sdReadCases(t, "testdata/scriptdiff/escapes.txt")
	n := 0
	for _, proto := range []int{2, 3} {
		c := p.conn(proto)
		c.do("FUNCTION", "FLUSH")
		for _, sc := range cases {
			c.do("FLUSHALL")
			lib := "#!lua name=esc\nredis.register_function('esc', function(keys, args)\n" + sc.script + "\nend)"
			c.check(sdExact, "FUNCTION", "LOAD", "REPLACE", lib)
			c.check(sc.mode, "FCALL", "esc", "0")
			c.check(sdExact, "FUNCTION", "LOAD", "REPLACE", "#!lua name=esctop\n"+sc.script)
			n += 3
		}
	}
	t.Logf("%d escape attempts, %d replies compared (FUNCTION LOAD, FCALL, top-level FUNCTION LOAD), RESP2 and RESP3", len(cases), n)
}
