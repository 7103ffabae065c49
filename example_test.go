package miniwatchd_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd"
	"github.com/redis/go-redis/v9"
)

// exampleT stands in for the *testing.T a test function gets: examples
// have none. It runs the cleanups at the end of the example.
type exampleT struct {
	testing.TB
	cleanups []func()
	dirs     []string
}

func (t *exampleT) Helper()                   {}
func (t *exampleT) Cleanup(f func())          { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(f string, a ...any) { fmt.Printf("error: "+f+"\n", a...) }
func (t *exampleT) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (t *exampleT) TempDir() string {
	d, _ := os.MkdirTemp("", "ex")
	t.dirs = append(t.dirs, d)
	return d
}
func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	for _, d := range t.dirs {
		os.RemoveAll(d)
	}
}

// A test starts a server, points the code under test at Addr, and checks
// the state it left.
func Example() {
	t := &exampleT{}
	defer t.done()

	s := miniwatchd.Run(t)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	rdb.Set(ctx, "session:1", "alice", 30*time.Minute) // the code under test
	rdb.RPush(ctx, "jobs", "a", "b")

	s.CheckGet(t, "session:1", "alice")
	s.CheckList(t, "jobs", "a", "b")
	s.FastForward(31 * time.Minute)
	fmt.Println(s.Exists("session:1"))
	fmt.Print(s.Dump())
	// Output:
	// false
	// db0 "jobs" list ["a" "b"]
}

// A fault makes the next two GETs of "user:*" keys fail as a loading
// server would; the third gets the value.
func ExampleServer_AddFault() {
	t := &exampleT{}
	defer t.done()

	s := miniwatchd.Run(t)
	s.Set("user:1", "alice")
	id := s.AddFault(miniwatchd.Fault{
		Command: "get",
		Key:     "user:*",
		Times:   2,
		Action:  miniwatchd.Reject("LOADING Redis is loading the dataset in memory"),
	})
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx := context.Background()
	for range 3 {
		v, err := rdb.Get(ctx, "user:1").Result()
		fmt.Println(v, err)
	}
	fmt.Println(s.Faults()[0].Fired, id)
	// Output:
	//  LOADING Redis is loading the dataset in memory
	//  LOADING Redis is loading the dataset in memory
	// alice <nil>
	// 2 1
}

// With the Cluster option the server is a one-node Redis Cluster, so code
// that uses a cluster client meets CROSSSLOT in its tests, not in
// production.
func ExampleCluster() {
	t := &exampleT{}
	defer t.done()

	s := miniwatchd.Run(t, miniwatchd.Cluster())
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addr()}})
	defer rdb.Close()
	ctx := context.Background()

	fmt.Println(rdb.MSet(ctx, "{cart:7}items", 3, "{cart:7}total", 42).Err())
	fmt.Println(rdb.MSet(ctx, "cart:7:items", 3, "cart:7:total", 42).Err())
	s.CheckGet(t, "{cart:7}total", "42")
	// Output:
	// <nil>
	// CROSSSLOT Keys in request don't hash to the same slot
}

// RunCluster starts a three-node Redis Cluster in the test: a cluster
// client meets the slot split, CROSSSLOT, and transactions confined to one
// slot as against a real one.
func ExampleRunCluster() {
	t := &exampleT{}
	defer t.done()

	c := miniwatchd.RunCluster(t, 3)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer rdb.Close()
	ctx := context.Background()

	fmt.Println(rdb.MSet(ctx, "cart:7:items", 3, "cart:7:total", 42).Err())
	err := rdb.Watch(ctx, func(tx *redis.Tx) error { // one slot: {cart:7}
		n, _ := tx.Get(ctx, "{cart:7}items").Int() // 0 while unset
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{cart:7}items", n+1, 0)
			p.Set(ctx, "{cart:7}total", 42, 0)
			return nil
		})
		return err
	}, "{cart:7}items")
	fmt.Println(err)

	s := c.NodeFor("{cart:7}items")
	s.CheckGet(t, "{cart:7}total", "42")
	fmt.Println(s.Keys())
	// Output:
	// CROSSSLOT Keys in request don't hash to the same slot
	// <nil>
	// [{cart:7}items {cart:7}total]
}
