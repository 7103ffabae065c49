package server

import (
	"strings"
	"testing"
)

// Compatibility profiles (watch-compat). Only Redis 7.0.15 can be installed
// here, so each rule's source is stated beside its test; the default
// profile's behaviour is the one the differential tests compare.

// Source: redis/redis #11568 (7.2.0 release notes: "blocking commands are
// allowed in scripts and act as their non-blocking form"); spec watch.md
// section 9 and E-13 for 7.0's refusal.
func TestCompatBlockingInScripts(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	const pop = "return redis.pcall('blpop','x',0)"
	if r := c.do("EVAL", pop, "0"); !strings.Contains(r, "This Redis command is not allowed from script") {
		t.Errorf("redis-7.0: %q", r)
	}
	for _, p := range []string{"redis-7.2", "redis-7.4", "valkey-8"} {
		c.do("CONFIG", "SET", "watch-compat", p)
		if r := c.do("EVAL", pop, "0"); r != "$-1\r\n" {
			t.Errorf("%s, empty list: %q, want a nil (non-blocking)", p, r)
		}
		c.do("RPUSH", "x", "a")
		if r := c.do("EVAL", pop, "0"); r != "*2\r\n$1\r\nx\r\n$1\r\na\r\n" {
			t.Errorf("%s: %q", p, r)
		}
	}
	c.do("CONFIG", "SET", "watch-compat", "redis-7.0")
	if r := c.do("CONFIG", "GET", "watch-compat"); !strings.Contains(r, "redis-7.0") {
		t.Errorf("CONFIG GET watch-compat: %q", r)
	}
	if r := c.do("CONFIG", "GET", "*"); strings.Contains(r, "watch-compat") {
		t.Error("CONFIG GET * lists watch-compat")
	}
}

// Source: redis/redis #12961 (7.4: inside MULTI only deny-oom commands are
// refused when out of memory); spec watch.md E-8 and section 9 for 7.0.
func TestCompatOOMWhileQueueing(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	for _, tc := range []struct{ profile, get string }{
		{"redis-7.0", "-OOM"}, {"redis-7.2", "-OOM"}, {"redis-7.4", "+QUEUED"},
	} {
		b.do("CONFIG", "SET", "watch-compat", tc.profile)
		a.do("MULTI")
		b.do("CONFIG", "SET", "maxmemory", "1")
		if r := a.do("GET", "x"); !strings.HasPrefix(r, tc.get) {
			t.Errorf("%s: GET while queueing = %q, want %s", tc.profile, r, tc.get)
		}
		if r := a.do("SET", "x", "1"); !strings.HasPrefix(r, "-OOM") {
			t.Errorf("%s: SET while queueing = %q", tc.profile, r)
		}
		b.do("CONFIG", "SET", "maxmemory", "0")
		a.do("DISCARD")
	}
}

// Source: redis/redis #12966 (7.4: INFO clients watching_clients after
// pubsub_clients, total_watched_keys after clients_in_timeout_table;
// server.c genRedisInfoString). 7.0 has neither (spec W-13), so the
// default INFO keeps 7.0's layout.
func TestCompatInfoWatchFields(t *testing.T) {
	s := startTestServer(t)
	a, b := dialTest(t, s), dialTest(t, s)
	a.do("WATCH", "k1", "k2")
	b.do("WATCH", "k1")
	if r := a.do("INFO", "clients"); strings.Contains(r, "watch") {
		t.Errorf("redis-7.0 INFO clients has watch fields: %q", r)
	}
	a.do("CONFIG", "SET", "watch-compat", "redis-7.4")
	r := a.do("INFO", "clients")
	want := "tracking_clients:0\r\nwatching_clients:2\r\nclients_in_timeout_table:0\r\ntotal_watched_keys:2\r\n"
	if !strings.Contains(r, want) {
		t.Errorf("redis-7.4 INFO clients = %q, want %q", r, want)
	}
}

// Source: valkey-io/valkey #723 (Valkey 8.0: MULTI and WATCH get the
// NO_MULTI flag, so inside MULTI they are rejected and abort the
// transaction); spec watch.md W-7 and E-7 for Redis 7.0.
func TestCompatValkeyWatchInsideMulti(t *testing.T) {
	s := startTestServer(t)
	c := dialTest(t, s)
	for _, tc := range []struct{ profile, watch, multi, exec string }{
		{"redis-7.0", "-ERR WATCH inside MULTI is not allowed\r\n", "-ERR MULTI calls can not be nested\r\n", "*1\r\n+PONG\r\n"},
		{"valkey-8", "-ERR Command not allowed inside a transaction\r\n", "-ERR Command not allowed inside a transaction\r\n",
			"-EXECABORT Transaction discarded because of previous errors.\r\n"},
	} {
		c.do("CONFIG", "SET", "watch-compat", tc.profile)
		for _, cmd := range [][]string{{"WATCH", "k"}, {"MULTI"}} {
			c.do("MULTI")
			want := tc.watch
			if cmd[0] == "MULTI" {
				want = tc.multi
			}
			if r := c.do(cmd...); r != want {
				t.Errorf("%s: %v inside MULTI = %q, want %q", tc.profile, cmd, r, want)
			}
			c.do("PING")
			if r := c.do("EXEC"); r != tc.exec {
				t.Errorf("%s: EXEC after %v = %q, want %q", tc.profile, cmd, r, tc.exec)
			}
		}
	}
}
