package main

import (
	"fmt"
	"io"
	"time"
)

// result is one run's tallies. Rates count only what completed inside the
// measurement window (start to the moment the clients were told to stop),
// so an attempt still in flight at the end, or a client the scheduler
// left waiting, does not stretch the denominator; the totals, which the
// counter check uses, include everything.
type result struct {
	opts   options
	window time.Duration

	commits, aborts, abandoned  int64
	windowCommits, windowAborts int64
	errors                      int64 // clients that stopped on an error
	firstErr                    error
	hist                        histogram
	check                       checkResult
}

// add folds one worker's tallies into r.
func (r *result) add(w *worker) {
	r.commits += w.commits
	r.aborts += w.aborts
	r.abandoned += w.abandoned
	r.windowCommits += w.inWindow
	r.windowAborts += w.abortsInWindow
	r.hist.merge(&w.hist)
	if w.err != nil {
		r.errors++
		if r.firstErr == nil {
			r.firstErr = w.err
		}
	}
}

// commitsPerSecond and abortsPerSecond are rates over the window.
func (r *result) commitsPerSecond() float64 { return perSecond(r.windowCommits, r.window) }
func (r *result) abortsPerSecond() float64  { return perSecond(r.windowAborts, r.window) }

func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// abortRatio is the fraction of EXECs that aborted:
// aborts / (commits + aborts), over the whole run.
func (r *result) abortRatio() float64 {
	if r.commits+r.aborts == 0 {
		return 0
	}
	return float64(r.aborts) / float64(r.commits+r.aborts)
}

// checkWord is PASS, FAIL or SKIPPED.
func (r *result) checkWord() string {
	switch {
	case r.check.skipped:
		return "SKIPPED"
	case r.check.ok:
		return "PASS"
	}
	return "FAIL"
}

// print writes the readable block and the RESULT line.
func (r *result) print(out io.Writer) {
	o := r.opts
	p50, p99 := r.hist.quantile(0.50), r.hist.quantile(0.99)
	fmt.Fprintf(out, "watchbench mode=%s addr=%s clients=%d duration=%s keys=%d\n",
		o.mode, o.addr, o.clients, o.duration, o.keys)
	fmt.Fprintf(out, "  commits      %10d  %10.1f/s\n", r.commits, r.commitsPerSecond())
	fmt.Fprintf(out, "  aborts       %10d  %10.1f/s\n", r.aborts, r.abortsPerSecond())
	fmt.Fprintf(out, "  abort ratio  %10.4f  (aborted EXECs / all EXECs)\n", r.abortRatio())
	fmt.Fprintf(out, "  latency p50  %10s\n", roundDuration(p50))
	fmt.Fprintf(out, "  latency p99  %10s\n", roundDuration(p99))
	fmt.Fprintf(out, "  abandoned    %10d  (still retrying when time was up)\n", r.abandoned)
	fmt.Fprintf(out, "  errors       %10d\n", r.errors)
	fmt.Fprintf(out, "  counter      %s: %s\n", r.checkWord(), r.check.detail)
	fmt.Fprintf(out, "RESULT mode=%s clients=%d seconds=%.3f commits=%d commits_per_s=%.1f aborts=%d aborts_per_s=%.1f abort_ratio=%.4f p50_us=%.1f p99_us=%.1f abandoned=%d errors=%d check=%s\n",
		o.mode, o.clients, r.window.Seconds(), r.commits, r.commitsPerSecond(), r.aborts, r.abortsPerSecond(),
		r.abortRatio(), micros(p50), micros(p99), r.abandoned, r.errors, r.checkWord())
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// roundDuration keeps three or four significant digits.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Nanosecond)
}
