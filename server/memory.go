package server

import (
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/expire"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// maxmemory, eviction and the MEMORY command (Redis evict.c, object.c).
//
// used_memory is an estimate kept incrementally: the keyspace's per-key
// estimate (db/memory.go), the clients' buffers (sampled by the cron), and
// the memory the server held when it started. Eviction compares it with
// maxmemory before every command, as Redis's processCommand does.

var memoryCommands = []commandDef{
	{"memory|usage", cmdMemoryUsage},
	{"memory|stats", cmdMemoryStats},
	{"memory|doctor", cmdMemoryDoctor},
	{"memory|malloc-stats", cmdMemoryMallocStats},
	{"memory|purge", cmdMemoryPurge},
	{"memory|help", cmdHelp},
}

// memState is the server's memory bookkeeping (guarded by the engine lock).
type memState struct {
	startup   int64 // heap in use once the server was set up
	clients   int64 // clients' buffers, refreshed by the cron
	peak      int64
	evictor   expire.Evictor
	policy    expire.Policy
	scriptOOM bool // out of memory when the running script started
}

// usedMemoryLocked is used_memory.
func (s *Server) usedMemoryLocked() int64 {
	used := s.mem.startup + s.mem.clients + s.ks.UsedMemory()
	if used > s.mem.peak {
		s.mem.peak = used
	}
	return used
}

// trackClientMemoryLocked brings the clients' memory total (their query
// and output buffers) up to date with c's (clientsCron's
// updateClientMemUsage): the total changes as the cron visits clients, and
// a freed client's last counted share leaves it at once.
func (s *Server) trackClientMemoryLocked(c *client) {
	m := clientMemory(c)
	s.mem.clients += m - c.memCounted
	c.memCounted = m
}

// performEvictionsLocked runs eviction when maxmemory is set.
func (s *Server) performEvictionsLocked() expire.EvictResult {
	if s.cfg.MaxMemory == 0 {
		return expire.EvictOK
	}
	if s.ops.pause.active() {
		return expire.EvictFail // paused: the dataset stays as it is (cmd_pause.go)
	}
	t0 := time.Now()
	res := s.mem.evictor.Perform(s.ks, expire.EvictParams{
		MaxMemory: int64(s.cfg.MaxMemory),
		Policy:    s.mem.policy,
		Samples:   s.cfg.MaxMemorySamples,
		Tenacity:  s.cfg.MaxMemoryEvictionTenacity,
		Used:      s.usedMemoryLocked,
	})
	if s.ops.latencyLimit > 0 && res != expire.EvictOK {
		s.latencyAddSampleLocked("eviction-cycle", time.Since(t0).Milliseconds()) // latency.go
	}
	return res
}

// oomCheck is processCommand's maxmemory step: evict, then refuse deny-oom
// commands (and, in 7.0, every command queued in MULTI) when still over.
func oomCheck(s *Server, c *client, cmd *command) protocol.Error {
	if s.cfg.MaxMemory == 0 || (s.repl.link != nil && s.paramText("replica-ignore-maxmemory") == "yes") {
		return "" // a replica's dataset is its master's (isSafeToPerformEvictions)
	}
	oom := s.performEvictionsLocked() == expire.EvictFail
	reject := cmd.has(flagDenyOOM) || (cmd.name == "exec" && c.multi.HasDenyOOM())
	if c.multi.Active() && s.wobs.compat.refusesAllWhileQueueingOOM() { // watch_compat.go
		switch cmd.name {
		case "exec", "discard", "quit", "reset":
		default:
			reject = true
		}
	}
	s.mem.scriptOOM = oom
	if oom && reject {
		return protocol.ErrOOM
	}
	return ""
}

// applyMemoryConfigLocked applies maxmemory and the eviction settings:
// LRU/LFU bookkeeping, shared integers, and the Go GC's soft memory limit,
// which keeps the heap (and so RSS) close to the limit (1.1 x maxmemory
// beyond what the server held at start).
func (s *Server) applyMemoryConfigLocked() error {
	p, ok := expire.ParsePolicy(s.cfg.MaxMemoryPolicy)
	if !ok {
		p = expire.NoEviction
	}
	s.mem.policy = p
	s.ks.TouchContext().Policy = s.cfg.MaxMemoryPolicy // explanations of evictions name it
	s.ks.SetLFU(p.LFU(), s.cfg.LFULogFactor, s.cfg.LFUDecayTime)
	s.ks.SetNoSharedIntegers(s.cfg.MaxMemory != 0 && (p.LFU() || p.LRU()))
	if s.cfg.MaxMemory != 0 {
		debug.SetMemoryLimit(s.mem.startup + int64(s.cfg.MaxMemory)*11/10)
	} else {
		debug.SetMemoryLimit(math.MaxInt64) // no limit
	}
	return nil
}

// memoryStartLocked measures the heap the server starts with and applies
// the maxmemory configuration, now and on CONFIG SET (a start hook).
func (s *Server) memoryStartLocked() {
	// runtime/metrics instead of runtime.ReadMemStats: the same number
	// (HeapAlloc) without stopping the world and flushing every cache,
	// which cost a twentieth of a process's start-up CPU.
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		s.mem.startup = int64(sample[0].Value.Uint64())
	}
	s.params.onApply(func(s *Server) error { return s.applyMemoryConfigLocked() },
		"maxmemory", "maxmemory-policy", "lfu-log-factor", "lfu-decay-time")
	s.applyMemoryConfigLocked()
}

// memoryCronLocked samples the clients' buffers and continues an eviction
// that ran out of time (Redis's clientsCron memory sampling and
// evictionTimeProc; a cron hook).
func (s *Server) memoryCronLocked() {
	if s.mem.evictor.Running() {
		s.performEvictionsLocked()
	}
}

// rssBytes reads the process's resident set size from /proc.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

func cmdMemoryUsage(c *client, args [][]byte) {
	for j := 3; j < len(args); j++ {
		if bytes.EqualFold(args[j], []byte("samples")) && j+1 < len(args) {
			n, ok := protocol.ParseInt(args[j+1])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if n < 0 {
				c.fail(protocol.ErrSyntax)
				return
			}
			j++
			continue
		}
		c.fail(protocol.ErrSyntax)
		return
	}
	n, ok := c.db.KeyMemory(args[2])
	if !ok {
		c.w.Null()
		return
	}
	c.w.Int(n)
}

func cmdMemoryStats(c *client, args [][]byte) {
	s := c.srv
	used := s.usedMemoryLocked()
	rss := rssBytes()
	keys := 0
	for i := 0; i < s.ks.Len(); i++ {
		keys += s.ks.DB(i).Size()
	}
	dataset := s.ks.UsedMemory()
	overhead := used - dataset
	w := &c.w
	type kv struct {
		k string
		v func()
	}
	perKey := int64(0)
	if keys > 0 {
		perKey = dataset / int64(keys)
	}
	pct := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) * 100 / float64(b)
	}
	fields := []kv{
		{"peak.allocated", func() { w.Int(s.mem.peak) }},
		{"total.allocated", func() { w.Int(used) }},
		{"startup.allocated", func() { w.Int(s.mem.startup) }},
		{"replication.backlog", func() { w.Int(0) }},
		{"clients.slaves", func() { w.Int(0) }},
		{"clients.normal", func() { w.Int(s.mem.clients) }},
		{"cluster.links", func() { w.Int(0) }},
		{"aof.buffer", func() { w.Int(0) }},
		{"lua.caches", func() { w.Int(0) }},
		{"functions.caches", func() { w.Int(0) }},
		{"overhead.total", func() { w.Int(overhead) }},
		{"keys.count", func() { w.Int(int64(keys)) }},
		{"keys.bytes-per-key", func() { w.Int(perKey) }},
		{"dataset.bytes", func() { w.Int(dataset) }},
		{"dataset.percentage", func() { w.Double(pct(dataset, used-s.mem.startup)) }},
		{"peak.percentage", func() { w.Double(pct(used, s.mem.peak)) }},
		{"allocator.allocated", func() { w.Int(used) }},
		{"allocator.active", func() { w.Int(used) }},
		{"allocator.resident", func() { w.Int(rss) }},
		{"allocator-fragmentation.ratio", func() { w.Double(1) }},
		{"allocator-fragmentation.bytes", func() { w.Int(0) }},
		{"allocator.rss-ratio", func() { w.Double(float64(rss) / float64(max(used, 1))) }},
		{"allocator.rss-bytes", func() { w.Int(rss - used) }},
		{"rss-overhead.ratio", func() { w.Double(1) }},
		{"rss-overhead.bytes", func() { w.Int(0) }},
		{"fragmentation", func() { w.Double(float64(rss) / float64(max(used, 1))) }},
		{"fragmentation.bytes", func() { w.Int(rss - used) }},
	}
	var dbs []int
	for i := 0; i < s.ks.Len(); i++ {
		if s.ks.DB(i).Size() > 0 {
			dbs = append(dbs, i)
		}
	}
	w.Map(len(fields) + len(dbs))
	for i, f := range fields {
		if i == 11 { // Redis lists the per-db maps before keys.count
			for _, d := range dbs {
				w.BulkString("db." + strconv.Itoa(d))
				w.Map(2)
				w.BulkString("overhead.hashtable.main")
				w.Int(int64(s.ks.DB(d).Size()) * 56)
				w.BulkString("overhead.hashtable.expires")
				w.Int(int64(s.ks.DB(d).Expires()) * 32)
			}
		}
		w.BulkString(f.k)
		f.v()
	}
}

func cmdMemoryDoctor(c *client, args [][]byte) {
	s := c.srv
	empty := true
	for i := 0; i < s.ks.Len(); i++ {
		if s.ks.DB(i).Size() > 0 {
			empty = false
		}
	}
	if empty {
		c.w.Verbatim("txt", "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.")
		return
	}
	c.w.Verbatim("txt", "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.")
}

func cmdMemoryMallocStats(c *client, args [][]byte) {
	c.w.Verbatim("txt", "Stats not supported for the current allocator")
}

func cmdMemoryPurge(c *client, args [][]byte) {
	debug.FreeOSMemory()
	c.w.OK()
}
