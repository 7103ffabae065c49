package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestReadmeCLIExample runs README's redis-cli example
// (testdata/readme/cli.sh: the miniwatchd binary with --load, DEBUG FAULT,
// DEBUG CLOCK) with bash and compares what it prints with
// testdata/readme/cli.out, which README shows as its output.
func TestReadmeCLIExample(t *testing.T) {
	requireRedisCLI(t)
	bin, err := ourBinary()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/readme/cli.sh")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/readme/cli.out")
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the script's server goes with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.Output()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(cmd.Dir, "miniwatchd.log"))
		t.Fatalf("cli.sh: %v\n%s\nlog:\n%s", err, out, log)
	}
	if string(out) != string(want) {
		t.Fatalf("cli.sh printed\n%s\nwant (cli.out, shown in README)\n%s", out, want)
	}
}
