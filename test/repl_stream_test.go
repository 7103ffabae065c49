package test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// TestReplStreamSyncMatchesRedis attaches a bare SYNC replica to
// redis-server and to miniwatchd, runs the same mixed workload on both,
// and compares the replication streams byte for byte (PINGs dropped,
// millisecond times masked).
func TestReplStreamSyncMatchesRedis(t *testing.T) {
	testReplStream(t, false)
}

// TestReplStreamPsyncMatchesRedis is the same through PSYNC ? -1 with capa
// eof (a diskless snapshot, repl-diskless-sync-delay 0).
func TestReplStreamPsyncMatchesRedis(t *testing.T) {
	testReplStream(t, true)
}

func testReplStream(t *testing.T, psync bool) {
	requireRedis(t)
	args := []string{"--repl-diskless-sync-delay", "0", "--dir", t.TempDir()}
	red, err := startRedis(args...)
	if err != nil {
		t.Fatal(err)
	}
	defer red.stop()
	args[len(args)-1] = t.TempDir()
	ours, err := startOurs(args...)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.stop()
	w := replWorkload{seed: 27, ops: 1500}
	streams := map[string][]byte{}
	end := resptest.Command("SET", "after-flush", "1")
	for _, p := range []*serverProc{red, ours} {
		r := attachRawReplica(t, p.addr, psync)
		a, err := dialRESP(p.addr)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dialRESP(p.addr)
		if err != nil {
			t.Fatal(err)
		}
		w.run(t, a, b)
		streams[p.name] = normalizeStream(r.waitFor(t, end))
		a.Close()
		b.Close()
	}
	got, want := streams["miniwatchd"], streams["redis-server"]
	if dir := os.Getenv("REPL_STREAM_DUMP"); dir != "" {
		os.WriteFile(filepath.Join(dir, "ours.stream"), got, 0o644)
		os.WriteFile(filepath.Join(dir, "redis.stream"), want, 0o644)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("streams differ (%d vs %d bytes): %s", len(got), len(want), firstStreamDiff(got, want))
	}
	t.Logf("streams equal: %d bytes, %d commands", len(got), len(splitStream(got)))
}
