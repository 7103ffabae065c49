package server

import "testing"

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

func TestBusyPollDefaultFollowsCPUs(t *testing.T) {
	want := DefaultBusyPoll
	if availableCPUs() < 2 {
		want = 0
	}
	if got := DefaultConfig().BusyPoll; got != want {
		t.Errorf("DefaultConfig().BusyPoll = %v with %v CPUs available, want %v", got, availableCPUs(), want)
	}
}
