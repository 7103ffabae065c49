package readme

import (
	"bytes"
	"os"
	"testing"
)

// TestReadmeUpToDate fails when README.md's generated sections no longer
// match the command table or the parameter registry.
func TestReadmeUpToDate(t *testing.T) {
	old, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	updated, err := Update(old)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, updated) {
		t.Fatal("README.md is out of date: run `go run ./cmd/gendocs`")
	}
}
