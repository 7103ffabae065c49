package server

import (
	"reflect"
	"testing"
)

// A server's table is a copy of the template (serverTable): every row and
// subcommand with every field but the counters, parents pointing into the
// copy, and no row shared with the template or another server.
func TestTableCloneKeepsEveryField(t *testing.T) {
	tmpl, err := buildTable(commandFamilies)
	if err != nil {
		t.Fatal(err)
	}
	a, err := serverTable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := serverTable()
	// Fields a copy leaves fresh or points into itself.
	own := map[string]bool{"calls": true, "usec": true, "rejected": true, "failed": true, "hist": true, "parent": true, "subs": true}
	var same func(name string, want, got *command, parent *command)
	same = func(name string, want, got *command, parent *command) {
		if got == nil {
			t.Errorf("%s: missing from the copy", name)
			return
		}
		w, g := reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem()
		for i := 0; i < w.NumField(); i++ {
			f := w.Type().Field(i)
			if own[f.Name] {
				continue
			}
			if f.Type.Kind() == reflect.Func {
				if w.Field(i).Pointer() != g.Field(i).Pointer() {
					t.Errorf("%s: field %s differs", name, f.Name)
				}
				continue
			}
			if !w.Field(i).Equal(g.Field(i)) {
				t.Errorf("%s: field %s = %v, want %v", name, f.Name, g.Field(i), w.Field(i))
			}
		}
		if got.parent != parent {
			t.Errorf("%s: parent %p, want %p", name, got.parent, parent)
		}
		if len(got.subs) != len(want.subs) {
			t.Errorf("%s: %d subcommands, want %d", name, len(got.subs), len(want.subs))
		}
		for sub, ws := range want.subs {
			same(name+"|"+sub, ws, got.subs[sub], got)
		}
	}
	if len(a.cmds) != len(tmpl.cmds) {
		t.Fatalf("%d commands in the copy, want %d", len(a.cmds), len(tmpl.cmds))
	}
	for name, want := range tmpl.cmds {
		same(name, want, a.cmds[name], nil)
		if a.cmds[name] == b.cmds[name] || a.cmds[name] == tableTemplate.t.cmds[name] {
			t.Errorf("%s: a row shared between tables", name)
		}
	}
	a.cmds["get"].calls.Add(1)
	if b.cmds["get"].calls.Load() != 0 || tableTemplate.t.cmds["get"].calls.Load() != 0 {
		t.Error("commandstats counters shared between tables")
	}
}
