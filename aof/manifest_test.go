package aof

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseManifest(t *testing.T) {
	text := "# comment\n" +
		"file appendonly.aof.2.base.rdb seq 2 type b\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"FILE appendonly.aof.3.incr.aof TYPE i SEQ 3 extra key\n" +
		"file \"with space.aof\" seq 4 type i\n"
	m, err := ParseManifest([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.Base == nil || m.Base.Name != "appendonly.aof.2.base.rdb" || m.BaseSeq != 2 {
		t.Fatalf("base %+v seq %d", m.Base, m.BaseSeq)
	}
	if len(m.History) != 1 || len(m.Incr) != 2 || m.Incr[1].Name != "with space.aof" || m.IncrSeq != 4 {
		t.Fatalf("history %+v incr %+v seq %d", m.History, m.Incr, m.IncrSeq)
	}
	want := "file appendonly.aof.2.base.rdb seq 2 type b\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.3.incr.aof seq 3 type i\n" +
		"file \"with space.aof\" seq 4 type i\n"
	if got := string(m.Encode()); got != want {
		t.Fatalf("encode:\n%s\nwant:\n%s", got, want)
	}
	again, err := ParseManifest(m.Encode())
	if err != nil || string(again.Encode()) != want {
		t.Fatalf("round trip: %v %q", err, again.Encode())
	}
}

func TestParseManifestErrors(t *testing.T) {
	tests := []struct{ text, reason string }{
		{"", "Found an empty AOF manifest"},
		{"\n", "Invalid AOF manifest file format"},
		{"file a seq 1\n", "Invalid AOF manifest file format"},
		{"file a seq 1 type\n", "Invalid AOF manifest file format"},
		{"file a seq 0 type b\n", "Invalid AOF manifest file format"},
		{"file a/b seq 1 type b\n", "File can't be a path, just a filename"},
		{"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
		{"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number"},
		{"file a seq 1 type x\n", "Unknown AOF file type"},
		{"file a seq 1 type b", "too long line"},
		{"file \"a seq 1 type b\n", "Invalid AOF manifest file format"},
	}
	for _, tt := range tests {
		_, err := ParseManifest([]byte(tt.text))
		var me *ManifestError
		if !errors.As(err, &me) || !strings.Contains(me.Reason, tt.reason) {
			t.Errorf("%q: got %v, want %q", tt.text, err, tt.reason)
		}
	}
}

func TestManifestNaming(t *testing.T) {
	m := &Manifest{}
	if got := m.NewBase("appendonly.aof", false); got != "appendonly.aof.1.base.aof" {
		t.Fatalf("first base %q", got)
	}
	i1 := m.NewIncr("appendonly.aof")
	i2 := m.NewIncr("appendonly.aof")
	if i1 != "appendonly.aof.1.incr.aof" || i2 != "appendonly.aof.2.incr.aof" {
		t.Fatalf("incr names %q %q", i1, i2)
	}
	if got := m.NewBase("appendonly.aof", true); got != "appendonly.aof.2.base.rdb" {
		t.Fatalf("second base %q", got)
	}
	m.IncrBefore(i2)
	want := "file appendonly.aof.2.base.rdb seq 2 type b\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.1.base.aof seq 1 type h\n" +
		"file appendonly.aof.2.incr.aof seq 2 type i\n"
	if got := string(m.Encode()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if files := m.Files(); len(files) != 2 || files[0].Type != TypeBase || files[1].Name != i2 {
		t.Fatalf("files %+v", files)
	}
	c := m.Clone()
	c.NewIncr("appendonly.aof")
	if len(m.Incr) != 1 {
		t.Fatal("Clone shares the incremental list")
	}
	if TempIncrName("appendonly.aof") != "temp-appendonly.aof.incr" || ManifestName("x") != "x.manifest" {
		t.Fatal("temp names")
	}
}

func TestWriteAndLoadManifest(t *testing.T) {
	dir := t.TempDir()
	if m, err := LoadManifest(dir, "appendonly.aof"); m != nil || err != nil {
		t.Fatalf("missing manifest: %v %v", m, err)
	}
	m := &Manifest{}
	m.NewBase("appendonly.aof", false)
	m.NewIncr("appendonly.aof")
	if err := WriteManifest(dir, "appendonly.aof", m); err != nil {
		t.Fatal(err)
	}
	got, err := LoadManifest(dir, "appendonly.aof")
	if err != nil || string(got.Encode()) != string(m.Encode()) {
		t.Fatalf("loaded %v %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "temp-appendonly.aof.manifest")); !os.IsNotExist(err) {
		t.Fatalf("temporary manifest left behind: %v", err)
	}
}
