package test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Differential tests of Lua scripting against redis-server 7.0.15.
//
// testdata/scriptdiff/*.txt hold EVAL scripts, one per line ("#" starts a
// comment line; "mode: script" selects a looser comparison: errcode for
// runtime and syntax errors gopher-lua words differently, sorted where
// Lua's table order is unspecified, ignore). Every script runs with
// numkeys 0 from an empty dataset ("requires cmd: script" runs only once
// miniwatchd has cmd), once over RESP2 and once over RESP3,
// and the raw replies must be equal.

func TestScriptDiffFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/scriptdiff/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	p := sdNewPair(t)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			p.t = t
			cases := sdReadCases(t, file)
			skipped := 0
			for _, proto := range []int{2, 3} {
				c := p.conn(proto)
				for _, sc := range cases {
					if sc.requires != "" && !p.hasCommand(sc.requires) {
						skipped++
						continue
					}
					c.do("FLUSHALL")
					c.check(sc.mode, "EVAL", sc.script, "0")
				}
			}
			t.Logf("%d scripts, RESP2 and RESP3 (%d runs skipped: command missing)", len(cases), skipped)
		})
	}
}

type sdCase struct {
	mode     sdMode
	requires string // a command miniwatchd must have for the case to run
	script   string
}

func sdReadCases(t *testing.T, file string) []sdCase {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sdCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		requires := ""
		if rest, ok := strings.CutPrefix(line, "requires "); ok {
			requires, line, _ = strings.Cut(rest, ": ")
		}
		mode := sdExact
		for prefix, m := range map[string]sdMode{"errcode: ": sdErrCode, "sorted: ": sdSorted, "ignore: ": sdIgnore} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				mode, line = m, rest
			}
		}
		out = append(out, sdCase{mode, requires, line})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
