package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
)

// fixtureText exercises redis-cli's line splitting: quotes, escapes,
// repeats, and an ending "quit". It has no comments (redis-cli would send
// them as commands).
const fixtureText = `SET plain value
SET "with space" "a b\tc\n"
SET 'single' 'it\'s \n raw'
SET hex "\x41\x42\x00z"
3 RPUSH list x
RPUSH list "" 'y'
HSET h "f 1" v1 f2 "v\"2"
SELECT 1
  INCR counter
2 INCR counter
quit
SET never run
`

// TestFixtureLoadMatchesRedisCLI: miniwatchd --load FILE leaves the same
// data as the same file piped into redis-cli against redis-server.
func TestFixtureLoadMatchesRedisCLI(t *testing.T) {
	cli := requireRedisCLI(t)
	path := filepath.Join(t.TempDir(), "fixture.txt")
	if err := os.WriteFile(path, []byte(fixtureText), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := startRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer rs.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "-h", "127.0.0.1", "-p", strings.TrimPrefix(rs.addr, "127.0.0.1:"))
	cmd.Stdin = strings.NewReader(fixtureText)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli < fixture: %v\n%s", err, out)
	}
	ms, err := startOurs("--load", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.stop()

	listing := func(addr string) string {
		c, err := resptest.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var b strings.Builder
		for _, db := range []string{"0", "1"} {
			c.Do("SELECT", db)
			keys, _ := c.Do("KEYS", "*")
			var names []string
			for _, k := range keys.Elems {
				names = append(names, k.Str)
			}
			sort.Strings(names)
			for _, k := range names {
				var v resptest.Node
				switch typ, _ := c.Do("TYPE", k); typ.Str {
				case "string":
					v, _ = c.Do("GET", k)
				case "list":
					v, _ = c.Do("LRANGE", k, "0", "-1")
				case "hash":
					v, _ = c.Do("HGETALL", k)
				}
				b.WriteString(db + " " + k + " " + string(v.Raw) + "\n")
			}
		}
		return b.String()
	}
	want, got := listing(rs.addr), listing(ms.addr)
	if want != got || !strings.Contains(got, "counter") {
		t.Fatalf("data after the fixture\n--- redis-cli into redis-server:\n%s--- miniwatchd --load:\n%s", want, got)
	}
}
