package miniwatchd_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
)

// TestReserveRetriesOnConflict is README's Go example ("Testing with
// miniwatchd"): TestReadmeExamples checks that README shows it verbatim.
func TestReserveRetriesOnConflict(t *testing.T) {
	s := miniwatchd.Run(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	s.Set("stock", "10")

	// Force two WATCH conflicts: a write just before each of the next two EXECs.
	s.AddFault(miniwatchd.Fault{Command: "exec", Times: 2, Action: miniwatchd.RunBefore("INCRBY", "stock", "5")})

	attempts := 0
	reserve := func(tx *redis.Tx) error { // the code under test
		attempts++
		n, err := tx.Get(ctx, "stock").Int()
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "stock", n-1, time.Hour)
			return nil
		})
		return err
	}
	err := rdb.Watch(ctx, reserve, "stock")
	for errors.Is(err, redis.TxFailedErr) { // retry on conflict
		err = rdb.Watch(ctx, reserve, "stock")
	}
	if err != nil {
		t.Fatal(err)
	}

	if attempts != 3 {
		t.Errorf("reserve ran %d times, want 3", attempts)
	}
	s.CheckGet(t, "stock", "19") // 10 + 2*5 - 1
	s.CheckTTL(t, "stock", time.Hour)
	s.FastForward(61 * time.Minute)
	s.CheckKeys(t) // expired
}

// TestReadmeExamples: every code block of README's "Testing with
// miniwatchd" section preceded by <!-- from: FILE --> appears verbatim in
// FILE, a file a test runs (this package's tests, test/clients/python,
// test/testdata/readme run by test/readme_cli_test.go).
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Testing with miniwatchd")
	if start < 0 {
		t.Fatal(`README.md has no "## Testing with miniwatchd" section`)
	}
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	blocks := regexp.MustCompile("(?s)<!-- from: (\\S+) -->\n```[a-z]*\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) < 4 {
		t.Fatalf("%d checked examples in the section, want the Go, redis-cli (script and output) and Python ones", len(blocks))
	}
	for _, b := range blocks {
		src, err := os.ReadFile(b[1])
		if err != nil {
			t.Errorf("example from %s: %v", b[1], err)
			continue
		}
		if !strings.Contains(string(src), b[2]) {
			t.Errorf("README's example from %s is not a verbatim part of it:\n%s", b[1], b[2])
		}
	}
}
