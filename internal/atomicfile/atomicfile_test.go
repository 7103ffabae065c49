package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path, tmp := filepath.Join(dir, "f"), filepath.Join(dir, "f.tmp")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(tmp, path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("path holds %q, want new", b)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tmp left behind: %v", err)
	}
}

// A write error keeps the old file and removes the temporary one.
func TestCommitWriteErrorKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path, tmp := filepath.Join(dir, "f"), filepath.Join(dir, "f.tmp")
	os.WriteFile(path, []byte("old"), 0o644)
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("part")
	boom := errors.New("boom")
	if err := Commit(f, tmp, path, boom); err != boom {
		t.Fatalf("Commit = %v, want the write error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("path holds %q, want old", b)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tmp left behind: %v", err)
	}
}

// A rename into a missing directory fails and removes the temporary file.
func TestCommitRenameError(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "f.tmp")
	f, _ := os.Create(tmp)
	if err := Commit(f, tmp, filepath.Join(dir, "missing", "f"), nil); err == nil {
		t.Fatal("Commit into a missing directory succeeded")
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("tmp left behind: %v", err)
	}
}
