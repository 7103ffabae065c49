package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The Go API of an emulated cluster: three nodes on free consecutive ports
// that know each other, split the slots and redirect to each other; the
// same nodes.conf files are read again by a second start.
func TestStartEmulatedCluster(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = 0
	cfg.Dir = t.TempDir()
	nodes, err := StartEmulatedCluster(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	do := func(s *Server, args ...string) string {
		t.Helper()
		conn, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		conn.Write(protocol.AppendCommand(nil, args...))
		r := bufio.NewReader(conn)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "$") { // the first line of a bulk string
			if line, err = r.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return strings.TrimSpace(line)
	}
	ids := map[string]bool{}
	for _, s := range nodes {
		id := do(s, "CLUSTER", "MYID")
		ids[id] = true
		if got := do(s, "CLUSTER", "INFO"); got != "cluster_state:ok" {
			t.Fatalf("CLUSTER INFO: %q", got)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("node IDs %v", ids)
	}
	// foo (slot 12182) lives on the third node.
	third := nodes[2].Addr().String()
	if got := do(nodes[0], "GET", "foo"); got != "-MOVED 12182 "+third {
		t.Fatalf("GET foo on the first node: %q", got)
	}
	if got := do(nodes[2], "SET", "foo", "1"); got != "+OK" {
		t.Fatalf("SET foo on its node: %q", got)
	}
	port := nodes[0].Addr().(*net.TCPAddr).Port
	for _, s := range nodes {
		s.Close()
	}
	cfg.Port = port
	again, err := StartEmulatedCluster(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, s := range again {
			s.Close()
		}
	}()
	for i, s := range again {
		if !ids[do(s, "CLUSTER", "MYID")] {
			t.Fatalf("node %d has a new ID after a restart", i)
		}
	}
}
