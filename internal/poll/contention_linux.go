//go:build linux

package poll

import (
	"syscall"
	"time"
)

// contention tells whether the thread that runs the event loop waits for
// a CPU: the kernel's run-queue wait of the calling thread
// (/proc/thread-self/schedstat, second field), as a share of the wall time
// between two samples. On a machine whose CPUs other processes keep busy
// (a shared CI runner), a thread that busy polls takes CPU those processes
// lack and waits its turn behind them; there the loop must sleep at once.
//
// One user: the loop goroutine (through Wait). The sample is cheap (three
// system calls, no allocation) and taken at most every contentionEvery.
type contention struct {
	tid       int
	at        time.Time
	waitNs    int64
	contended bool
}

// contentionEvery is how often the run-queue wait is sampled.
const contentionEvery = 50 * time.Millisecond

// contendedShare is the share of wall time spent waiting for a CPU above
// which the thread counts as contended (an idle machine shows well under
// 1%; one busy loop per CPU beside the server, 20-60%).
const contendedShare = 0.05

// update samples the run-queue wait when contentionEvery has passed since
// the last sample and returns whether the thread counts as contended. A
// sample taken on another thread than the last (the goroutine moved) only
// starts a new window.
func (c *contention) update(now time.Time) bool {
	if now.Sub(c.at) < contentionEvery {
		return c.contended
	}
	tid := syscall.Gettid()
	wait, ok := runQueueWait()
	if !ok {
		c.contended = false
		return false
	}
	if tid == c.tid && !c.at.IsZero() {
		c.contended = float64(wait-c.waitNs) > contendedShare*float64(now.Sub(c.at))
	}
	c.tid, c.at, c.waitNs = tid, now, wait
	return c.contended
}

// runQueueWait reads the calling thread's run-queue wait in nanoseconds.
func runQueueWait() (int64, bool) {
	fd, err := syscall.Open("/proc/thread-self/schedstat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	var buf [96]byte
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	return parseSchedstatWait(buf[:n])
}

// parseSchedstatWait returns the second of schedstat's three numbers
// ("<on-cpu ns> <run-queue wait ns> <timeslices>").
func parseSchedstatWait(b []byte) (int64, bool) {
	field, v, digits := 0, int64(0), 0
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9':
			if field == 1 {
				v = v*10 + int64(ch-'0')
			}
			digits++
		case ch == ' ' || ch == '\n':
			if digits == 0 {
				return 0, false
			}
			if field == 1 {
				return v, true
			}
			field, digits = field+1, 0
		default:
			return 0, false
		}
	}
	return v, field == 1 && digits > 0
}
