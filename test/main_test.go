package test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// binDir is the temporary directory TestMain made for the binary.
var binDir string

// TestMain makes a temporary directory for the miniwatchd binary, runs the
// tests, and stops every server process they started. The binary is built
// once, by the first test that starts a server (ourBinary).
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
	binDir = dir
	defer stopAllServers()
	return m.Run()
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// ourBinary builds ./cmd/miniwatchd once and returns its path. It runs
// inside a test, where go test records the files a test stats, so that
// recordSourceInputs makes the test result cache depend on the server's
// source (the test binary itself does not import it).
func ourBinary() (string, error) {
	buildOnce.Do(func() {
		if buildErr = recordSourceInputs(".."); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "miniwatchd")
		buildErr = buildBinary(binPath)
	})
	return binPath, buildErr
}

// recordSourceInputs stats every Go source and module file of the module
// and lists every directory on the way, so that a change anywhere in the
// source invalidates go test's cached result.
func recordSourceInputs(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".json") || name == "go.mod" || name == "go.sum" {
			_, err = os.Stat(path)
		}
		return err
	})
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
