package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
)

// processRun is one start of a process: the time to its first PONG, and
// what /proc told of it then (-1 when unknown): the CPU time of all its
// threads and its minor page faults.
type processRun struct {
	d      time.Duration
	cpu    time.Duration
	minflt int64
}

// processStarts starts the executable path runs times.
func processStarts(path string, runs int, timeout time.Duration) ([]processRun, error) {
	var out []processRun
	for range runs {
		r, err := processStart(path, timeout)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// processStart runs one start of path on a free port, in a fresh
// temporary directory (its working directory), and kills it after its
// first PONG.
func processStart(path string, timeout time.Duration) (processRun, error) {
	port, err := freePort()
	if err != nil {
		return processRun{}, err
	}
	dir, err := os.MkdirTemp("", "startbench")
	if err != nil {
		return processRun{}, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no")
	cmd.Dir = dir
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return processRun{}, err
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	deadline := t0.Add(timeout)
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			err = ping(conn, deadline)
			d := time.Since(t0)
			conn.Close()
			if err != nil {
				return processRun{}, fmt.Errorf("%s on port %d: %v", path, port, err)
			}
			cpu, minflt := procUsage(cmd.Process.Pid)
			return processRun{d: d, cpu: cpu, minflt: minflt}, nil
		}
		if time.Now().After(deadline) {
			return processRun{}, fmt.Errorf("%s did not listen on port %d within %v", path, port, timeout)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// procUsage reads the CPU time of every thread of process pid
// (/proc/PID/task/*/schedstat, nanoseconds on the CPU) and its minor page
// faults (/proc/PID/stat, field 10); -1 each when /proc cannot tell.
func procUsage(pid int) (time.Duration, int64) {
	cpu, minflt := time.Duration(-1), int64(-1)
	dir := "/proc/" + strconv.Itoa(pid)
	if tasks, err := os.ReadDir(dir + "/task"); err == nil {
		var sum int64
		for _, task := range tasks {
			b, err := os.ReadFile(dir + "/task/" + task.Name() + "/schedstat")
			if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				sum += ns
			}
		}
		cpu = time.Duration(sum)
	}
	if b, err := os.ReadFile(dir + "/stat"); err == nil {
		// The fields after the command name, which is in parentheses.
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 7 {
				minflt, _ = strconv.ParseInt(f[7], 10, 64)
			}
		}
	}
	return cpu, minflt
}

// embedStarts times runs starts of miniwatchd.Run followed by a PING.
func embedStarts(runs int) ([]time.Duration, error) {
	var times []time.Duration
	var err error
	for len(times) < runs && err == nil {
		testing.Benchmark(func(b *testing.B) {
			for range b.N {
				if len(times) == runs || err != nil {
					return
				}
				t0 := time.Now()
				s := miniwatchd.Run(b)
				var conn net.Conn
				if conn, err = net.Dial("tcp", s.Addr()); err == nil {
					err = ping(conn, time.Now().Add(10*time.Second))
					conn.Close()
				}
				d := time.Since(t0)
				s.Close()
				if err == nil {
					times = append(times, d)
				}
			}
		})
	}
	return times, err
}

// ping sends PING on conn and reads its +PONG.
func ping(conn net.Conn, deadline time.Time) error {
	conn.SetDeadline(deadline)
	if _, err := conn.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return errors.New("PING replied " + strconv.Quote(line))
	}
	return nil
}

// freePort returns a port of 127.0.0.1 free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
