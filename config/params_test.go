package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newTestParams returns a registry over a copy of cfg.
func newTestParams(cfg Config) *Registry {
	return NewRegistry(&cfg, nil)
}

// reply renders the result of set as a RESP-like line: "OK" or "-<error>".
func cfgReply(err error) string {
	if err != nil {
		return "-" + err.Error()
	}
	return "OK"
}

// getOne returns the value CONFIG GET reports for name ("<none>" if absent).
func cfgGet(r *Registry, name string) string {
	v := "<none>"
	r.Get([][]byte{[]byte(name)}, func(_, value string) { v = value })
	return v
}

func cfgArgs(words ...string) [][]byte {
	out := make([][]byte, len(words))
	for i, w := range words {
		out[i] = []byte(w)
	}
	return out
}

func TestParamTableShape(t *testing.T) {
	names := map[string]bool{}
	primaries, aliases := 0, 0
	for _, d := range paramTable {
		for _, n := range []string{d.name, d.alias} {
			if n == "" {
				continue
			}
			if names[n] || n != strings.ToLower(n) {
				t.Errorf("name %q duplicated or not lower case", n)
			}
			names[n] = true
		}
		primaries++
		if d.alias != "" {
			aliases++
		}
		if d.kind == kindSpecial && d.special == nil {
			t.Errorf("%s: special without parser", d.name)
		}
		if d.kind == kindNumeric {
			// The default must pass its own checks.
			v, e := d.parseNumber(d.def)
			if e == "" {
				e = d.checkBounds(v)
			}
			if e != "" {
				t.Errorf("%s: default %q rejected: %s", d.name, d.def, e)
			}
		}
	}
	// Redis 7.0.15: 179 parameters and 19 aliases (CONFIG GET * lists 192
	// names; 6 more are hidden).
	// Plus our own (params_ours.go).
	if primaries != 179+len(ourParams) || aliases != 19 {
		t.Errorf("table has %d parameters and %d aliases, want 179+%d and 19", primaries, aliases, len(ourParams))
	}
}

// TestDefaultConfigMatchesTable checks that DefaultConfig's typed fields
// hold the defaults of the table, so CONFIG GET of a fresh server prints
// Redis's defaults.
func TestDefaultConfigMatchesTable(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.BusyPoll != 0 {
		t.Errorf("DefaultConfig().BusyPoll = %v, want 0 (embedded servers do not poll)", cfg.BusyPoll)
	}
	deviations := map[string]string{ // documented in DefaultConfig
		"bind":                 "127.0.0.1",
		"enable-debug-command": "yes",
	}
	special := map[string]string{
		"save":                              "3600 1 300 100 60 10000",
		"client-output-buffer-limit":        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"oom-score-adj-values":              "0 200 800",
		"notify-keyspace-events":            "",
		"replicaof":                         "",
		"latency-tracking-info-percentiles": "50 99 99.9",
	}
	for i := range paramTable {
		d := &paramTable[i]
		if d.name == "dir" {
			continue
		}
		want := d.def
		if w, ok := special[d.name]; ok {
			want = w
		}
		if w, ok := deviations[d.name]; ok {
			want = w
		}
		if got := d.value(&cfg); got != want {
			t.Errorf("%s: DefaultConfig gives %q, want %q", d.name, got, want)
		}
	}
	wd, _ := os.Getwd()
	if got := Params(); len(got) != 179+len(ourParams) || cfgGet(newTestParams(cfg), "dir") != wd {
		t.Errorf("names() has %d entries, dir %q", len(got), cfgGet(newTestParams(cfg), "dir"))
	}
}

// cfgSetCase is one CONFIG SET; after it, get lists name=value pairs that
// CONFIG GET must report.
type cfgSetCase struct {
	args []string
	want string // "OK" or "-ERR ..."
	get  []string
}

func cfgFailed(name, reason string) string {
	return "-ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason
}

// configSetCases are checked against the registry here and against
// redis-server 7.0.15 in TestConfigMatchesRedis.
var configSetCases = []cfgSetCase{
	// bool
	{[]string{"appendonly", "yes"}, "OK", []string{"appendonly", "yes"}},
	{[]string{"appendonly", "YES"}, "OK", []string{"appendonly", "yes"}},
	{[]string{"appendonly", "true"}, cfgFailed("appendonly", "argument must be 'yes' or 'no'"), []string{"appendonly", "no"}},
	{[]string{"appendonly", "1"}, cfgFailed("appendonly", "argument must be 'yes' or 'no'"), nil},
	{[]string{"appendonly", "yes "}, cfgFailed("appendonly", "argument must be 'yes' or 'no'"), nil},
	{[]string{"lazyfree-lazy-user-del", "yes"}, "OK", []string{"lazyfree-lazy-user-del", "yes"}},
	{[]string{"activedefrag", "yes"}, cfgFailed("activedefrag", "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"), nil},
	{[]string{"activedefrag", "no"}, "OK", nil},
	{[]string{"slave-read-only", "no"}, "OK", []string{"replica-read-only", "no", "slave-read-only", "no"}},
	// memory values
	{[]string{"maxmemory", "100"}, "OK", []string{"maxmemory", "100"}},
	{[]string{"maxmemory", "1kb"}, "OK", []string{"maxmemory", "1024"}},
	{[]string{"maxmemory", "1K"}, "OK", []string{"maxmemory", "1000"}},
	{[]string{"maxmemory", "2gB"}, "OK", []string{"maxmemory", "2147483648"}},
	{[]string{"maxmemory", "3m"}, "OK", []string{"maxmemory", "3000000"}},
	{[]string{"maxmemory", "5b"}, "OK", []string{"maxmemory", "5"}},
	{[]string{"maxmemory", ""}, "OK", []string{"maxmemory", "0"}},
	{[]string{"maxmemory", "10mb "}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", " 10mb"}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", "+10"}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", "-0"}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", "1.5mb"}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", "1tb"}, cfgFailed("maxmemory", "argument must be a memory value"), nil},
	{[]string{"maxmemory", "18446744073709551615"}, "OK", []string{"maxmemory", "18446744073709551615"}},
	{[]string{"maxmemory", "99999999999999999999"}, "OK", []string{"maxmemory", "18446744073709551615"}},
	{[]string{"maxmemory", "20000000000gb"}, "OK", []string{"maxmemory", "3028092406290448384"}},
	{[]string{"maxmemory", "1mb\x00junk"}, "OK", []string{"maxmemory", "1048576"}},
	{[]string{"MAXMEMORY", "1mb"}, "OK", []string{"maxmemory", "1048576", "MaxMemory", "1048576"}},
	{[]string{"proto-max-bulk-len", "1mb"}, "OK", []string{"proto-max-bulk-len", "1048576"}},
	{[]string{"proto-max-bulk-len", "1048575"}, cfgFailed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), nil},
	{[]string{"proto-max-bulk-len", "9223372036854775808"}, cfgFailed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), nil},
	{[]string{"active-defrag-ignore-bytes", "0"}, cfgFailed("active-defrag-ignore-bytes", "argument must be between 1 and 9223372036854775807 inclusive"), nil},
	{[]string{"hash-max-ziplist-value", "1kb"}, "OK", []string{"hash-max-listpack-value", "1024", "hash-max-ziplist-value", "1024"}},
	// percent
	{[]string{"maxmemory-clients", "10%"}, "OK", []string{"maxmemory-clients", "10%"}},
	{[]string{"maxmemory-clients", "100%"}, "OK", []string{"maxmemory-clients", "100%"}},
	{[]string{"maxmemory-clients", "0%"}, "OK", []string{"maxmemory-clients", "0"}},
	{[]string{"maxmemory-clients", "101%"}, cfgFailed("maxmemory-clients", "percentage argument must be less or equal to 100"), nil},
	{[]string{"maxmemory-clients", "-1%"}, cfgFailed("maxmemory-clients", "argument must be a memory or percent value"), nil},
	{[]string{"maxmemory-clients", "%"}, cfgFailed("maxmemory-clients", "argument must be a memory or percent value"), nil},
	{[]string{"maxmemory-clients", "1gb"}, "OK", []string{"maxmemory-clients", "1073741824"}},
	// integers
	{[]string{"maxmemory-samples", "0"}, cfgFailed("maxmemory-samples", "argument must be between 1 and 2147483647 inclusive"), nil},
	{[]string{"maxmemory-samples", "2147483648"}, cfgFailed("maxmemory-samples", "argument must be between 1 and 2147483647 inclusive"), nil},
	{[]string{"maxmemory-samples", "01"}, cfgFailed("maxmemory-samples", "argument couldn't be parsed into an integer"), nil},
	{[]string{"maxmemory-samples", "+1"}, cfgFailed("maxmemory-samples", "argument couldn't be parsed into an integer"), nil},
	{[]string{"maxmemory-samples", "1kb"}, cfgFailed("maxmemory-samples", "argument couldn't be parsed into an integer"), nil},
	{[]string{"maxmemory-samples", "10"}, "OK", []string{"maxmemory-samples", "10"}},
	{[]string{"maxmemory-eviction-tenacity", "101"}, cfgFailed("maxmemory-eviction-tenacity", "argument must be between 0 and 100 inclusive"), nil},
	{[]string{"maxclients", "0"}, cfgFailed("maxclients", "argument must be between 1 and 4294967295 inclusive"), nil},
	{[]string{"maxclients", "-1"}, cfgFailed("maxclients", "argument must be between 1 and 4294967295 inclusive"), nil},
	{[]string{"timeout", "2147483647"}, "OK", []string{"timeout", "2147483647"}},
	{[]string{"timeout", "-1"}, cfgFailed("timeout", "argument must be between 0 and 2147483647 inclusive"), nil},
	{[]string{"list-max-ziplist-size", "-5"}, "OK", []string{"list-max-listpack-size", "-5"}},
	{[]string{"list-max-listpack-size", "-2147483649"}, cfgFailed("list-max-listpack-size", "argument must be between -2147483648 and 2147483647 inclusive"), nil},
	{[]string{"slowlog-log-slower-than", "-1"}, "OK", []string{"slowlog-log-slower-than", "-1"}},
	{[]string{"slowlog-log-slower-than", "-2"}, cfgFailed("slowlog-log-slower-than", "argument must be between -1 and 9223372036854775807 inclusive"), nil},
	{[]string{"hz", "1000"}, "OK", []string{"hz", "500"}},
	{[]string{"hz", "0"}, "OK", []string{"hz", "1"}},
	{[]string{"lua-time-limit", "100"}, "OK", []string{"busy-reply-threshold", "100", "lua-time-limit", "100"}},
	{[]string{"lfu-log-factor", "0"}, "OK", []string{"lfu-log-factor", "0"}},
	{[]string{"active-expire-effort", "11"}, cfgFailed("active-expire-effort", "argument must be between 1 and 10 inclusive"), nil},
	// enums
	{[]string{"maxmemory-policy", "ALLKEYS-LRU"}, "OK", []string{"maxmemory-policy", "allkeys-lru"}},
	{[]string{"maxmemory-policy", "lru"}, cfgFailed("maxmemory-policy", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"), nil},
	{[]string{"maxmemory-policy", "allkeys-lru "}, cfgFailed("maxmemory-policy", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"), nil},
	{[]string{"appendfsync", "Always"}, "OK", []string{"appendfsync", "always"}},
	{[]string{"oom-score-adj", "relative"}, "OK", []string{"oom-score-adj", "yes"}},
	{[]string{"oom-score-adj", "absolute"}, "OK", []string{"oom-score-adj", "absolute"}},
	{[]string{"acl-pubsub-default", "allchannels"}, "OK", []string{"acl-pubsub-default", "allchannels"}},
	{[]string{"loglevel", "warning"}, "OK", []string{"loglevel", "warning"}},
	{[]string{"loglevel", "nothing"}, cfgFailed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning"), nil},
	{[]string{"shutdown-on-sigint", "now save"}, "OK", []string{"shutdown-on-sigint", "save now"}},
	{[]string{"shutdown-on-sigint", "default save"}, "OK", []string{"shutdown-on-sigint", "save"}},
	{[]string{"shutdown-on-sigint", "NOW force"}, "OK", []string{"shutdown-on-sigint", "now force"}},
	{[]string{"shutdown-on-sigterm", "save nosave"}, cfgFailed("shutdown-on-sigterm", "shutdown options SAVE and NOSAVE can't be used simultaneously"), nil},
	{[]string{"shutdown-on-sigterm", "now  force"}, cfgFailed("shutdown-on-sigterm", "argument(s) must be one of the following: default, save, nosave, now, force"), nil},
	{[]string{"shutdown-on-sigterm", ""}, cfgFailed("shutdown-on-sigterm", "argument(s) must be one of the following: default, save, nosave, now, force"), nil},
	// strings
	{[]string{"masterauth", "a b\x00c"}, "OK", []string{"masterauth", "a b\x00c"}},
	{[]string{"replica-announce-ip", "a\x00b"}, "OK", []string{"slave-announce-ip", "a"}},
	{[]string{"cluster-announce-hostname", "bad_host"}, cfgFailed("cluster-announce-hostname", "Hostnames may only contain alphanumeric characters, hyphens or dots"), nil},
	{[]string{"cluster-announce-hostname", "a-b.c"}, "OK", []string{"cluster-announce-hostname", "a-b.c"}},
	{[]string{"proc-title-template", "{title}"}, cfgFailed("proc-title-template", "template format is invalid or contains unknown variables"), nil},
	{[]string{"proc-title-template", "{unknown}"}, cfgFailed("proc-title-template", "template format is invalid or contains unknown variables"), nil},
	{[]string{"proc-title-template", "x{"}, cfgFailed("proc-title-template", "template format is invalid or contains unknown variables"), nil},
	{[]string{"proc-title-template", "{{title}}"}, "OK", []string{"proc-title-template", "{{title}}"}},
	{[]string{"proc-title-template", "x{port}}y"}, "OK", []string{"proc-title-template", "x{port}}y"}},
	{[]string{"proc-title-template", " {server-mode} "}, cfgFailed("proc-title-template", "template format is invalid or contains unknown variables"), nil},
	{[]string{"dbfilename", "x.rdb"}, cfgFailed("dbfilename", "can't set protected config"), nil},
	// special
	{[]string{"save", ""}, "OK", []string{"save", ""}},
	{[]string{"save", "100 2"}, "OK", []string{"save", "100 2"}},
	{[]string{"save", "100 +2"}, "OK", []string{"save", "100 2"}},
	{[]string{"save", "100 "}, "OK", []string{"save", "100 0"}},
	{[]string{"save", "100 2 "}, cfgFailed("save", "Invalid save parameters"), []string{"save", "3600 1 300 100 60 10000"}},
	{[]string{"save", "0 1"}, cfgFailed("save", "Invalid save parameters"), nil},
	{[]string{"save", "1 -1"}, cfgFailed("save", "Invalid save parameters"), nil},
	{[]string{"save", "100 0x10"}, cfgFailed("save", "Invalid save parameters"), nil},
	{[]string{"save", "100 2147483648"}, "OK", []string{"save", "100 -2147483648"}},
	{[]string{"client-output-buffer-limit", "normal 1mb 2mb 3 replica 4kb 5 6"}, "OK",
		[]string{"client-output-buffer-limit", "normal 1048576 2097152 3 slave 4096 5 6 pubsub 33554432 8388608 60"}},
	{[]string{"client-output-buffer-limit", "normal 0 0 4294967296"}, "OK",
		[]string{"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}},
	{[]string{"client-output-buffer-limit", "normal 0 0 2147483648"}, cfgFailed("client-output-buffer-limit", "Error in hard, soft or soft_seconds setting in buffer limit configuration."), nil},
	{[]string{"client-output-buffer-limit", "master 1 2 3"}, cfgFailed("client-output-buffer-limit", "Invalid client class specified in buffer limit configuration."), nil},
	{[]string{"client-output-buffer-limit", "normal 1 2"}, cfgFailed("client-output-buffer-limit", "Wrong number of arguments in buffer limit configuration."), nil},
	{[]string{"client-output-buffer-limit", "pubsub 1x 2 3"}, cfgFailed("client-output-buffer-limit", "Error in hard, soft or soft_seconds setting in buffer limit configuration."), nil},
	{[]string{"oom-score-adj-values", "0 0 0"}, "OK", []string{"oom-score-adj-values", "0 0 0"}},
	{[]string{"oom-score-adj-values", "1 2"}, cfgFailed("oom-score-adj-values", "wrong number of arguments"), nil},
	{[]string{"oom-score-adj-values", "-2001 0 0"}, cfgFailed("oom-score-adj-values", "Invalid oom-score-adj-values, elements must be between -2000 and 2000."), nil},
	{[]string{"notify-keyspace-events", "KEA"}, "OK", []string{"notify-keyspace-events", "AKE"}},
	{[]string{"notify-keyspace-events", "KEAmn"}, "OK", []string{"notify-keyspace-events", "AKEm"}},
	{[]string{"notify-keyspace-events", "Kg$x"}, "OK", []string{"notify-keyspace-events", "g$xK"}},
	{[]string{"notify-keyspace-events", "Kx\x00Q"}, "OK", []string{"notify-keyspace-events", "xK"}},
	{[]string{"notify-keyspace-events", "KQ"}, cfgFailed("notify-keyspace-events", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."), nil},
	{[]string{"latency-tracking-info-percentiles", "99.99 1e-7 0.5"}, "OK", []string{"latency-tracking-info-percentiles", "99.99 0 0.5"}},
	{[]string{"latency-tracking-info-percentiles", ""}, "OK", []string{"latency-tracking-info-percentiles", ""}},
	{[]string{"latency-tracking-info-percentiles", "100.0001"}, cfgFailed("latency-tracking-info-percentiles", "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"), nil},
	{[]string{"latency-tracking-info-percentiles", "nan"}, cfgFailed("latency-tracking-info-percentiles", "Invalid latency-tracking-info-percentiles parameters"), nil},
	{[]string{"latency-tracking-info-percentiles", " 50"}, cfgFailed("latency-tracking-info-percentiles", "Invalid latency-tracking-info-percentiles parameters"), nil},
	{[]string{"dir", "/tmp"}, cfgFailed("dir", "can't set protected config"), nil},
	{[]string{"replicaof", "127.0.0.1 6379"}, cfgFailed("replicaof", "can't set immutable config"), nil},
	{[]string{"slaveof", "no one"}, cfgFailed("slaveof", "can't set immutable config"), nil},
	{[]string{"daemonize", "yes"}, cfgFailed("daemonize", "can't set immutable config"), nil},
	{[]string{"unixsocketperm", "700"}, cfgFailed("unixsocketperm", "can't set immutable config"), nil},
	{[]string{"tls-replication", "yes"}, cfgFailed("tls-replication", "Unable to update TLS configuration. Check server logs."), []string{"tls-replication", "no"}},
	{[]string{"tls-cert-file", "/nonexistent"}, "OK", []string{"tls-cert-file", "/nonexistent"}},
	// unknown names, several pairs, atomicity
	{[]string{"set-max-listpack-entries", "1"}, "-ERR Unknown option or number of arguments for CONFIG SET - 'set-max-listpack-entries'", nil},
	{[]string{"NoSuch", "1"}, "-ERR Unknown option or number of arguments for CONFIG SET - 'NoSuch'", nil},
	{[]string{"maxmemory"}, "-ERR wrong number of arguments for 'config|set' command", nil},
	{[]string{"maxmemory", "1mb", "hz"}, "-ERR syntax error", nil},
	{[]string{"maxmemory", "1mb", "maxmemory", "2mb"}, cfgFailed("maxmemory", "duplicate parameter"), []string{"maxmemory", "0"}},
	{[]string{"maxmemory", "1mb", "MAXMEMORY", "2mb"}, cfgFailed("MAXMEMORY", "duplicate parameter"), nil},
	{[]string{"maxmemory", "abc", "maxmemory", "1"}, cfgFailed("maxmemory", "duplicate parameter"), nil},
	{[]string{"lua-time-limit", "1", "busy-reply-threshold", "2"}, "OK", []string{"busy-reply-threshold", "2"}},
	{[]string{"maxmemory", "1mb", "hz", "abc"}, cfgFailed("hz", "argument couldn't be parsed into an integer"), []string{"maxmemory", "0", "hz", "10"}},
	{[]string{"maxmemory", "1mb", "save", "1", "hz", "20"}, cfgFailed("save", "Invalid save parameters"), []string{"maxmemory", "0", "hz", "10", "save", "3600 1 300 100 60 10000"}},
	{[]string{"maxmemory", "1mb", "tls-replication", "yes", "hz", "20"}, cfgFailed("tls-replication", "Unable to update TLS configuration. Check server logs."), []string{"maxmemory", "0", "hz", "10"}},
	{[]string{"nosuch", "1", "daemonize", "yes"}, "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'", nil},
	{[]string{"daemonize", "yes", "nosuch", "1"}, cfgFailed("daemonize", "can't set immutable config"), nil},
	{[]string{"maxmemory", "1mb", "nosuch", "1"}, "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'", []string{"maxmemory", "0"}},
	{[]string{"dir", "/tmp", "daemonize", "yes"}, cfgFailed("dir", "can't set protected config"), nil},
	{[]string{"maxmemory", "1mb", "maxmemory-policy", "allkeys-lru", "notify-keyspace-events", "Ex"}, "OK",
		[]string{"maxmemory", "1048576", "maxmemory-policy", "allkeys-lru", "notify-keyspace-events", "xE"}},
}

func TestConfigSet(t *testing.T) {
	for _, tc := range configSetCases {
		r := newTestParams(DefaultConfig())
		if got := cfgReply(r.Set(cfgArgs(tc.args...), false)); got != tc.want {
			t.Errorf("CONFIG SET %q = %q, want %q", tc.args, got, tc.want)
		}
		for i := 0; i+1 < len(tc.get); i += 2 {
			if got := cfgGet(r, tc.get[i]); got != tc.get[i+1] {
				t.Errorf("after CONFIG SET %q: %s = %q, want %q", tc.args, tc.get[i], got, tc.get[i+1])
			}
		}
	}
}

func TestConfigSetTypedFields(t *testing.T) {
	r := newTestParams(DefaultConfig())
	err := r.Set(cfgArgs("maxmemory", "2mb", "maxmemory-policy", "allkeys-lfu", "notify-keyspace-events", "KEA",
		"client-output-buffer-limit", "pubsub 1 2 3", "save", "10 1", "bind", "127.0.0.1 ::1", "lazyfree-lazy-expire", "yes",
		"busy-reply-threshold", "7", "list-max-listpack-size", "-3", "requirepass", "p\x00w", "protected-mode", "no"), false)
	if err != nil {
		t.Fatal(err)
	}
	c := *r.cfg
	checks := []struct {
		name      string
		got, want any
	}{
		{"maxmemory", c.MaxMemory, uint64(2 << 20)},
		{"policy", c.MaxMemoryPolicy, "allkeys-lfu"},
		{"notify", c.NotifyKeyspaceEvents, NotifyAll | NotifyKeyspace | NotifyKeyevent},
		{"cobl", c.ClientOutputBufferLimit[OutputBufferPubSub], OutputBufferLimit{1, 2, 3}},
		{"save", fmt.Sprint(c.Save), "[{10 1}]"},
		{"bind", strings.Join(c.Bind, ","), "127.0.0.1,::1"},
		{"lazyfree", c.LazyfreeLazyExpire, true},
		{"busy", c.BusyReplyThreshold, int64(7)},
		{"list", c.ListMaxListpackSize, -3},
		{"requirepass", c.RequirePass, "p\x00w"},
		{"params", fmt.Sprint(c.Params), "map[protected-mode:no]"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s: got %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	// Setting a stored-only parameter back to its default forgets it.
	if err := r.Set(cfgArgs("protected-mode", "yes"), false); err != nil || len(r.cfg.Params) != 0 {
		t.Errorf("Params after reset: %v (%v)", r.cfg.Params, err)
	}
}

func TestConfigSetProtected(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir()) // as getcwd would print it
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Params = map[string]string{"enable-protected-configs": "local"}
	r := newTestParams(cfg)
	if got := cfgReply(r.Set(cfgArgs("dir", dir), false)); got != cfgFailed("dir", "can't set protected config") {
		t.Errorf("remote client: %s", got)
	}
	if err := r.Set(cfgArgs("dir", dir), true); err != nil || cfgGet(r, "dir") != dir {
		t.Errorf("local client: %v, dir %q", err, cfgGet(r, "dir"))
	}
	if got := cfgReply(r.Set(cfgArgs("dir", dir+"/missing"), true)); got != cfgFailed("dir", "No such file or directory") {
		t.Errorf("missing dir: %s", got)
	}
	if err := os.WriteFile(dir+"/f", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cfgReply(r.Set(cfgArgs("dir", "f"), true)); got != cfgFailed("dir", "Not a directory") {
		t.Errorf("file as dir: %s", got)
	}
	if err := os.Mkdir(dir+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Set(cfgArgs("dir", "sub"), true); err != nil || cfgGet(r, "dir") != dir+"/sub" {
		t.Errorf("relative dir: %v, dir %q", err, cfgGet(r, "dir"))
	}
}

// TestConfigSetApplyRollback checks Redis's apply phase: hooks run once per
// command after all values are stored, and a failing hook restores every
// value and runs the hooks again.
func TestConfigSetApplyRollback(t *testing.T) {
	r := newTestParams(DefaultConfig())
	var calls []string
	r.OnApply(func() error {
		calls = append(calls, "mem:"+strconv.FormatUint(r.cfg.MaxMemory, 10))
		return nil
	}, "maxmemory", "maxmemory-policy")
	r.OnApply(func() error {
		calls = append(calls, "port:"+strconv.Itoa(r.cfg.Port))
		if r.cfg.Port == 1 {
			return errors.New("Unable to listen on this port. Check server logs.")
		}
		return nil
	}, "port")

	if err := r.Set(cfgArgs("maxmemory-policy", "allkeys-lru", "maxmemory", "10"), false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"mem:10"}; !slices.Equal(calls, want) {
		t.Errorf("hook calls %q, want %q", calls, want)
	}
	calls = nil
	if err := r.Set(cfgArgs("maxmemory", "10"), false); err != nil || len(calls) != 0 {
		t.Errorf("unchanged value ran hooks %q (%v)", calls, err)
	}
	calls = nil
	err := r.Set(cfgArgs("maxmemory", "20", "port", "1"), false)
	if got, want := cfgReply(err), cfgFailed("port", "Unable to listen on this port. Check server logs."); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if want := []string{"mem:20", "port:1", "mem:10", "port:6379"}; !slices.Equal(calls, want) {
		t.Errorf("hook calls %q, want %q", calls, want)
	}
	if cfgGet(r, "maxmemory") != "10" || cfgGet(r, "port") != "6379" {
		t.Errorf("not rolled back: maxmemory %s port %s", cfgGet(r, "maxmemory"), cfgGet(r, "port"))
	}
}

func TestConfigGet(t *testing.T) {
	r := newTestParams(DefaultConfig())
	cases := []struct {
		patterns []string
		want     string // emitted names, space separated, in order
	}{
		{[]string{"maxmemory"}, "maxmemory"},
		{[]string{"MaxMemory"}, "MaxMemory"},
		{[]string{"maxmemory", "MAXMEMORY"}, "maxmemory"},
		{[]string{"slaveof"}, "slaveof"},
		{[]string{"lua-time-limit", "busy-reply-threshold"}, "lua-time-limit busy-reply-threshold"},
		{[]string{"*lua-time*"}, "lua-time-limit"},
		{[]string{"MAXMEMORY-*"}, "maxmemory-policy maxmemory-samples maxmemory-eviction-tenacity maxmemory-clients"},
		{[]string{"maxmemory-p?licy", "maxmemory*"}, "maxmemory-policy maxmemory-samples maxmemory-eviction-tenacity maxmemory maxmemory-clients"},
		{[]string{"maxmemory", "maxmemory*"}, "maxmemory maxmemory-policy maxmemory-samples maxmemory-eviction-tenacity maxmemory-clients"},
		{[]string{"*slave-p*"}, "slave-priority repl-ping-slave-period"},
		{[]string{"key-load-delay"}, "key-load-delay"},
		{[]string{"key-load-*"}, ""},
		{[]string{"[k]ey-load-delay"}, ""},
		{[]string{"nosuch", "*nosuch*"}, ""},
		{[]string{"maxmemory\\"}, ""},
		{[]string{"h[z]"}, "hz"},
		{[]string{"hz", "hz"}, "hz"},
		{[]string{"maxmemory\x00"}, ""},
	}
	for _, tc := range cases {
		var got []string
		r.Get(cfgArgs(tc.patterns...), func(name, _ string) { got = append(got, name) })
		if strings.Join(got, " ") != tc.want {
			t.Errorf("CONFIG GET %q = %q, want %q", tc.patterns, got, tc.want)
		}
	}
	var all int
	r.Get(cfgArgs("*"), func(string, string) { all++ })
	if all != 192 {
		t.Errorf("CONFIG GET * lists %d names, want 192", all)
	}
}

func TestConfigNotifyFlags(t *testing.T) {
	cases := []struct{ in, out string }{
		{"", ""}, {"KEA", "AKE"}, {"Ag", "A"}, {"AKn", "AK"}, {"g$lshzxetd", "A"},
		{"Kx", "xK"}, {"KEn", "nKE"}, {"Ed", "dE"}, {"mK", "Km"}, {"nm", "nm"},
	}
	for _, tc := range cases {
		f, ok := ParseNotifyFlags(tc.in)
		if !ok || f.String() != tc.out {
			t.Errorf("ParseNotifyFlags(%q) = %q, %v; want %q", tc.in, f.String(), ok, tc.out)
		}
	}
	if _, ok := ParseNotifyFlags("KEq"); ok {
		t.Error("KEq accepted")
	}
	f, _ := ParseNotifyFlags("AKn")
	if !f.Class('n') || !f.Class('g') || f.Class('m') || f&NotifyKeyevent != 0 {
		t.Errorf("AKn classes wrong: %b", f)
	}
}

// ---------------------------------------------------------------------------
// Differential test against redis-server 7.0.15.

// redisOnlyDefaults are parameters whose default depends on how and where
// the process runs, or where miniwatchd deliberately differs.
var redisOnlyDefaults = map[string]bool{
	"port":                 true, // the test server runs on a free port
	"bind":                 true, // Redis "* -::*", miniwatchd 127.0.0.1
	"dir":                  true, // the working directory of each process
	"enable-debug-command": true, // miniwatchd defaults to yes (test double)
}

// redisServerPath returns the redis-server to compare with, skipping the
// test when there is none outside CI.
func redisServerPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not found (required in CI)")
		}
		t.Skip("redis-server not found")
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil || !strings.Contains(string(out), "v="+RedisVersion+" ") {
		t.Skipf("redis-server is not %s: %s", RedisVersion, out)
	}
	return p
}

// freePort returns a TCP port that was free a moment ago.
func cfgFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startRedisWith runs redis-server with args (which must make it listen on
// 127.0.0.1:port) in a temporary directory until the test ends, and
// returns a connection to it.
func startRedisWith(t *testing.T, port int, args ...string) *cfgRedisConn {
	t.Helper()
	cmd := exec.Command(redisServerPath(t), args...)
	cmd.Dir = t.TempDir()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return &cfgRedisConn{c: c, r: bufio.NewReader(c)}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server %q did not start: %v", args, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cfgRedisConn is a minimal RESP2 client.
type cfgRedisConn struct {
	c net.Conn
	r *bufio.Reader
}

// cfgRespError is an error reply.
type cfgRespError string

func (rc *cfgRedisConn) do(t *testing.T, args ...string) any {
	t.Helper()
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, "\r\n"...)
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	rc.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.c.Write(b); err != nil {
		t.Fatal(err)
	}
	v, err := rc.read()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (rc *cfgRedisConn) read() (any, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return cfgRespError(line[1:]), nil
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		out := make([]any, 0, max(n, 0))
		for i := 0; i < n; i++ {
			v, err := rc.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}

// redisReply renders a reply as reply does: "OK" or "-<error>".
func cfgRedisReply(v any) string {
	switch v := v.(type) {
	case cfgRespError:
		return "-" + string(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// redisConfigGet returns CONFIG GET's pairs as a map.
func redisConfigGet(t *testing.T, rc *cfgRedisConn, pattern string) map[string]string {
	t.Helper()
	arr, ok := rc.do(t, "CONFIG", "GET", pattern).([]any)
	if !ok || len(arr)%2 != 0 {
		t.Fatalf("CONFIG GET %s: unexpected reply", pattern)
	}
	m := make(map[string]string)
	for i := 0; i < len(arr); i += 2 {
		m[arr[i].(string)] = arr[i+1].(string)
	}
	return m
}

// TestConfigMatchesRedis compares the registry with redis-server 7.0.15:
// the names CONFIG GET * lists and their defaults, the hidden parameters,
// and the reply and resulting values of configSetCases and of a sweep of
// invalid values over every parameter name.
func TestConfigMatchesRedis(t *testing.T) {
	port := cfgFreePort(t)
	rc := startRedisWith(t, port, "--port", strconv.Itoa(port), "--bind", "127.0.0.1")
	redisDefaults := redisConfigGet(t, rc, "*")
	ours := map[string]string{}
	r := newTestParams(DefaultConfig())
	r.Get(cfgArgs("*"), func(n, v string) { ours[n] = v })
	for n, v := range redisDefaults {
		if redisOnlyDefaults[n] {
			continue
		}
		if ov, ok := ours[n]; !ok {
			t.Errorf("CONFIG GET * lacks %s", n)
		} else if ov != v {
			t.Errorf("default of %s: ours %q, Redis %q", n, ov, v)
		}
	}
	for n := range ours {
		if _, ok := redisDefaults[n]; !ok {
			t.Errorf("CONFIG GET * lists %s, Redis does not", n)
		}
	}
	defaults := map[string]string{} // every name, hidden ones included
	for _, e := range paramIndex.entries {
		if IsOurParam(e.def.name) {
			continue // miniwatchd's own: Redis has no such parameter
		}
		if e.def.flags&paramHidden == 0 {
			defaults[e.name] = redisDefaults[e.name]
			continue
		}
		m := redisConfigGet(t, rc, e.name)
		if len(m) != 1 || m[e.name] != cfgGet(r, e.name) {
			t.Errorf("hidden %s: Redis %q, ours %q", e.name, m, cfgGet(r, e.name))
		}
		defaults[e.name] = m[e.name]
	}

	// CONFIG SET cases: curated ones, then invalid values for every name.
	cases := slices.Clone(configSetCases)
	sweep := []string{"abc", "-1", "99999999999999999999", "1.5", "", "yes"}
	for _, e := range paramIndex.entries {
		switch e.def.name {
		case "bind", "requirepass":
			continue // changing them would cut the test's connection
		}
		if IsOurParam(e.def.name) {
			continue
		}
		for _, v := range append(outOfBounds(e.def), sweep...) {
			cases = append(cases, cfgSetCase{args: []string{e.name, v}, get: []string{e.name, ""}})
		}
	}
	compared := 0
	for _, tc := range cases {
		ourR := newTestParams(DefaultConfig())
		ourReply := cfgReply(ourR.Set(cfgArgs(tc.args...), false))
		redisArgs := append([]string{"CONFIG", "SET"}, tc.args...)
		redisRep := cfgRedisReply(rc.do(t, redisArgs...))
		if ourReply != redisRep {
			t.Errorf("CONFIG SET %q: ours %q, Redis %q", tc.args, ourReply, redisRep)
		}
		compared++
		// Compare the values of every name involved, then restore Redis.
		var names []string
		for i := 0; i < len(tc.args); i += 2 {
			names = append(names, tc.args[i])
		}
		for i := 0; i < len(tc.get); i += 2 {
			names = append(names, tc.get[i])
		}
		for _, n := range names {
			e := lookupParam([]byte(n))
			if e == nil || redisOnlyDefaults[e.def.name] {
				continue
			}
			rv := redisConfigGet(t, rc, n)[n]
			if ov := cfgGet(ourR, n); ov != rv {
				t.Errorf("after CONFIG SET %q: %s ours %q, Redis %q", tc.args, n, ov, rv)
			}
		}
		if redisRep == "OK" {
			for _, n := range names {
				if e := lookupParam([]byte(n)); e != nil {
					rc.do(t, "CONFIG", "SET", e.name, defaults[e.name])
				}
			}
		}
	}
	if after := redisConfigGet(t, rc, "*"); !cfgMapsEqual(after, redisDefaults) {
		t.Errorf("Redis was not restored to its defaults")
	}
	t.Logf("compared %d defaults and %d CONFIG SET commands", len(redisDefaults), compared)
}

// outOfBounds returns the integers just outside d's bounds (those that
// fit the C type of the bound).
func outOfBounds(d *paramDef) []string {
	if d.kind != kindNumeric {
		return nil
	}
	var out []string
	if d.unsigned {
		if lo := uint64(d.min); lo > 0 {
			out = append(out, strconv.FormatUint(lo-1, 10))
		}
		if hi := uint64(d.max); hi < 1<<64-1 {
			out = append(out, strconv.FormatUint(hi+1, 10))
		}
		return out
	}
	if d.min > -1<<63 {
		out = append(out, strconv.FormatInt(d.min-1, 10))
	}
	if d.max < 1<<63-1 {
		out = append(out, strconv.FormatInt(d.max+1, 10))
	}
	return out
}

func cfgMapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
