//go:build ignore

// gen_helptext writes helptext_gen.go from a redis-server's own
// "<CONTAINER> HELP" replies. Run it with `go generate ./server/` (see
// doc.go): by default it starts /usr/bin/redis-server (7.0.15, the version
// miniwatchd reproduces) on a free loopback port and stops it afterwards;
// -addr asks a server that is already running.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// containers are the commands whose HELP text the server serves, in the
// order the file lists them.
var containers = []string{
	"client", "config", "object", "command", "memory", "script", "function",
	"pubsub", "xinfo", "xgroup", "slowlog", "latency", "acl", "module", "cluster",
}

func main() {
	addr := flag.String("addr", "", "address of a running redis-server (default: start one)")
	bin := flag.String("redis-server", "/usr/bin/redis-server", "redis-server to start when -addr is empty")
	out := flag.String("o", "helptext_gen.go", "output file")
	flag.Parse()
	if *addr == "" {
		a, stop, err := startRedis(*bin)
		if err != nil {
			log.Fatal(err)
		}
		defer stop()
		*addr = a
	}
	conn, err := net.DialTimeout("tcp", *addr, 5*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	var b bytes.Buffer
	b.WriteString("// Code generated from redis-server 7.0.15 \"<CMD> HELP\" replies; DO NOT EDIT.\n\n")
	b.WriteString("package server\n\n")
	b.WriteString("// helpTexts maps a container command to the lines its HELP subcommand\n")
	b.WriteString("// replies with, exactly as Redis 7.0.15 sends them.\n")
	b.WriteString("var helpTexts = map[string][]string{\n")
	for _, name := range containers {
		fmt.Fprintf(conn, "*2\r\n$%d\r\n%s\r\n$4\r\nHELP\r\n", len(name), name)
		lines, err := readStatusArray(r)
		if err != nil {
			log.Fatalf("%s HELP: %v", name, err)
		}
		fmt.Fprintf(&b, "%s: {\n", strconv.Quote(name))
		for _, l := range lines {
			fmt.Fprintf(&b, "%s,\n", strconv.Quote(l))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// readStatusArray reads a RESP array of status replies (what HELP sends).
func readStatusArray(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("unexpected reply %q", line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		l, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		l = strings.TrimSuffix(l, "\r\n")
		if !strings.HasPrefix(l, "+") {
			return nil, fmt.Errorf("unexpected element %q", l)
		}
		out = append(out, l[1:])
	}
	return out, nil
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and returns its address and a function stopping it.
func startRedis(bin string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	nodesConf := "nodes-helptext-" + strconv.Itoa(port) + ".conf"
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", os.TempDir(),
		// CLUSTER HELP answers in cluster mode only.
		"--cluster-enabled", "yes", "--cluster-config-file", nodesConf)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait(); os.Remove(os.TempDir() + "/" + nodesConf) }
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("redis-server did not start on %s", addr)
}
