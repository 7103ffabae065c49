package server

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Per-command latency histograms (Redis 7.0's latency tracking with
// hdr_histogram): with latency-tracking yes, every call records its
// duration (microseconds x 1000, in nanoseconds, clamped to 1..1e9) into
// its command's histogram, a counts array laid out as hdr_histogram lays it
// out for 2 significant figures (256 sub-buckets, half of them per bucket
// after the first). LATENCY HISTOGRAM reports it as hdr's logarithmic
// iteration from 1024 ns by powers of two does, and INFO latencystats the
// percentiles of latency-tracking-info-percentiles, with hdr's rounding to
// the highest value equivalent to the one found. CONFIG RESETSTAT clears
// them.

const (
	histSubBucketHalfMag = 7   // sub_bucket_half_count_magnitude
	histSubBucketHalf    = 128 // sub_bucket_half_count
	histSubBucketMask    = 255
	histMinValue         = 1
	histMaxValue         = 1_000_000_000 // LATENCY_HISTOGRAM_MAX_VALUE
)

// cmdHistogram is one command's histogram (mu).
type cmdHistogram struct {
	counts []uint32 // by hdr counts index, grown on demand
	total  int64
}

func histBucketIndex(v int64) int {
	return 64 - bits.LeadingZeros64(uint64(v)|histSubBucketMask) - (histSubBucketHalfMag + 1)
}

func histCountsIndex(v int64) int {
	b := histBucketIndex(v)
	sub := int(v >> b)
	return (b+1)<<histSubBucketHalfMag + sub - histSubBucketHalf
}

// histValueAtIndex is hdr_value_at_index.
func histValueAtIndex(i int) int64 {
	b := (i >> histSubBucketHalfMag) - 1
	sub := (i & (histSubBucketHalf - 1)) + histSubBucketHalf
	if b < 0 {
		sub -= histSubBucketHalf
		b = 0
	}
	return int64(sub) << b
}

func histLowestEquivalent(v int64) int64 {
	b := histBucketIndex(v)
	return (v >> b) << b
}

func histHighestEquivalent(v int64) int64 {
	b := histBucketIndex(v)
	sub := v >> b
	if sub >= 2*histSubBucketHalf {
		b++
	}
	return histLowestEquivalent(v) + int64(1)<<b - 1
}

func (h *cmdHistogram) record(v int64) {
	v = min(max(v, histMinValue), histMaxValue)
	i := histCountsIndex(v)
	if i >= len(h.counts) {
		n := make([]uint32, i+1, max(i+1, 2*len(h.counts)))
		copy(n, h.counts)
		h.counts = n
	}
	h.counts[i]++
	h.total++
}

// recordLatencyLocked adds one call of cmd that took us microseconds.
func (s *Server) recordLatencyLocked(cmd *command, us int64) {
	if cmd.hist == nil {
		cmd.hist = &cmdHistogram{}
	}
	cmd.hist.record(us * 1000)
}

// cdf is hdr's logarithmic iteration from 1024 by powers of two, as
// fillCommandCDF prints it: (microseconds, cumulative count) for each
// reporting level whose cumulative count grew.
func (h *cmdHistogram) cdf() [][2]int64 {
	var out [][2]int64
	var cum, prev int64
	idx := 0
	for level := int64(1024); cum < h.total && level <= 2*histMaxValue; level *= 2 {
		limit := histCountsIndex(histLowestEquivalent(level))
		for ; idx <= limit && idx < len(h.counts); idx++ {
			cum += int64(h.counts[idx])
		}
		if cum > prev {
			out = append(out, [2]int64{histHighestEquivalent(level) / 1000, cum})
		}
		prev = cum
	}
	return out
}

// percentile is hdr_value_at_percentile.
func (h *cmdHistogram) percentile(p float64) int64 {
	want := int64(min(p, 100)/100*float64(h.total) + 0.5)
	want = max(want, 1)
	var cum int64
	for i, n := range h.counts {
		cum += int64(n)
		if cum >= want {
			v := histValueAtIndex(i)
			if p == 0 {
				return histLowestEquivalent(v)
			}
			return histHighestEquivalent(v)
		}
	}
	return 0
}

// resetLatencyHistograms is CONFIG RESETSTAT's part for the per-command
// latency histograms.
func resetLatencyHistograms(s *Server) {
	for _, cmd := range s.table.all() {
		cmd.hist = nil
	}
}

func writeCDF(c *client, cmd *command) {
	c.w.BulkString(cmd.name)
	c.w.Map(2)
	c.w.BulkString("calls")
	c.w.Int(cmd.hist.total)
	c.w.BulkString("histogram_usec")
	pts := cmd.hist.cdf()
	c.w.Map(len(pts))
	for _, p := range pts {
		c.w.Int(p[0])
		c.w.Int(p[1])
	}
}

func cmdLatencyHistogram(c *client, args [][]byte) {
	s := c.srv
	var cmds []*command
	if len(args) == 2 {
		for _, cmd := range s.table.all() {
			if cmd.hist != nil {
				cmds = append(cmds, cmd)
			}
		}
	} else {
		for _, a := range args[2:] {
			cmd := s.table.lookupName(string(a))
			if cmd == nil {
				continue
			}
			if cmd.hist != nil {
				cmds = append(cmds, cmd)
			}
			subs := make([]*command, 0, len(cmd.subs))
			for _, sub := range cmd.subs {
				if sub.hist != nil {
					subs = append(subs, sub)
				}
			}
			sort.Slice(subs, func(i, j int) bool { return subs[i].name < subs[j].name })
			cmds = append(cmds, subs...)
		}
	}
	c.w.Map(len(cmds))
	for _, cmd := range cmds {
		writeCDF(c, cmd)
	}
}

// infoLatencyStats is INFO latencystats (Redis's order is its command
// dict's; ours is by name).
func (s *Server) infoLatencyStats(b *strings.Builder) {
	pcts := strings.Fields(s.paramText("latency-tracking-info-percentiles"))
	for _, cmd := range s.table.all() {
		if cmd.hist == nil {
			continue
		}
		fmt.Fprintf(b, "latency_percentiles_usec_%s:", cmd.name)
		for i, p := range pcts {
			f, _ := strconv.ParseFloat(p, 64)
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "p%s=%.3f", p, float64(cmd.hist.percentile(f))/1000)
		}
		b.WriteString("\r\n")
	}
}
