package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ourBinary is the path of the miniwatchd binary TestMain built.
var ourBinary string

// TestMain builds ./cmd/miniwatchd once into a temporary directory, runs
// the tests, and stops every server process they started.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "miniwatchd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	ourBinary = filepath.Join(dir, "miniwatchd")
	if err := buildBinary(ourBinary); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopAllServers()
	return m.Run()
}

// buildBinary compiles ./cmd/miniwatchd to out, with the race detector when
// this test binary has it, so server-side races fail the run too.
func buildBinary(out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "./cmd/miniwatchd")
	cmd := exec.Command(goTool, args...)
	cmd.Dir = ".." // the module root: this package lives in test/
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building miniwatchd: %v\n%s", err, b)
	}
	return nil
}
