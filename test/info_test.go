package test

import (
	"sort"
	"strings"
	"testing"
)

// INFO: values differ between any two servers, so the test compares the
// field names of the sections server, clients, memory, stats and keyspace:
// every field redis-server 7.0.15 reports must be there (miniwatchd may
// add its own). Fields that belong to a subsystem are required once
// miniwatchd implements the subsystem's commands.
var infoFieldOwners = map[string]string{
	"pubsub_channels":            "subscribe",
	"pubsub_patterns":            "psubscribe",
	"pubsubshard_channels":       "ssubscribe",
	"used_memory_lua":            "eval",
	"used_memory_lua_human":      "eval",
	"used_memory_vm_eval":        "eval",
	"used_memory_scripts_eval":   "eval",
	"number_of_cached_scripts":   "eval",
	"used_memory_vm_functions":   "fcall",
	"used_memory_functions":      "fcall",
	"number_of_functions":        "fcall",
	"number_of_libraries":        "fcall",
	"used_memory_vm_total":       "eval",
	"used_memory_vm_total_human": "eval",
	"used_memory_scripts":        "eval",
	"used_memory_scripts_human":  "eval",
}

func TestInfoFieldNames(t *testing.T) {
	p := newDiffPair(t)
	a := p.Conn("A")
	a.Do("SET", "k", "v")
	a.Do("SET", "t", "v", "EX", "100")
	for _, section := range []string{"server", "clients", "memory", "stats", "keyspace"} {
		want, got := a.DoMode(cmpShape, "INFO", section)
		wantFields, gotFields := infoFields(want.Text()), infoFields(got.Text())
		if len(wantFields) == 0 {
			t.Fatalf("INFO %s: redis-server reported no field", section)
		}
		var missing []string
		for name := range wantFields {
			if gotFields[name] {
				continue
			}
			if owner := infoFieldOwners[name]; owner != "" && len(missingCommands(t, []string{owner})) > 0 {
				continue // that subsystem is not there yet
			}
			missing = append(missing, name)
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("INFO %s lacks redis-server's fields: %s", section, strings.Join(missing, " "))
		}
		if !strings.HasPrefix(got.Text(), "# "+strings.ToUpper(section[:1])+section[1:]+"\r\n") {
			t.Errorf("INFO %s does not start with its section header: %q", section, got.Text())
		}
	}
	// The keyspace line's own fields.
	_, got := a.DoMode(cmpShape, "INFO", "keyspace")
	if !strings.Contains(got.Text(), "db0:keys=2,expires=1,avg_ttl=") {
		t.Errorf("INFO keyspace = %q", got.Text())
	}
}

// infoFields returns the field names of an INFO reply ("name:value" lines).
func infoFields(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\r\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, ok := strings.Cut(line, ":")
		if ok {
			out[name] = true
		}
	}
	return out
}

// TestInfoMaxmemoryFollowsConfig compares the INFO memory fields that
// echo the configuration after CONFIG SET.
func TestInfoMaxmemoryFollowsConfig(t *testing.T) {
	p := newDiffPair(t)
	p.taint()
	a := p.Conn("A")
	for _, set := range [][]string{
		{"maxmemory", "1gb", "maxmemory-policy", "allkeys-lru"},
		{"maxmemory", "123456789", "maxmemory-policy", "volatile-ttl"},
		{"maxmemory", "0", "maxmemory-policy", "noeviction"},
	} {
		a.Do(append([]string{"CONFIG", "SET"}, set...)...)
		want, got := a.DoMode(cmpShape, "INFO", "memory")
		wv, gv := infoValues(want.Text()), infoValues(got.Text())
		for _, name := range []string{"maxmemory", "maxmemory_human", "maxmemory_policy"} {
			if wv[name] != gv[name] {
				t.Errorf("after CONFIG SET %q: INFO %s is %q, redis-server says %q", set, name, gv[name], wv[name])
			}
		}
	}
}

// infoValues returns the "name:value" fields of an INFO reply.
func infoValues(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[name] = value
		}
	}
	return out
}
