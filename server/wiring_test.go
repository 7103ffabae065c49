package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestNoInitRegistersBehaviour keeps wiring.go the one place that decides
// what runs when: the package's non-test files declare no init function (a
// family or hook registered from init would run in file-name order).
func TestNoInitRegistersBehaviour(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "server" {
			continue // go:build ignore programs (gen_helptext.go)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init: list command families in commandFamilies and hooks in wire (wiring.go)", fset.Position(fn.Pos()))
			}
		}
	}
}

// TestCommandFamiliesBuild checks that every family in commandFamilies has
// Redis metadata for each name and that no name is listed twice.
func TestCommandFamiliesBuild(t *testing.T) {
	if _, err := buildTable(commandFamilies); err != nil {
		t.Fatal(err)
	}
	dup := [][]commandDef{commandFamilies[0], commandFamilies[0][:1]}
	if _, err := buildTable(dup); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Fatalf("a name listed twice: %v", err)
	}
}
