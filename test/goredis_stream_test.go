package test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// End-to-end with go-redis: a job queue on a stream. Producers XADD jobs;
// workers loop on XReadGroup (BLOCK) and XAck what they processed; one
// worker dies holding jobs it never acknowledged, and a survivor takes
// them over with XAutoClaim. Every job must be processed exactly once
// after recovery, on redis-server and on miniwatchd alike.

func TestGoRedisStreamConsumerGroup(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := context.Background()
		rdb := goredis.NewClient(&goredis.Options{Addr: addr})
		defer rdb.Close()
		const jobs = 300
		if err := rdb.XGroupCreateMkStream(ctx, "jobs", "workers", "$").Err(); err != nil {
			t.Fatal(err)
		}
		// The dead worker reads 10 jobs and never acknowledges them.
		for i := 0; i < 10; i++ {
			rdb.XAdd(ctx, &goredis.XAddArgs{Stream: "jobs", Values: []string{"n", fmt.Sprint(i)}})
		}
		dead, err := rdb.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: "workers", Consumer: "dead", Streams: []string{"jobs", ">"}, Count: 10}).Result()
		if err != nil || len(dead[0].Messages) != 10 {
			t.Fatalf("dead worker read %v, %v", dead, err)
		}
		var mu sync.Mutex
		done := map[string]string{}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := 0; w < 3; w++ {
			name := fmt.Sprintf("w%d", w)
			wc := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 1})
			defer wc.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					res, err := wc.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: "workers", Consumer: name,
						Streams: []string{"jobs", ">"}, Count: 7, Block: 50 * time.Millisecond}).Result()
					if err == goredis.Nil {
						continue
					}
					if err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					for _, m := range res[0].Messages {
						mu.Lock()
						if prev, dup := done[m.ID]; dup {
							t.Errorf("job %s processed by %s and %s", m.ID, prev, name)
						}
						done[m.ID] = name
						mu.Unlock()
						if err := wc.XAck(ctx, "jobs", "workers", m.ID).Err(); err != nil {
							t.Errorf("%s: XAck: %v", name, err)
						}
					}
				}
			}()
		}
		for i := 10; i < jobs; i++ {
			if err := rdb.XAdd(ctx, &goredis.XAddArgs{Stream: "jobs", Values: []string{"n", fmt.Sprint(i)}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			mu.Lock()
			n := len(done)
			mu.Unlock()
			if n == jobs-10 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		close(stop)
		wg.Wait()
		log.add("processed by the live workers: %d", len(done))
		sum, err := rdb.XPending(ctx, "jobs", "workers").Result()
		if err != nil {
			t.Fatal(err)
		}
		log.add("pending before recovery: %d, consumers %v", sum.Count, sum.Consumers["dead"])
		// Recovery: w0 claims what the dead worker held for at least 0 ms,
		// in pages of 4, following the cursor.
		start, claimed := "0-0", 0
		for {
			msgs, next, err := rdb.XAutoClaim(ctx, &goredis.XAutoClaimArgs{Stream: "jobs", Group: "workers",
				Consumer: "w0", MinIdle: 0, Start: start, Count: 4}).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				claimed++
				done[m.ID] = "w0"
				rdb.XAck(ctx, "jobs", "workers", m.ID)
			}
			if next == "0-0" {
				break
			}
			start = next
		}
		log.add("claimed from the dead worker: %d", claimed)
		sum, _ = rdb.XPending(ctx, "jobs", "workers").Result()
		log.add("pending after recovery: %d, all jobs done: %v", sum.Count, len(done) == jobs)
		info, _ := rdb.XInfoGroups(ctx, "jobs").Result()
		log.add("group: pending %d, last %v, entries-read %d, lag %d", info[0].Pending, info[0].LastDeliveredID != "", info[0].EntriesRead, info[0].Lag)
		cons, _ := rdb.XInfoConsumers(ctx, "jobs", "workers").Result()
		var names []string
		for _, c := range cons {
			names = append(names, fmt.Sprintf("%s:%d", c.Name, c.Pending))
		}
		sort.Strings(names)
		log.add("consumers %v", names)
		if len(done) != jobs || sum.Count != 0 {
			t.Errorf("%d of %d jobs done, %d pending", len(done), jobs, sum.Count)
		}
	})
}

// TestGoRedisXReadBlock: a blocking XREAD with $ wakes on a later XADD.
func TestGoRedisXReadBlock(t *testing.T) {
	blockingScenario(t, func(t *testing.T, addr string, log *transcript) {
		ctx := context.Background()
		reader := oneConnClient(t, addr)
		writer := oneConnClient(t, addr)
		got := make(chan []goredis.XStream, 1)
		go func() {
			res, err := reader.XRead(ctx, &goredis.XReadArgs{Streams: []string{"ev", "$"}, Block: 5 * time.Second}).Result()
			if err != nil {
				t.Errorf("XRead: %v", err)
			}
			got <- res
		}()
		time.Sleep(200 * time.Millisecond)
		writer.XAdd(ctx, &goredis.XAddArgs{Stream: "ev", ID: "7-1", Values: map[string]any{"k": "v"}})
		res := <-got
		log.add("XRead woke with %v", res)
	})
}
