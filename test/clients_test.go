package test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
)

// Client libraries in other languages against the embedded server
// (miniwatchd.Run): the scripts under clients/ drive forced WATCH conflicts,
// injected errors and blocking XREAD over RESP (DEBUG FAULT) and print what
// they saw as JSON, which these tests check. They skip when the library is
// missing, unless CI is set (.ci/run installs python3-redis and runs npm ci
// in clients/node).

// requireTool skips or fails (CI) when ok is false.
func requireTool(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing and CI is set", what)
	}
	t.Skipf("%s is missing (set CI to make this a failure)", what)
}

// pythonWithRedis returns a python3 that imports redis (Debian's
// python3-redis lives in /usr/bin/python3's path), or "".
func pythonWithRedis() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import redis").Run() == nil {
			return path
		}
	}
	return ""
}

// runScript runs a client script against s and decodes its JSON output.
func runScript(t *testing.T, s *miniwatchd.Server, out any, prog string, args ...string) {
	t.Helper()
	runScriptAt(t, s.Addr(), out, prog, args...)
}

// runScriptAt runs a client script against the server at addr
// ("host:port", given to the script as HOST PORT) and decodes its JSON
// output.
func runScriptAt(t *testing.T, addr string, out any, prog string, args ...string) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, append(args, host, port)...)
	var stderr []byte
	stdout, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", prog, args, err, stdout, stderr)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("%s %v printed %q: %v", prog, args, stdout, err)
	}
}

func TestRedisPyTransactionAndXRead(t *testing.T) {
	py := pythonWithRedis()
	requireTool(t, py != "", "python3 with redis-py (apt-get install python3-redis)")
	s := miniwatchd.Run(t)
	var got struct {
		TransactionResult   []any    `json:"transaction_result"`
		TransactionAttempts int      `json:"transaction_attempts"`
		Balance             int      `json:"balance"`
		GetAfterLoading     string   `json:"get_after_loading"`
		Faults              []string `json:"faults"`
		XReadStream         string   `json:"xread_stream"`
		XReadEntries        [][]any  `json:"xread_entries"`
		XAddID              string   `json:"xadd_id"`
		XReadTimeout        []any    `json:"xread_timeout"`
	}
	runScript(t, s, &got, py, filepath.Join("clients", "python", "transaction.py"))
	if got.TransactionAttempts != 3 || got.Balance != 2070 || len(got.TransactionResult) != 1 || got.TransactionResult[0] != true {
		t.Errorf("transaction(): %d attempts, balance %d, result %v; want 3 attempts (2 forced conflicts), 100+2*1000-30 = 2070, [true]",
			got.TransactionAttempts, got.Balance, got.TransactionResult)
	}
	if got.GetAfterLoading != "hello" || len(got.Faults) != 1 ||
		got.Faults[0] != `id=2 matched=3 fired=2 spent=1 spec=CMD "get" KEY "greeting" TIMES 2 ERROR "LOADING Redis is loading the dataset in memory"` {
		t.Errorf("GET retried over LOADING: %q, faults %q", got.GetAfterLoading, got.Faults)
	}
	if got.XReadStream != "events" || len(got.XReadEntries) != 1 || got.XReadEntries[0][0] != got.XAddID {
		t.Errorf("blocking XREAD: %q %v (XADD gave %q)", got.XReadStream, got.XReadEntries, got.XAddID)
	} else if f, _ := got.XReadEntries[0][1].(map[string]any); f["type"] != "signup" || f["user"] != "42" {
		t.Errorf("XREAD fields %v", got.XReadEntries[0][1])
	}
	if len(got.XReadTimeout) != 0 {
		t.Errorf("XREAD BLOCK 50 on an idle stream: %v, want nothing", got.XReadTimeout)
	}
}

// nodeWithIoredis returns node when clients/node has ioredis installed
// (npm ci), or "".
func nodeWithIoredis() string {
	path, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join("clients", "node", "node_modules", "ioredis")); err != nil {
		return ""
	}
	return path
}

func TestIoredisRetriesAndXRead(t *testing.T) {
	node := nodeWithIoredis()
	requireTool(t, node != "", "node with ioredis (npm ci in test/clients/node)")
	s := miniwatchd.Run(t)
	var got struct {
		ReserveAttempts    []int    `json:"reserveAttempts"`
		Stock              int      `json:"stock"`
		SetAfterReadonly   string   `json:"setAfterReadonly"`
		ReadonlyReconnects int      `json:"readonlyReconnects"`
		Config             string   `json:"config"`
		IncrAfterClose     int      `json:"incrAfterClose"`
		FaultsAfterClose   []string `json:"faultsAfterClose"`
		XAddID             string   `json:"xaddId"`
		XRead              [][]any  `json:"xread"`
		XReadTimeout       any      `json:"xreadTimeout"`
	}
	runScript(t, s, &got, node, filepath.Join("clients", "node", "retry.js"))
	// (INCR: the resent command matches again; TIMES 1 is spent.)
	// First reservation: conflict after WATCH (-10), conflict before the
	// second EXEC (-5), then it commits; the second commits at once.
	if len(got.ReserveAttempts) != 2 || got.ReserveAttempts[0] != 3 || got.ReserveAttempts[1] != 1 || got.Stock != 50-10-5-1-1 {
		t.Errorf("reservations: attempts %v, stock %d; want [3 1], 33", got.ReserveAttempts, got.Stock)
	}
	if got.SetAfterReadonly != "OK" || got.ReadonlyReconnects != 2 || got.Config != "v2" {
		t.Errorf("reconnectOnError: SET %q after %d reconnects, config %q; want OK after 2, v2",
			got.SetAfterReadonly, got.ReadonlyReconnects, got.Config)
	}
	if got.IncrAfterClose != 1 || len(got.FaultsAfterClose) != 1 ||
		got.FaultsAfterClose[0] != `id=4 matched=2 fired=1 spent=1 spec=CMD "incr" TIMES 1 CLOSE-BEFORE` {
		t.Errorf("INCR over a closed connection: %d, faults %q", got.IncrAfterClose, got.FaultsAfterClose)
	}
	if len(got.XRead) != 1 || got.XRead[0][0] != "orders" {
		t.Fatalf("blocking XREAD: %v", got.XRead)
	}
	entries, _ := got.XRead[0][1].([]any)
	if len(entries) != 1 {
		t.Fatalf("XREAD entries %v", got.XRead[0][1])
	}
	e, _ := entries[0].([]any)
	if len(e) != 2 || e[0] != got.XAddID {
		t.Fatalf("XREAD entry %v, XADD gave %q", entries[0], got.XAddID)
	}
	if f, _ := e[1].([]any); len(f) != 4 || f[0] != "item" || f[1] != "book" || f[2] != "qty" || f[3] != "2" {
		t.Errorf("XREAD fields %v", e[1])
	}
	if got.XReadTimeout != nil {
		t.Errorf("XREAD BLOCK 50 on an idle stream: %v, want null", got.XReadTimeout)
	}
}
