package server

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The latency monitor (Redis latency.c). With latency-monitor-threshold
// set to N > 0 ms, every event that took at least N ms is sampled into its
// event's time series: 160 samples, one per second (a second sample within
// the same second keeps the higher latency), plus the all-time maximum.
// Events recorded here: "command" and "fast-command" (each call, EXEC
// excluded, by the command's fast flag), "expire-cycle" (a run of the
// active expiry cycle) and "eviction-cycle" (a round of evictions).

const latencyTSLen = 160 // LATENCY_TS_LEN

var latencyCommands = []commandDef{
	{"latency|latest", cmdLatencyLatest},
	{"latency|history", cmdLatencyHistory},
	{"latency|reset", cmdLatencyReset},
	{"latency|doctor", cmdLatencyDoctor},
	{"latency|help", cmdHelp},
	{"latency|histogram", cmdLatencyHistogram}, // latency_hist.go
}

type latencySample struct {
	time    int64 // unix seconds; 0 = unused
	latency int64 // ms
}

// latencySeries is one event's time series (latencyTimeSeries).
type latencySeries struct {
	idx     int
	max     int64
	samples [latencyTSLen]latencySample
}

// latencyMonitor holds the events' series (mu).
type latencyMonitor struct {
	events map[string]*latencySeries
}

// latencyAddSampleLocked records an event of ms milliseconds if it reaches
// the threshold (latencyAddSampleIfNeeded).
func (s *Server) latencyAddSampleLocked(event string, ms int64) {
	if s.ops.latencyLimit <= 0 || ms < s.ops.latencyLimit {
		return
	}
	m := &s.ops.latency
	if m.events == nil {
		m.events = make(map[string]*latencySeries)
	}
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	now := time.Now().Unix()
	prev := (ts.idx + latencyTSLen - 1) % latencyTSLen
	if ts.samples[prev].time == now {
		if ms > ts.samples[prev].latency {
			ts.samples[prev].latency = ms
		}
		ts.max = max(ts.max, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.max = max(ts.max, ms)
	ts.idx = (ts.idx + 1) % latencyTSLen
}

// latencySampleUnlocked records an event measured by a goroutine that does
// not hold the engine lock (the cron's expiry cycle); it takes the lock
// only for an event of a millisecond or more.
func (s *Server) latencySampleUnlocked(event string, d time.Duration) {
	if d < time.Millisecond {
		return
	}
	s.mu.Lock()
	s.latencyAddSampleLocked(event, d.Milliseconds())
	s.mu.Unlock()
}

// sortedEvents returns the event names in a stable order (Redis iterates
// its dict: the order is unspecified).
func (m *latencyMonitor) sortedEvents() []string {
	names := make([]string, 0, len(m.events))
	for n := range m.events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func cmdLatencyLatest(c *client, args [][]byte) {
	m := &c.srv.ops.latency
	names := m.sortedEvents()
	c.w.Array(len(names))
	for _, n := range names {
		ts := m.events[n]
		last := ts.samples[(ts.idx+latencyTSLen-1)%latencyTSLen]
		c.w.Array(4)
		c.w.BulkString(n)
		c.w.Int(last.time)
		c.w.Int(last.latency)
		c.w.Int(ts.max)
	}
}

func cmdLatencyHistory(c *client, args [][]byte) {
	ts := c.srv.ops.latency.events[string(args[2])]
	if ts == nil {
		c.w.Array(0)
		return
	}
	d := c.w.DeferLen()
	n := 0
	for j := 0; j < latencyTSLen; j++ {
		smp := ts.samples[(ts.idx+j)%latencyTSLen]
		if smp.time == 0 {
			continue
		}
		c.w.Array(2)
		c.w.Int(smp.time)
		c.w.Int(smp.latency)
		n++
	}
	c.w.SetArrayLen(d, n)
}

func cmdLatencyReset(c *client, args [][]byte) {
	m := &c.srv.ops.latency
	if len(args) == 2 {
		n := len(m.events)
		m.events = nil
		c.w.Int(int64(n))
		return
	}
	n := 0
	for _, a := range args[2:] {
		if _, ok := m.events[string(a)]; ok {
			delete(m.events, string(a))
			n++
		}
	}
	c.w.Int(int64(n))
}

const (
	latencyDoctorDisabled = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	latencyDoctorNoSpikes = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
)

// cmdLatencyDoctor is LATENCY DOCTOR (createLatencyReport): per event its
// spikes, average, mean deviation and period, then the advices that apply
// to the events this server records.
func cmdLatencyDoctor(c *client, args [][]byte) {
	c.w.Verbatim("txt", c.srv.latencyReportLocked())
}

// latencyStats is Redis's struct latencyStats.
type latencyStats struct {
	allTimeHigh, avg, min, max, mad int64
	samples                         int
	period                          int64
}

// analyze is analyzeLatencyForEvent.
func (ts *latencySeries) analyze() latencyStats {
	ls := latencyStats{allTimeHigh: ts.max}
	var sum int64
	for _, smp := range ts.samples {
		if smp.time == 0 {
			continue
		}
		ls.samples++
		if ls.samples == 1 {
			ls.min, ls.max = smp.latency, smp.latency
		} else {
			ls.min = min(ls.min, smp.latency)
			ls.max = max(ls.max, smp.latency)
		}
		sum += smp.latency
		if ls.period == 0 || smp.time < ls.period {
			ls.period = smp.time
		}
	}
	if ls.samples > 0 {
		ls.avg = sum / int64(ls.samples)
		ls.period = time.Now().Unix() - ls.period
		if ls.period == 0 {
			ls.period = 1
		}
	}
	sum = 0
	for _, smp := range ts.samples {
		if smp.time == 0 {
			continue
		}
		d := ls.avg - smp.latency
		if d < 0 {
			d = -d
		}
		sum += d
	}
	if ls.samples > 0 {
		ls.mad = sum / int64(ls.samples)
	}
	return ls
}

// latencyReportLocked builds LATENCY DOCTOR's text.
func (s *Server) latencyReportLocked() string {
	m := &s.ops.latency
	if len(m.events) == 0 && s.ops.latencyLimit == 0 {
		return latencyDoctorDisabled
	}
	var (
		b                                                     strings.Builder
		slowlogEnabled, slowlogTuning, slowlogInspect         bool
		scheduler, hz, largeObjects, massEviction, disableTHP bool
		advices                                               int
	)
	names := m.sortedEvents()
	for i, name := range names {
		ts := m.events[name]
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
		ls := ts.analyze()
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, name, ls.samples, ls.avg, ls.mad, float64(ls.period)/float64(ls.samples), ts.max)
		switch strings.ToLower(name) {
		case "command":
			if s.ops.slowerThan < 0 || s.ops.slowMaxLen == 0 {
				slowlogEnabled = true
				advices++
			} else if s.ops.slowerThan/1000 > s.ops.latencyLimit {
				slowlogTuning = true
				advices++
			}
			slowlogInspect, largeObjects = true, true
			advices += 2
		case "fast-command":
			scheduler = true
			advices++
		case "expire-cycle":
			hz, largeObjects = true, true
			advices += 2
		case "eviction-del":
			largeObjects = true
			advices++
		case "eviction-cycle":
			massEviction = true
			advices++
		}
		b.WriteByte('\n')
	}
	if anonHugePages() > 0 {
		disableTHP = true
		advices++
	}
	switch {
	case len(names) == 0 && advices == 0:
		b.WriteString(latencyDoctorNoSpikes)
	case len(names) > 0 && advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
	default:
		b.WriteString("\nI have a few advices for you:\n\n")
		if slowlogEnabled {
			fmt.Fprintf(&b, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", s.ops.latencyLimit*1000)
		}
		if slowlogTuning {
			fmt.Fprintf(&b, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", s.ops.latencyLimit*1000)
		}
		if slowlogInspect {
			b.WriteString("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
		}
		if scheduler {
			b.WriteString("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n" +
				"  1) Lower the system load.\n" +
				"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n" +
				"  3) Check if you have a \"noisy neighbour\" problem.\n" +
				"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
				"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
		}
		if hz && s.cfg.Hz < 100 {
			b.WriteString("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
		}
		if largeObjects {
			b.WriteString("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
		}
		if massEviction {
			b.WriteString("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n")
		}
		if disableTHP {
			b.WriteString("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n")
		}
	}
	return b.String()
}

// anonHugePages sums AnonHugePages over /proc/self/smaps, in bytes
// (THPGetAnonHugePagesSize); 0 where it cannot be read.
func anonHugePages() int64 {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	var total int64
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "AnonHugePages:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n * 1024
		}
	}
	return total
}
