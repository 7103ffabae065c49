package poll

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

func TestParseCPUQuota(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cpus float64
		ok   bool
	}{
		{"max 100000\n", 0, false},
		{"150000 100000\n", 1.5, true},
		{"200000 100000", 2, true},
		{"50000 100000", 0.5, true},
		{"", 0, false},
		{"x 100000", 0, false},
		{"100000 0", 0, false},
	} {
		cpus, ok := parseCPUMax(tc.in)
		if cpus != tc.cpus || ok != tc.ok {
			t.Errorf("parseCPUMax(%q) = %v, %v; want %v, %v", tc.in, cpus, ok, tc.cpus, tc.ok)
		}
	}
	if cpus, ok := parseCFSQuota("-1\n", "100000\n"); ok {
		t.Errorf("unset v1 quota read as %v CPUs", cpus)
	}
	if cpus, ok := parseCFSQuota("300000\n", "100000\n"); !ok || cpus != 3 {
		t.Errorf("v1 quota 300000/100000 = %v, %v; want 3, true", cpus, ok)
	}
}

// TestCgroupQuota reads fake cgroup trees: the smallest quota on the path
// from the process's cgroup up to the root counts, in v2 and v1 layouts.
func TestCgroupQuota(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		cpus  float64
		ok    bool
	}{
		{"v2 no quota", map[string]string{
			"/proc/self/cgroup":      "0::/user.slice/session-1.scope\n",
			"/sys/fs/cgroup/cpu.max": "max 100000\n",
		}, 0, false},
		{"v2 quota on a parent", map[string]string{
			"/proc/self/cgroup": "0::/system.slice/miniwatchd.service\n",
			"/sys/fs/cgroup/system.slice/miniwatchd.service/cpu.max": "max 100000\n",
			"/sys/fs/cgroup/system.slice/cpu.max":                    "150000 100000\n",
		}, 1.5, true},
		{"v2 smallest wins", map[string]string{
			"/proc/self/cgroup":                  "0::/a/b\n",
			"/sys/fs/cgroup/a/b/cpu.max":         "400000 100000\n",
			"/sys/fs/cgroup/a/cpu.max":           "100000 100000\n",
			"/sys/fs/cgroup/cpu.max":             "max 100000\n",
			"/sys/fs/cgroup/unrelated/cpu.max":   "10000 100000\n",
			"/sys/fs/cgroup/a/b/c/d/cpu.max":     "10000 100000\n",
			"/sys/fs/cgroup/a/b/cpu.max.effects": "",
		}, 1, true},
		{"v2 container namespace", map[string]string{
			"/proc/self/cgroup":      "0::/\n",
			"/sys/fs/cgroup/cpu.max": "100000 100000\n",
		}, 1, true},
		{"v1 container without namespace", map[string]string{
			"/proc/self/cgroup":                            "12:pids:/docker/abc\n4:cpu,cpuacct:/docker/abc\n",
			"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "50000\n",
			"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		}, 0.5, true},
		{"v1 no quota", map[string]string{
			"/proc/self/cgroup":                    "4:cpu,cpuacct:/\n",
			"/sys/fs/cgroup/cpu/cpu.cfs_quota_us":  "-1\n",
			"/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
		}, 0, false},
		{"no cgroup file", map[string]string{}, 0, false},
	} {
		read := func(name string) ([]byte, error) {
			if s, ok := tc.files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		cpus, ok := cgroupQuota(read)
		if cpus != tc.cpus || ok != tc.ok {
			t.Errorf("%s: cgroupQuota = %v, %v; want %v, %v", tc.name, cpus, ok, tc.cpus, tc.ok)
		}
	}
}

func TestProcessors(t *testing.T) {
	want := 2
	if availableCPUs(os.ReadFile) < 2 {
		want = 1
	}
	if got := Processors(); got != want {
		t.Errorf("Processors() = %v with %v CPUs available, want %v", got, availableCPUs(os.ReadFile), want)
	}
}

func TestReadSmallFile(t *testing.T) {
	for _, name := range []string{"/proc/self/cgroup", "cpus.go"} {
		want, werr := os.ReadFile(name)
		got, err := readSmallFile(name)
		if (werr == nil) != (err == nil) || string(got) != string(want) {
			t.Errorf("readSmallFile(%s) = %d bytes, %v; os.ReadFile: %d bytes, %v", name, len(got), err, len(want), werr)
		}
	}
	if _, err := readSmallFile("/nonexistent/cpu.max"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("readSmallFile of a missing file: %v, want ErrNotExist", err)
	}
}
