package poll

import (
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultBusyPoll is the busy polling window cmd/miniwatchd gives the event
// loop when it runs on two processors (Processors). A wait polls only while
// several clients keep the loop busy and its thread gets a CPU at once
// (epollPoller's readyAvg and contention): polling a single client's next
// request, or on a machine whose CPUs are busy, spends CPU for a few
// microseconds of latency.
const DefaultBusyPoll = 50 * time.Microsecond

// availableCPUs is how many CPUs the process may keep busy at once: those
// of its affinity mask, lowered by the smallest CPU quota of its cgroup
// and the cgroup's ancestors (v2 cpu.max, or v1 cpu.cfs_quota_us over
// cpu.cfs_period_us). readFile reads a file (readSmallFile; tests fake it).
func availableCPUs(readFile func(string) ([]byte, error)) float64 {
	n := float64(runtime.NumCPU())
	if q, ok := cgroupQuota(readFile); ok && q < n {
		n = q
	}
	return n
}

// cgroupQuota finds the process's cgroup in /proc/self/cgroup and returns
// the smallest CPU quota on the way from it up to the root of its
// hierarchy; ok is false when none is set.
func cgroupQuota(readFile func(string) ([]byte, error)) (cpus float64, ok bool) {
	b, err := readFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var root string
		var quota func(dir string) (float64, bool)
		switch {
		case f[0] == "0" && f[1] == "": // cgroup v2
			root = "/sys/fs/cgroup"
			quota = func(dir string) (float64, bool) {
				b, err := readFile(dir + "/cpu.max")
				if err != nil {
					return 0, false
				}
				return parseCPUMax(string(b))
			}
		case hasController(f[1], "cpu"): // cgroup v1
			root = "/sys/fs/cgroup/" + f[1]
			if _, err := readFile(root + "/cpu.cfs_period_us"); err != nil {
				root = "/sys/fs/cgroup/cpu"
			}
			quota = func(dir string) (float64, bool) {
				q, err1 := readFile(dir + "/cpu.cfs_quota_us")
				p, err2 := readFile(dir + "/cpu.cfs_period_us")
				if err1 != nil || err2 != nil {
					return 0, false
				}
				return parseCFSQuota(string(q), string(p))
			}
		default:
			continue
		}
		// Inside a container the hierarchy's root is the container's
		// cgroup and the path may name directories that are not mounted:
		// those read as no quota.
		for dir := path.Clean("/" + f[2]); ; dir = path.Dir(dir) {
			if q, found := quota(path.Join(root, dir)); found && (!ok || q < cpus) {
				cpus, ok = q, true
			}
			if dir == "/" {
				break
			}
		}
	}
	return cpus, ok
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
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

// Processors is how many processors (GOMAXPROCS) cmd/miniwatchd runs on:
// 2 when the process may keep two CPUs busy at once (affinity mask, or the
// smallest cgroup CPU quota from the process's cgroup up), else 1. With
// two, the event loop sleeps in epoll_wait holding one as Redis's main
// thread sleeps, while the other runs everything else; with one, the loop
// parks in the runtime's poller (see poller_linux.go).
func Processors() int {
	if availableCPUs(readSmallFile) < 2 {
		return 1
	}
	return 2
}

// readSmallFile reads a /proc or /sys file of at most 64 kB with plain
// system calls: os.ReadFile would register each file with the runtime's
// network poller (four system calls more a file, and the poller's own
// set-up early in a start).
func readSmallFile(name string) ([]byte, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 64<<10)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return buf[:n], nil
}
