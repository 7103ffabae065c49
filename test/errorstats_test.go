package test

import (
	"strings"
	"testing"
	"time"
)

// INFO errorstats and the error counters of INFO stats and commandstats
// (Redis's afterErrorReply): every error reply counts under its prefix,
// including errors raised by scripts (redis.error_reply, error tables,
// runtime errors), errors of commands inside MULTI/EXEC and scripts,
// rejected commands and protocol errors.
func TestErrorStatsDiff(t *testing.T) {
	p := newDiffPair(t)
	a := p.Conn("A")
	a.DoMode(cmpExact, "CONFIG", "RESETSTAT")
	steps := [][]string{
		{"SET", "s", "v"},
		{"LPUSH", "s", "x"}, // WRONGTYPE
		{"NOSUCH"},          // ERR unknown command (rejected)
		{"GET"},             // ERR wrong number of arguments (rejected)
		{"INCR", "s"},       // ERR not an integer
		{"EVAL", "return redis.error_reply('MYERR custom')", "0"},
		{"EVAL", "return {err='OTHER x'}", "0"},
		{"EVAL", "return {err='nospace'}", "0"},
		{"EVAL", "return {err='LONGPREFIXLONGPREFIXLONGPREFIXLONG x'}", "0"},
		{"EVAL", "return redis.call('incr', 's')", "0"},
		{"EVAL", "return redis.pcall('incr', 's')", "0"},
		{"EVAL", "error('raised')", "0"},
		{"EVAL", "return redis.call('nosuch')", "0"},
		{"EVAL_RO", "return redis.call('set', 'x', '1')", "0"},
		{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
		{"MULTI"},
		{"INCR", "s"},
		{"EXEC"},
		{"MULTI"},
		{"NOSUCH"},
		{"EXEC"}, // EXECABORT
		{"SUBSCRIBE", "ch"},
	}
	for _, st := range steps {
		a.DoMode(cmpExact, st...)
	}
	a.DoMode(cmpExact, "UNSUBSCRIBE", "ch")
	// A protocol error closes its connection.
	b := p.Conn("B")
	b.SendRaw([]byte("*1\r\n$x\r\n"))
	b.Read(cmpExact)
	b.ExpectClosed(2 * time.Second)

	want, got := a.DoMode(cmpShape, "INFO", "errorstats")
	if want.Text() != got.Text() {
		t.Errorf("INFO errorstats differ\n  redis-server: %q\n  miniwatchd:   %q", want.Text(), got.Text())
	}
	want, got = a.DoMode(cmpShape, "INFO", "stats")
	for _, f := range []string{"total_error_replies", "unexpected_error_replies"} {
		if w, g := infoValues(want.Text())[f], infoValues(got.Text())[f]; w != g {
			t.Errorf("%s: miniwatchd %s, redis-server %s", f, g, w)
		}
	}
	want, got = a.DoMode(cmpShape, "INFO", "commandstats")
	wv, gv := infoValues(want.Text()), infoValues(got.Text())
	for _, cmd := range []string{"lpush", "get", "incr", "set", "eval", "eval_ro", "evalsha", "exec", "multi"} {
		w, g := cmdstatErrors(wv["cmdstat_"+cmd]), cmdstatErrors(gv["cmdstat_"+cmd])
		if w != g {
			t.Errorf("cmdstat_%s: miniwatchd %q, redis-server %q", cmd, g, w)
		}
	}
	// CONFIG RESETSTAT empties the section.
	a.DoMode(cmpExact, "CONFIG", "RESETSTAT")
	want, got = a.DoMode(cmpShape, "INFO", "errorstats")
	if want.Text() != got.Text() {
		t.Errorf("INFO errorstats after RESETSTAT differ\n  redis-server: %q\n  miniwatchd:   %q", want.Text(), got.Text())
	}
}

// cmdstatErrors keeps the calls, rejected_calls and failed_calls fields of
// a cmdstat_ line (usec varies).
func cmdstatErrors(v string) string {
	var keep []string
	for _, f := range strings.Split(v, ",") {
		if strings.HasPrefix(f, "calls=") || strings.HasPrefix(f, "rejected_calls=") || strings.HasPrefix(f, "failed_calls=") {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, ",")
}
