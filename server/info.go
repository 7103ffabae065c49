package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// INFO (Redis server.c genRedisInfoString) with Redis 7.0.15's section and
// field names. Fields that describe machinery we do not have (forks,
// replication links, jemalloc) report what an idle Redis reports.

var infoCommands = []commandDef{{"info", cmdInfo}}

// infoSections lists the sections in Redis's order; "default" ones are
// printed for INFO without arguments.
var infoSections = []struct {
	name  string
	deflt bool
	fn    func(s *Server, b *strings.Builder)
}{
	{"server", true, (*Server).infoServer},
	{"clients", true, (*Server).infoClients},
	{"memory", true, (*Server).infoMemory},
	{"persistence", true, (*Server).infoPersistence},
	{"stats", true, (*Server).infoStats},
	{"replication", true, (*Server).infoReplication},
	{"cpu", true, (*Server).infoCPU},
	{"modules", true, func(*Server, *strings.Builder) {}},
	{"commandstats", false, (*Server).infoCommandStats},
	{"errorstats", true, (*Server).infoErrorStats},
	{"latencystats", false, (*Server).infoLatencyStats}, // latency_hist.go
	{"cluster", true, (*Server).infoCluster},            // cluster.go
	{"keyspace", true, (*Server).infoKeyspace},
}

func cmdInfo(c *client, args [][]byte) {
	c.w.Verbatim("txt", c.srv.infoLocked(args[1:]))
}

// infoLocked renders the requested sections ("default", "all",
// "everything" or section names, case-insensitive).
func (s *Server) infoLocked(args [][]byte) string {
	want := map[string]bool{}
	all, everything, deflt := false, false, len(args) == 0
	for _, a := range args {
		name := strings.ToLower(string(a))
		switch name {
		case "all", "everything":
			all = true
			everything = everything || name == "everything"
		case "default":
			deflt = true
		default:
			want[name] = true
		}
	}
	var b strings.Builder
	first := true
	for _, sec := range infoSections {
		if !(all || want[sec.name] || (deflt && sec.deflt)) {
			continue
		}
		if !first {
			b.WriteString("\r\n")
		}
		first = false
		title := strings.ToUpper(sec.name[:1]) + sec.name[1:]
		if sec.name == "cpu" {
			title = "CPU" // Redis's header
		}
		b.WriteString("# " + title + "\r\n")
		sec.fn(s, &b)
		for _, fn := range s.hooks.info[sec.name] {
			fn(s, &b)
		}
	}
	// Sections of our own (hooks.infoOwn), after Redis's: by name or INFO
	// everything, never by default or "all" (as Redis prints modules').
	for _, sec := range s.hooks.infoOwn {
		if !everything && !want[sec.name] {
			continue
		}
		if !first {
			b.WriteString("\r\n")
		}
		first = false
		b.WriteString("# " + strings.ToUpper(sec.name[:1]) + sec.name[1:] + "\r\n")
		sec.fn(s, &b)
	}
	return b.String()
}

func field(b *strings.Builder, name string, v any) {
	fmt.Fprintf(b, "%s:%v\r\n", name, v)
}

func (s *Server) infoServer(b *strings.Builder) {
	up := time.Since(s.startTime)
	exe, _ := os.Executable()
	field(b, "redis_version", RedisVersion)
	field(b, "redis_git_sha1", "00000000")
	field(b, "redis_git_dirty", 0)
	field(b, "redis_build_id", "0")
	field(b, "redis_mode", s.redisMode()) // cluster.go
	field(b, "os", runtime.GOOS+" "+runtime.GOARCH)
	field(b, "arch_bits", strconv.Itoa(strconv.IntSize))
	field(b, "monotonic_clock", "POSIX clock_gettime")
	field(b, "multiplexing_api", "epoll")
	field(b, "atomicvar_api", "c11-builtin")
	field(b, "gcc_version", "0.0.0")
	field(b, "process_id", os.Getpid())
	field(b, "process_supervised", "no")
	field(b, "run_id", s.runID)
	field(b, "tcp_port", s.cfg.Port)
	field(b, "server_time_usec", s.clock.UnixMicro())
	field(b, "uptime_in_seconds", int64(up/time.Second))
	field(b, "uptime_in_days", int64(up/(24*time.Hour)))
	field(b, "hz", s.cfg.Hz)
	field(b, "configured_hz", s.cfg.Hz)
	field(b, "lru_clock", s.ks.LRUClock())
	field(b, "executable", exe)
	field(b, "config_file", s.configFile)
	field(b, "io_threads_active", 0)
	field(b, "miniwatchd_version", Version)
	field(b, "go_version", runtime.Version())
}

func (s *Server) infoClients(b *strings.Builder) {
	field(b, "connected_clients", len(s.clients)-len(s.repl.replicas))
	field(b, "cluster_connections", 0)
	field(b, "maxclients", s.cfg.MaxClients)
	field(b, "client_recent_max_input_buffer", 0)
	field(b, "client_recent_max_output_buffer", 0)
	field(b, "blocked_clients", s.blockedClientsLocked())
	field(b, "tracking_clients", s.trackingClientsLocked())
	s.infoWatchingClients(b) // watch_compat.go: redis-7.4 only
	field(b, "clients_in_timeout_table", s.clientsInTimeoutTableLocked())
	s.infoTotalWatchedKeys(b) // watch_compat.go: redis-7.4 only
}

// blockedClientsLocked is INFO's blocked_clients.
func (s *Server) blockedClientsLocked() int { return s.blk.blocked }

// infoMemory reports the Go heap in Redis's memory fields, in Redis's
// order. Fields about machinery miniwatchd does not have (replication
// buffers, AOF, defrag, lazy free) report what an idle Redis reports; the
// script and function fields come from those subsystems (hooks.info).
func (s *Server) infoMemory(b *strings.Builder) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := s.usedMemoryLocked()
	rss := rssBytes()
	dataset := s.ks.UsedMemory()
	active := int64(ms.HeapInuse)
	resident := int64(ms.HeapSys - ms.HeapReleased)
	field(b, "used_memory", used)
	field(b, "used_memory_human", bytesHuman(used))
	field(b, "used_memory_rss", rss)
	field(b, "used_memory_rss_human", bytesHuman(rss))
	field(b, "used_memory_peak", s.mem.peak)
	field(b, "used_memory_peak_human", bytesHuman(s.mem.peak))
	field(b, "used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(used)*100/float64(max(s.mem.peak, 1))))
	field(b, "used_memory_overhead", used-dataset)
	field(b, "used_memory_startup", s.mem.startup)
	field(b, "used_memory_dataset", dataset)
	field(b, "used_memory_dataset_perc", fmt.Sprintf("%.2f%%", float64(dataset)*100/float64(max(used-s.mem.startup, 1))))
	field(b, "allocator_allocated", ms.HeapAlloc)
	field(b, "allocator_active", active)
	field(b, "allocator_resident", resident)
	total := totalSystemMemory()
	field(b, "total_system_memory", total)
	field(b, "total_system_memory_human", bytesHuman(total))
	field(b, "maxmemory", s.cfg.MaxMemory)
	field(b, "maxmemory_human", bytesHuman(int64(s.cfg.MaxMemory)))
	field(b, "maxmemory_policy", s.cfg.MaxMemoryPolicy)
	field(b, "allocator_frag_ratio", ratio(active, int64(ms.HeapAlloc)))
	field(b, "allocator_frag_bytes", active-int64(ms.HeapAlloc))
	field(b, "allocator_rss_ratio", ratio(resident, active))
	field(b, "allocator_rss_bytes", resident-active)
	field(b, "rss_overhead_ratio", ratio(rss, resident))
	field(b, "rss_overhead_bytes", rss-resident)
	field(b, "mem_fragmentation_ratio", ratio(rss, used))
	field(b, "mem_fragmentation_bytes", rss-used)
	field(b, "mem_not_counted_for_evict", 0)
	field(b, "mem_replication_backlog", 0)
	field(b, "mem_total_replication_buffers", 0)
	field(b, "mem_clients_slaves", 0)
	field(b, "mem_clients_normal", s.mem.clients)
	field(b, "mem_cluster_links", 0)
	field(b, "mem_aof_buffer", 0)
	field(b, "mem_allocator", "go-"+runtime.Version())
	field(b, "active_defrag_running", 0)
	field(b, "lazyfree_pending_objects", 0)
	field(b, "lazyfreed_objects", 0)
	field(b, "go_heap_alloc", ms.HeapAlloc)
	field(b, "go_heap_inuse", ms.HeapInuse)
	field(b, "go_heap_sys", ms.HeapSys)
	field(b, "go_heap_released", ms.HeapReleased)
	field(b, "go_gc_count", ms.NumGC)
}

// ratio formats a/b with two decimals, as Redis's memory ratios.
func ratio(a, b int64) string {
	return fmt.Sprintf("%.2f", float64(a)/float64(max(b, 1)))
}

// totalSystemMemory is Redis's zmalloc_get_memory_size: MemTotal from
// /proc/meminfo, 0 where that is not available.
func totalSystemMemory() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// bytesHuman formats n as Redis's bytesToHuman does.
func bytesHuman(n int64) string {
	d := float64(n)
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", d/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", d/(1024*1024))
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", d/(1024*1024*1024))
	case n < 1024*1024*1024*1024*1024:
		return fmt.Sprintf("%.2fT", d/(1024*1024*1024*1024))
	}
	return fmt.Sprintf("%.2fP", d/(1024*1024*1024*1024*1024))
}

func (s *Server) infoPersistence(b *strings.Builder) {
	field(b, "loading", 0)
	field(b, "async_loading", 0)
	s.infoRDBLocked(b) // rdb_load.go
	// The AOF fields follow (aof_info.go's infoAOF, through hooks.info).
}

// infoStats reports Redis's stats fields in Redis's order; counters of
// machinery miniwatchd does not have (replication, forks, defrag, tracking,
// threaded I/O) stay 0, and the pub/sub counters come from that subsystem
// (hooks.info).
func (s *Server) infoStats(b *strings.Builder) {
	st := &s.ks.Stats
	field(b, "total_connections_received", s.stats.totalConnections.Load())
	field(b, "total_commands_processed", s.stats.totalCommands.Load())
	field(b, "instantaneous_ops_per_sec", 0)
	field(b, "total_net_input_bytes", s.stats.netInputBytes.Load())
	field(b, "total_net_output_bytes", s.stats.netOutputBytes.Load())
	field(b, "total_net_repl_input_bytes", 0)
	field(b, "total_net_repl_output_bytes", 0)
	field(b, "instantaneous_input_kbps", "0.00")
	field(b, "instantaneous_output_kbps", "0.00")
	field(b, "instantaneous_input_repl_kbps", "0.00")
	field(b, "instantaneous_output_repl_kbps", "0.00")
	field(b, "rejected_connections", s.stats.rejectedConnections.Load())
	field(b, "sync_full", s.repl.syncFull) // repl_master.go
	field(b, "sync_partial_ok", s.repl.partialOK)
	field(b, "sync_partial_err", s.repl.partialErr)
	field(b, "expired_keys", st.ExpiredKeys)
	field(b, "expired_stale_perc", fmt.Sprintf("%.2f", st.ExpiredStalePerc*100))
	field(b, "expired_time_cap_reached_count", st.ExpiredTimeCapReachedCnt)
	field(b, "expire_cycle_cpu_milliseconds", st.ExpireCycleCPUMillis)
	field(b, "evicted_keys", st.EvictedKeys)
	field(b, "evicted_clients", s.lim.evictedClients)
	field(b, "total_eviction_exceeded_time", 0)
	field(b, "current_eviction_exceeded_time", 0)
	field(b, "keyspace_hits", st.KeyspaceHits)
	field(b, "keyspace_misses", st.KeyspaceMisses)
	field(b, "latest_fork_usec", 0)
	field(b, "total_forks", 0)
	field(b, "migrate_cached_sockets", 0)
	field(b, "slave_expires_tracked_keys", 0)
	field(b, "active_defrag_hits", 0)
	field(b, "active_defrag_misses", 0)
	field(b, "active_defrag_key_hits", 0)
	field(b, "active_defrag_key_misses", 0)
	field(b, "total_active_defrag_time", 0)
	field(b, "current_active_defrag_time", 0)
	field(b, "tracking_total_keys", 0)
	field(b, "tracking_total_items", 0)
	field(b, "tracking_total_prefixes", 0)
	field(b, "unexpected_error_replies", 0)
	field(b, "total_error_replies", s.stats.totalErrorReplies)
	field(b, "dump_payload_sanitizations", 0)
	field(b, "total_reads_processed", 0)
	field(b, "total_writes_processed", 0)
	field(b, "io_threaded_reads_processed", 0)
	field(b, "io_threaded_writes_processed", 0)
	field(b, "reply_buffer_shrinks", 0)
	field(b, "reply_buffer_expands", 0)
}

func (s *Server) infoCPU(b *strings.Builder) {
	user, sys := cpuTimes()
	field(b, "used_cpu_sys", fmt.Sprintf("%.6f", sys))
	field(b, "used_cpu_user", fmt.Sprintf("%.6f", user))
	field(b, "used_cpu_sys_children", "0.000000")
	field(b, "used_cpu_user_children", "0.000000")
}

func (s *Server) infoCommandStats(b *strings.Builder) {
	cmds := s.table.all()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, cmd := range cmds {
		calls := cmd.calls.Load()
		if calls == 0 && cmd.rejected.Load() == 0 && cmd.failed.Load() == 0 {
			continue
		}
		usec := cmd.usec.Load()
		per := 0.0
		if calls > 0 {
			per = float64(usec) / float64(calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			cmd.name, calls, usec, per, cmd.rejected.Load(), cmd.failed.Load())
	}
}

func (s *Server) infoKeyspace(b *strings.Builder) {
	for i := 0; i < s.ks.Len(); i++ {
		d := s.ks.DB(i)
		if d.Size() == 0 {
			continue
		}
		fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=%d\r\n", i, d.Size(), d.Expires(), d.AvgTTL())
	}
}
