package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// daemonize yes: Go cannot fork, so the process starts itself again as a
// detached child (a new session, stdin from the configuration it read,
// stdout and stderr on /dev/null as Redis's daemonize leaves them) and
// returns 0 once the child reports, through a pipe, that its listeners are
// open and it is ready; 1 when the child exits before.

// daemonReadyEnv names the environment variable that tells the child which
// file descriptor to report readiness on.
const daemonReadyEnv = "MINIWATCHD_DAEMON_READY_FD"

func daemonize(args []string, stdinData []byte, useStdin bool, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "daemonize: %v\n", err)
		return 1
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "daemonize: %v\n", err)
		return 1
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(stderr, "daemonize: %v\n", err)
		return 1
	}
	defer devnull.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), daemonReadyEnv+"=3")
	cmd.Stdin = devnull
	if useStdin {
		cmd.Stdin = bytes.NewReader(stdinData)
	}
	cmd.Stdout, cmd.Stderr = devnull, devnull
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		r.Close()
		fmt.Fprintf(stderr, "daemonize: %v\n", err)
		return 1
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if line == "ready\n" {
		cmd.Process.Release()
		return 0
	}
	cmd.Wait()
	fmt.Fprintf(stderr, "daemonize: the server process exited before it was ready (%s)\n", cmd.ProcessState)
	return 1
}

// notifyDaemonParent tells the parent of a daemonized server that it is
// ready (see daemonize); it does nothing in a process started otherwise.
func notifyDaemonParent() {
	v := os.Getenv(daemonReadyEnv)
	if v == "" {
		return
	}
	os.Unsetenv(daemonReadyEnv)
	fd, err := strconv.Atoi(v)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "daemon-ready")
	if f == nil {
		return
	}
	f.WriteString("ready\n")
	f.Close()
}
