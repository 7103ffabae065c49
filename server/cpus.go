package server

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// busyPollDefault is Config.BusyPoll's default: DefaultBusyPoll when the
// process may use two CPUs or more at once, else 0. Polling pays when the
// clients run on another CPU; on a shared single CPU it only delays them
// (measured on one CPU: one redis-benchmark client 0.85x of the requests
// per second with polling, 0.94x without).
func busyPollDefault() time.Duration {
	if availableCPUs() < 2 {
		return 0
	}
	return DefaultBusyPoll
}

// availableCPUs is how many CPUs the process may keep busy at once: those
// of its affinity mask, lowered by a cgroup CPU quota (v2 cpu.max, or v1
// cpu.cfs_quota_us over cpu.cfs_period_us) when one is set.
func availableCPUs() float64 {
	n := float64(runtime.NumCPU())
	if b, err := os.ReadFile("/sys/fs/cgroup/cpu.max"); err == nil {
		if q, ok := parseCPUMax(string(b)); ok && q < n {
			n = q
		}
		return n
	}
	quota, err1 := os.ReadFile("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
	period, err2 := os.ReadFile("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
	if err1 == nil && err2 == nil {
		if q, ok := parseCFSQuota(string(quota), string(period)); ok && q < n {
			n = q
		}
	}
	return n
}

// parseCPUMax reads cgroup v2's cpu.max ("max 100000" or "150000 100000")
// as a number of CPUs; ok is false when there is no quota.
func parseCPUMax(s string) (cpus float64, ok bool) {
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return 0, false
	}
	return parseCFSQuota(f[0], f[1])
}

// parseCFSQuota divides a CFS quota by its period (both in microseconds);
// ok is false when the quota is unset (-1) or either is malformed.
func parseCFSQuota(quota, period string) (cpus float64, ok bool) {
	q, err1 := strconv.ParseInt(strings.TrimSpace(quota), 10, 64)
	p, err2 := strconv.ParseInt(strings.TrimSpace(period), 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}
