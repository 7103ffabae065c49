package test

import (
	"strings"
	"testing"
)

// TestInfoStatsCounters runs the same commands on fresh servers and
// compares the INFO counters that depend only on those commands.
func TestInfoStatsCounters(t *testing.T) {
	p := newDiffPair(t)
	p.taint()
	a := p.Conn("A")
	a.Do("CONFIG", "RESETSTAT")
	steps := [][]string{
		{"SET", "k", "v"}, {"GET", "k"}, {"GET", "nosuch"}, {"MGET", "k", "nosuch", "k"},
		{"EXISTS", "k", "nosuch"}, {"TYPE", "nosuch"}, {"STRLEN", "k"}, {"INCR", "k"},
		{"NOSUCHCMD"}, {"GET"}, {"MULTI"}, {"GET", "k"}, {"INCR", "k"}, {"EXEC"},
		{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, {"SET", "e", "v", "PX", "1"},
	}
	for _, s := range steps {
		a.DoMode(cmpIgnore, s...)
	}
	sleepMillis(60)
	for _, s := range [][]string{{"GET", "e"}, {"TTL", "k"}, {"APPEND", "k", "x"}, {"GETRANGE", "k", "0", "1"}, {"RENAME", "nosuch", "x"}} {
		a.DoMode(cmpIgnore, s...)
	}
	want, got := a.DoMode(cmpShape, "INFO", "stats")
	wv, gv := infoValues(want.Text()), infoValues(got.Text())
	for _, name := range []string{
		"keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys",
		"total_error_replies", "total_commands_processed",
	} {
		if wv[name] != gv[name] {
			t.Errorf("INFO %s = %s on miniwatchd, %s on redis-server", name, gv[name], wv[name])
		}
	}
	want, got = a.DoMode(cmpShape, "INFO", "commandstats")
	wc, gc := commandStats(want.Text()), commandStats(got.Text())
	for name, w := range wc {
		if name == "cmdstat_info" || name == "cmdstat_config|resetstat" {
			continue
		}
		if gc[name] != w {
			t.Errorf("INFO commandstats %s: %s on miniwatchd, %s on redis-server", name, gc[name], w)
		}
	}
	for name, g := range gc {
		if _, ok := wc[name]; !ok {
			t.Errorf("INFO commandstats has %s (%s) on miniwatchd only", name, g)
		}
	}
}

// commandStats maps each cmdstat_ line to its calls, rejected_calls and
// failed_calls (timings differ between any two servers).
func commandStats(text string) map[string]string {
	out := map[string]string{}
	for name, value := range infoValues(text) {
		var kept []string
		for _, f := range strings.Split(value, ",") {
			if strings.HasPrefix(f, "calls=") || strings.HasPrefix(f, "rejected_calls=") || strings.HasPrefix(f, "failed_calls=") {
				kept = append(kept, f)
			}
		}
		out[name] = strings.Join(kept, ",")
	}
	return out
}
