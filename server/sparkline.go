package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// LATENCY GRAPH: an ASCII sparkline of an event's samples, as Redis's
// sparkline.c renders it (4 rows, filled, a label under each sample with
// how long ago it was: 5s, 3m, 2h, 1d).

const (
	sparkCharset     = "_-`"
	sparkCharsetFill = "_o#"
	sparkLabelMargin = 1
	latencyGraphCols = 80
)

type sparkSample struct {
	value float64
	label string
}

type sparkSequence struct {
	samples  []sparkSample
	labels   int
	min, max float64
}

func (q *sparkSequence) add(v float64, label string) {
	if len(q.samples) == 0 {
		q.min, q.max = v, v
	} else if v < q.min {
		q.min = v
	} else if v > q.max {
		q.max = v
	}
	q.samples = append(q.samples, sparkSample{v, label})
	if label != "" {
		q.labels++
	}
}

// renderRange is sparklineRenderRange with SPARKLINE_FILL.
func (q *sparkSequence) renderRange(b *strings.Builder, rows, offset, n int) {
	relmax := q.max - q.min
	if relmax == 0 {
		relmax = 1
	}
	steps := len(sparkCharset) * rows
	chars := make([]byte, n)
	for row, loop := 0, true; loop; {
		loop = false
		for j := range chars {
			chars[j] = ' '
		}
		for j := 0; j < n; j++ {
			s := &q.samples[j+offset]
			relval := s.value - q.min
			step := int(float64(int(relval*float64(steps))) / relmax)
			step = min(max(step, 0), steps-1)
			if row < rows {
				charidx := step - (rows-row-1)*len(sparkCharset)
				loop = true
				if charidx >= 0 && charidx < len(sparkCharset) {
					chars[j] = sparkCharsetFill[charidx]
				} else if charidx >= len(sparkCharset) {
					chars[j] = '|'
				}
				continue
			}
			if q.labels > 0 && row-rows < sparkLabelMargin {
				loop = true
				break
			}
			if lc := row - rows - sparkLabelMargin; len(s.label) > lc {
				loop = true
				chars[j] = s.label[lc]
			}
		}
		if loop {
			row++
			b.Write(chars)
			b.WriteByte('\n')
		}
	}
}

// render is sparklineRender.
func (q *sparkSequence) render(b *strings.Builder, columns, rows int) {
	for j := 0; j < len(q.samples); j += columns {
		if j != 0 {
			b.WriteByte('\n')
		}
		q.renderRange(b, rows, j, min(len(q.samples)-j, columns))
	}
}

var latencyGraphCommands = []commandDef{{"latency|graph", cmdLatencyGraph}}

func cmdLatencyGraph(c *client, args [][]byte) {
	name := string(args[2])
	ts := c.srv.ops.latency.events[name]
	if ts == nil {
		c.fail(protocol.Error("ERR No samples available for event '" + name + "'"))
		return
	}
	var q sparkSequence
	var lo, hi int64
	now := time.Now().Unix()
	for j := 0; j < latencyTSLen; j++ {
		smp := ts.samples[(ts.idx+j)%latencyTSLen]
		if smp.time == 0 {
			continue
		}
		if len(q.samples) == 0 {
			lo, hi = smp.latency, smp.latency
		} else {
			lo, hi = min(lo, smp.latency), max(hi, smp.latency)
		}
		elapsed := now - smp.time
		var label string
		switch {
		case elapsed < 60:
			label = strconv.FormatInt(elapsed, 10) + "s"
		case elapsed < 3600:
			label = strconv.FormatInt(elapsed/60, 10) + "m"
		case elapsed < 3600*24:
			label = strconv.FormatInt(elapsed/3600, 10) + "h"
		default:
			label = strconv.FormatInt(elapsed/(3600*24), 10) + "d"
		}
		q.add(float64(smp.latency), label)
	}
	var b strings.Builder
	b.WriteString(name + " - high " + strconv.FormatInt(hi, 10) + " ms, low " + strconv.FormatInt(lo, 10) +
		" ms (all time high " + strconv.FormatInt(ts.max, 10) + " ms)\n")
	b.WriteString(strings.Repeat("-", latencyGraphCols) + "\n")
	q.render(&b, latencyGraphCols, 4)
	c.w.Verbatim("txt", b.String())
}
