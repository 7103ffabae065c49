package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestReplSentinelRedisPyFailover: redis-py's Sentinel client
// (master_for) keeps writing while Sentinel fails a miniwatchd master over
// to its miniwatchd replica (clients/python/sentinel_failover.py). Every
// write it saw confirmed by WAIT (both replicas before the failure, the
// remaining one after) is on the new master afterwards, those of the new
// master on the other replica too, and the client ends up talking to the
// new master.
func TestReplSentinelRedisPyFailover(t *testing.T) {
	py := pythonWithRedis()
	requireTool(t, py != "", "python3 with redis-py (apt-get install python3-redis)")
	const readyAfter, confirmAfter = 150, 50
	g := startSentinelGroup(t, "miniwatchd")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("clients", "python", "sentinel_failover.py"),
		"127.0.0.1", strconv.Itoa(g.sentinel), "mymaster", strconv.Itoa(readyAfter), strconv.Itoa(confirmAfter))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// The master stops while the client is writing.
	if l, ok := <-lines; !ok || l != "ready" {
		cmd.Wait()
		t.Fatalf("the script said %q before writing %d confirmed keys\n%s", l, readyAfter, stderr.Bytes())
	}
	g.master.stop()
	promoted, other := g.awaitFailover(t, "miniwatchd")
	var last string
	for l := range lines {
		last = l
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sentinel_failover.py: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		FirstPort      int            `json:"first_port"`
		FinalPort      int            `json:"final_port"`
		FinalRole      string         `json:"final_role"`
		NewPorts       []int          `json:"new_ports"`
		ConfirmedFirst []int          `json:"confirmed_first"`
		ConfirmedNew   []int          `json:"confirmed_new"`
		Unconfirmed    int            `json:"unconfirmed"`
		Writes         int            `json:"writes"`
		Errors         map[string]int `json:"errors"`
	}
	if err := json.Unmarshal([]byte(last), &got); err != nil {
		t.Fatalf("the script printed %q: %v\n%s", last, err, stderr.Bytes())
	}
	if got.FirstPort != g.master.port || got.FinalPort != promoted.port || got.FinalRole != "master" {
		t.Fatalf("the client talked to port %d first (master %d) and %d (%s) last (promoted %d)",
			got.FirstPort, g.master.port, got.FinalPort, got.FinalRole, promoted.port)
	}
	if len(got.NewPorts) != 1 || got.NewPorts[0] != promoted.port {
		t.Fatalf("the client's pool moved to %v, want only the promoted port %d", got.NewPorts, promoted.port)
	}
	if len(got.ConfirmedFirst) < readyAfter || len(got.ConfirmedNew) < confirmAfter {
		t.Fatalf("confirmed %d writes on the first master, %d on the new one; want %d and %d (errors %v)",
			len(got.ConfirmedFirst), len(got.ConfirmedNew), readyAfter, confirmAfter, got.Errors)
	}
	pc := dialT(t, promoted.addr)
	oc := dialT(t, other.addr)
	check := func(c *respConn, where string, keys []int) {
		t.Helper()
		for _, i := range keys {
			if v := mustDo(t, c, "GET", "py:"+strconv.Itoa(i)); v.Str != strconv.Itoa(i) {
				t.Fatalf("confirmed write py:%d is %q on the %s", i, v.Raw, where)
			}
		}
	}
	check(pc, "new master", got.ConfirmedFirst)
	check(pc, "new master", got.ConfirmedNew)
	check(oc, "other replica", got.ConfirmedNew)
	t.Logf("redis-py across the failover to %s (%s): %d writes, %d confirmed by WAIT 2 on the first master, %d by WAIT 1 on the new one, all present; %d unconfirmed; client errors %v",
		promoted.addr, promoted.name, got.Writes, len(got.ConfirmedFirst), len(got.ConfirmedNew), got.Unconfirmed, got.Errors)
}
