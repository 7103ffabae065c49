package server

import (
	"sort"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// The latency monitor (Redis latency.c). With latency-monitor-threshold
// set to N > 0 ms, every event that took at least N ms is sampled into its
// event's time series: 160 samples, one per second (a second sample within
// the same second keeps the higher latency), plus the all-time maximum.
// Events recorded here: "command" and "fast-command" (each call, EXEC
// excluded, by the command's fast flag), "expire-cycle" (a run of the
// active expiry cycle) and "eviction-cycle" (a round of evictions).

const latencyTSLen = 160 // LATENCY_TS_LEN

func init() {
	registerFamily([]commandDef{
		{"latency|latest", cmdLatencyLatest},
		{"latency|history", cmdLatencyHistory},
		{"latency|reset", cmdLatencyReset},
		{"latency|doctor", cmdLatencyDoctor},
		{"latency|help", cmdHelp},
	})
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

// cmdLatencyDoctor answers LATENCY DOCTOR when there is nothing to report
// (monitoring off, or no spike); the analysis of recorded spikes is not
// implemented and says so.
func cmdLatencyDoctor(c *client, args [][]byte) {
	s := c.srv
	switch {
	case len(s.ops.latency.events) == 0 && s.ops.latencyLimit == 0:
		c.w.Verbatim("txt", latencyDoctorDisabled)
	case len(s.ops.latency.events) == 0:
		c.w.Verbatim("txt", latencyDoctorNoSpikes)
	default:
		c.fail(protocol.Error("ERR LATENCY DOCTOR's analysis of recorded spikes is not implemented by miniwatchd; use LATENCY LATEST and LATENCY HISTORY"))
	}
}
